#include "hw/attention_kernel.hpp"

#include <algorithm>

#include "hw/attention_backend.hpp"

namespace hw {

const FlashMlaRates& flash_mla_rates() { return attention_backend("flashmla", "attention backend").mla; }

double flash_mla_decode_seconds(const Gpu& gpu, double kv_bytes, double flops, const FlashMlaRates& rates) {
  return std::max(kv_bytes / (gpu.hbm_bandwidth_Bps * rates.hbm_share),
                  flops / (gpu.bf16_dense_flops_per_s * rates.bf16_share));
}

}  // namespace hw
