// A unit of a serving deployment read from the scenario (unit_spec.hpp).
#include "studies/serving/unit_spec.hpp"

#include <algorithm>
#include <cmath>

#include "core/input_error.hpp"
#include "studies/config/compute_config.hpp"
#include "studies/config/engine_config.hpp"
#include "studies/config/experts_config.hpp"
#include "studies/config/overlap_config.hpp"
#include "studies/report/report.hpp"

namespace studies::serving_study {

namespace {

// A unit's size: `gpus`, or `nodes` (a share of one node allowed, e.g. 0.667 of a 72-GPU rack).
// Below a node it must fit in one; above, it is whole nodes.
int unit_gpus(core::JsonReader& u, int node_gpus) {
  if (u.has("gpus") && u.has("nodes"))
    throw core::InputError(u.pointer_of("nodes"), "is not allowed beside gpus; give the unit's size one way");
  int gpus = 0;
  std::string at;
  if (u.has("gpus")) {
    at = u.pointer_of("gpus");
    gpus = static_cast<int>(u.positive_integer("gpus", node_gpus, 2048));
  } else {
    at = u.pointer_of("nodes");
    const double nodes = u.positive_number("nodes", 1.0);
    const double whole = std::round(nodes * node_gpus);
    if (whole < 1 || std::abs(nodes * node_gpus - whole) > 0.05)
      throw core::InputError(at, core::describe_number(nodes) +
                                     " is not allowed; a number of nodes that makes whole GPUs (" +
                                     std::to_string(node_gpus) + " a node), or give gpus");
    if (whole > 2048)
      throw core::InputError(at, core::describe_number(nodes) + " nodes (" + format_number(whole) +
                                     " GPUs) is not allowed; a unit has at most 2048 GPUs");
    gpus = static_cast<int>(whole);
  }
  if (gpus > node_gpus && gpus % node_gpus != 0)
    throw core::InputError(at, std::to_string(gpus) + " GPUs is not allowed; a unit larger than a node (" +
                                   std::to_string(node_gpus) + " GPUs) is whole nodes");
  return gpus;
}

}  // namespace

UnitSpec parse_unit(core::JsonReader u, const workload::Model& m, const ClusterConfig& cl, bool decode_kind,
                    bool colocated, int comm_sms, const serving::EngineProfile& engine) {
  UnitSpec s;
  s.pointer = u.pointer();
  s.units = static_cast<int>(u.positive_integer("units", 1, 100000));
  auto& d = s.config.deployment;
  const int node_gpus = cl.cluster.gpus_per_node;
  const int gpus = unit_gpus(u, node_gpus);
  s.nodes = double(gpus) / node_gpus;
  d.sms = cl.gpu->sm_count;
  d.attention_tp = static_cast<int>(u.positive_integer("attention_tp", 1, 1024));
  // Pipeline stages of consecutive GPUs; the deployment's other fields are one stage's.
  d.pipeline_stages = static_cast<int>(u.positive_integer("pipeline_parallel", 1, 1024));
  if (gpus % d.attention_tp != 0)
    throw core::InputError(u.pointer_of("attention_tp"), std::to_string(d.attention_tp) +
                                                             " does not divide the unit's " + std::to_string(gpus) +
                                                             " GPUs: TP x DP must equal them");
  if (gpus % (d.attention_tp * d.pipeline_stages) != 0)
    throw core::InputError(u.pointer_of("pipeline_parallel"),
                           "TP " + std::to_string(d.attention_tp) + " x PP " + std::to_string(d.pipeline_stages) +
                               " does not divide the unit's " + std::to_string(gpus) +
                               " GPUs: TP x DP x PP must equal them");
  if (d.pipeline_stages > 1 && d.pipeline_stages > m.layers)
    throw core::InputError(u.pointer_of("pipeline_parallel"),
                           std::to_string(d.pipeline_stages) + " is not allowed; at most " + m.display_name + "'s " +
                               std::to_string(m.layers) + " layers, a stage holding at least one");
  d.gpus = gpus / d.pipeline_stages;
  for (int k = 1; k < d.pipeline_stages; ++k) d.pipeline_node_crossings += (k * d.gpus) % node_gpus == 0;
  // A stage within one node (scale-up domain) has all of its traffic on NVLink; a larger one is
  // made of whole nodes.
  d.gpus_per_node = std::min(node_gpus, d.gpus);
  if (m.attention.heads % d.attention_tp != 0)
    throw core::InputError(u.pointer_of("attention_tp"), std::to_string(d.attention_tp) + " does not divide " +
                                                             m.display_name + "'s " +
                                                             std::to_string(m.attention.heads) + " attention heads");
  // The engine's MoE path where the unit does not say (absent: DeepSeek's, expert-parallel with
  // DeepEP's kernels by phase).
  const serving::EngineProfile::MoePath path = engine.moe.value_or(serving::EngineProfile::MoePath{});
  if (m.moe) {
    const int experts = m.moe->routed_experts;
    d.routed_gpus = static_cast<int>(u.positive_integer("routed_expert_gpus", d.gpus, 1 << 20));
    d.redundant_experts = static_cast<int>(u.non_negative_integer("redundant_experts", 0, 1 << 20));
    if (d.routed_gpus > d.gpus)
      throw core::InputError(
          u.pointer_of("routed_expert_gpus"),
          std::to_string(d.routed_gpus) + " is not allowed; the unit has " + std::to_string(d.gpus) + " GPUs");
    const ExpertsSpec spec = parse_experts(u, m, decode_kind ? "decode" : "prefill", d.routed_gpus, path.experts);
    d.expert_tp = spec.tensor_parallel;
    d.expert_ep = d.routed_gpus / spec.tp;
    // Tensor-parallel experts as an error names them: where the unit names no layout, the engine's default.
    const std::string layout = u.has("experts") ? "/experts is 'tensor-parallel'"
                                                : "the experts are tensor-parallel, " + engine.name +
                                                      "'s default (give experts 'expert-parallel')";
    d.popularity = spec.popularity;
    d.eplb_plan = spec.eplb_plan;
    d.eplb_window_tokens = spec.eplb_window_tokens;
    d.dedicated_shared = u.one_of("shared_expert", {"local", "dedicated"}, "local") == "dedicated";
    if (d.dedicated_shared && d.shared_gpus() == 0)
      throw core::InputError(u.pointer_of("shared_expert"), "'dedicated' needs GPUs beyond the " +
                                                                std::to_string(d.routed_gpus) + " routed-expert GPUs");
    // Tensor-parallel experts gather the unit's tokens to every GPU; expert-parallel ones reach
    // theirs by the unit's `communication` (the engine's for the phase where it gives none).
    std::string communication = "all-gather";
    if (!d.expert_tp)
      communication = u.one_of("communication", moe_communication_names(),
                               decode_kind ? path.decode_communication : path.prefill_communication);
    d.direct_comm = communication == "direct";
    if (communication == "forwarded" && d.routed_gpus != d.gpus)
      throw core::InputError(u.pointer_of("communication"),
                             "'forwarded' needs the routed experts on every GPU of the unit");
    if (!d.expert_tp && (experts + d.redundant_experts) % d.routed_gpus != 0)
      throw core::InputError(
          u.has("redundant_experts") ? u.pointer_of("redundant_experts") : u.pointer_of("routed_expert_gpus"),
          std::to_string(experts) + " routed + " + std::to_string(d.redundant_experts) +
              " redundant experts do not split evenly over " + std::to_string(d.routed_gpus) +
              " GPUs; every GPU holds the same number");
    if (d.expert_tp) {
      // As vLLM and SGLang run an MoE model on a TP group without expert parallelism: each
      // expert's FFN width split evenly over the routed GPUs (or TP x EP's groups), as a TP group
      // shards it (and the shared expert's).
      const int width = m.moe->expert_ffn, tp = spec.tp;
      if (width % tp != 0)
        throw core::InputError(u.pointer_of("routed_expert_gpus"),
                               std::to_string(tp) +
                                   " GPUs is not allowed with tensor-parallel experts: " + m.display_name +
                                   "'s expert FFN width " + std::to_string(width) + " does not split evenly over them");
      if (experts % d.expert_ep != 0)
        throw core::InputError(u.pointer_of("experts"),
                               "expert TP" + std::to_string(tp) + " x EP" + std::to_string(d.expert_ep) +
                                   " is not allowed: " + std::to_string(experts) +
                                   " routed experts do not split evenly over EP" + std::to_string(d.expert_ep));
      for (const char* key : {"redundant_experts", "communication"})
        if (u.has(key))
          throw core::InputError(u.pointer_of(key), "is for expert-parallel experts; " + layout +
                                                        " (every GPU holds a slice of every expert)");
    } else if (communication == "all-gather") {
      // Whole experts on each GPU (EP), every token gathered to all of them and the outputs
      // reduce-scattered back (vLLM's allgather_reducescatter): the gathered path at TP1 x EP.
      d.expert_tp = true;
      d.expert_ep = d.routed_gpus;
      if (u.has("redundant_experts"))
        throw core::InputError(u.pointer_of("redundant_experts"),
                               "is for an all-to-all's experts; 'all-gather' sends every token to every expert GPU, "
                               "so replicas would serve none of it");
    }
    if (d.expert_tp && d.dedicated_shared)
      throw core::InputError(u.pointer_of("shared_expert"),
                             spec.tensor_parallel
                                 ? "'dedicated' is for expert-parallel experts; " + layout
                                 : "'dedicated' is for experts an all-to-all reaches; /communication 'all-gather' "
                                   "gathers the unit's tokens to every expert GPU");
  } else {
    for (const char* key : {"routed_expert_gpus", "redundant_experts", "shared_expert", "communication", "experts"})
      if (u.has(key))
        throw core::InputError(u.pointer_of(key), "is for MoE models; " + m.display_name + " is dense (no experts)");
    d.routed_gpus = d.gpus;
    d.dedicated_shared = false;
  }
  // Two micro-batches where the engine overlaps two batches in the unit's phase (a colocated unit
  // mixes both: where it does in both); without an engine's word, DeepSeek's two for an MoE model.
  const std::optional<bool> two_batches =
      colocated && engine.two_batch_overlap_prefill && engine.two_batch_overlap_decode
          ? std::optional<bool>(*engine.two_batch_overlap_prefill && *engine.two_batch_overlap_decode)
      : decode_kind ? engine.two_batch_overlap_decode
                    : engine.two_batch_overlap_prefill;
  d.micro_batches =
      static_cast<int>(u.positive_integer("micro_batches", two_batches ? (*two_batches ? 2 : 1) : (m.moe ? 2 : 1), 8));
  parse_overlap(u, d);
  // Steps replayed as CUDA graphs up to the engine's captured size (0: every kernel launched).
  d.cuda_graph_max_batch =
      static_cast<int>(u.non_negative_integer("cuda_graph_max_batch", engine.cuda_graph_max_batch, 1 << 16));
  d.cuda_graph_prefill = engine.cuda_graph_prefill;
  // The SMs the all-to-all kernels hold: DeepEP's normal kernels (forwarded) the engine's figure,
  // DeepSeek's 24 without one (notes/serving.md); none with the low-latency kernels, which wait on
  // IBGDA without SMs; none without an all-to-all.
  const int phase_sms = m.moe && !d.direct_comm && !d.expert_tp ? path.communication_sms : 0;
  d.comm_sms =
      static_cast<int>(u.non_negative_integer("communication_sms", comm_sms >= 0 ? comm_sms : phase_sms, d.sms - 1));
  check_comm_sms(u, d.comm_sms);
  // An MoE layer's all-to-all or gathered experts join a stage's DP ranks; pipeline stages run
  // their batches apart, so an MoE model's stage has one DP rank.
  s.config.ranks_step_together = m.moe.has_value() && d.pipeline_stages == 1;
  if (m.moe && d.pipeline_stages > 1 && d.attention_dp() > 1)
    throw core::InputError(u.pointer_of("pipeline_parallel"),
                           std::to_string(d.pipeline_stages) + " is not allowed with " +
                               std::to_string(d.attention_dp()) +
                               " DP ranks of an MoE model in a stage: give attention_tp the stage's " +
                               std::to_string(d.gpus) + " GPUs (one DP rank), or PP 1");
  s.config.max_running =
      static_cast<int>(u.positive_integer("max_running", engine.max_running.value_or(decode_kind ? 128 : 64), 1 << 20));
  const int default_tokens =
      decode_kind && !colocated ? 2 * s.config.max_running : engine.max_batch_tokens.value_or(colocated ? 8192 : 16384);
  s.config.max_batch_tokens = static_cast<int>(u.positive_integer("max_batch_tokens", default_tokens, 1 << 22));
  // The runtime's reserve by the engine's rule (vLLM's default gpu_memory_utilization of 0.9
  // leaves a tenth of HBM; TensorRT-LLM's KV takes a share of what the weights leave; SGLang
  // keeps a fixed reserve); a reserve given is the runtime's own, and replaces the rule.
  const bool reserve_given = u.has("runtime_reserve_bytes");
  s.reserve_bytes = u.non_negative_number(
      "runtime_reserve_bytes", engine.kv_memory == serving::KvMemoryRule::kShareOfHbm
                                   ? (1 - engine.kv_memory_fraction) * cl.gpu->hbm_bytes
                               : engine.kv_memory == serving::KvMemoryRule::kReserve ? engine.kv_memory_reserve_bytes
                                                                                     : 0.0);
  if (!reserve_given && engine.kv_memory == serving::KvMemoryRule::kShareOfFree)
    s.kv_share_of_free = engine.kv_memory_fraction;
  s.reserve_holds_activations = !reserve_given && engine.kv_memory == serving::KvMemoryRule::kReserve;
  u.finish();  // a misspelt key is an error, not a default
  return s;
}

}  // namespace studies::serving_study
