#include "core/fluid_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

#include <boost/pending/disjoint_sets.hpp>

#include "core/progress_bar.hpp"

namespace core {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// A bundle whose bytes left would take less than this at its rate is done: it merges completions
// that floating point scatters around one instant (SimGrid's own time precision is 1e-9 s).
constexpr double kDoneWithin_s = 1e-10;
// Bundles that would end within this fraction of their time in the network end together. The
// flows of a collective under ECMP end at many nearby instants (a 2,048-GPU all-to-all: 1,230
// solves); ending them together takes 160 solves. A flow ends at most this fraction of its time
// early: the Table 4 step moves by 2e-5, a random all-to-allv's tasks by at most 1.5e-4 of its
// makespan (tests hold the engines within 1e-3).
constexpr double kMergeFraction = 3e-4;

// n interchangeable flows: same route, same bytes left, same weight, in the network together.
struct Bundle {
  std::size_t route = 0;
  double weight = 1;
  double bytes_left = 0;  // per flow
  double rate_Bps = 0;    // per flow
  double entered_s = 0;
  int component = 0;             // of the network's links (see FluidRun::component_of_route_)
  std::size_t first_member = 0;  // its flow entries' tasks, in `members_`
  std::size_t members = 0;       // entries (each standing for Flow::count flows)
  double flows = 0;              // the flows it stands for: its entries' counts
};

// A solve's copy of a bundle it re-rates, with its links in its Part's `links`.
struct Solving {
  std::size_t index;  // in FluidRun::active_
  double flows, weight, rate_Bps;
  std::size_t first_link, links;
};

// One component's bundles being re-rated.
struct Part {
  std::vector<Solving> bundles;
  std::vector<int> links;
};

// A thread's progressive-filling scratch.
struct Scratch {
  std::vector<std::size_t> touched, link_bundles;  // link_bundles: indices into Part::bundles
  std::vector<char> fixed;
};

// A solve takes a thread per this many bundles it re-rates (starting one costs about as much as
// filling a few thousand), at most kMaxThreads: an MPFT's planes are 8 components.
constexpr std::size_t kBundlesPerThread = 10000;
constexpr unsigned kMaxThreads = 16;

class FluidRun {
 public:
  FluidRun(const Platform& platform, const TaskGraph& graph) : graph_(graph) {
    const auto& tasks = graph.tasks();
    net_ = network_of(platform, graph);
    // Each flow's route, looked up once: flow f of task t is flow_route_[first_flow_[t] + f].
    first_flow_.reserve(tasks.size());
    for (const auto& t : tasks) {
      first_flow_.push_back(flow_route_.size());
      for (const auto& f : t.flows) flow_route_.push_back(net_.route_of(f.src_rank, f.dst_rank));
    }
    route_latency_s_.resize(net_.routes());
    for (std::size_t r = 0; r < net_.routes(); ++r) route_latency_s_[r] = net_.route_latency_s(r);

    spans_.resize(tasks.size());
    deps_left_.resize(tasks.size());
    flows_left_.resize(tasks.size());
    done_.assign(tasks.size(), false);
    successors_.resize(tasks.size());
    stream_of_.assign(tasks.size(), -1);
    std::map<std::pair<int, std::string>, int> stream_ids;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      deps_left_[i] = static_cast<int>(tasks[i].deps.size());
      for (TaskId dep : tasks[i].deps) successors_[dep].push_back(static_cast<TaskId>(i));
      if (tasks[i].kind == TaskKind::kJoin) continue;
      const auto [it, added] = stream_ids.try_emplace({tasks[i].rank, tasks[i].stream}, static_cast<int>(streams_.size()));
      if (added) streams_.emplace_back();
      stream_of_[i] = it->second;
      streams_[it->second].tasks.push_back(static_cast<TaskId>(i));
    }
    link_state_.resize(net_.links().size());
    find_components();
  }

