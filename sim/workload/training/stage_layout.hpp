#pragma once
// Which layers each pipeline stage holds. The embedding sits on the first stage, the final norm,
// the output head and the loss on the last, and the MTP module (which shares the head) on the
// last or, in a Megatron-Core layout string, a stage of its own before it. Layers are contiguous.
// The split is the cost-balanced one (the default: the costliest stage as cheap as possible), an
// explicit count per stage, Megatron-Core's first/last pipeline-rank layer counts with the rest
// spread evenly, its even split, or its pipeline layout string (pipeline_layout.hpp).
#include <string>
#include <vector>

#include "workload/model/model.hpp"
#include "workload/pipeline/pipeline_layout.hpp"

namespace workload {

struct StageLayout {
  std::vector<int> first_layer;  // per stage
  std::vector<int> layers;       // per stage (0 where a stage holds only the embedding, the MTP module or the loss)
  int mtp_stage = -1;            // the stage that also runs the MTP module; -1: none

  bool mtp() const { return mtp_stage >= 0; }
  // "4 x 15, 1 + MTP": the layer counts stage by stage, runs of one count folded.
  std::string describe() const;
};

// `weights`: one per item, in order; the items are cut into `parts` contiguous runs minimising
// the largest run's sum. Returns the items per run (each >= 1 when items >= parts).
std::vector<int> balanced_partition(const std::vector<double>& weights, int parts);

// Layers spread over `stages` by the forward FLOPs of a token at `sequence_tokens`, the head and
// the MTP module counted on the last stage. Throws core::InputError naming `where` when the
// model has fewer layers than stages need.
StageLayout balanced_stage_layout(const Model& model, int stages, bool mtp, double sequence_tokens,
                                  const std::string& where);

// An explicit layout: `layers_per_stage` must have one entry per stage and sum to the layers;
// every stage holds one or more, the first and last (with the embedding, or the head) may hold none.
StageLayout explicit_stage_layout(const Model& model, const std::vector<int>& layers_per_stage, bool mtp,
                                  const std::string& where);

// Megatron-Core's split over `pp` ranks of `virtual_stages` stages each (stage s on rank s % pp):
// the first and the last rank hold `first_rank_layers` and `last_rank_layers` (-1: like the
// others; --decoder-first/last-pipeline-num-layers), the other ranks the rest evenly, each rank's
// layers evenly over its virtual stages; with neither count given, every stage the same (Megatron's
// default). core::InputError naming `where` (or the count's own field) where a share is not whole.
struct RankLayerCounts {
  int first = -1, last = -1;
  std::string first_where, last_where;
};
StageLayout megatron_stage_layout(const Model& model, int pp, int virtual_stages, const RankLayerCounts& counts,
                                  bool mtp, const std::string& where);

// A parsed Megatron-Core layout string: `stages` of them, the embedding in the first only, the
// loss in the last only, the model's layers in all, the MTP module (one "m", after every "t")
// where `mtp` asks for it.
StageLayout string_stage_layout(const Model& model, const std::vector<LayoutStage>& parsed, int stages, bool mtp,
                                const std::string& where);

}  // namespace workload
