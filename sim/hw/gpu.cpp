#include "hw/gpu.hpp"

#include "core/catalogue.hpp"
#include "core/data_files.hpp"

namespace hw {

namespace {

// data/gpus/*.json, each figure with its source.
const std::vector<Gpu>& gpu_catalogue() {
  static const std::vector<Gpu> gpus = [] {
    std::vector<Gpu> out;
    for (const auto& [path, doc] : core::read_data_folder("gpus")) {
      core::JsonReader r(doc, path + ": ");
      Gpu g;
      g.name = r.string("name");
      // NVIDIA where a file does not say (every GPU before the MI300X was).
      if (r.has("vendor")) g.vendor = r.one_of("vendor", gpu_vendors());
      g.sm_count = static_cast<int>(r.positive_integer("sm_count", 100'000));
      // Ranges any GPU sits in by orders of magnitude (a TFLOP/s to an EFLOP/s, a GB to a PB of
      // memory), so that a slip of the exponent is refused, not timed.
      g.bf16_dense_flops_per_s = r.number_in("bf16_dense_flops_per_s", 1e12, 1e18);
      g.fp8_dense_flops_per_s = r.number_in("fp8_dense_flops_per_s", 0, 1e18);  // 0: no FP8 tensor cores
      if (g.fp8_dense_flops_per_s > 0 && g.fp8_dense_flops_per_s < 1e12)
        r.number_in("fp8_dense_flops_per_s", 1e12, 1e18);
      g.hbm_bytes = r.number_in("hbm_bytes", 1e9, 1e15);
      g.hbm_bandwidth_Bps = r.number_in("hbm_bandwidth_Bps", 1e10, 1e15);
      g.boost_clock_Hz = r.number_in("boost_clock_Hz", 0, 1e10);  // 0: not published
      std::vector<std::string> figures = {"sm_count",  "bf16_dense_flops_per_s", "fp8_dense_flops_per_s",
                                          "hbm_bytes", "hbm_bandwidth_Bps",      "boost_clock_Hz"};
      if (r.has("vendor")) figures.push_back("vendor");
      // Optional figures, each with its source where given.
      for (auto [key, value] : {std::pair{"fp4_dense_flops_per_s", &g.fp4_dense_flops_per_s},
                                {"fp16_dense_flops_per_s", &g.fp16_dense_flops_per_s},
                                {"int8_dense_ops_per_s", &g.int8_dense_ops_per_s},
                                {"l2_bytes", &g.l2_bytes},
                                {"tdp_W", &g.tdp_W}}) {
        if (!r.has(key)) continue;
        *value = r.number_in(key, 0, 1e18);
        figures.push_back(key);
      }
      core::require_sources(r, figures);
      r.finish();
      out.push_back(g);
    }
    return out;
  }();
  return gpus;
}

}  // namespace

const std::vector<std::string>& gpu_vendors() {
  static const std::vector<std::string> vendors = {"NVIDIA", "AMD"};
  return vendors;
}

std::vector<std::string> gpu_names() { return core::names_of(gpu_catalogue()); }

const Gpu& gpu_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(gpu_catalogue(), name, "GPU", where);
}

}  // namespace hw
