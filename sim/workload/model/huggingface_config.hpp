#pragma once
// A model from its HuggingFace `config.json`, for the families whose layers we cost:
// LlamaForCausalLM, MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM, Gemma2ForCausalLM,
// Gemma3ForCausalLM and Gemma3ForConditionalGeneration (dense, GQA; Mistral's and Gemma's
// sliding-window layers); Qwen3MoeForCausalLM, MixtralForCausalLM, GptOssForCausalLM and
// Llama4ForConditionalGeneration (MoE, GQA; gpt-oss's sliding-window layers, Llama 4's dense
// layers between MoE ones and chunked attention); DeepseekV2ForCausalLM and DeepseekV3ForCausalLM
// (MoE, MLA). The multimodal configs (Gemma 3, Llama 4) are read for their language model, in
// `text_config`; their vision encoders are left out.
//
// What is approximated: Gemma's GeGLU FFN is costed as the gated FFN it is shaped like; Gemma's
// extra norms, Llama 4's and Gemma 3's QK norms, gpt-oss's attention sinks and its output and
// expert biases (well under 0.1% of the weights) are not counted; a chunk of Llama 4's chunked
// attention is costed as a sliding window of its size (both keep at most that many keys); every
// weight is held at the recipe's precision, not gpt-oss's MXFP4 experts.
//
// The model is named by `_name_or_path` where the config has it, else by its `model_type` and
// size (e.g. "mistral-7.24b", "llama4-108b-a17.2b"). Any other `architectures` is refused naming
// the supported ones; a missing or ill-typed field raises InputError naming the file and the field.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workload/model/model.hpp"

namespace workload {

const std::vector<std::string>& huggingface_architectures();
Model model_from_huggingface_config(const nlohmann::json& config, const std::string& origin);
Model read_huggingface_config(const std::string& path);

}  // namespace workload
