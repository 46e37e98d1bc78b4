// The serving report's notes (serving_run.hpp): the deployment as it was run (each unit's layout,
// experts, batch caps and memory, the KV transfer, router, preemption and MTP), and how the step
// times were made.
#include "studies/serving/serving_run.hpp"

#include "studies/report/joined.hpp"
#include "hw/attention_backend.hpp"
#include "studies/config/overlap_config.hpp"
#include "workload/moe/expert_placement.hpp"

namespace studies::serving_study {

namespace {

// A DP rank's KV cache in tokens: where some layers keep only a window of the context, as the
// longest sequence it holds, and which layers do. With pipeline stages, a DP rank's batches in
// flight share it: the tokens are each one's, and a token's bytes those of all its layers.
std::string kv_capacity_text(const serving::MemoryPlan& mem, int stages) {
  const auto& p = mem.kv_pages;
  const std::string per_token =
      format_number(mem.kv_bytes_per_token_gpu / 1e3) + " KB a token" + (stages > 1 ? " over all stages" : "");
  const std::string per_rank =
      stages > 1 ? " per batch in flight (" + std::to_string(stages) + " per DP rank)" : " per DP rank";
  if (p.windowed.empty()) return std::to_string(mem.kv_tokens) + " tokens" + per_rank + " (" + per_token + ")";
  int groups = p.full_groups;
  for (const auto& w : p.windowed) groups += w.groups;
  std::string windows;
  for (std::size_t i = 0; i < p.windowed.size(); ++i)
    windows += (i ? " and " : "") + std::to_string(p.windowed[i].groups) + " of " + std::to_string(groups) +
               " page groups of layers keep only its last " + std::to_string(p.windowed[i].window_tokens) + " tokens";
  windows += ", their older pages freed";
  if (p.full_groups == 0)
    return "a sequence of any length" + per_rank + " (" + per_token + " within the window; " + windows + ")";
  return std::to_string(mem.kv_tokens) + " tokens of one sequence" + per_rank + " (" + per_token + "; " + windows + ")";
}

}  // namespace

std::string ServingStudy::step_times_note(const serving::StepCost& prefill_cost,
                                          const serving::StepCost& decode_cost) const {
  // Written from what the step holds: a dense model has no experts, a GQA model no FlashMLA.
  const bool mla = model->attention.kind == workload::AttentionKind::kMla;
  const hw::AttentionBackend& fa = hw::attention_backend_for(*cluster.gpu, config.engine.attention_backends);
  const std::string prefill = cluster.gpu->fp8_dense_flops_per_s > 0 || fa.runs_on_gpu(cluster.gpu->name)
                                  ? ", " + fa.name +
                                        (fa.runs_on_gpu(cluster.gpu->name) && !fa.scaled_for(cluster.gpu->name)
                                             ? ""
                                             : " (scaled by the GPU's datasheet)") +
                                        " in prefill"
                                  : ", the roofline in prefill";
  std::string decode = "the attention core on the roofline with its KV reads in decode";
  if (mla) {
    decode = "FlashMLA in decode";
  } else if (fa.decode.valid()) {
    const hw::AttentionBackend& kernel = hw::attention_backend(fa.decode_kernel, "attention backend");
    decode = kernel.name +
             (kernel.runs_on_gpu(cluster.gpu->name) && !kernel.scaled_for(cluster.gpu->name)
                  ? ""
                  : " (measured on " + kernel.measured_on->name + ", scaled by the GPU's datasheet)") +
             " in decode";
  }
  std::vector<std::string> parts = {std::string("attention per DP rank from its own sequences, ") + decode + prefill};
  if (model->moe) {
    const auto& d = config.decode.deployment;
    parts.push_back(
        !d.expert_tp ? std::string("grouped expert GEMMs over the placed experts; the EP all-to-all ") +
                           (flow ? "flow-simulated" : "from the busiest port")
        : d.expert_ep == d.routed_gpus && d.routed_gpus > 1
            ? "grouped expert GEMMs over each GPU's whole experts, the unit's tokens gathered to every "
              "expert GPU and reduce-scattered"
            : "every expert tensor-parallel, its GEMMs over the unit's tokens, gathered and reduce-scattered");
  }
  if (model->moe_layer_count() < model->layers) parts.push_back("dense FFN GEMMs, TP-sharded");
  const bool tp =
      config.decode.deployment.attention_tp > 1 || (disaggregated && config.prefill.deployment.attention_tp > 1);
  if (tp) parts.push_back("each TP block's all-gather and reduce-scatter on NVLink (their own breakdown row)");
  parts.push_back("the memory-bound kernels one by one");
  const bool micro_batches =
      config.decode.deployment.micro_batches > 1 || (disaggregated && config.prefill.deployment.micro_batches > 1);
  if (micro_batches) parts.push_back("micro-batch overlap");
  return "Step times from the kernel models (workload/inference: " + joined(parts, "; ") + "); GEMMs as " +
         compute.gemm_library->name + " ran them (data/gemm_libraries" +
         (compute.precision() == hw::GemmPrecision::kFp4 && compute.gemm_library->precision != hw::GemmPrecision::kFp4
              ? "; FP4 at an FP8 library's constants and FP4's rate, an assumption"
              : "") +
         "); the busiest DP rank gates each step. " + std::to_string(prefill_cost.computed() + decode_cost.computed()) +
         " step shapes computed for " + std::to_string(prefill_cost.looked_up() + decode_cost.looked_up()) +
         " steps (inputs on a grid within 1.1%; tests hold the grid to the direct figure).";
}

std::string ServingStudy::deployment_note() const {
  auto unit_text = [&](const char* what, const UnitSpec& u) {
    const auto& d = u.config.deployment;
    const auto& mem = u.config.memory;
    std::string s =
        std::to_string(u.units) + " " + what + " unit" + (u.units > 1 ? "s" : "") + " of " +
        std::to_string(d.gpus * d.pipeline_stages) + " " + cluster.gpu->name + " (" + format_number(u.nodes) + " node" +
        (u.nodes == 1 ? "" : "s") + "): attention " +
        (d.attention_tp == 1 ? "data-parallel (DP" + std::to_string(d.gpus) + ")"
                             : "TP" + std::to_string(d.attention_tp) + " x DP" + std::to_string(d.attention_dp()));
    if (d.pipeline_stages > 1)
      s +=
          ", pipeline-parallel PP" + std::to_string(d.pipeline_stages) + " (stages of " + std::to_string(d.gpus) +
          " GPUs and at most " + std::to_string((model->layers + d.pipeline_stages - 1) / d.pipeline_stages) +
          " layers, " + std::to_string(d.pipeline_node_crossings) + " of " + std::to_string(d.pipeline_stages - 1) +
          " boundaries between nodes; " + std::to_string(d.pipeline_stages) +
          " batches in flight per DP rank, one per stage, each with its own requests and KV cache as vLLM's virtual engines run them)";
    if (model->moe && d.expert_tp && d.expert_ep == d.routed_gpus && d.routed_gpus > 1)
      s += ", routed experts EP" + std::to_string(d.routed_gpus) + " (" +
           std::to_string(model->moe->routed_experts / d.routed_gpus) +
           " whole experts a GPU; every token of the unit gathered to all of them and the outputs "
           "reduce-scattered, no all-to-all)";
    else if (model->moe && d.expert_tp && d.expert_ep > 1)
      s += ", routed experts TP" + std::to_string(d.routed_gpus / d.expert_ep) + " x EP" + std::to_string(d.expert_ep) +
           " over " + std::to_string(d.routed_gpus) + " GPUs (each holds 1/" +
           std::to_string(d.routed_gpus / d.expert_ep) + " of its EP group's " +
           std::to_string(model->moe->routed_experts / d.expert_ep) +
           " experts; the unit's tokens gathered to them and the outputs reduce-scattered, no all-to-all)";
    else if (model->moe && d.expert_tp)
      s += ", routed experts tensor-parallel over " + std::to_string(d.routed_gpus) + " GPUs (each holds 1/" +
           std::to_string(d.routed_gpus) +
           " of every expert; the unit's tokens gathered to them and the outputs reduce-scattered, no all-to-all)";
    else if (model->moe)
      s += ", routed experts EP" + std::to_string(d.routed_gpus) + " with " + std::to_string(d.redundant_experts) +
           " redundant (" + std::to_string((model->moe->routed_experts + d.redundant_experts) / d.routed_gpus) +
           " per GPU, placed as EPLB's " +
           (workload::eplb_hierarchical(model->moe->groups, d.routed_gpus, d.gpus_per_node) ? "hierarchical"
                                                                                            : "global") +
           " policy does)" +
           (model->moe->shared_experts == 0
                ? std::string(", no shared expert")
                : ", shared expert " + (d.dedicated_shared && d.shared_gpus() > 0
                                            ? "on " + std::to_string(d.shared_gpus()) + " dedicated GPUs"
                                            : std::string("on every GPU"))) +
           ", " + (d.direct_comm ? "direct (IBGDA) all-to-all" : "all-to-all over IB once per node then NVLink") +
           "; " + describe_overlap(d, std::string(what) == "prefill") + "; " + std::to_string(d.comm_sms) + " of " +
           std::to_string(d.sms) + " SMs held by the communication kernels";
    if (model->moe)
      s += std::string("; experts' popularity ") +
           (d.popularity ? "measured (" + d.popularity->source +
                               (d.eplb_plan ? "; EPLB's plan from " + d.eplb_plan->source : std::string()) +
                               (d.eplb_window_tokens > 0 ? "; EPLB's plan from a window of " +
                                                               std::to_string(d.eplb_window_tokens) + " tokens"
                                                         : std::string()) +
                               ")"
                         : std::string("from the gate on the workload's affinities"));
    s += ", " + std::to_string(d.micro_batches) + " micro-batch" + (d.micro_batches > 1 ? "es" : "") +
         (d.cuda_graph_max_batch > 0
              ? ", CUDA graphs for " + std::string(d.cuda_graph_prefill ? "steps" : "decode steps") + " of up to " +
                    std::to_string(d.cuda_graph_max_batch) + " tokens a DP rank"
              : std::string(", every kernel launched on its stream (no CUDA graphs)")) +
         "; at most " + std::to_string(u.config.max_running) + " sequences and " +
         std::to_string(u.config.max_batch_tokens) +
         " new tokens per DP rank and step. Per GPU: " + gb(mem.weight_bytes) + " GB weights, " +
         gb(mem.activation_bytes) + " GB activations, " + gb(mem.reserve_bytes) + " GB reserve, " + gb(mem.kv_bytes) +
         " GB KV cache = " + kv_capacity_text(mem, d.pipeline_stages) + ".";
    return s;
  };
  std::string s =
      model->display_name + ", " +
      (disaggregated ? "prefill and decode disaggregated: " : "prefill and decode colocated (chunked prefill): ");
  if (disaggregated) s += unit_text("prefill", prefill) + " ";
  s += unit_text(disaggregated ? "decode" : "colocated", decode);
  if (disaggregated)
    s +=
        " KV caches go to decode over " + std::to_string(config.kv_senders) + " NIC(s) of the prefill rank at " +
        format_number(config.kv_transfer_Bps / 1e9) +
        " GB/s each, one at a time on the NICs of the ranks at either end (the EP all-to-all's share of them not counted)" +
        (serving::kv_over_nvlink_somewhere(config)
             ? ", or over NVLink at " + format_number(config.kv_scale_up_Bps / 1e9) +
                   " GB/s a GPU between ranks in one " + std::to_string(config.domain_gpus) +
                   "-GPU NVLink domain (the units placed in GPU order, prefill first: here some prefill and decode ranks share one)"
             : std::string()) +
        ", the prefill rank keeping its pages until the transfer ends; the decode unit takes a request once it has pages for it, and its "
        "first step delivers the first token (TTFT = queue + prefill + transfer + first decode step).";
  s += std::string(" Router: ") + router_name_ + "; preemption by " +
       (config.preemption == serving::Preemption::kSwap ? "swapping to host memory" : "recomputation") +
       "; KV pages of " + std::to_string(config.page_tokens) + " tokens.";
  if (config.mtp_drafts > 0) {
    s += " MTP: each decode step verifies " + std::to_string(config.mtp_drafts) + " drafted token" +
         (config.mtp_drafts > 1 ? "s" : "") +
         " per sequence (the MTP module run as many times), accepted with probability";
    for (std::size_t i = 0; i < config.mtp_acceptance.size(); ++i)
      s += (i ? ", " : " ") + format_number(config.mtp_acceptance[i]);
    s += config.mtp_drafts > 1 ? " by position, each once the ones before it are." : ".";
  } else if (model->mtp_modules > 0) {
    s += " MTP: off (the model has an MTP module; give /deployment/mtp_acceptance to use it).";
  }
  return s;
}

}  // namespace studies::serving_study
