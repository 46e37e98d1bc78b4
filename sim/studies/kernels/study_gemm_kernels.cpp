#include "studies/kernels/study_gemm_kernels.hpp"

#include <cmath>

#include "hw/gemm_library.hpp"

namespace studies {

namespace {

class GemmKernelsStudy : public Study {
 public:
  const hw::GemmLibrary* library = nullptr;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    const hw::Gpu& gpu = *library->measured_on;
    const int sms = gpu.sm_count;
    const std::string type = library->precision == hw::GemmPrecision::kFp8 ? "FP8" : "BF16";
    for (const auto& row : library->rows) {
      const hw::GemmShape& s = row.shape;
      const auto t = hw::gemm_tiling(s, sms, library->constants.min_block_m);
      const double seconds = hw::gemm_seconds(gpu, s, sms, library->constants);
      auto dim = [](double x) { return format_number(x); };
      const std::string kind = hw::gemm_kind_names()[static_cast<int>(s.kind)];
      const std::string shape = (s.groups > 1 ? dim(s.groups) + " x " : "") + dim(s.m) + " x " + dim(s.n) + " x " + dim(s.k);
      const std::string id = kind + "/" + (s.groups > 1 ? dim(s.groups) + "x" : "") + dim(s.m) + "x" + dim(s.n) + "x" + dim(s.k);
      const std::string known = row.uncertainty > 0 ? "; derived, +-" + format_number(std::round(row.uncertainty * 1000) / 10) + "%" : "";
      r.rows.push_back({id, kind + " " + shape,
                        type + " GEMM rate (tiles " + std::to_string(t.block_m) + " x " + std::to_string(t.block_n) + ", " +
                            format_number(t.waves) + " waves" + known + ")",
                        "TFLOPS", row.tflops, s.flops() / seconds / 1e12, Basis::kFit});
    }
    const auto& c = library->constants;
    auto efficiency = [&](double e) { return e > 0 ? format_number(std::round(e * 1000) / 1000) : std::string("none (no rows)"); };
    r.notes.push_back(library->name + ": " + library->description + " Source: " + library->source + ".");
    r.notes.push_back(library->name + ": shapes as M x N x K (groups x M per group x N x K for grouped GEMMs), on " + std::to_string(sms) +
                      " SMs of an " + gpu.name + ". The kernel model's constants, fitted once to all " + std::to_string(library->rows.size()) +
                      " rows together (hw/gemm_fit.hpp; RMS error of the log rate " +
                      format_number(std::round(library->fit_rms_log_error * 1000) / 1000) + "): K-loop efficiency " +
                      efficiency(c.mma_efficiency) + " of the per-SM " + type + " peak (masked " + efficiency(c.masked_mma_efficiency) +
                      ", weight gradient " + efficiency(c.weight_gradient_efficiency) + "), " +
                      format_number(std::round(c.tile_fill_s * 1e8) / 100) + " us to fill each tile's pipeline, HBM at " +
                      efficiency(c.hbm_efficiency) + " of " + format_number(gpu.hbm_bandwidth_Bps / 1e12) +
                      " TB/s, operand loads from L2 at " + format_number(std::round(c.l2_Bps / 1e11) / 10) + " TB/s, " +
                      format_number(std::round(c.launch_s * 1e8) / 100) + " us launch.");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_gemm_kernels_study(core::JsonReader& root) {
  auto s = std::make_unique<GemmKernelsStudy>();
  core::JsonReader g = root.object("gemm_kernels");
  s->library = &hw::gemm_library(g.string("library"), g.pointer_of("library"));
  g.finish();
  return s;
}

}  // namespace studies
