#include "workload/inference/decode_step.hpp"

#include <string>
#include <vector>

namespace workload {

core::TaskGraph decode_step_graph(const DecodeBoundInput& in, const DecodeStepLayout& layout) {
  using core::Flow;
  using core::TaskId;
  core::TaskGraph g;
  const int n = layout.devices;
  const int experts = static_cast<int>(in.experts_per_token);
  const double bytes_per_expert = in.tokens_per_device * in.hidden;
  const double compute_s = decode_bound(in).compute_s_per_micro_batch;
  auto expert_device = [&](int device, int k) { return (device + layout.stride * (k + 1)) % n; };

  // Per micro-batch: the join after its previous layer's combine (none before the first layer).
  std::vector<std::vector<TaskId>> ready(static_cast<std::size_t>(in.micro_batches));

  for (int layer = 0; layer < in.layers; ++layer) {
    for (int mb = 0; mb < in.micro_batches; ++mb) {
      const std::string tag = "L" + std::to_string(layer) + " mb" + std::to_string(mb);
      std::vector<TaskId> computed(n);
      for (int d = 0; d < n; ++d) { computed[d] = g.add_compute("compute " + tag, d, "compute", compute_s, ready[mb]); }
      std::vector<TaskId> sent(n);
      for (int d = 0; d < n; ++d) {
        std::vector<Flow> flows;
        for (int k = 0; k < experts; ++k)
          flows.push_back({d, expert_device(d, k), bytes_per_expert * in.dispatch_bytes_per_element});
        sent[d] = g.add_transfer("dispatch " + tag, d, "comm", std::move(flows), {computed[d]});
      }
      const TaskId dispatched = g.add_join("dispatched " + tag, sent);
      std::vector<TaskId> returned(n);
      for (int d = 0; d < n; ++d) {
        // The expert device sends each token's output back to the device that owns the token.
        std::vector<Flow> flows;
        for (int k = 0; k < experts; ++k)
          flows.push_back(
              {d, (d - layout.stride * (k + 1) % n + n) % n, bytes_per_expert * in.combine_bytes_per_element});
        returned[d] = g.add_transfer("combine " + tag, d, "comm", std::move(flows), {dispatched});
      }
      ready[mb] = {g.add_join("combined " + tag, returned)};
    }
  }
  return g;
}

}  // namespace workload
