#pragma once
// One kind of unit (prefill, decode or colocated) as a serving scenario gives it under
// /deployment: its count, its size in GPUs or nodes, its layout (attention TP and DP, pipeline
// stages, experts, micro-batches, communication SMs) and its batch caps, each field checked with
// an error naming its JSON path. Its memory plan is made once the workload's longest request is
// known (study_serving.cpp).
#include <string>

#include "core/json_reader.hpp"
#include "serving/engine_profile.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "studies/config/cluster_config.hpp"
#include "workload/model/model.hpp"

namespace studies::serving_study {

// One kind of unit as the scenario gives it.
struct UnitSpec {
  std::string pointer;
  int units = 1;
  double nodes = 1;  // GPUs / GPUs per node: a unit smaller than a node takes its share of one
  serving::UnitConfig config;
  double reserve_bytes = 0;
  double kv_share_of_free = 0;             // the engine's KV share of what the weights leave (0: none)
  bool reserve_holds_activations = false;  // the engine's reserve covers the activations
  serving::MemoryInput memory_input;       // what its memory plan was made from
};

// `comm_sms`: the compute section's communication SMs, where it gives them (else -1): every unit's default.
// `engine`: its defaults for the batch caps where the unit gives none.
UnitSpec parse_unit(core::JsonReader u, const workload::Model& m, const ClusterConfig& cl, bool decode_kind,
                    bool colocated, int comm_sms, const serving::EngineProfile& engine);

}  // namespace studies::serving_study
