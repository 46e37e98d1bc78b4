#pragma once
// What one GPU of a serving unit holds, counted from the model's shapes: its weights (its TP
// share of attention and dense layers, its routed experts with their redundant replicas, the
// shared expert where it runs, embedding and LM head), the largest activations of one step,
// a runtime reserve, and what is left for KV cache pages.
#include "hw/gemm_kernel.hpp"
#include "hw/gpu.hpp"
#include "serving/kv_pages.hpp"
#include "workload/inference/inference.hpp"
#include "workload/model/model.hpp"

namespace serving {

struct MemoryInput {
  int max_step_tokens = 8192;        // the most new tokens one DP rank computes in a step
  double runtime_reserve_bytes = 0;  // CUDA context, communication buffers, fragmentation
  // Above 0: the KV cache takes this share of what weights, activations and the reserve leave,
  // the rest kept by the runtime (TensorRT-LLM's free_gpu_memory_fraction).
  double kv_share_of_free = 0;
  bool reserve_holds_activations = false;  // the reserve covers the activations (SGLang's)
  double kv_bytes_per_element = 2;
  hw::GemmPrecision weights =
      hw::GemmPrecision::kFp8;  // linear layers' weights: FP8 (a byte), FP4 (NVFP4: half a byte and its scales) or BF16
  bool mtp = false;             // the MTP module's layer is loaded and keeps a KV cache
  int page_tokens = 64;         // KV pages' tokens (windowed layers free theirs by the page)
};

struct MemoryPlan {
  double hbm_bytes = 0;
  double weight_bytes = 0;
  double activation_bytes = 0;
  double reserve_bytes = 0;
  double kv_bytes = 0;                // left for the KV cache on each GPU
  double kv_bytes_per_token_gpu = 0;  // one token's KV cache on one GPU of its DP rank (windowed layers' too)
  double kv_bytes_per_token = 0;      // one token's whole KV cache, windowed layers' too
  KvPages kv_pages;                   // how a sequence takes pages, and its bytes (what a transfer moves)
  long long kv_group_tokens = 0;      // a DP rank's KV capacity in tokens of one page group (pages x page tokens)
  long long kv_tokens = 0;            // the longest sequence a DP rank holds, in tokens

  bool fits() const { return kv_bytes > 0; }
};

MemoryPlan plan_memory(const workload::Model& model, const hw::Gpu& gpu, const workload::ServingDeployment& unit,
                       const MemoryInput& in);

}  // namespace serving
