#include "studies/config/engine_config.hpp"

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "hw/attention_backend.hpp"

namespace studies {

namespace {

const std::vector<serving::EngineProfile>& engine_catalogue() {
  static const std::vector<serving::EngineProfile> engines = [] {
    std::vector<serving::EngineProfile> out;
    for (const auto& [path, doc] : core::read_data_folder("engines")) {
      core::JsonReader r(doc, path + ": ");
      serving::EngineProfile e;
      e.name = r.string("name");
      r.string("description");
      // An engine's CPU work is microseconds to milliseconds; a second bounds each figure, so that
      // a slip of the exponent is refused rather than stalling every request past the run.
      e.step_cpu_s = r.number_in("step_cpu_s", 0, 1);
      e.step_cpu_per_sequence_s = r.number_in("step_cpu_per_sequence_s", 0, 1);
      e.overlap_scheduling = r.boolean("overlap_scheduling", false);
      e.frontend_s = r.number_in("frontend_s", 0, 1);
      e.tokenize_s_per_token = r.number_in("tokenize_s_per_token", 0, 1);
      e.emit_s = r.number_in("emit_s", 0, 1);
      std::vector<std::string> figures{"step_cpu_s", "step_cpu_per_sequence_s", "overlap_scheduling", "frontend_s", "tokenize_s_per_token", "emit_s"};
      if (r.has("attention_backends")) {
        e.attention_backends = r.string_list("attention_backends", hw::attention_backend_names());
        figures.push_back("attention_backends");
      }
      for (auto [key, slot, max] : {std::tuple{"page_tokens", &e.page_tokens, 1 << 16}, std::tuple{"max_running", &e.max_running, 1 << 20},
                                    std::tuple{"max_batch_tokens", &e.max_batch_tokens, 1 << 22}, std::tuple{"micro_batches", &e.micro_batches, 8}})
        if (r.has(key)) {
          *slot = static_cast<int>(r.positive_integer(key, max));
          figures.push_back(key);
        }
      core::require_sources(r, figures);
      r.finish();
      out.push_back(e);
    }
    return out;
  }();
  return engines;
}

}  // namespace

std::vector<std::string> engine_names() { return core::names_of(engine_catalogue()); }

const serving::EngineProfile& engine_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(engine_catalogue(), name, "engine", where);
}

}  // namespace studies
