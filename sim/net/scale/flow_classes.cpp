#include "net/scale/flow_classes.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace net {

namespace {

constexpr double kRelativeTolerance = 1e-9;

// Max-min rates of the active classes by progressive filling: every unfrozen class rises at one
// level until a link class saturates; the classes crossing it freeze at that level.
void water_fill(const std::vector<LinkClass>& links, const std::vector<FlowClass>& flows,
                const std::vector<std::size_t>& active, std::vector<double>& rate) {
  std::vector<double> left(links.size()), demand(links.size());
  for (std::size_t l = 0; l < links.size(); ++l) left[l] = links[l].Bps_per_link * links[l].links;
  std::vector<std::size_t> rising = active;
  double level = 0;
  while (!rising.empty()) {
    std::fill(demand.begin(), demand.end(), 0.0);
    for (std::size_t c : rising)
      for (const auto& [l, u] : flows[c].use) demand[static_cast<std::size_t>(l)] += flows[c].flows * u;
    double next = std::numeric_limits<double>::infinity();
    for (std::size_t l = 0; l < links.size(); ++l)
      if (demand[l] > 0) next = std::min(next, level + std::max(0.0, left[l]) / demand[l]);
    if (!(next < std::numeric_limits<double>::infinity())) {  // classes that use no link: no limit
      for (std::size_t c : rising) rate[c] = std::numeric_limits<double>::infinity();
      return;
    }
    // Spend the rise on every link, then freeze the classes on the links now full.
    for (std::size_t l = 0; l < links.size(); ++l) left[l] -= demand[l] * (next - level);
    level = next;
    std::vector<std::size_t> still;
    for (std::size_t c : rising) {
      bool frozen = false;
      for (const auto& [l, u] : flows[c].use) {
        const auto li = static_cast<std::size_t>(l);
        frozen = frozen || (u > 0 && left[li] <= kRelativeTolerance * links[li].Bps_per_link * links[li].links);
      }
      if (frozen)
        rate[c] = level;
      else
        still.push_back(c);
    }
    rising.swap(still);
  }
}

}  // namespace

ClassRun simulate_classes(const std::vector<LinkClass>& links, const std::vector<FlowClass>& flows) {
  for (const FlowClass& f : flows)
    for (const auto& [l, u] : f.use) {
      if (l < 0 || static_cast<std::size_t>(l) >= links.size())
        throw std::invalid_argument("a flow class uses link class " + std::to_string(l) + ", which does not exist");
      if (u > 0 && !(links[static_cast<std::size_t>(l)].Bps_per_link > 0))
        throw std::invalid_argument("a flow class uses link class " + std::to_string(l) + ", which has no bandwidth");
    }
  ClassRun run;
  run.finish_s.assign(flows.size(), 0.0);
  std::vector<double> left(flows.size()), rate(flows.size(), 0.0);
  std::vector<std::size_t> active;
  for (std::size_t c = 0; c < flows.size(); ++c) {
    left[c] = flows[c].bytes_per_flow;
    if (left[c] > 0 && flows[c].flows > 0) active.push_back(c);
  }
  double now = 0;
  while (!active.empty()) {
    water_fill(links, flows, active, rate);
    ++run.rate_solves;
    double step = std::numeric_limits<double>::infinity();
    for (std::size_t c : active) step = std::min(step, left[c] / rate[c]);
    if (!(step < std::numeric_limits<double>::infinity())) step = 0;
    now += step;
    std::vector<std::size_t> still;
    for (std::size_t c : active) {
      left[c] -= rate[c] * step;
      // Classes of equal rates and bytes end together: within rounding of the step.
      if (left[c] <= kRelativeTolerance * flows[c].bytes_per_flow ||
          rate[c] == std::numeric_limits<double>::infinity()) {
        run.finish_s[c] = now;
      } else {
        still.push_back(c);
      }
    }
    active.swap(still);
  }
  run.makespan_s = now;
  return run;
}

}  // namespace net
