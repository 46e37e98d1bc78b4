#pragma once
// A serving unit's `experts`: how its routed experts are laid out and how popular its traffic
// makes them. A string gives the layout alone (`expert-parallel` or `tensor-parallel`; absent:
// the engine's); an object
// {"parallel": ..., "tp": n, "popularity": ..., "eplb_plan": file} gives any of them:
// - `tp`: each expert split over n GPUs, the routed GPUs / n expert-parallel groups each holding
//   their share of the experts (TensorRT-LLM's moe_tp x moe_ep); n = the routed GPUs is
//   `tensor-parallel`, 1 `expert-parallel`.
// - `popularity`: `uniform` (the gate on the workload's skew), or a file of per-expert counts as
//   SGLang dumps them ({"logical_count": [[...] x layers]}); by default the model's derived summary
//   in data/expert_popularity/ for the unit's phase where one exists, else uniform.
// - `eplb_plan`: the counts EPLB's plan for the redundant experts was made from (default: the
//   popularity served, a fresh plan); `eplb_window_tokens`: the plan from a past window of that
//   many tokens drawn from them, not their whole-run shares.
#include <memory>
#include <string>

#include "core/json_reader.hpp"
#include "workload/model/model.hpp"
#include "workload/moe/expert_popularity.hpp"

namespace studies {

struct ExpertsSpec {
  bool tensor_parallel = false;  // experts split over GPUs (all of the routed ones, or `tp` of them)
  int tp = 1;                    // GPUs an expert is split over
  std::shared_ptr<const workload::ExpertPopularity> popularity;  // null: the gate
  std::shared_ptr<const workload::ExpertPopularity> eplb_plan;   // null: the popularity served
  int eplb_window_tokens = 0;                                    // 0: EPLB's plan from whole-run counts
};

// `unit`: the unit's reader (its `experts` read here); `phase`: "prefill" or "decode", the
// summary's part a unit of that kind takes; `routed_gpus`: the unit's routed-expert GPUs.
// `default_layout`: where the unit names none (its engine's).
ExpertsSpec parse_experts(core::JsonReader& unit, const workload::Model& m, const std::string& phase, int routed_gpus,
                          const std::string& default_layout);

}  // namespace studies
