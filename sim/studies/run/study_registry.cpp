#include "studies/run/study_registry.hpp"

#include <utility>

#include "studies/inference/study_decode_bound.hpp"
#include "studies/inference/study_inference.hpp"
#include "studies/inference/study_kv_cache.hpp"
#include "studies/kernels/study_all_reduce_kernels.hpp"
#include "studies/kernels/study_attention_kernels.hpp"
#include "studies/kernels/study_fp8.hpp"
#include "studies/kernels/study_gemm_kernels.hpp"
#include "studies/kernels/study_memory_kernels.hpp"
#include "studies/network/study_collective.hpp"
#include "studies/network/study_latency.hpp"
#include "studies/network/study_low_latency_alltoall.hpp"
#include "studies/network/study_moe_dispatch.hpp"
#include "studies/network/study_moe_routing.hpp"
#include "studies/network/study_network_cost.hpp"
#include "studies/network/study_network_scale.hpp"
#include "studies/network/study_shared_fabric.hpp"
#include "studies/serving/study_serving.hpp"
#include "studies/training/study_chunk_overlap.hpp"
#include "studies/training/study_pipeline.hpp"
#include "studies/training/study_train_flops.hpp"
#include "studies/training/study_training_run.hpp"
#include "studies/training/study_training_step.hpp"

namespace studies {

namespace {

const std::vector<std::pair<std::string, StudyParser>>& registry() {
  static const std::vector<std::pair<std::string, StudyParser>> kinds = {
      {"kv-cache", parse_kv_cache_study},
      {"train-flops", parse_train_flops_study},
      {"decode-bound", parse_decode_bound_study},
      {"pipeline", parse_pipeline_study},
      {"chunk-overlap", parse_chunk_overlap_study},
      {"fp8-gemm", parse_fp8_gemm_study},
      {"fp8-formats", parse_fp8_formats_study},
      {"network-cost", parse_network_cost_study},
      {"network-scale", parse_network_scale_study},
      {"collective", parse_collective_study},
      {"shared-fabric", parse_shared_fabric_study},
      {"latency", parse_latency_study},
      {"moe-routing", parse_moe_routing_study},
      {"moe-dispatch", parse_moe_dispatch_study},
      {"training-step", parse_training_step_study},
      {"training-run", parse_training_run_study},
      {"inference", parse_inference_study},
      {"serving", parse_serving_study},
      {"gemm-kernels", parse_gemm_kernels_study},
      {"memory-kernels", parse_memory_kernels_study},
      {"attention-kernels", parse_attention_kernels_study},
      {"all-reduce-kernels", parse_all_reduce_kernels_study},
      {"low-latency-alltoall", parse_low_latency_alltoall_study},
  };
  return kinds;
}

}  // namespace

std::vector<std::string> study_kinds() {
  std::vector<std::string> names;
  for (const auto& [name, parser] : registry()) names.push_back(name);
  return names;
}

StudyParser study_parser(const std::string& kind) {
  for (const auto& [name, parser] : registry())
    if (name == kind) return parser;
  return nullptr;
}

}  // namespace studies
