#include "workload/inference/serving_step.hpp"

#include <string>

namespace workload {

core::TaskGraph serving_graph(const std::vector<MicroBatchCosts>& layers, int micro_batches, double slowdown) {
  core::TaskGraph g;
  std::vector<std::vector<core::TaskId>> ready(static_cast<std::size_t>(micro_batches));  // per micro-batch
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const MicroBatchCosts& c = layers[l];
    const std::string layer = "L" + std::to_string(l) + " mb";
    std::vector<core::TaskId> dispatched(static_cast<std::size_t>(micro_batches));
    for (int mb = 0; mb < micro_batches; ++mb) {
      const std::string tag = layer + std::to_string(mb);
      auto deps = ready[mb];
      if (c.kv_fetch_s > 0) deps.push_back(g.add_compute("KV fetch " + tag, 0, "comm", c.kv_fetch_s, ready[mb]));
      const auto attention = g.add_compute("attention " + tag, 0, "compute", c.attention_s * slowdown, deps);
      dispatched[mb] = g.add_compute("dispatch " + tag, 0, "comm", c.dispatch_s, {attention});
    }
    for (int mb = 0; mb < micro_batches; ++mb) {
      const std::string tag = layer + std::to_string(mb);
      const auto experts = g.add_compute("experts " + tag, 0, "compute", c.expert_s * slowdown, {dispatched[mb]});
      ready[mb] = {g.add_compute("combine " + tag, 0, "comm", c.combine_s, {experts})};
    }
  }
  return g;
}

}  // namespace workload
