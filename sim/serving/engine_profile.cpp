#include "serving/engine_profile.hpp"

#include "serving/serving_simulation.hpp"

namespace serving {

bool EngineProfile::adds_nothing() const {
  return step_cpu_s == 0 && step_cpu_per_sequence_s == 0 && worker_dispatch_s == 0 && overlap_exposed_s == 0 &&
         !tokens_a_step_later && frontend_s == 0 && tokenize_s_per_token == 0 && emit_s == 0;
}

void apply_token_path(ServingResult& result, const EngineProfile& engine) {
  for (auto& r : result.requests) {
    if (r.first_token_s >= 0) r.first_token_s += engine.emit_s;
    if (r.finish_s >= 0) r.finish_s += engine.emit_s;
  }
}

}  // namespace serving
