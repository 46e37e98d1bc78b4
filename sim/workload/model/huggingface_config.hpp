#pragma once
// A model from its HuggingFace `config.json`, for the families whose layers we cost:
// LlamaForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM (dense, GQA), Qwen3MoeForCausalLM and
// MixtralForCausalLM (MoE, GQA), DeepseekV2ForCausalLM and DeepseekV3ForCausalLM (MoE, MLA).
// Any other `architectures` is refused naming it; a missing or ill-typed field raises
// InputError naming the file and the field.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "workload/model/model.hpp"

namespace workload {

const std::vector<std::string>& huggingface_architectures();
Model model_from_huggingface_config(const nlohmann::json& config, const std::string& origin);
Model read_huggingface_config(const std::string& path);

}  // namespace workload
