#pragma once
// What a serving engine (vLLM, SGLang, TensorRT-LLM) adds to the GPU's step times: the CPU work of
// each step (scheduling, input preparation, sampling, output processing), which runs between GPU
// steps unless the engine overlaps it with the previous step; and the path of a request outside
// the engine core (HTTP server, tokenizer, hand-off) and of each token back to the client
// (detokenize, stream). Profiles are data (data/engines/); "bare" adds nothing.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace serving {

struct ServingResult;

// How an engine sizes its KV cache on a GPU.
enum class KvMemoryRule {
  kShareOfHbm,   // a share of all HBM holds weights, activations and KV (vLLM's gpu_memory_utilization)
  kShareOfFree,  // KV takes a share of what weights and activations leave (TensorRT-LLM's free_gpu_memory_fraction)
  kReserve,      // HBM less the weights and a fixed reserve that holds the activations (SGLang's mem_fraction_static)
};

// A part of a step's CPU work: fixed, and per running sequence of the busiest scheduler.
struct CpuPart {
  double fixed_s = 0;
  double per_sequence_s = 0;
  double at(double sequences) const { return fixed_s + per_sequence_s * sequences; }
};

struct EngineProfile {
  std::string name = "bare";
  std::string version;  // the engine's release the figures hold for ("": the only one)
  // A step's CPU work by part, as the sources split it (one part where they do not).
  CpuPart schedule, prepare, sample, outputs;
  double step_cpu_s = 0;               // per step, fixed: the parts' sum
  double step_cpu_per_sequence_s = 0;  // per running sequence: the parts' sum
  // Per step, where one engine drives several GPUs (a DP rank's tensor-parallel and pipeline
  // GPUs): the driver's hand-off of the step to its worker processes (Ray in vLLM-era forks).
  double worker_dispatch_s = 0;
  bool overlap_scheduling = false;   // the next step's CPU work runs while this one computes
  double overlap_exposed_s = 0;      // under overlap, what each step still waits for on the CPU
  bool tokens_a_step_later = false;  // under overlap, a step's tokens reach the client after the next step
  double frontend_s = 0;             // from the request's send to the engine's queue, fixed
  double tokenize_s_per_token = 0;   // the prompt's tokenization on the way in (the front-end process busy)
  double stream_s_per_token = 0;     // each streamed token's output work in the front-end process
  double emit_s = 0;                 // from a step's end to the client holding its token
  // The attention kernels it runs, in its order of preference: the first whose constants run on
  // the GPU (hw::attention_backend_for); empty: the GPU generation's own.
  std::vector<std::string> attention_backends;
  // The GPU vendors it runs on (hw::Gpu::vendor); empty: any.
  std::vector<std::string> vendors;
  // Defaults the engine gives a deployment (absent: the deployment's own).
  std::optional<int> page_tokens, max_running, max_batch_tokens;
  // Two-batch overlap (two micro-batches a step, one's communication beside the other's compute)
  // in prefill and in decode units (absent: the deployment's own, DeepSeek's two for an MoE model).
  std::optional<bool> two_batch_overlap_prefill, two_batch_overlap_decode;
  // How it runs an MoE model's routed experts where the deployment does not say (absent:
  // DeepSeek's way, expert-parallel with DeepEP's normal kernels in prefill and its low-latency
  // kernels in decode, the normal kernels on 24 SMs).
  struct MoePath {
    std::string experts = "expert-parallel";  // the layout: "expert-parallel" or "tensor-parallel"
    // With expert-parallel experts, the tokens' way to them by phase: "forwarded" (DeepEP's
    // normal kernels, IB once per node then NVLink), "direct" (its low-latency kernels) or
    // "all-gather" (every token gathered to every expert GPU, the outputs reduce-scattered).
    std::string prefill_communication = "forwarded", decode_communication = "direct";
    int communication_sms = 24;  // SMs the forwarded all-to-all's kernels hold
  };
  std::optional<MoePath> moe;
  // CUDA graphs: steps of at most this many tokens a DP rank replay a captured graph, decode-only
  // steps, and with `cuda_graph_prefill` steps with prompt tokens too (0: every step launched).
  int cuda_graph_max_batch = 0;
  bool cuda_graph_prefill = false;
  // The GEMM libraries it runs, in its order of preference: the first whose rows run on the GPU at
  // the recipe's precision with the kernels the study needs (data/gemm_libraries/); empty, or none
  // of them: the GPU's default library.
  std::vector<std::string> gemm_libraries;
  std::optional<std::string>
      scheduler;  // its colocated units' scheduler (schedulers/), where the deployment names none
  KvMemoryRule kv_memory = KvMemoryRule::kShareOfHbm;
  double kv_memory_fraction = 0.9;     // kShareOfHbm, kShareOfFree: the share
  double kv_memory_reserve_bytes = 0;  // kReserve: what the runtime keeps, activations included

  // A step of `gpu_s` on the GPU, for a scheduler holding `sequences` on `engine_gpus` GPUs.
  double step_s(double gpu_s, double sequences, int engine_gpus = 1) const {
    const double cpu_s = step_cpu_s + step_cpu_per_sequence_s * sequences + (engine_gpus > 1 ? worker_dispatch_s : 0.0);
    return overlap_scheduling ? std::max(gpu_s, cpu_s) + overlap_exposed_s : gpu_s + cpu_s;
  }
  // From a prompt's send to the engine's queue.
  double frontend_delay_s(int prompt_tokens) const { return frontend_s + tokenize_s_per_token * prompt_tokens; }
  bool adds_nothing() const;
};

// The engine's way out, on the records of a run: each record's first token and finish on by
// `emit_s`, when the client holds them.
void apply_token_path(ServingResult& result, const EngineProfile& engine);

}  // namespace serving
