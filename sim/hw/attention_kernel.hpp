#pragma once
// Time of FlashMLA's decode kernel: MLA attention of queries over a compressed KV cache, bound
// by reading the cache or, once query heads x query tokens per sequence reach about 128, by the
// tensor cores. Its published rates on H800 (data/attention_kernels/flashmla.json: up to 3000
// GB/s memory-bound and 660 TFLOPS BF16 compute-bound) are kept as shares of the H800's HBM
// bandwidth and dense BF16 peak, so they carry to other GPUs.
#include "hw/gpu.hpp"

namespace hw {

struct FlashMlaRates {
  double hbm_share = 0;   // of the GPU's HBM bandwidth
  double bf16_share = 0;  // of the GPU's dense BF16 peak
};
const FlashMlaRates& flash_mla_rates();  // FlashMLA's, from its data file

double flash_mla_decode_seconds(const Gpu& gpu, double kv_bytes, double flops,
                                const FlashMlaRates& rates = flash_mla_rates());

}  // namespace hw
