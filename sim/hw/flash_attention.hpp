#pragma once
// Time of FlashAttention-3's forward and backward kernels on a Hopper GPU: one CTA per (batch,
// head, query tile), each looping over the key tiles it needs (all of them, or up to the
// diagonal under a causal mask); a key tile costs the larger of its tensor-core work and its
// softmax (FA3 overlaps the two), plus a fixed step; tiles that cross the diagonal pay for the
// mask; each CTA pays a prologue and epilogue; the CTAs share the SMs evenly. Tile shapes follow
// the head dimension as FA3 picks them (64: 192 x 128, 128: 128 x 176, 192: 128 x 112, 256:
// 128 x 80). Decode (the queries of a KV head fit one query tile) runs as FA3 runs it: the query
// heads that share a KV head packed into one tile (GQA), and the keys split over the SMs a grid
// smaller than the GPU leaves idle. No call is faster than reading Q, K and V and writing its
// output at the HBM rate an attention kernel streams at.
#include <string>

#include "hw/gpu.hpp"

namespace hw {

// Queries attend to keys; under a causal mask the queries are the last `queries` positions of
// the `keys` (a chunk of a sequence after all that precede it).
struct AttentionShape {
  double batch = 1, heads = 1, queries = 0, keys = 0;
  double qk_dim = 128, v_dim = 128;
  bool causal = true;
  double kv_heads = 0;  // GQA: fewer KV heads than query heads; 0: one per query head
  // FLOPs as FlashAttention counts them: 2 x (qk + v dims) per query-key pair, the pairs under
  // the mask only; the backward 2.5 times that.
  double forward_flops() const;
  double key_value_heads() const { return kv_heads > 0 ? kv_heads : heads; }
};

// The tile shapes a generation's kernels pick by head dimension: FlashAttention-3's on Hopper,
// FlashAttention-2's on Ampere and Ada (128 x 128 up to 64 dims, 128 x 64 above), FlashAttention-4's
// on Blackwell (128 x 128).
enum class AttentionTiles { kFa3, kFa2, kFa4 };

// A FlashAttention-style kernel's constants (data/attention_kernels/, model "flash-attention"):
// efficiencies of the per-SM BF16 peak at the boost clock, costs per score element, tile and CTA,
// and the HBM rate it streams K and V at.
struct FlashAttentionCalibration {
  AttentionTiles tiles = AttentionTiles::kFa3;
  // FA3 and FA4 overlap a tile's softmax with the next tile's tensor-core work (warp
  // specialisation); FA2 runs them one after the other.
  bool overlap_softmax = true;
  double mma_efficiency = 0;
  double softmax_s_per_score = 0;  // per score element of a tile, on one SM
  double tile_s = 0;
  double cta_s = 0;
  double mask_s_per_score = 0;  // extra, on tiles that cross the diagonal
  double backward_mma_efficiency = 0;
  double backward_tile_s = 0;
  double backward_cta_s = 0;
  double hbm_Bps = 0;  // measured on `measured_hbm_Bps`: kept as its share
  double measured_hbm_Bps = 0;
};
// FlashAttention-3's constants, fitted once to its published forward table on H100 SXM5 (36
// rows) and its full-mask backward figures (12 rows): `codesim tables --only kernels` shows
// the fit.
const FlashAttentionCalibration& flash_attention_3_on_hopper();

// Where a call's time goes: the CTAs (splits of the keys included) over the SMs, each CTA's key
// tiles bound by the tensor cores or the softmax, the fixed costs (prologues, steps, masks), and
// the floor of its bytes over HBM.
struct AttentionTime {
  double seconds = 0;
  double ctas = 0, waves = 0;
  double key_tiles = 0;  // of the longest CTA
  int splits = 1;        // of the keys, per (batch, head, query tile)
  bool packed_gqa = false;
  double mma_s = 0, softmax_s = 0, fixed_s = 0;  // summed over the CTAs, before they share the SMs
  double hbm_floor_s = 0;
  bool hbm_floor_binds = false;
  // "memory" (the HBM floor), "launch" (fixed costs over half the work) or "compute" (tensor
  // cores or softmax).
  std::string bound() const;
};

// Whether the queries of a KV head (its query heads side by side) fit one query tile of the
// kernel's: decode, which FlashAttention packs that way and engines run on their decode kernels.
bool queries_fit_one_tile(const AttentionShape& shape, const FlashAttentionCalibration& c);

AttentionTime flash_attention_time(const Gpu& gpu, const AttentionShape& shape, int sms, bool backward,
                                   const FlashAttentionCalibration& c = flash_attention_3_on_hopper());
double flash_attention_forward_seconds(const Gpu& gpu, const AttentionShape& shape, int sms,
                                       const FlashAttentionCalibration& c = flash_attention_3_on_hopper());
double flash_attention_backward_seconds(const Gpu& gpu, const AttentionShape& shape, int sms,
                                        const FlashAttentionCalibration& c = flash_attention_3_on_hopper());

}  // namespace hw
