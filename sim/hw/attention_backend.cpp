#include "hw/attention_backend.hpp"

#include "core/catalogue.hpp"
#include "core/data_files.hpp"

namespace hw {

namespace {

const std::vector<AttentionBackend>& backend_catalogue() {
  static const std::vector<AttentionBackend> backends = [] {
    std::vector<AttentionBackend> out;
    for (const auto& [path, doc] : core::read_data_folder("attention_kernels")) {
      core::JsonReader r(doc, path + ": ");
      AttentionBackend b;
      b.name = r.string("name");
      b.description = r.string("description");
      b.source = r.string("source");
      const Gpu& measured_on = gpu_by_name(r.string("measured_on"), r.pointer_of("measured_on"));
      if (r.one_of("model", {"flash-attention", "flash-mla-decode"}) == "flash-attention") {
        FlashAttentionCalibration& c = b.flash;
        c.mma_efficiency = r.number_in("mma_efficiency", 1e-3, 1);  // a share of the tensor cores' peak
        c.softmax_s_per_score = r.number_in("softmax_s_per_score", 0, 1e-6);
        c.tile_s = r.number_in("tile_s", 0, 1e-2);
        c.cta_s = r.number_in("cta_s", 0, 1e-2);
        c.mask_s_per_score = r.number_in("mask_s_per_score", 0, 1e-6);
        c.backward_mma_efficiency = r.number_in("backward_mma_efficiency", 1e-3, 1);
        c.backward_tile_s = r.number_in("backward_tile_s", 0, 1e-2);
        c.backward_cta_s = r.number_in("backward_cta_s", 0, 1e-2);
        c.hbm_Bps = r.number_in("hbm_Bps", 1e10, 1e15);
        c.measured_hbm_Bps = measured_on.hbm_bandwidth_Bps;
        core::require_sources(r, {"mma_efficiency", "softmax_s_per_score", "tile_s", "cta_s", "mask_s_per_score", "backward_mma_efficiency",
                                  "backward_tile_s", "backward_cta_s", "hbm_Bps"});
      } else {
        b.model = AttentionModel::kFlashMlaDecode;
        b.mla.hbm_share = r.number_in("hbm_Bps", 1e10, 1e15) / measured_on.hbm_bandwidth_Bps;
        b.mla.bf16_share = r.number_in("bf16_flops_per_s", 1e12, 1e18) / measured_on.bf16_dense_flops_per_s;
        core::require_sources(r, {"hbm_Bps", "bf16_flops_per_s"});
      }
      r.finish();
      out.push_back(b);
    }
    return out;
  }();
  return backends;
}

}  // namespace

std::vector<std::string> attention_backend_names() { return core::names_of(backend_catalogue()); }

const AttentionBackend& attention_backend(const std::string& name, const std::string& where) {
  return core::find_by_name(backend_catalogue(), name, "attention backend", where);
}

}  // namespace hw
