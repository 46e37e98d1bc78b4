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
      g.sm_count = static_cast<int>(r.positive_integer("sm_count", 100'000));
      g.bf16_dense_flops_per_s = r.positive_number("bf16_dense_flops_per_s");
      g.fp8_dense_flops_per_s = r.non_negative_number("fp8_dense_flops_per_s");  // 0: no FP8 tensor cores
      g.hbm_bytes = r.positive_number("hbm_bytes");
      g.hbm_bandwidth_Bps = r.positive_number("hbm_bandwidth_Bps");
      g.boost_clock_Hz = r.non_negative_number("boost_clock_Hz");  // 0: not published
      std::vector<std::string> figures = {"sm_count", "bf16_dense_flops_per_s", "fp8_dense_flops_per_s", "hbm_bytes", "hbm_bandwidth_Bps",
                                          "boost_clock_Hz"};
      // Optional figures, each with its source where given.
      for (auto [key, value] : {std::pair{"fp4_dense_flops_per_s", &g.fp4_dense_flops_per_s}, {"fp16_dense_flops_per_s", &g.fp16_dense_flops_per_s},
                                {"int8_dense_ops_per_s", &g.int8_dense_ops_per_s}, {"l2_bytes", &g.l2_bytes}, {"tdp_W", &g.tdp_W}}) {
        if (!r.has(key)) continue;
        *value = r.non_negative_number(key);
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

std::vector<std::string> gpu_names() { return core::names_of(gpu_catalogue()); }

const Gpu& gpu_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(gpu_catalogue(), name, "GPU", where);
}

}  // namespace hw
