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

struct EngineProfile {
  std::string name = "bare";
  double step_cpu_s = 0;               // per step, fixed
  double step_cpu_per_sequence_s = 0;  // per running sequence of the busiest scheduler
  bool overlap_scheduling = false;     // the next step's CPU work runs while this one computes
  double frontend_s = 0;               // from the request's send to the engine's queue, fixed
  double tokenize_s_per_token = 0;     // the prompt's tokenization on the way in
  double emit_s = 0;                   // from a step's end to the client holding its token
  // The attention kernels it runs, in its order of preference: the first whose constants run on
  // the GPU (hw::attention_backend_for); empty: the GPU generation's own.
  std::vector<std::string> attention_backends;
  // Defaults the engine gives a deployment (absent: the deployment's own).
  std::optional<int> page_tokens, max_running, max_batch_tokens, micro_batches;

  // A step of `gpu_s` on the GPU, for a scheduler holding `sequences`.
  double step_s(double gpu_s, double sequences) const {
    const double cpu_s = step_cpu_s + step_cpu_per_sequence_s * sequences;
    return overlap_scheduling ? std::max(gpu_s, cpu_s) : gpu_s + cpu_s;
  }
  // From a prompt's send to the engine's queue.
  double frontend_delay_s(int prompt_tokens) const { return frontend_s + tokenize_s_per_token * prompt_tokens; }
  bool adds_nothing() const;
};

// The engine's way out, on the records of a run: each record's first token and finish on by
// `emit_s`, when the client holds them.
void apply_token_path(ServingResult& result, const EngineProfile& engine);

}  // namespace serving
