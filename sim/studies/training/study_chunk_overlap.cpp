#include "studies/training/study_chunk_overlap.hpp"

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "hw/node.hpp"
#include "net/platform.hpp"
#include "workload/pipeline/chunk_overlap.hpp"

namespace studies {

namespace {

class ChunkOverlapStudy : public Study {
 public:
  workload::ChunkPair pair;

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    const auto graph = workload::overlapped_chunk_pair(pair);
    const core::Timeline timeline = core::simulate(net::StarPlatform(net::ideal_cluster(1)), graph);
    const double overlapped = timeline.makespan_s();
    const double serial = workload::serial_chunk_pair_s(pair);
    const double comm = timeline.busy_s(0, "communication");
    const double computing = timeline.busy_s(0, "compute");
    r.rows.push_back(
        {"overlapped", "F&B pair, overlapped", "time", "ms", std::nullopt, overlapped * 1e3, Basis::kSimulated});
    r.rows.push_back({"serial", "F then B, no overlap", "time", "ms", std::nullopt, serial * 1e3, Basis::kSimulated});
    r.rows.push_back(
        {"speedup", "overlap gain", "serial / overlapped", "x", std::nullopt, serial / overlapped, Basis::kSimulated});
    r.rows.push_back({"exposed_comm", "communication not hidden by compute", "time", "ms", std::nullopt,
                      (overlapped - computing) * 1e3, Basis::kSimulated});
    r.rows.push_back({"hidden_comm", "communication hidden", "share", "%", std::nullopt,
                      comm > 0 ? 100 * (1 - std::max(0.0, overlapped - computing) / comm) : 100.0, Basis::kSimulated});
    r.notes.push_back(
        "Compute slows by " + format_number(double(pair.sms) / (pair.sms - pair.comm_sms)) + "x with " +
        std::to_string(pair.comm_sms) + " of " + std::to_string(pair.sms) +
        " SMs kept for communication. Stream orders as read from the report's Figure 4: compute ATTN(F), MLP(B), "
        "MLP(W), MLP(F), ATTN(B), ATTN(W); communication COMBINE(B), DISPATCH(F), DISPATCH(B), "
        "COMBINE(F), PP(F), PP(B).");
    if (options.trace) r.trace_json = timeline.chrome_trace_json();
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_chunk_overlap_study(core::JsonReader& root) {
  auto s = std::make_unique<ChunkOverlapStudy>();
  core::JsonReader c = root.object("chunk_pair");
  core::JsonReader f = c.object("forward");
  auto& fw = s->pair.forward;
  fw.attention_s = f.non_negative_number("attention_s");
  fw.dispatch_s = f.non_negative_number("dispatch_s");
  fw.mlp_s = f.non_negative_number("mlp_s");
  fw.combine_s = f.non_negative_number("combine_s");
  fw.pp_s = f.non_negative_number("pp_s", 0.0);
  f.finish();
  core::JsonReader b = c.object("backward");
  auto& bw = s->pair.backward;
  bw.attention_input_s = b.non_negative_number("attention_input_s");
  bw.attention_weight_s = b.non_negative_number("attention_weight_s");
  bw.dispatch_s = b.non_negative_number("dispatch_s");
  bw.mlp_input_s = b.non_negative_number("mlp_input_s");
  bw.mlp_weight_s = b.non_negative_number("mlp_weight_s");
  bw.combine_s = b.non_negative_number("combine_s");
  bw.pp_s = b.non_negative_number("pp_s", 0.0);
  b.finish();
  s->pair.sms = static_cast<int>(c.positive_integer("sms", hw::default_node().gpu_model().sm_count, 100'000));
  s->pair.comm_sms = static_cast<int>(c.non_negative_integer("comm_sms", 20, 100'000));
  if (s->pair.comm_sms >= s->pair.sms)
    throw core::InputError(c.pointer_of("comm_sms"),
                           std::to_string(s->pair.comm_sms) +
                               " is not allowed; communication must leave SMs to compute (fewer than " +
                               std::to_string(s->pair.sms) + ")");
  c.finish();
  return s;
}

}  // namespace studies
