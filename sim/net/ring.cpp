#include "net/ring.hpp"

#include <string>

namespace net {

core::TaskGraph ring_graph(const std::vector<Ring>& rings, double size_bytes, int passes) {
  core::TaskGraph g;
  append_ring(g, rings, size_bytes, passes, {});
  return g;
}

core::TaskId append_ring(core::TaskGraph& g, const std::vector<Ring>& rings, double size_bytes, int passes,
                         std::vector<core::TaskId> after) {
  std::size_t n = 0;
  for (const auto& ring : rings) n = std::max(n, ring.size());
  std::vector<core::TaskId> previous = std::move(after);
  const std::size_t steps = static_cast<std::size_t>(passes) * (n > 0 ? n - 1 : 0);
  if (steps == 0) return g.add_join("no ring step", previous);
  for (std::size_t step = 0; step < steps; ++step) {
    std::vector<core::TaskId> sent;
    for (const auto& ring : rings)
      for (std::size_t i = 0; i < ring.size(); ++i) {
        const int from = ring[i], to = ring[(i + 1) % ring.size()];
        sent.push_back(g.add_transfer("ring step " + std::to_string(step), from, "ring",
                                      {{from, to, size_bytes / static_cast<double>(ring.size())}}, previous));
      }
    previous = {g.add_join("step " + std::to_string(step) + " done", sent)};
  }
  return previous.front();
}

}  // namespace net