  std::vector<TaskSpan> run(ProgressBar* bar) {
    bar_ = bar;
    for (std::size_t i = 0; i < graph_.tasks().size(); ++i)  // joins with nothing to wait for
      if (deps_left_[i] == 0 && graph_.tasks()[i].kind == TaskKind::kJoin) finish(static_cast<TaskId>(i));
    for (std::size_t s = 0; s < streams_.size(); ++s) try_start(static_cast<int>(s));
    settle();
    while (true) {
      const double next_event = events_.empty() ? kInfinity : std::get<0>(events_.top());
      const double next_done = next_completion();
      const double next = std::min(next_event, next_done);
      if (next == kInfinity) break;
      for (Bundle& b : active_) b.bytes_left -= b.rate_Bps * (next - now_);
      now_ = next;
      settle();
    }
    for (std::size_t i = 0; i < done_.size(); ++i)
      if (!done_[i]) throw std::logic_error("task '" + graph_.tasks()[i].name + "' never ran");
    return spans_;
  }

  std::size_t solves() const { return solves_; }

 private:
  struct Stream {
    std::vector<TaskId> tasks;
    std::size_t next = 0;
    bool busy = false;
  };
  enum EventKind { kComputeEnd = 0, kFlowEnters = 1 };
  // (time, kind, task, flow index)
  using Event = std::tuple<double, int, TaskId, std::size_t>;

  // Everything that happens at `now_`: events due, bundles done, and what they start; then one
  // solve when the set of flows in the network changed.
  void settle() {
    bool changed = false;
    while (true) {
      while (!events_.empty() && std::get<0>(events_.top()) <= now_) {
        const auto [t, kind, task, flow] = events_.top();
        events_.pop();
        if (kind == kComputeEnd) {
          advance();
          finish(task);
        } else {
          entering_.push_back({task, flow});
        }
      }
      changed |= complete_bundles();
      if (!entering_.empty()) {
        enter_network();
        changed = true;
        continue;  // flows of zero bytes end at once
      }
      if (events_.empty() || std::get<0>(events_.top()) > now_) break;
    }
    if (changed) solve();
  }

  void try_start(int s) {
    Stream& stream = streams_[static_cast<std::size_t>(s)];
    if (stream.busy || stream.next == stream.tasks.size()) return;
    const TaskId id = stream.tasks[stream.next];
    if (deps_left_[id] > 0) return;
    stream.busy = true;
    ++stream.next;
    const Task& t = graph_.tasks()[id];
    spans_[id].start_s = now_;
    if (t.kind == TaskKind::kCompute) {
      events_.push({now_ + t.seconds, kComputeEnd, id, 0});
      return;
    }
    flows_left_[id] = static_cast<int>(t.flows.size());
    if (t.flows.empty()) {
      finish(id);
      return;
    }
    for (std::size_t f = 0; f < t.flows.size(); ++f) {
      const double latency = route_latency_s_[flow_route_[first_flow_[id] + f]];
      if (latency > 0) {
        events_.push({now_ + latency, kFlowEnters, id, f});
      } else {
        entering_.push_back({id, f});
      }
    }
  }

  void finish(TaskId id) {
    spans_[id].end_s = now_;
    done_[id] = true;
    if (stream_of_[id] >= 0) {
      streams_[static_cast<std::size_t>(stream_of_[id])].busy = false;
      try_start(stream_of_[id]);
    }
    for (TaskId next : successors_[id]) {
      if (--deps_left_[next] > 0) continue;
      if (graph_.tasks()[next].kind == TaskKind::kJoin) {
        spans_[next].start_s = now_;
        finish(next);
      } else {
        try_start(stream_of_[next]);
      }
    }
  }

  void flow_done(TaskId id) {
    advance();
    if (--flows_left_[id] == 0) finish(id);
  }

