#include "studies/study_gemm_kernels.hpp"

#include "core/input_error.hpp"
#include "hw/gemm_kernel.hpp"

namespace studies {

namespace {

const std::vector<std::string>& kind_names() {
  static const std::vector<std::string> names = {"dense", "grouped-contiguous", "grouped-masked", "weight-gradient"};
  return names;
}

class GemmKernelsStudy : public Study {
 public:
  const hw::Gpu* gpu = nullptr;
  int sms = 0;
  std::vector<std::pair<std::string, hw::GemmShape>> shapes;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    for (const auto& [kind, s] : shapes) {
      const auto t = hw::gemm_tiling(s, sms);
      const double seconds = hw::gemm_seconds(*gpu, s, sms);
      auto dim = [](double x) { return format_number(x); };
      const std::string shape = (s.groups > 1 ? dim(s.groups) + " x " : "") + dim(s.m) + " x " + dim(s.n) + " x " + dim(s.k);
      const std::string id = kind + "/" + (s.groups > 1 ? dim(s.groups) + "x" : "") + dim(s.m) + "x" + dim(s.n) + "x" + dim(s.k);
      r.rows.push_back({id, kind + " " + shape, "FP8 GEMM rate (tiles " + std::to_string(t.block_m) + " x " +
                                                    std::to_string(t.block_n) + ", " + format_number(t.waves) + " waves)",
                        "TFLOPS", std::nullopt, s.flops() / seconds / 1e12, Basis::kSimulated});
    }
    const auto& c = hw::deepgemm_on_hopper();
    r.notes.push_back("Shapes as M x N x K (groups x M per group x N x K for grouped GEMMs), on " + std::to_string(sms) + " SMs of an " +
                      gpu->name + ". The kernel model's constants, fitted once to all these rows together: K-loop efficiency " +
                      format_number(c.mma_efficiency) + " of the per-SM FP8 peak (masked " + format_number(c.masked_mma_efficiency) +
                      ", weight gradient " + format_number(c.weight_gradient_efficiency) + "), " + format_number(c.tile_fill_s * 1e6) +
                      " us to fill each tile's pipeline, HBM at " + format_number(c.hbm_efficiency) + " of " +
                      format_number(gpu->hbm_bandwidth_Bps / 1e12) + " TB/s, operand loads from L2 at " + format_number(c.l2_Bps / 1e12) +
                      " TB/s, " + format_number(c.launch_s * 1e6) + " us launch.");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_gemm_kernels_study(core::JsonReader& root) {
  auto s = std::make_unique<GemmKernelsStudy>();
  s->gpu = &hw::gpu_by_name(root.one_of("gpu", hw::gpu_names(), "H800"), root.pointer_of("gpu"));
  core::JsonReader g = root.object("gemm_kernels");
  s->sms = static_cast<int>(g.positive_integer("sms", s->gpu->sm_count, s->gpu->sm_count));
  for (auto& item : g.object_list("shapes", "GEMM shapes")) {
    hw::GemmShape shape;
    const std::string kind = item.one_of("kind", kind_names());
    shape.kind = kind == "dense"                ? hw::GemmKind::kDense
                 : kind == "grouped-contiguous" ? hw::GemmKind::kGroupedContiguous
                 : kind == "grouped-masked"     ? hw::GemmKind::kGroupedMasked
                                                : hw::GemmKind::kWeightGradient;
    shape.m = static_cast<double>(item.positive_integer("m", 1 << 24));
    shape.n = static_cast<double>(item.positive_integer("n", 1 << 24));
    shape.k = static_cast<double>(item.positive_integer("k", 1 << 24));
    shape.groups = static_cast<int>(item.positive_integer("groups", 1, 4096));
    if (shape.groups > 1 && (kind == "dense" || kind == "weight-gradient"))
      throw core::InputError(item.pointer_of("groups"), std::to_string(shape.groups) + " is not allowed; only grouped kinds have groups");
    item.finish();
    s->shapes.emplace_back(kind, shape);
  }
  g.finish();
  return s;
}

}  // namespace studies
