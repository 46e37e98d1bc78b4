#include "studies/training/study_train_flops.hpp"

#include "core/units.hpp"
#include "workload/model/layer_cost.hpp"
#include "workload/model/model.hpp"
#include "workload/model/training_flops.hpp"

namespace studies {

namespace {

class TrainFlopsStudy : public Study {
 public:
  std::vector<std::string> models;
  double sequence_tokens = 4096;

  StudyResult run(const RunOptions&) const override {
    using workload::AttentionMask;
    StudyResult r;
    for (const auto& name : models) {
      const auto& m = workload::model_by_name(name);
      const auto causal = workload::training_flops_per_token(m, sequence_tokens, AttentionMask::kCausal);
      const auto full = workload::training_flops_per_token(m, sequence_tokens, AttentionMask::kFull);
      const auto params = workload::model_parameters(m);
      r.rows.push_back({name + "/training_flops",
                        m.display_name,
                        "training GFLOPs per token (causal)",
                        "GFLOPs",
                        {},
                        causal.total() / core::kGiga});
      r.rows.push_back({name + "/training_flops_full_mask",
                        m.display_name,
                        "training GFLOPs per token (full mask)",
                        "GFLOPs",
                        {},
                        full.total() / core::kGiga});
      r.rows.push_back({name + "/attention_flops",
                        m.display_name,
                        "of which attention (causal)",
                        "GFLOPs",
                        {},
                        causal.attention / core::kGiga});
      r.rows.push_back({name + "/weight_flops",
                        m.display_name,
                        "of which weights (6 per active non-embedding weight)",
                        "GFLOPs",
                        {},
                        (causal.layers_matmul + causal.lm_head) / core::kGiga});
      r.rows.push_back(
          {name + "/params_total", m.display_name, "parameters, total", "B", {}, params.total() / core::kGiga});
      r.rows.push_back({name + "/params_active",
                        m.display_name,
                        "parameters, active per token",
                        "B",
                        {},
                        params.active() / core::kGiga});
    }
    r.notes.push_back(
        "Training FLOPs per token = 3 x forward; forward = 2 FLOPs per active non-embedding weight (attention "
        "projections, dense FFN or shared + top-k experts + gate), 2 per LM-head weight, and QK^T + AV over the "
        "mean context: (s+1)/2 keys for a causal mask, s for a full one, s = " +
        format_number(sequence_tokens) +
        ". Embedding lookups, norms, softmax and the MTP module are not counted; total parameters exclude MTP.");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_train_flops_study(core::JsonReader& root) {
  auto s = std::make_unique<TrainFlopsStudy>();
  core::JsonReader t = root.object("train_flops");
  s->models = t.string_list("models", workload::model_names());
  s->sequence_tokens = static_cast<double>(t.positive_integer("sequence_tokens", 4096, 10'000'000));
  t.finish();
  return s;
}

}  // namespace studies
