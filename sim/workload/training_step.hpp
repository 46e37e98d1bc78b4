#pragma once
// One training step of a pipeline-parallel, expert-parallel MoE model (DeepSeek-V3 report §3.2,
// ISCA'25 Table 4): every stage's forward, backward-for-input and weight chunks costed per layer
// (FP8 GEMMs shape by shape from the kernel model, layer_gemms.hpp; BF16 attention, memory-bound
// element-wise work and the recomputation of RMSNorm and MLA's up-projections from the roofline),
// each op timed as it runs while communication kernels hold their SMs, or taken from a measured
// profile (OpCalibration); the EP all-to-all of each MoE layer from ep_comm.hpp, DualPipe's
// overlap of a forward and a backward chunk (chunk_overlap.hpp, layer by layer), the pipeline
// schedule run over the stages, then ZeRO-1's gradient reduce-scatter, optimizer step and
// parameter all-gather.
//
// Every data-parallel replica runs the same pipeline, so one pipeline of `pp` ranks stands for
// all of them; the EP and DP collectives are timed on the whole fabric.
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/timeline.hpp"
#include "workload/chunk_overlap.hpp"
#include "workload/ep_comm.hpp"
#include "workload/layer_cost.hpp"
#include "workload/model.hpp"
#include "workload/pipeline_schedule.hpp"
#include "workload/pipeline_simulation.hpp"
#include "workload/roofline.hpp"
#include "workload/stage_layout.hpp"

namespace workload {

struct TrainingParallelism {
  int gpus = 2048;
  int gpus_per_node = 8;
  int pp = 16;
  int ep = 64;  // the routed experts of a layer are spread over this many GPUs of a stage
  std::string schedule = "dualpipe";

  int dp() const { return gpus / pp; }              // replicas of the dense weights (ZeRO-1 group)
  int expert_dp() const { return gpus / pp / ep; }  // replicas of each expert
};

struct TrainingBatch {
  int sequences = 15360;  // per step, all replicas together
  int sequence_tokens = 4096;
  int micro_batch_sequences = 1;

  int micro_batches(int dp) const { return sequences / dp / micro_batch_sequences; }
  double micro_batch_tokens() const { return double(micro_batch_sequences) * sequence_tokens; }
};

struct OptimizerSetup {
  double gradient_bytes = 4;   // FP32 gradients reduce-scattered
  double parameter_bytes = 2;  // BF16 weights all-gathered
  // AdamW over FP32 master weights with BF16 moments: read weight, gradient and two moments,
  // write weight, moments and the BF16 copy (4 + 4 + 2 + 2 + 4 + 2 + 2 + 2).
  double state_bytes_per_parameter = 22;
};

// The seconds of one layer's components for one micro-batch, as chunk_overlap.hpp takes them.
struct LayerChunks {
  ForwardChunk forward;
  BackwardChunk backward;
};

// A stage's chunks: its layers (the MTP module's layer last on the last stage) and the work
// outside layers (embedding, final norm, head, loss, MTP projection), which overlaps nothing.
struct StageChunks {
  std::vector<LayerChunks> layers;
  double extra_forward_s = 0, extra_input_s = 0, extra_weight_s = 0;

  double forward_s() const;
  double input_backward_s() const;  // B*
  double weight_s() const;          // W
};

// Parameters a rank keeps, for the data-parallel synchronisation.
struct RankParameters {
  double dense = 0;   // replicated over dp(): attention, dense FFN, shared experts, gates, embedding, head
  double expert = 0;  // routed experts, replicated over expert_dp()
};

struct DataParallelTimes {
  double reduce_scatter_s = 0;
  double optimizer_s = 0;
  double all_gather_s = 0;
  double total() const { return reduce_scatter_s + optimizer_s + all_gather_s; }
};

// One op of a step, named as DeepSeek's profile names it (attn(F), dispatch(F), mlp(F),
// combine(F), attn(B), attn(W), mlp(B), mlp(W), dispatch(B), combine(B), pp(F), pp(B); "other"
// for the embedding, head and MTP projection), on its stream, from the step's start.
struct OpSpan {
  std::string name;
  std::string stream;  // compute, weight-gradient or communication
  int layer = -1;      // the model's layer (the MTP module's after the last); -1 for other
  double start_s = 0, end_s = 0;
};

// Where the critical rank's pipeline time goes (ISCA'25 Table 4's rows).
struct StepBreakdown {
  int rank = 0;
  double forward_s = 0;     // 1F: forward chunks alone
  double backward_s = 0;    // 1B: backward chunks alone (input only, or with weights)
  double weight_s = 0;      // 1W: weight chunks alone
  double overlapped_s = 0;  // 1F1B: overlapped forward-and-backward pairs
  double bubble_s = 0;      // idle
};

// Measured times of one MoE layer's compute ops, as a profile of an overlapped F&B pair gives
// them (DeepSeek's names: attn(F), mlp(F), attn(B), attn(W), mlp(B), mlp(W)), per instance, on
// the SMs the communication kernels left. Each replaces the model's op, scaled by the model
// where the step differs from the profiled one: op = model(step) x measured / model(profiled).
// Attention ops apply to every layer; MLP ops to MoE layers (the dense FFN keeps the model).
struct OpCalibration {
  std::map<std::string, double> op_s;
  double micro_batch_tokens = 0;  // of the profiled run
  int communication_sms = 0;      // of the profiled run
  static const std::vector<std::string>& op_names();
};

class TrainingStep {
 public:
  TrainingStep(const Model& model, const Roofline& roofline, TrainingParallelism parallelism, TrainingBatch batch,
               StageLayout layout, EpCommTimes ep_comm, int sms, int comm_sms,
               std::optional<OpCalibration> calibration = std::nullopt);

  const std::vector<StageChunks>& stages() const { return stages_; }
  const Schedule& schedule() const { return schedule_; }
  // Seconds of one step of the schedule on its rank (a chunk, or an overlapped pair).
  double step_seconds(const Step& step) const;
  // The ops of one step of the schedule, laid out as the step runs them (an overlapped pair as
  // chunk_overlap.hpp orders it, layer by layer); they end when step_seconds(step) does.
  std::vector<OpSpan> step_ops(const Step& step) const;
  // The activation (or its gradient) one micro-batch sends to the next stage, in BF16.
  double pp_transfer_bytes() const;
  PipelineGraph pipeline_graph() const;
  StepBreakdown breakdown(const PipelineGraph& graph, const core::Timeline& timeline) const;
  // The largest any rank holds (a DualPipe rank holds two stages).
  RankParameters rank_parameters() const;

 private:
  LayerChunks layer_chunks(const LayerCost& layer, double tokens, int comm_sms) const;
  LayerChunks calibrated_chunks(const LayerCost& layer) const;

  const Model* model_;
  Roofline roofline_;
  TrainingParallelism par_;
  TrainingBatch batch_;
  StageLayout layout_;
  EpCommTimes ep_;
  int sms_, comm_sms_;
  std::optional<OpCalibration> calibration_;
  std::vector<StageChunks> stages_;
  Schedule schedule_;
  mutable std::map<std::tuple<int, int, bool>, double> pair_cache_;
};

}  // namespace workload
