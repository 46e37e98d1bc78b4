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
#include <vector>

#include "core/task_graph.hpp"
#include "net/cluster.hpp"
#include "workload/inference/moe_traffic.hpp"
#include "workload/inference/serving_deployment.hpp"
#include "workload/inference/serving_step.hpp"
#include "workload/model/model.hpp"
#include "workload/model/roofline.hpp"

namespace workload {

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

// One step of `request` on `deployment`.
// `cluster`: where to flow-simulate the all-to-all; without it, the busiest port's bytes over its
// bandwidth plus one latency.
// `cache`: the all-to-all by tokens per micro-batch, and the experts' placement, kept across calls
// that share the model, deployment, links and seed (neither depends on the context).
ServingStep serving_step(const Model& model, const Roofline& roofline, const ServingDeployment& deployment,
                         const ServingLinks& links, const ServingRequest& request, const net::Cluster* cluster,
                         AllToAllCache* cache = nullptr);

}  // namespace workload
