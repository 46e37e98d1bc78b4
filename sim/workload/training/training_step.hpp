#pragma once
// One training step of a dense or MoE transformer under any mix of TP (with sequence
// parallelism), CP, PP (any schedule, virtual stages), DP (ZeRO 0-3) and EP
// (training_parallelism.hpp): every stage's forward, backward-for-input and weight chunks costed
// per layer on one GPU's shards (GEMMs shape by shape from the kernel model for FP8 recipes,
// layer_gemms.hpp; FlashAttention from its kernel model; the memory-bound kernels one by one,
// layer_memory_kernels.hpp; the router's GEMM, and all of it on GPUs without the kernel models,
// from the roofline), each op timed
// as it runs while communication kernels hold their SMs, or taken from a measured profile
// (OpCalibration); per layer the TP all-gathers and reduce-scatters (or all-reduces), CP's ring
// of K/V behind attention and the EP all-to-all (ep_comm.hpp); DualPipe's overlap of a forward
// and a backward chunk (chunk_overlap.hpp, layer by layer); the pipeline schedule run over the
// stages; then the data-parallel synchronisation by ZeRO stage (data_parallel_sync.hpp).
//
// Every data-parallel, TP and CP peer runs the same pipeline, so one pipeline of `pp` ranks
// stands for all of them analytically; the flow model runs them all, each on its GPUs, with the
// data-parallel synchronisation (cluster_step.hpp); the EP collectives are timed on the whole
// fabric per micro-batch, or run in that run op by op (step_op_graph).
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/timeline.hpp"
#include "hw/all_reduce.hpp"
#include "workload/model/layer_cost.hpp"
#include "workload/model/model.hpp"
#include "workload/model/roofline.hpp"
#include "workload/moe/ep_comm.hpp"
#include "workload/parallel/training_parallelism.hpp"
#include "workload/pipeline/chunk_overlap.hpp"
#include "workload/pipeline/pipeline_schedule.hpp"
#include "workload/pipeline/pipeline_simulation.hpp"
#include "workload/profile/kernel_class.hpp"
#include "workload/training/stage_layout.hpp"

namespace workload {

struct TrainingBatch {
  int global_sequences = 15360;  // per step, all replicas together
  int sequence_tokens = 4096;
  int micro_batch_sequences = 1;