  // The flows that entered the network at this instant, bundled by (route, bytes). Bytes are
  // whole, as SimGrid rounds them.
  void enter_network() {
    std::vector<std::tuple<std::size_t, double, TaskId, int>> flows;  // route, bytes, task, count
    flows.reserve(entering_.size());
    for (const auto& [task, f] : entering_) {
      const Flow& flow = graph_.tasks()[task].flows[f];
      flows.push_back({flow_route_[first_flow_[task] + f], std::floor(flow.bytes + 0.5), task, flow.count});
    }
    entering_.clear();
    std::sort(flows.begin(), flows.end());
    for (std::size_t i = 0; i < flows.size();) {
      std::size_t j = i;
      const std::size_t route = std::get<0>(flows[i]);
      const double bytes = std::get<1>(flows[i]);
      while (j < flows.size() && std::get<0>(flows[j]) == route && std::get<1>(flows[j]) == bytes) ++j;
      if (bytes == 0) {
        for (std::size_t k = i; k < j; ++k) flow_done(std::get<2>(flows[k]));
      } else {
        Bundle b;
        b.route = route;
        b.component = component_of_route_[route];
        dirty_[static_cast<std::size_t>(b.component)] = 1;
        const double latency = route_latency_s_[route];
        b.weight = net_.sharing() == Sharing::kLatencyWeighted && latency > 0 ? 1 / latency : 1.0;
        b.bytes_left = bytes;
        b.entered_s = now_;
        b.first_member = members_.size();
        b.members = j - i;
        for (std::size_t k = i; k < j; ++k) {
          members_.push_back(std::get<2>(flows[k]));
          b.flows += std::get<3>(flows[k]);
        }
        active_.push_back(b);
      }
      i = j;
    }
  }

  // Ends the bundles whose bytes are delivered (or within the merge fraction); true if any.
  bool complete_bundles() {
    std::vector<std::size_t> ended;
    for (std::size_t i = 0; i < active_.size(); ++i)
      if (active_[i].bytes_left <= active_[i].rate_Bps * std::max(kDoneWithin_s, kMergeFraction * (now_ - active_[i].entered_s))) {
        ended.push_back(i);
        dirty_[static_cast<std::size_t>(active_[i].component)] = 1;
      }
    if (ended.empty()) return false;
    std::vector<TaskId> tasks;
    for (std::size_t i : ended)
      for (std::size_t m = 0; m < active_[i].members; ++m) tasks.push_back(members_[active_[i].first_member + m]);
    // Remove before finishing: finishing starts new tasks whose flows enter `active_`.
    std::size_t kept = 0;
    for (std::size_t i = 0, e = 0; i < active_.size(); ++i) {
      if (e < ended.size() && ended[e] == i) {
        ++e;
        continue;
      }
      active_[kept++] = active_[i];
    }
    active_.resize(kept);
    for (TaskId t : tasks) flow_done(t);
    return true;
  }

  double next_completion() const {
    double next = kInfinity;
    for (const Bundle& b : active_)
      if (b.rate_Bps > 0) next = std::min(next, now_ + b.bytes_left / b.rate_Bps);
    return next;
  }

