#include "workload/pipeline/schedule_check.hpp"

#include <map>
#include <stdexcept>
#include <tuple>

namespace workload {

namespace {

// Per (flow, position): what has run so far.
struct StageState {
  bool forward = false;
  bool backward = false;  // full or input-only
  bool weight_pending = false;
  bool weight = false;
};

bool is_backward(Pass p) { return p == Pass::kBackward || p == Pass::kBackwardInput; }

// True when every input of `c` has been produced.
bool ready(const Schedule& s, const std::vector<std::vector<StageState>>& st, const Chunk& c) {
  const int last = static_cast<int>(s.paths[c.flow].size()) - 1;
  switch (c.pass) {
    case Pass::kForward:
      return c.position == 0 || st[c.flow][c.position - 1].forward;
    case Pass::kBackward:
    case Pass::kBackwardInput:
      return st[c.flow][c.position].forward && (c.position == last || st[c.flow][c.position + 1].backward);
    case Pass::kWeight:
      return st[c.flow][c.position].weight_pending;
  }
  return false;
}

void apply(std::vector<std::vector<StageState>>& st, const Chunk& c) {
  StageState& x = st[c.flow][c.position];
  if (c.pass == Pass::kForward) x.forward = true;
  if (is_backward(c.pass)) x.backward = true;
  if (c.pass == Pass::kBackwardInput) x.weight_pending = true;
  if (c.pass == Pass::kWeight) x.weight = true;
}

}  // namespace

std::vector<std::pair<int, int>> execution_order(const Schedule& s) {
  std::vector<std::vector<StageState>> st(s.paths.size());
  for (std::size_t f = 0; f < s.paths.size(); ++f) st[f].resize(s.paths[f].size());
  std::vector<std::size_t> next(s.ranks, 0);
  std::vector<std::pair<int, int>> order;
  std::size_t total = 0;
  for (const auto& r : s.steps) total += r.size();
  order.reserve(total);
  // Round-robin over ranks, running every step whose inputs exist; a full round with no
  // progress is a deadlock.
  bool progress = true;
  while (order.size() < total && progress) {
    progress = false;
    for (int r = 0; r < s.ranks; ++r) {
      while (next[r] < s.steps[r].size()) {
        const Step& step = s.steps[r][next[r]];
        bool ok = true;
        for (const auto& c : step.chunks) ok = ok && ready(s, st, c);
        if (!ok) break;
        for (const auto& c : step.chunks) apply(st, c);
        order.emplace_back(r, static_cast<int>(next[r]++));
        progress = true;
      }
    }
  }
  if (order.size() < total) {
    std::string where;
    for (int r = 0; r < s.ranks && where.empty(); ++r)
      if (next[r] < s.steps[r].size())
        where = "rank " + std::to_string(r) + " at " + token(s.steps[r][next[r]], s.show_lane);
    throw std::logic_error(s.kind + " schedule deadlocks: " + where + " waits for an input that never comes");
  }
  return order;
}

std::vector<std::string> check_schedule(const Schedule& s) {
  std::vector<std::string> problems;
  // Count passes per (flow, position, pass) and check placement.
  std::map<std::tuple<int, int, Pass>, int> count;
  for (int r = 0; r < s.ranks; ++r)
    for (const auto& step : s.steps[r])
      for (const auto& c : step.chunks) {
        if (c.flow < 0 || c.flow >= static_cast<int>(s.paths.size()) || c.position < 0 ||
            c.position >= static_cast<int>(s.paths[c.flow].size())) {
          problems.push_back("rank " + std::to_string(r) + ": " + token(step, s.show_lane) + " is off every path");
          continue;
        }
        if (s.paths[c.flow][c.position] != r)
          problems.push_back("rank " + std::to_string(r) + ": " + token(step, s.show_lane) + " belongs on rank " +
                             std::to_string(s.paths[c.flow][c.position]));
        ++count[{c.flow, c.position, c.pass}];
      }
  for (std::size_t f = 0; f < s.paths.size(); ++f)
    for (std::size_t p = 0; p < s.paths[f].size(); ++p) {
      auto n = [&](Pass pass) { return count[{static_cast<int>(f), static_cast<int>(p), pass}]; };
      const std::string at = "micro-batch flow " + std::to_string(f) + " stage " + std::to_string(p);
      if (n(Pass::kForward) != 1) problems.push_back(at + ": " + std::to_string(n(Pass::kForward)) + " forwards");
      if (n(Pass::kBackward) + n(Pass::kBackwardInput) != 1)
        problems.push_back(at + ": " + std::to_string(n(Pass::kBackward) + n(Pass::kBackwardInput)) + " backwards");
      if (n(Pass::kWeight) != n(Pass::kBackwardInput))
        problems.push_back(at + ": " + std::to_string(n(Pass::kWeight)) + " weight passes for " +
                           std::to_string(n(Pass::kBackwardInput)) + " input-only backwards");
    }
  if (problems.empty()) {
    try {
      execution_order(s);  // ready() also enforces F before B and B* before W on each rank
    } catch (const std::logic_error& e) { problems.push_back(e.what()); }
  }
  return problems;
}

}  // namespace workload