  int micro_batches(int dp) const { return global_sequences / dp / micro_batch_sequences; }
  // Tokens of one micro-batch, before CP cuts its sequences.
  double micro_batch_tokens() const { return double(micro_batch_sequences) * sequence_tokens; }
};

// What the per-layer collectives of a group cross: NVLink when the group's GPUs share a node,
// else each GPU's NIC (rates per GPU and direction).
struct GroupLinks {
  double tp_Bps = 0, cp_Bps = 0;
  double etp_Bps = 0;  // the experts' TP group (the experts' grid)
  // A TP group within a node whose NCCL all-reduce was measured (hw/all_reduce.hpp): its
  // all-gathers and reduce-scatters take that fit, as serving's do; else the ring at tp_Bps.
  const hw::AllReduceFit* tp_all_reduce = nullptr;
};
// `node_all_reduce`: the node's measured NCCL all-reduce, which a TP group within the node takes.
GroupLinks group_links(const TrainingParallelism& par, double nvlink_Bps, double nic_Bps,
                       const hw::AllReduceFit* node_all_reduce = nullptr);

struct OptimizerSetup {
  double gradient_bytes = 4;   // FP32 gradients reduce-scattered, and held
  double parameter_bytes = 2;  // BF16 weights all-gathered, and held
  double master_and_moment_bytes =
      12;  // held per parameter: FP32 master weight and moments (DeepSeek-V3's BF16 moments: 8)
  // What AdamW's step reads and writes per parameter: master, moments and gradient read; master,
  // moments and the held weight written (2 x 12 + 4 + 2; DeepSeek-V3's: 22).
  double state_bytes_per_parameter = 30;
};

// The seconds of one layer's components for one micro-batch, as chunk_overlap.hpp takes them.
struct LayerChunks {
  ForwardChunk forward;
  BackwardChunk backward;
  // Exposed TP and CP communication, already inside the attention and MLP ops above.
  double tp_forward_s = 0, tp_backward_s = 0, cp_forward_s = 0, cp_backward_s = 0;
  // What the compute ops are made of (by DeepSeek's op names: attn(F), mlp(F), attn(B), attn(W),
  // mlp(B), mlp(W)), in the order they run; each op's kernels add up to its seconds. Empty unless
  // the TrainingStep keeps kernels: naming them costs more than timing them.
  std::map<std::string, std::vector<KernelTime>> kernels;
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

// The activation (or its gradient) one micro-batch sends to the next stage, in BF16, per GPU.
double pp_transfer_bytes(const Model& model, const TrainingBatch& batch, const TrainingParallelism& par);

// Parameters a GPU keeps (its TP and EP shards), for the data-parallel synchronisation.
struct RankParameters {
  double dense = 0;   // replicated over dense_dp(): attention, dense FFN, shared experts, gates, embedding, head
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
  // The kernels inside it (held by the TrainingStep), or none: communication, other.
  const std::vector<KernelTime>* kernels = nullptr;
};

// The ops of one step with what each waits for, in segments, each segment's ops starting once
// the one before has ended. An overlapped pair's layers are one segment, each layer as
// chunk_overlap.hpp orders and chains it on the compute and communication streams, its first
// ops waiting for the layer before's output (combine(F)) and input gradient (attn(B)); a chunk's
// layer (and the rest of the longer chunk of a pair) is a segment, op after op. The work outside
// layers is a segment of its own, first.
struct StepOpGraph {
  struct Op {
    std::string name;       // as DeepSeek's profile names it
    std::string stream;     // compute or communication: the stream it runs on, in segment order
    int layer = -1;         // the model's layer; -1 for other
    double seconds = 0;     // as the step is timed: communication at its whole-fabric time per micro-batch
    std::vector<int> deps;  // ops of its segment it waits for, besides the one before it on its stream
    const std::vector<KernelTime>* kernels = nullptr;
    double before_send_s = 0;  // communication: of `seconds`, the kernels its stream runs before it sends
  };
  struct Segment {
    std::vector<Op> ops;
  };
  std::vector<Segment> segments;
};
// When each op of a segment runs, from the segment's start: once its stream is free and what it
// waits for has ended.
std::vector<core::TaskSpan> segment_spans(const StepOpGraph::Segment& segment);

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
  // The MoE layers' all-to-alls too, from their measured spans in proportion to the tokens (their
  // bytes are; the step's communication SMs must be the profile's). In an overlapped pair those
  // spans hold the kernels' waits for their peers, so this replays the profiled pair rather than
  // predicting another.
  bool communication = false;
  static const std::vector<std::string>& op_names();
  static const std::vector<std::string>& communication_op_names();
};

class TrainingStep {
 public:
  TrainingStep(const Model& model, const Roofline& roofline, TrainingParallelism parallelism, TrainingBatch batch,
               StageLayout layout, EpCommTimes ep_comm, int sms, int comm_sms,
               std::optional<OpCalibration> calibration = std::nullopt, GroupLinks links = {},
               bool keep_kernels = false);

  const std::vector<StageChunks>& stages() const { return stages_; }
  const Schedule& schedule() const { return schedule_; }
  // Seconds of one step of the schedule on its rank (a chunk, or an overlapped pair).
  double step_seconds(const Step& step) const;
  // The ops of one step of the schedule, laid out as the step runs them (an overlapped pair as
  // chunk_overlap.hpp orders it, layer by layer); they end when step_seconds(step) does.
  std::vector<OpSpan> step_ops(const Step& step) const;
  // The same ops with their dependencies, for a run that times them (step_ops lays them out).
  StepOpGraph step_op_graph(const Step& step) const;
  // The activation (or its gradient) one micro-batch sends to the next stage, in BF16, per GPU.
  double pp_transfer_bytes() const;
  PipelineGraph pipeline_graph() const;
  StepBreakdown breakdown(const PipelineGraph& graph, const core::Timeline& timeline) const;
  // The largest any rank holds (a DualPipe rank holds two stages), and one rank's.
  RankParameters rank_parameters() const;
  RankParameters rank_parameters(int rank) const;
  // The stage positions whose chunks run on `rank`.
  std::vector<int> stages_of_rank(int rank) const;

  const Model& model() const { return *model_; }
  const TrainingParallelism& parallelism() const { return par_; }
  const TrainingBatch& batch() const { return batch_; }
  const StageLayout& layout() const { return layout_; }

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
  GroupLinks links_;
  bool keep_kernels_;  // list each op's kernels (LayerChunks::kernels), for a kernel trace
  std::vector<StageChunks> stages_;
  Schedule schedule_;
  mutable std::map<std::tuple<int, int, bool>, double> pair_cache_;
};

}  // namespace workload
