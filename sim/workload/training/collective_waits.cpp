#include "workload/training/collective_waits.hpp"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace workload {

std::vector<CollectiveWait> collective_waits(const std::vector<StepCollective>& collectives,
                                             const core::Timeline& timeline, const std::vector<int>& slow) {
  const auto& tasks = timeline.graph().tasks();
  std::vector<CollectiveWait> out;
  std::unordered_map<core::Label, std::size_t> index;
  std::vector<std::map<int, std::size_t>> gated_by;
  for (const auto& c : collectives) {
    if (c.members.size() < 2) continue;
    const core::Label name = tasks[static_cast<std::size_t>(c.barrier)].name;
    auto [it, added] = index.try_emplace(name, out.size());
    if (added) {
      out.push_back({timeline.graph().label(name)});
      gated_by.emplace_back();
    }
    auto& w = out[it->second];
    double first = 0, last = 0;
    std::size_t last_member = 0;
    bool tie = false;
    for (std::size_t m = 0; m < c.members.size(); ++m) {
      const auto& span = timeline.span(c.members[m]);
      const double arrival = c.arrive_at_end ? span.end_s : span.start_s;
      if (m == 0 || arrival < first) first = arrival;
      if (m == 0 || arrival > last) {
        last = arrival;
        last_member = m;
        tie = false;
      } else if (arrival == last) {
        tie = true;
      }
    }
    ++w.instances;
    w.mean_s += last - first;
    w.max_s = std::max(w.max_s, last - first);
    if (!tie && last > first) {
      const int gpu = c.member_gpus.empty() ? tasks[static_cast<std::size_t>(c.members[last_member])].rank
                                            : c.member_gpus[last_member];
      ++gated_by[it->second][gpu];
      if (std::binary_search(slow.begin(), slow.end(), gpu)) {
        ++w.gated_by_slow;
        w.slow_mean_s += last - first;
      }
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i].mean_s /= static_cast<double>(out[i].instances);
    if (out[i].gated_by_slow > 0) out[i].slow_mean_s /= static_cast<double>(out[i].gated_by_slow);
    for (const auto& [gpu, n] : gated_by[i])
      if (n > out[i].gated) {
        out[i].gated = n;
        out[i].gating_gpu = gpu;
      }
  }
  return out;
}

}  // namespace workload
