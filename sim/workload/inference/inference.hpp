#pragma once
// DeepSeek-V3 serving as deployed (V3 report §3.4, ISCA'25 §2.3): a unit of GPUs whose attention
// runs tensor-parallel (with sequence parallelism) in data-parallel groups, and whose MoE layers
// spread the routed experts one or more per GPU. A decode step reads every sequence's KV cache
// (memory-bound), routes the new tokens, and sends them point to point (IBGDA, no SMs); a
// prefill step computes whole prompts and sends them DeepEP's way (IB once per node, then
// NVLink), its kernels holding SMs. Costs come from a roofline; the EP traffic from the
// model's gate on synthetic affinities, timed by flow simulation or by the busiest port. A step
// may also mix prefill and decode (chunked prefill) and give the busiest attention group's own
// load, as a serving simulation does; a dense model has no EP traffic.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "core/timeline.hpp"
#include "hw/all_reduce.hpp"
#include "hw/node.hpp"
#include "net/cluster.hpp"
#include "workload/inference/serving_step.hpp"
#include "workload/model/model.hpp"
#include "workload/model/roofline.hpp"
#include "workload/moe/expert_placement.hpp"
#include "workload/moe/expert_popularity.hpp"
#include "workload/moe/moe_dispatch.hpp"
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

struct ServingStep {
  std::vector<MicroBatchCosts> layers;
  double head_s = 0;            // after the last layer: final norm and LM head (twice with an MTP draft)
  double step_s = 0;            // one forward pass: decode's TPOT, or prefill's time to first token
  MicroBatchCosts moe_layer;    // one MoE layer's costs, for reports
  double expert_imbalance = 1;  // busiest expert GPU / mean (the mean over MoE layers)
  double experts_touched =
      0;  // routed experts with at least one token on the busiest expert GPU, expected (mean over MoE layers)
  double ib_bytes_per_gpu = 0;  // dispatch of one micro-batch, busiest GPU
  bool flow_simulated = false;  // the all-to-all ran flow by flow (see serving_step)
  int mtp_layers = 0;           // the last of `layers` are the MTP module's passes (one per drafted token)
  double pipeline_s = 0;        // the step's tokens handed between pipeline stages (in step_s)
  double stage_balance = 1;     // the layers' time scaled to the largest pipeline stage's (in step_s)
  bool prefill = false;
  int micro_batches = 1;
  double compute_slowdown = 1;  // compute beside communication kernels that hold SMs
  Overlap overlap = Overlap::kTwoStreams;
  core::TaskGraph graph;  // empty where ServingRequest::keep_graph is false
};

// Where a step's time goes, summed over its layers and micro-batches (compute at the rate it runs
// beside communication). The compute parts, the head and the exposed communication add up to the
// step; the all-to-alls' hidden part ran beside compute.
struct ServingStepBreakdown {
  double attention_s = 0;       // MoE and dense layers' attention (memory-bound kernels included)
  double routed_experts_s = 0;  // MoE layers' routed experts (their permutes and SwiGLU included)
  double shared_expert_s = 0;
  double gate_s = 0;
  double dense_ffn_s = 0;       // dense layers' FFN
  double memory_kernels_s = 0;  // of the above: the memory-bound kernels
  double tp_comm_s = 0;         // of the above: TP all-gathers and reduce-scatters inside attention and a dense FFN
  double mtp_s = 0;             // of the above: the MTP module's layer
  double head_s = 0;            // final norm and LM head (twice with an MTP draft)
  double dispatch_s = 0, combine_s = 0;  // all-to-alls, whether hidden or not
  double exposed_comm_s = 0;             // the step's time beyond its compute: transfers nothing hid
  double pipeline_s = 0;                 // of the above: pipeline stages' hand-offs, and the wait for the largest stage
  double step_s = 0;
};
ServingStepBreakdown step_breakdown(const ServingStep& step);

// The EP all-to-all of one micro-batch, as routed by the gate onto the placed experts.
struct MoeTraffic {
  double dispatch_s = 0, combine_s = 0;
  double imbalance = 1;                // busiest expert GPU / mean
  double busiest_expert_tokens = 0;    // routed token copies on the busiest expert GPU
  double busiest_experts_touched = 0;  // its experts that any of them chose, expected
  double ib_bytes_per_gpu = 0;
  bool simulated = false;
};

// `cluster`: where to flow-simulate the all-to-all; without it, the busiest port's bytes over its
// bandwidth plus one latency.
// `cache`: the all-to-all by tokens per micro-batch, and the experts' placement, kept across calls
// that share the model, deployment, links and seed (neither depends on the context).
// What a routing of some tokens puts on the GPUs, before its bytes are scaled to a micro-batch.
struct RoutedLoad {
  double busiest_copies = 0, mean_copies = 0;  // routed token copies on the busiest expert GPU, and on the mean one
  std::vector<double> busiest_inclusion;       // a token's chance of choosing each of the busiest GPU's slots
  std::vector<GpuTraffic> dispatched;          // the dispatch's bytes sent and received per GPU
  DispatchTraffic dispatch;                    // by GPU pair: for a flow simulation only
};
struct AllToAllCache {
  std::map<long long, std::vector<MoeTraffic>> by_tokens;      // one per MoE-layer profile
  std::vector<std::optional<ReplicatedPlacement>> placements;  // with redundant experts, per profile
  std::vector<Routing> routings;                    // the most tokens routed yet (fewer take its start), per profile
  std::vector<double> gate_shares;                  // skewed synthetic affinities: the gate's share of each expert
  std::map<std::pair<int, int>, RoutedLoad> loads;  // by (profile, routed tokens)
  // A routing's first tokens counted on the GPUs (token copies per GPU by expert and by link),
  // per profile, by routed tokens: a new count adds its tokens past the nearest fewer.
  struct CountedTokens {
    std::vector<long long> load;
    std::vector<GpuCopies> copies;
  };
  std::vector<std::map<int, CountedTokens>> counted;
  // The MoE layers' parts after attention, one per profile, with the step's summaries of them,
  // by (tokens per micro-batch, prefill): nothing else of a step changes them.
  struct MoeCosts {
    double dispatch_s = 0, expert_s = 0, combine_s = 0, gate_s = 0, shared_s = 0, mlp_memory_s = 0;
    double swiglu_s = 0;  // of mlp_memory_s
  };
  struct MoeParts {
    std::vector<MoeCosts> costs;
    double expert_imbalance = 1, experts_touched = 0, ib_bytes_per_gpu = 0;
    bool flow_simulated = false;
  };
  // By the micro-batch's tokens, the phase and whether the step replays a CUDA graph.
  std::map<std::tuple<long long, bool, bool>, MoeParts> moe_parts;
};
ServingStep serving_step(const Model& model, const Roofline& roofline, const ServingDeployment& deployment,
                         const ServingLinks& links, const ServingRequest& request, const net::Cluster* cluster,
                         AllToAllCache* cache = nullptr);

}  // namespace workload