  // Links joined by a route are in one component; max-min sharing in one component does not
  // depend on another's flows (the planes of an MPFT, EP groups under their own leaves), so a
  // solve re-rates only the components whose flows changed, with the same result.
  void find_components() {
    const std::size_t links = net_.links().size();
    boost::disjoint_sets_with_storage<> sets(links);
    auto find = [&](int link) { return sets.find_set(static_cast<std::size_t>(link)); };
    for (std::size_t r = 0; r < net_.routes(); ++r) {
      auto [l, end] = net_.route_links(r);
      if (l == end) continue;
      for (auto next = l + 1; next != end; ++next) sets.union_set(static_cast<std::size_t>(*l), static_cast<std::size_t>(*next));
    }
    std::vector<int> id(links, -1);
    int components = 1;  // 0: routes without links
    component_of_route_.assign(net_.routes(), 0);
    for (std::size_t r = 0; r < net_.routes(); ++r) {
      auto [l, end] = net_.route_links(r);
      if (l == end) continue;
      int& c = id[find(*l)];
      if (c < 0) c = components++;
      component_of_route_[r] = c;
    }
    dirty_.assign(static_cast<std::size_t>(components), 0);
    parts_.resize(static_cast<std::size_t>(components));
    scratch_.resize(std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads));
  }

  // Weighted max-min fair rates by progressive filling: raise every unfixed bundle's rate in
  // proportion to its weight until a link saturates; fix the bundles through that link; repeat.
  // Only the bundles of components whose flows changed since the last solve, each component on
  // its own (they share no link), in parallel where there is enough of them to share out.
  void solve() {
    ++solves_;
    // The bundles to re-rate, by component, each with its links and what filling needs copied
    // together: filling visits bundles in the order links saturate, and reading them from here
    // rather than from `active_` and the network's route table saves a cache miss or two each.
    solving_components_.clear();
    std::size_t bundles = 0;
    for (std::size_t b = 0; b < active_.size(); ++b) {
      const Bundle& bundle = active_[b];
      const auto c = static_cast<std::size_t>(bundle.component);
      if (!dirty_[c]) continue;
      Part& part = parts_[c];
      if (part.bundles.empty()) solving_components_.push_back(c);
      auto [l, end] = net_.route_links(bundle.route);
      part.bundles.push_back({b, bundle.flows, bundle.weight, 0.0, part.links.size(), static_cast<std::size_t>(end - l)});
      part.links.insert(part.links.end(), l, end);
      ++bundles;
    }
    // The largest first, so that threads finish together.
    std::sort(solving_components_.begin(), solving_components_.end(),
              [&](std::size_t a, std::size_t b) { return parts_[a].bundles.size() > parts_[b].bundles.size(); });
    const std::size_t threads = std::min({solving_components_.size(), scratch_.size(), std::max<std::size_t>(1, bundles / kBundlesPerThread)});
    std::atomic<std::size_t> next{0};
    auto work = [&](Scratch& scratch) {
      for (std::size_t i; (i = next.fetch_add(1)) < solving_components_.size();) fill(parts_[solving_components_[i]], scratch);
    };
    std::vector<std::thread> workers;
    for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(work, std::ref(scratch_[t]));
    work(scratch_[0]);
    for (auto& w : workers) w.join();
    for (std::size_t c : solving_components_) {
      for (const Solving& bundle : parts_[c].bundles) active_[bundle.index].rate_Bps = bundle.rate_Bps;
      parts_[c].bundles.clear();
      parts_[c].links.clear();
    }
    std::fill(dirty_.begin(), dirty_.end(), 0);
  }

  // Progressive filling of one component's bundles; touches only its links' state.
  void fill(Part& part, Scratch& scratch) {
    const auto& links = net_.links();
    auto& link_state = link_state_;  // this component's links only: no other thread's
    scratch.touched.clear();
    for (const Solving& bundle : part.bundles)
      for (std::size_t j = 0; j < bundle.links; ++j) {
        const auto l = static_cast<std::size_t>(part.links[bundle.first_link + j]);
        LinkState& link = link_state[l];
        if (link.unfixed == 0) {
          scratch.touched.push_back(l);
          link.capacity_Bps = links[l].Bps;
          link.weight = 0;
        }
        link.weight += bundle.flows * bundle.weight;
        ++link.unfixed;
      }
    // Each link's bundles, contiguous (counted above, placed here).
    std::size_t offset = 0;
    for (std::size_t k : scratch.touched) {
      link_state[k].first = offset;
      link_state[k].filled = offset;
      offset += static_cast<std::size_t>(link_state[k].unfixed);
    }
    scratch.link_bundles.resize(offset);
    for (std::size_t i = 0; i < part.bundles.size(); ++i)
      for (std::size_t j = 0; j < part.bundles[i].links; ++j)
        scratch.link_bundles[link_state[static_cast<std::size_t>(part.links[part.bundles[i].first_link + j])].filled++] = i;

    // Fill levels only rise as bundles are fixed, so a link's key in the heap is a lower bound
    // of its level: a link popped with a stale key goes back with its current level, and the
    // first one popped whose key is current is the next to saturate.
    using Level = std::pair<double, std::size_t>;
    auto level_of = [&](const LinkState& link) { return link.capacity_Bps / std::max(link.weight, 1e-300); };
    std::vector<Level> keys;
    keys.reserve(scratch.touched.size());
    for (std::size_t k : scratch.touched) keys.push_back({level_of(link_state[k]), k});
    std::priority_queue<Level, std::vector<Level>, std::greater<>> heap(std::greater<>{}, std::move(keys));
    scratch.fixed.assign(part.bundles.size(), 0);
    while (!heap.empty()) {
      const auto [key, k] = heap.top();
      heap.pop();
      const LinkState& saturated = link_state[k];
      if (saturated.unfixed == 0) continue;
      const double level = level_of(saturated);
      if (level > key * (1 + 1e-12)) {
        heap.push({level, k});
        continue;
      }
      for (std::size_t i = saturated.first; i < saturated.filled; ++i) {
        const std::size_t b = scratch.link_bundles[i];
        if (scratch.fixed[b]) continue;
        scratch.fixed[b] = 1;
        Solving& bundle = part.bundles[b];
        bundle.rate_Bps = bundle.weight * level;
        const double used_Bps = bundle.flows * bundle.rate_Bps, weight = bundle.flows * bundle.weight;
        for (std::size_t j = 0; j < bundle.links; ++j) {
          LinkState& link = link_state[static_cast<std::size_t>(part.links[bundle.first_link + j])];
          link.capacity_Bps = std::max(0.0, link.capacity_Bps - used_Bps);
          link.weight -= weight;
          --link.unfixed;
        }
      }
    }
  }

  void advance() {
    if (bar_) bar_->update(++finished_);
  }

  const TaskGraph& graph_;
  Network net_;
  std::vector<double> route_latency_s_;
  std::vector<std::size_t> first_flow_, flow_route_;
  std::vector<TaskSpan> spans_;
  std::vector<int> deps_left_, flows_left_;
  std::vector<bool> done_;
  std::vector<std::vector<TaskId>> successors_;
  std::vector<int> stream_of_;
  std::vector<Stream> streams_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  std::vector<std::pair<TaskId, std::size_t>> entering_;
  std::vector<Bundle> active_;
  std::vector<TaskId> members_;
  // Solver state: per link, what is left of it and its bundles' range in a Scratch's
  // `link_bundles` (only the solving component's thread touches its links).
  struct LinkState {
    double capacity_Bps = 0;
    double weight = 0;  // of the bundles not yet fixed
    int unfixed = 0;
    std::size_t first = 0, filled = 0;
  };
  std::vector<LinkState> link_state_;
  std::vector<std::size_t> solving_components_;  // this solve's, largest first
  std::vector<Part> parts_;                      // per component: its bundles being re-rated
  std::vector<Scratch> scratch_;                 // per thread
  std::vector<int> component_of_route_;
  std::vector<char> dirty_;  // per component: its flows changed since the last solve
  double now_ = 0;
  std::size_t solves_ = 0;
  ProgressBar* bar_ = nullptr;
  double finished_ = 0;
};

}  // namespace

Timeline simulate_fluid(const Platform& platform, const TaskGraph& graph, SimulationStats* stats) {
  const auto started = std::chrono::steady_clock::now();
  FluidRun run(platform, graph);
  ProgressBar bar("simulating " + std::to_string(graph.flow_count()) + " flows", progress_units(graph));
  auto spans = run.run(&bar);
  if (stats) {
    stats->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    stats->tasks = graph.tasks().size();
    stats->flows = graph.flow_count();
    stats->solves = run.solves();
  }
  return Timeline(graph, std::move(spans));
}

}  // namespace core
