#pragma once
// Which layers each pipeline stage holds. The embedding sits on the first stage; the final
// norm, the output head and the MTP module (which shares the head) on the last. Layers are
// contiguous; by default they are spread so that the costliest stage is as cheap as possible.
#include <string>
#include <vector>

#include "workload/model.hpp"

namespace workload {

struct StageLayout {
  std::vector<int> first_layer;  // per stage
  std::vector<int> layers;       // per stage
  bool mtp = false;              // the last stage also runs the MTP module
};

// `weights`: one per item, in order; the items are cut into `parts` contiguous runs minimising
// the largest run's sum. Returns the items per run (each >= 1 when items >= parts).
std::vector<int> balanced_partition(const std::vector<double>& weights, int parts);

// Layers spread over `stages` by the forward FLOPs of a token at `sequence_tokens`, the head and
// the MTP module counted on the last stage. Throws core::InputError naming `where` when the
// model has fewer layers than stages need.
StageLayout balanced_stage_layout(const Model& model, int stages, bool mtp, double sequence_tokens,
                                  const std::string& where);

// An explicit layout: `layers_per_stage` must have one entry per stage and sum to the layers.
StageLayout explicit_stage_layout(const Model& model, const std::vector<int>& layers_per_stage, bool mtp,
                                  const std::string& where);

}  // namespace workload
