#include "studies/inference/study_kv_cache.hpp"

#include "core/units.hpp"
#include "workload/model/kv_cache.hpp"
#include "workload/model/model.hpp"

namespace studies {

namespace {

class KvCacheStudy : public Study {
 public:
  std::vector<std::string> models;
  std::string baseline;
  double bytes_per_element = 2;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    const double base = workload::kv_cache_bytes_per_token(workload::model_by_name(baseline), bytes_per_element);
    for (const auto& name : models) {
      const auto& m = workload::model_by_name(name);
      const double bytes = workload::kv_cache_bytes_per_token(m, bytes_per_element);
      const std::string label =
          m.display_name + (m.attention.kind == workload::AttentionKind::kMla ? " (MLA)" : " (GQA)");
      r.rows.push_back({name + "/kv_cache_per_token", label, "KV cache per token", "KB", {}, bytes / core::kKB});
      r.rows.push_back({name + "/multiplier",
                        label,
                        "multiple of " + workload::model_by_name(baseline).display_name,
                        "x",
                        {},
                        bytes / base});
    }
    r.notes.push_back(
        "KB = 1000 bytes. MLA caches the latent (kv_lora_rank) and the decoupled RoPE key per layer; "
        "GQA caches K and V for every KV head; " +
        format_number(bytes_per_element) + " bytes per element, summed over all layers.");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_kv_cache_study(core::JsonReader& root) {
  auto s = std::make_unique<KvCacheStudy>();
  core::JsonReader k = root.object("kv_cache");
  s->models = k.string_list("models", workload::model_names());
  s->baseline = k.one_of("baseline", workload::model_names());
  s->bytes_per_element = k.positive_number("bytes_per_element", 2.0);
  k.finish();
  return s;
}

}  // namespace studies
