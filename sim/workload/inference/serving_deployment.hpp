#pragma once
// What a serving step runs on and what it is asked (inference.hpp): the deployment of a unit of
// GPUs (attention's TP and DP, the routed experts' GPUs, micro-batches, CUDA graphs, pipeline
// stages), the links between them, and the step's request (its sequences, or the busiest
// attention group's load in a serving simulation).
#include <cstdint>
#include <memory>
#include <optional>

#include "hw/all_reduce.hpp"
#include "hw/node.hpp"
#include "workload/inference/serving_step.hpp"
#include "workload/moe/expert_popularity.hpp"
#include "workload/moe/moe_gate.hpp"

namespace workload {

struct ServingDeployment {
  int gpus = 320;
  int gpus_per_node = 8;
  int attention_tp = 4;   // attention DP = gpus / attention_tp
  int routed_gpus = 256;  // hold the routed experts, (experts + redundant) / routed_gpus each
  // Expert tensor parallelism, as vLLM and SGLang run an MoE model on a TP group without EP: every
  // routed GPU holds a 1/routed_gpus slice of every expert, the unit's tokens are gathered to all
  // of them and the experts' outputs reduce-scattered back; no all-to-all.
  bool expert_tp = false;
  // With expert_tp: the expert-parallel groups the routed GPUs form (TP x EP, as TensorRT-LLM's
  // moe_tp x moe_ep): each group holds routed experts / expert_ep, each split over its
  // routed_gpus / expert_ep GPUs. 1: every GPU a slice of every expert.
  int expert_ep = 1;
  int redundant_experts = 0;  // extra replicas of the heaviest experts, placed as EPLB does
  // The experts' measured popularity in the unit's traffic, per MoE layer: each step draws its
  // tokens' experts from it (in place of the gate on the request's affinities), and each MoE
  // layer is costed with its own draw. Null: the gate.
  std::shared_ptr<const ExpertPopularity> popularity;
  // What EPLB's plan for the redundant experts was made from (null: the popularity served, or the
  // gate's shares): another workload's counts make a stale plan.
  std::shared_ptr<const ExpertPopularity> eplb_plan;
  // EPLB's plan from the counts of a past window of this many tokens, drawn from what the plan
  // saw (0: from its whole-run shares): a short window's noise makes a plan that serves worse.
  int eplb_window_tokens = 0;
  bool dedicated_shared = true;  // the other gpus hold the shared expert; else each GPU runs it for its own tokens
  bool direct_comm = true;       // point to point (decode); else IB once per node, then NVLink (prefill)
  int micro_batches = 2;
  Overlap overlap = Overlap::kDeployed;  // DeepSeek's stage order where two micro-batches allow it
  bool measured_all_to_all = true;       // direct: DeepEP's low-latency kernels as timed; else the links' rate
  int comm_sms = 0;                      // SMs the communication kernels take from overlapping compute
  // Steps replayed as CUDA graphs, each kernel's launch cheaper (hw/memory_kernel.hpp): decode
  // steps of at most this many tokens a DP rank, all micro-batches (0: none), and with
  // `cuda_graph_prefill` steps with prompt tokens too (piecewise graphs, as vLLM's, attention
  // outside them).
  int cuda_graph_max_batch = 0;
  bool cuda_graph_prefill = false;
  int sms = hw::default_node().gpu_model().sm_count;
  // Pipeline parallelism: the model's layers split over this many stages, each of `gpus` GPUs
  // (the fields above describe one stage); a step's tokens handed from stage to stage, over the
  // NICs at `pipeline_node_crossings` of the boundaries (where a stage ends a node), else NVLink.
  int pipeline_stages = 1;
  int pipeline_node_crossings = 0;

  int attention_dp() const { return gpus / attention_tp; }
  int shared_gpus() const { return gpus - routed_gpus; }
};

struct ServingLinks {
  double nvlink_Bps = hw::default_node().scale_up_achieved_Bps;
  double ib_Bps = hw::default_node().nic_Bps;
  double nvlink_latency_s = 0;
  double ib_latency_s = 0;
  double pcie_Bps = hw::default_node().pcie_Bps;
  // The node's measured NCCL all-reduce (hw/all_reduce.hpp) for tensor-parallel all-reduces;
  // nullptr: a ring over nvlink_Bps with nvlink_latency_s a step.
  const hw::AllReduceFit* all_reduce = nullptr;
};

// The attention work of one attention group (a DP rank, or a TP group) over a whole step, all
// micro-batches together: sequences decoding and sequences prefilling (a prompt, or a chunk of
// one after what is already in its KV cache).
struct GroupLoad {
  double decode_sequences = 0;
  double decode_context_tokens = 0;  // mean tokens already in a decoding sequence's KV cache
  double prefill_sequences = 0;
  double prefill_tokens = 0;          // mean new tokens of a prefilling sequence
  double prefill_context_tokens = 0;  // mean tokens before them in its KV cache (earlier chunks, prefix hits)
};

struct ServingRequest {
  bool prefill = false;
  int sequences = 0;            // per unit, all micro-batches: running sequences, or prompts
  int tokens_per_sequence = 1;  // decode: 1, or 2 verifying an MTP draft; prefill: the prompt length
  int context_tokens = 0;       // decode: tokens already in each sequence's KV cache
  double kv_bytes_per_element = 2;
  double kv_offload_fraction = 0;  // decode: share of the KV cache read from host memory over PCIe
  int mtp_drafts = 0;              // decode: also run the MTP module this many times, drafting the next tokens
  bool compute = true;             // false: compute taken to zero, ISCA'25 §2.3.2's assumption
  int max_routed_tokens = 32768;   // route at most this many tokens per micro-batch; bytes scale up
  AffinityDistribution affinity;   // of the synthetic tokens the gate routes
  std::uint64_t seed = 1;
  // A serving simulation's step: the busiest attention group's load and the unit's tokens (all
  // micro-batches), in place of `sequences` spread evenly; `prefill` then means the step holds
  // prefill tokens (contiguous expert GEMMs and prefill's kernels).
  std::optional<GroupLoad> busiest_group;
  long long unit_tokens = 0;
  bool keep_graph = true;  // ServingStep::graph built (for traces); else only step_s is timed
};

}  // namespace workload
