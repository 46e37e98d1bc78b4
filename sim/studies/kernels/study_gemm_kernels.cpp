#include "studies/kernels/study_gemm_kernels.hpp"

#include <cmath>

#include "core/input_error.hpp"
#include "studies/report/joined.hpp"
#include "hw/gemm_library.hpp"

namespace studies {

namespace {

// "; held from X's fit, not fitted: a, b" for a library holding constants; else nothing.
std::string held_note(const hw::GemmLibrary& library) {
  if (library.held.empty()) return "";
  return "; held from " + library.held_from + "'s fit, not fitted: " + joined(library.held, ", ");
}

std::string precision_name(hw::GemmPrecision p) {
  return p == hw::GemmPrecision::kFp8 ? "FP8" : p == hw::GemmPrecision::kFp4 ? "FP4" : "BF16";
}

// A published rate the library was not fitted to, predicted by its model on `gpu`.
struct Check {
  hw::GemmShape shape;
  double tflops = 0;
};

class GemmKernelsStudy : public Study {
 public:
  const hw::GemmLibrary* library = nullptr;
  const hw::Gpu* check_gpu = nullptr;
  std::vector<Check> checks;
  std::string checks_source;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    if (!checks.empty()) {
      check_rows(r);
      return r;
    }
    const hw::Gpu& gpu = *library->measured_on;
    const int sms = gpu.sm_count;
    const std::string type = precision_name(library->precision);
    for (const auto& row : library->rows) {
      const hw::GemmShape& s = row.shape;
      const auto t = hw::gemm_tiling(s, sms, library->constants.min_block_m);
      const double seconds = hw::gemm_seconds(gpu, s, sms, library->constants);
      auto dim = [](double x) { return format_number(x); };
      const std::string kind = hw::gemm_kind_names()[static_cast<int>(s.kind)];
      const std::string shape =
          (s.groups > 1 ? dim(s.groups) + " x " : "") + dim(s.m) + " x " + dim(s.n) + " x " + dim(s.k);
      const std::string id =
          kind + "/" + (s.groups > 1 ? dim(s.groups) + "x" : "") + dim(s.m) + "x" + dim(s.n) + "x" + dim(s.k);
      const std::string known =
          row.uncertainty > 0 ? "; derived, +-" + format_number(std::round(row.uncertainty * 1000) / 10) + "%" : "";
      r.rows.push_back({id, kind + " " + shape,
                        type + " GEMM rate (tiles " + std::to_string(t.block_m) + " x " + std::to_string(t.block_n) +
                            ", " + format_number(t.waves) + " waves" + known + ")",
                        "TFLOPS", row.tflops, s.flops() / seconds / 1e12, Basis::kFit});
    }
    const auto& c = library->constants;
    auto efficiency = [&](double e) {
      return e > 0 ? format_number(std::round(e * 1000) / 1000) : std::string("none (no rows)");
    };
    r.notes.push_back(library->name + ": " + library->description + " Source: " + library->source + ".");
    r.notes.push_back(
        library->name + ": shapes as M x N x K (groups x M per group x N x K for grouped GEMMs), on " +
        std::to_string(sms) + " SMs of an " + gpu.name + ". The kernel model's constants, fitted once to all " +
        std::to_string(library->rows.size()) + " rows together (hw/gemm_fit.hpp; RMS error of the log rate " +
        format_number(std::round(library->fit_rms_log_error * 1000) / 1000) + "): K-loop efficiency " +
        efficiency(c.mma_efficiency) + " of the per-SM " + type + " peak (masked " +
        efficiency(c.masked_mma_efficiency) + ", weight gradient " + efficiency(c.weight_gradient_efficiency) + "), " +
        format_number(std::round(c.tile_fill_s * 1e8) / 100) + " us to fill each tile's pipeline, HBM at " +
        efficiency(c.hbm_efficiency) + " of " + format_number(gpu.hbm_bandwidth_Bps / 1e12) +
        " TB/s, operand loads from L2 at " + format_number(std::round(c.l2_Bps / 1e11) / 10) + " TB/s, " +
        format_number(std::round(c.launch_s * 1e8) / 100) + " us launch" + held_note(*library) + ".");
    return r;
  }

  void check_rows(StudyResult& r) const {
    const hw::Gpu& gpu = *check_gpu;
    const std::string type = precision_name(library->precision);
    for (const auto& c : checks) {
      const hw::GemmShape& s = c.shape;
      const auto t = hw::gemm_tiling(s, gpu.sm_count, library->constants.min_block_m);
      const double seconds = hw::gemm_seconds(gpu, s, gpu.sm_count, library->constants);
      const std::string shape = format_number(s.m) + " x " + format_number(s.n) + " x " + format_number(s.k);
      r.rows.push_back(
          {"check/" + gpu.name + "/" + format_number(s.m) + "x" + format_number(s.n) + "x" + format_number(s.k),
           "dense " + shape + " (" + gpu.name + ")",
           type + " GEMM rate, predicted (tiles " + std::to_string(t.block_m) + " x " + std::to_string(t.block_n) +
               ", " + format_number(t.waves) + " waves)",
           "TFLOPS", c.tflops, s.flops() / seconds / 1e12, Basis::kSimulated});
    }
    r.notes.push_back(
        "Predicted, not fitted: " + std::to_string(checks.size()) + " published " + gpu.name + " GEMM rates (" +
        checks_source + ") against " + library->name + "'s kernel model, fitted to other rows" +
        (gpu.name == library->measured_on->name
             ? ""
             : " measured on the " + library->measured_on->name + " and scaled by the " + gpu.name + "'s datasheet") +
        ".");
  }
};

}  // namespace

std::unique_ptr<Study> parse_gemm_kernels_study(core::JsonReader& root) {
  auto s = std::make_unique<GemmKernelsStudy>();
  core::JsonReader g = root.object("gemm_kernels");
  s->library = &hw::gemm_library(g.string("library"), g.pointer_of("library"));
  if (g.has("checks")) {
    s->check_gpu =
        &hw::gpu_by_name(g.one_of("gpu", hw::gpu_names(), s->library->measured_on->name), g.pointer_of("gpu"));
    if (!s->library->runs_on_gpu(s->check_gpu->name))
      throw core::InputError(g.pointer_of("gpu"), "'" + s->check_gpu->name + "' is not allowed; " + s->library->name +
                                                      "'s kernels do not run on it");
    s->checks_source = g.string("checks_source");
    for (auto& item : g.object_list("checks", "published GEMM rates")) {
      Check c;
      c.shape.kind = hw::GemmKind::kDense;
      c.shape.precision = s->library->precision;
      c.shape.m = static_cast<double>(item.positive_integer("m", 1 << 24));
      c.shape.n = static_cast<double>(item.positive_integer("n", 1 << 24));
      c.shape.k = static_cast<double>(item.positive_integer("k", 1 << 24));
      c.tflops = item.number_in("tflops", 1e-3, 1e5);
      item.finish();
      s->checks.push_back(c);
    }
  }
  g.finish();
  return s;
}

}  // namespace studies
