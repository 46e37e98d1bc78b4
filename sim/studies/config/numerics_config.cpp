#include "studies/config/numerics_config.hpp"

#include <algorithm>

#include "core/input_error.hpp"

namespace studies {

std::optional<NumericsConfig> parse_numerics(core::JsonReader& root) {
  auto section = root.optional_object("numerics");
  if (!section) return std::nullopt;
  NumericsConfig c;
  c.model.accumulator_bits = static_cast<int>(section->positive_integer("accumulator_bits", 22, 64));
  c.model.product_fraction_bits = static_cast<int>(section->positive_integer("product_fraction_bits", 13, 64));
  c.model.promote_every = static_cast<int>(section->non_negative_integer("promote_every", 128, 65536));
  c.sample_rows = section->positive_integer("sample_rows", 32, 4096);
  c.sample_cols = section->positive_integer("sample_cols", 64, 4096);
  c.seed = static_cast<std::uint64_t>(section->positive_integer("seed", 1, core::JsonReader::kMaxInteger));
  try {
    hw::fp8::check_model(c.model, 128);
  } catch (const core::InputError& e) { throw core::InputError(section->pointer(), e.what()); }
  section->finish();
  return c;
}

std::vector<ReportRow> numerics_rows(const std::vector<GemmShape>& shapes, const NumericsConfig& c) {
  std::vector<ReportRow> rows;
  for (const auto& shape : shapes) {
    hw::fp8::GemmStudy s;
    s.m = std::min(shape.m, c.sample_rows);
    s.n = std::min(shape.n, c.sample_cols);
    s.k = shape.k;
    s.model = c.model;
    s.data = hw::fp8::Data::kNormal;
    s.seed = c.seed;
    const auto r = hw::fp8::run_gemm_study(s);
    const std::string label = "FP8 " + shape.name + " (" + std::to_string(shape.m) + " x " + std::to_string(shape.n) +
                              " x " + std::to_string(shape.k) + ", " + std::to_string(s.m) + " x " +
                              std::to_string(s.n) + " sampled)";
    rows.push_back({"numerics/" + shape.name + "/accumulation", label, "max error / output RMS, accumulation", "%",
                    std::nullopt, 100 * r.accumulation.max_over_rms, Basis::kSimulated});
    rows.push_back({"numerics/" + shape.name + "/total", label, "max error / output RMS, with quantisation", "%",
                    std::nullopt, 100 * r.total.max_over_rms, Basis::kSimulated});
  }
  return rows;
}

}  // namespace studies
