#pragma once
// Megatron-Core's pipeline layout string (--pipeline-model-parallel-layout): the model's pieces
// stage by stage, virtual stages in order. "E" the embedding, "t" a transformer layer, "m" an MTP
// layer, "L" the output layer and loss; "|" ends a stage; "X*n" and "(...)*n" repeat; commas and
// spaces are ignored. DeepSeek-V3 on PP 16 x VPP 2: "Et*3|(tt|)*29,m|L".
#include <string>
#include <vector>

namespace workload {

struct LayoutStage {
  bool embedding = false;
  int layers = 0;
  int mtp_layers = 0;
  bool loss = false;
};

// The stages the string lays out; core::InputError naming `where`, the position and the rule
// for a character outside the alphabet, an unbalanced parenthesis or a repeat count below 1.
std::vector<LayoutStage> parse_pipeline_layout(const std::string& text, const std::string& where);

}  // namespace workload
