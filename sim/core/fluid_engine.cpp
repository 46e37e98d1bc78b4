#include "core/fluid_engine.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <numeric>
#include <queue>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "core/huge_page_allocator.hpp"
#include "core/progress_bar.hpp"

namespace core {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// A bundle whose bytes left would take less than this at its rate is done: it merges completions
// that floating point scatters around one instant (SimGrid's own time precision is 1e-9 s).
constexpr double kDoneWithin_s = 1e-10;
// Bundles that would end within this fraction of their time in the network end together. The
// flows of a collective under ECMP end at many nearby instants (a 2,048-GPU all-to-all: 1,230
// solves); ending them together takes 160 solves. After such an end, a component's next ends
// wait as long: the ends its re-solve brings into the window join the next instead of costing a
// solve each (a 4,096-GPU all-to-all under ECMP with hop latencies, 64 MiB per GPU: 2,818 solves
// re-rating 186 million bundles, then 1,229 re-rating 36 million). A flow ends at most this
// fraction of its time in the network early or late: the Table 4 step moves by 2e-5, a random
// all-to-allv's tasks by at most 1.5e-4 of its makespan (tests hold the engines within 1e-3).
constexpr double kMergeFraction = 3e-4;

// n interchangeable flows: same route, same bytes, same weight, entered the network together.
// What it is; where it stands (its rate and bytes) is its Rated entry.
struct Bundle {
  double entered_s = 0;
  std::uint32_t first_member = 0;  // its flow entries' tasks, in `members_`
  std::uint32_t members = 0;       // entries (each standing for Flow::count flows)
  std::uint32_t route = 0;         // the network's route it takes (a network change may move it)
};

// Where a bundle stands, kept in its component's level order: a re-solve reads and writes a
// suffix of that order, so these are in sequence, not scattered by slot, and hold the route's
// links where they are few (a fabric plane's four), the network's table being the scattered read.
struct Rated {
  static constexpr std::uint16_t kLinksHeld = 4;
  double level = 0;       // its fill level (rate over weight), nondecreasing along the order against rounding
  double rate_Bps = 0;    // per flow
  double bytes_left = 0;  // per flow, at `since_s` (brought up to date only when re-rated)
  double since_s = 0;
  double weight = 1;
  union {
    const int* table;      // the route's links in the network's table, past kLinksHeld
    int held[kLinksHeld];  // else here
  } route;
  std::uint32_t slot = 0;   // its Bundle's
  std::uint32_t flows = 0;  // the flows it stands for: its entries' counts
  std::uint16_t link_count = 0;
  bool ended = false;  // delivered; it leaves the order at its component's next solve

  void set_links(const int* links, std::uint16_t count) {
    link_count = count;
    if (count > kLinksHeld) {
      route.table = links;
    } else {
      std::copy(links, links + count, route.held);
    }
  }
  const int* links() const { return link_count > kLinksHeld ? route.table : route.held; }

  double bytes_at(double t) const { return bytes_left - rate_Bps * (t - since_s); }
  double end_s() const {
    return rate_Bps > 0 && !ended ? since_s + bytes_left / rate_Bps : std::numeric_limits<double>::infinity();
  }
};

// The minimum of values by position (a segment tree): a component's next end, and the bundles
// due by a time, without visiting the others.
class MinTree {
 public:
  void assign(std::size_t n) {
    leaves_ = 1;
    while (leaves_ < n) leaves_ *= 2;
    min_.assign(2 * leaves_, std::numeric_limits<double>::infinity());
  }
  double min() const { return min_.empty() ? std::numeric_limits<double>::infinity() : min_[1]; }
  // Sets a position's value (`update` brings the minima above it up to date).
  void put(std::size_t i, double value) { min_[leaves_ + i] = value; }
  // Sets a position's value and the minima above it.
  void set(std::size_t i, double value) {
    min_[i += leaves_] = value;
    for (i /= 2; i > 0; i /= 2) min_[i] = std::min(min_[2 * i], min_[2 * i + 1]);
  }
  // Brings the minima above positions [first, last) up to date.
  void update(std::size_t first, std::size_t last) {
    if (first >= last) return;
    for (std::size_t a = (leaves_ + first) / 2, b = (leaves_ + last - 1) / 2; a > 0; a /= 2, b /= 2)
      for (std::size_t n = a; n <= b; ++n) min_[n] = std::min(min_[2 * n], min_[2 * n + 1]);
  }
  // The positions whose value is at most `bound`.
  void at_most(double bound, std::vector<std::size_t>& out, std::size_t node = 1) const {
    if (min_.empty() || min_[node] > bound) return;
    if (node >= leaves_) {
      out.push_back(node - leaves_);
      return;
    }
    at_most(bound, out, 2 * node);
    at_most(bound, out, 2 * node + 1);
  }

 private:
  std::size_t leaves_ = 0;
  HugeVector<double> min_;
};

// What filling needs of a bundle it re-rates, with its links in its Part's `links`.
struct Solving {
  double flows, weight, rate_Bps;
  std::uint32_t first_link, links;
};

// One component's bundles being re-rated: `rated[i]` is `bundles[i]`'s entry, bytes brought to now.
struct Part {
  HugeVector<Solving> bundles;
  HugeVector<Rated> rated;
  HugeVector<int> links;
  bool from_scratch = true;  // else the bundles' links start with what the others leave them
};

// Bundles that share links, directly or through others (see FluidRun::component_for). Rates
// change only when its own flows do, and then, where flows only ended, only for its bundles from
// the lowest level among those up (see FluidRun::rate): a suffix of its bundles in level order.
// So an instant costs the bundles it re-rates, not every flow in the network: bundles stay in
// their slots (in the order they entered, which is their routes' order), their rates and bytes in
// level order, brought up to date when they are re-rated, and their ends in a MinTree by position
// in that order.
struct Component {
  HugeVector<Bundle> bundles;                                   // by slot
  std::vector<std::uint32_t> free;                              // slots of ended bundles, for bundles to come
  HugeVector<Rated> order;                                      // the bundles rated, by level (as of the last solve)
  HugeVector<Rated> fresh;                                      // the bundles entered since
  MinTree ends;                                                 // by position in `order`
  double next_end_s = std::numeric_limits<double>::infinity();  // its first bundle's end at these rates
  // The latest entry among its bundles (an upper bound once some ended): it sets the window in
  // which a bundle may end late (see FluidRun::complete_bundles).
  double last_entered_s = -std::numeric_limits<double>::infinity();
  // After a solve that ended bundles, none ends before this.
  double quiet_until_s = -std::numeric_limits<double>::infinity();
  // The earliest entry among its bundles (a lower bound once some ended: it sets the widest
  // window in which a bundle may end early, and each is then held to its own).
  double first_entered_s = std::numeric_limits<double>::infinity();
  bool dirty = false;              // its flows changed since the last solve
  bool ended_since_split = false;  // only an end can leave its bundles in groups that share no link
  // Whether flows entered since the last solve (a solve from scratch), and the lowest fill level
  // of those that ended since (a re-solve of the bundles from there up).
  bool entered = false;
  double lowest_ended_level = std::numeric_limits<double>::infinity();
  Part part;  // a solve's copy of its bundles

  // Puts a bundle in a free slot, or a new one; its slot.
  std::uint32_t place(const Bundle& b) {
    if (free.empty()) {
      bundles.push_back(b);
      return static_cast<std::uint32_t>(bundles.size() - 1);
    }
    const std::uint32_t slot = free.back();
    free.pop_back();
    bundles[slot] = b;
    return slot;
  }
};

// A link's state while a component is filled: what is left of it, the weight of its bundles not
// yet fixed, and its bundles' range in Scratch::link_bundles.
struct LocalLink {
  double capacity_Bps, weight;
  std::uint32_t unfixed, first, filled;
};

// A thread's progressive-filling scratch.
struct Scratch {
  std::vector<int> touched;                // the component's links, by their dense number
  std::vector<LocalLink> local;            // by dense number
  HugeVector<std::uint32_t> link_bundles;  // indices into Part::bundles
  HugeVector<char> fixed;
  HugeVector<std::pair<double, std::uint32_t>> order;  // (level, index) of Part::bundles, in the order they were fixed
  HugeVector<std::uint32_t> position;                  // per slot in use: 1 + its place in `order` then `fresh`, else 0
};

// A solve takes a thread per this many bundles it re-rates (starting one costs about as much as
// filling a few thousand), at most kMaxThreads: an MPFT's planes are 8 components.
constexpr std::size_t kBundlesPerThread = 10000;
constexpr unsigned kMaxThreads = 16;

class FluidRun {
 public:
  FluidRun(const Platform& platform, const TaskGraph& graph, FluidSolve solve)
      : graph_(graph),
        slowdowns_(platform.compute_slowdowns()),
        from_ended_level_(solve == FluidSolve::kFromEndedLevel) {
    const auto& tasks = graph.tasks();
    net_ = network_of(platform, graph);
    if (net_.routes() > std::numeric_limits<std::uint32_t>::max())
      throw std::length_error("the fluid engine holds at most 2^32 routes");
    // Each flow's route, looked up once: flow f of task t is flow_route_[first_flow_[t] + f].
    first_flow_.reserve(tasks.size());
    for (const auto& t : tasks) {
      first_flow_.push_back(flow_route_.size());
      for (const auto& f : t.flows)
        flow_route_.push_back(static_cast<std::uint32_t>(net_.route_of(f.src_rank, f.dst_rank)));
    }
    route_latency_s_.resize(net_.routes());
    for (std::size_t r = 0; r < net_.routes(); ++r) route_latency_s_[r] = net_.route_latency_s(r);
    // Each task's flows by their routes' latency: those of one latency enter the network
    // together, on one event (a 16,320-GPU all-to-all's plane: 4 million flows, 2 latencies).
    flow_order_.resize(flow_route_.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      const auto first = flow_order_.begin() + static_cast<std::ptrdiff_t>(first_flow_[t]);
      const auto last = first + static_cast<std::ptrdiff_t>(tasks[t].flows.size());
      std::iota(first, last, 0u);
      std::stable_sort(first, last, [&](std::uint32_t a, std::uint32_t b) {
        return flow_latency_s(static_cast<TaskId>(t), a) < flow_latency_s(static_cast<TaskId>(t), b);
      });
    }

    spans_.resize(tasks.size());
    deps_left_.resize(tasks.size());
    flows_left_.resize(tasks.size());
    done_.assign(tasks.size(), false);
    // Each task's successors, packed: those of task t are successors_[first_successor_[t]] up to t + 1's.
    first_successor_.assign(tasks.size() + 1, 0);
    for (const auto& t : tasks)
      for (TaskId dep : t.deps) ++first_successor_[static_cast<std::size_t>(dep) + 1];
    std::partial_sum(first_successor_.begin(), first_successor_.end(), first_successor_.begin());
    successors_.resize(first_successor_.back());
    std::vector<std::uint32_t> placed(first_successor_.begin(), first_successor_.end() - 1);
    stream_of_.assign(tasks.size(), -1);
    // By (rank, stream) as one key, hashed: a 2,048-GPU step has millions of tasks to look up.
    std::unordered_map<std::uint64_t, int> stream_ids;
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      deps_left_[i] = static_cast<int>(tasks[i].deps.size());
      for (TaskId dep : tasks[i].deps) successors_[placed[static_cast<std::size_t>(dep)]++] = static_cast<TaskId>(i);
      if (tasks[i].kind == TaskKind::kJoin) continue;
      const std::uint64_t key =
          static_cast<std::uint64_t>(static_cast<std::uint32_t>(tasks[i].rank)) << 32 | tasks[i].stream;
      const auto [it, added] = stream_ids.try_emplace(key, static_cast<int>(streams_.size()));
      if (added) streams_.emplace_back();
      stream_of_[i] = it->second;
      streams_[it->second].tasks.push_back(static_cast<TaskId>(i));
    }
    link_Bps_.reserve(net_.links().size());
    for (const NetworkLink& link : net_.links()) link_Bps_.push_back(link.Bps);
    if (!net_.changes().empty()) {
      rerouted_.assign(net_.routes(), 0);
      route_override_.resize(net_.routes());
      for (std::size_t c = 0; c < net_.changes().size(); ++c)
        events_.push({net_.changes()[c].at_s, kNetworkChange, static_cast<TaskId>(c), 0});
    }
    local_of_.assign(net_.links().size(), -1);
    allocated_Bps_.assign(net_.links().size(), 0.0);
    owner_.assign(net_.links().size(), -1);
    crossing_.assign(net_.links().size(), 0);
    link_root_.assign(net_.links().size(), -1);
    piece_of_root_.assign(net_.links().size(), -1);
    components_.resize(1);
    scratch_.resize(std::clamp(std::thread::hardware_concurrency(), 1u, kMaxThreads));
  }

  std::vector<TaskSpan> run(ProgressBar* bar) {
    bar_ = bar;
    for (std::size_t i = 0; i < graph_.tasks().size(); ++i)  // joins with nothing to wait for
      if (deps_left_[i] == 0 && graph_.tasks()[i].kind == TaskKind::kJoin) finish(static_cast<TaskId>(i));
    for (std::size_t s = 0; s < streams_.size(); ++s) try_start(static_cast<int>(s));
    settle();
    while (true) {
      double next = events_.empty() ? kInfinity : std::get<0>(events_.top());
      next = std::min(next, next_end_.min());
      if (next == kInfinity) break;
      // A bundle that came due while its component was quiet, re-rated since by flows entering,
      // ends now: time does not go back.
      now_ = std::max(now_, next);
      settle();
    }
    for (std::size_t i = 0; i < done_.size(); ++i)
      if (!done_[i]) throw std::logic_error("task '" + graph_.name(graph_.tasks()[i]) + "' never ran");
    return spans_;
  }

  std::size_t solves() const { return solves_; }

 private:
  struct Stream {
    std::vector<TaskId> tasks;
    std::size_t next = 0;
    bool busy = false;
  };
  enum EventKind { kComputeEnd = 0, kFlowsEnter = 1, kNetworkChange = 2 };
  // (time, kind, task, the first of its flows entering, by its place in the task's latency order)
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
        } else if (kind == kNetworkChange) {
          apply_change(net_.changes()[static_cast<std::size_t>(task)]);
          changed = true;
        } else {
          enter_latency_group(task, flow);
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
    if (t.kind == TaskKind::kCompute || t.kind == TaskKind::kDelay) {
      const double end_s = t.kind == TaskKind::kCompute ? slowdowns_.end_s(t.rank, now_, t.seconds) : now_ + t.seconds;
      events_.push({end_s, kComputeEnd, id, 0});
      return;
    }
    flows_left_[id] = static_cast<int>(t.flows.size());
    if (t.flows.empty()) {
      finish(id);
      return;
    }
    for (std::size_t k = 0; k < t.flows.size();) {
      const double latency = flow_latency_s(id, flow_order_[first_flow_[id] + k]);
      if (latency > 0) {
        events_.push({now_ + latency, kFlowsEnter, id, k});
        k = latency_group_end(id, k);
      } else {
        k = enter_latency_group(id, k);
      }
    }
  }

  double flow_latency_s(TaskId task, std::size_t flow) const {
    return route_latency_s_[flow_route_[first_flow_[task] + flow]];
  }

  // The place, in the task's latency order, of the first flow past the k-th's latency.
  std::size_t latency_group_end(TaskId task, std::size_t k) const {
    const std::size_t flows = graph_.tasks()[task].flows.size();
    const double latency = flow_latency_s(task, flow_order_[first_flow_[task] + k]);
    while (++k < flows && flow_latency_s(task, flow_order_[first_flow_[task] + k]) == latency) {}
    return k;
  }

  // The task's flows of one latency, from the k-th in its latency order, enter the network; the
  // place of the next latency's first.
  std::size_t enter_latency_group(TaskId task, std::size_t k) {
    const std::size_t end = latency_group_end(task, k);
    for (; k < end; ++k) entering_.push_back({task, flow_order_[first_flow_[task] + k]});
    return end;
  }

  void finish(TaskId id) {
    spans_[id].end_s = now_;
    done_[id] = true;
    if (stream_of_[id] >= 0) {
      streams_[static_cast<std::size_t>(stream_of_[id])].busy = false;
      try_start(stream_of_[id]);
    }
    for (auto k = first_successor_[static_cast<std::size_t>(id)];
         k < first_successor_[static_cast<std::size_t>(id) + 1]; ++k) {
      const TaskId next = successors_[k];
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
    HugeVector<std::tuple<std::size_t, double, TaskId, int>> flows;  // route, bytes, task, count
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
        Rated r;
        const auto [links, links_end] = route_links(route);
        const double latency = route_latency_s_[route];
        r.weight =
            (net_.sharing() == Sharing::kLatencyWeighted && latency > 0 ? 1 / latency : 1.0) * net_.route_weight(route);
        r.bytes_left = bytes;
        r.since_s = b.entered_s = now_;
        if (members_.size() + (j - i) > std::numeric_limits<std::uint32_t>::max() ||
            links_end - links > std::numeric_limits<std::uint16_t>::max())
          throw std::length_error("the fluid engine holds at most 2^32 flow entries and 65,535 links per route");
        b.first_member = static_cast<std::uint32_t>(members_.size());
        b.members = static_cast<std::uint32_t>(j - i);
        b.route = static_cast<std::uint32_t>(route);
        for (std::size_t k = i; k < j; ++k) {
          members_.push_back(std::get<2>(flows[k]));
          r.flows += static_cast<std::uint32_t>(std::get<3>(flows[k]));
        }
        place_bundle(b, r, links, links_end);
      }
      i = j;
    }
    for (int c : dirty_) refresh(c);  // their entries and windows
  }

  // The route's links as of now.
  std::pair<const int*, const int*> route_links(std::size_t route) const {
    if (!rerouted_.empty() && rerouted_[route]) return route_override_[route];
    return net_.route_links(route);
  }

  // Puts a bundle on its links: in the component that holds them, among its fresh entries.
  void place_bundle(const Bundle& b, Rated r, const int* links, const int* links_end) {
    r.set_links(links, static_cast<std::uint16_t>(links_end - links));
    Component& component = mark_changed(component_for(links, static_cast<std::uint16_t>(links_end - links)));
    for (auto l = links; l != links_end; ++l) ++crossing_[static_cast<std::size_t>(*l)];
    component.first_entered_s = std::min(component.first_entered_s, b.entered_s);
    component.last_entered_s = std::max(component.last_entered_s, b.entered_s);
    component.quiet_until_s = -kInfinity;  // the new bundle's own window may be narrower
    component.entered = true;
    r.slot = component.place(b);
    component.fresh.push_back(r);
  }

  // A fault, a repair or routing reacting to them: the links' new bandwidths, and the bundles on
  // rerouted routes moved to their new links with the bytes they have left. The components they
  // touch are solved anew; the others keep their rates.
  void apply_change(const NetworkChange& change) {
    for (const auto& [link, Bps] : change.link_Bps) {
      link_Bps_[static_cast<std::size_t>(link)] = Bps;
      if (crossing_[static_cast<std::size_t>(link)] > 0) resolve_from_scratch(owner_[static_cast<std::size_t>(link)]);
    }
    if (change.routes.empty()) return;
    for (const auto& [route, links] : change.routes) {
      rerouted_[route] = 1;
      route_override_[route] = {links.data(), links.data() + links.size()};
    }
    std::vector<char> moved(net_.routes(), 0);
    for (const auto& [route, links] : change.routes) moved[route] = 1;
    // The bundles on moved routes leave their links (collected first: placing them merges components).
    std::vector<std::pair<Bundle, Rated>> moving;
    for (std::size_t c = 0; c < components_.size(); ++c) {
      Component& component = components_[c];
      for (auto* entries : {&component.order, &component.fresh})
        for (std::size_t i = 0; i < entries->size(); ++i) {
          Rated& r = (*entries)[i];
          if (r.ended || !moved[component.bundles[r.slot].route]) continue;
          Rated left = r;
          left.bytes_left = r.bytes_at(now_);
          left.since_s = now_;
          left.rate_Bps = 0;
          moving.push_back({component.bundles[r.slot], left});
          for (std::uint32_t j = 0; j < r.link_count; ++j) {
            const auto link = static_cast<std::size_t>(r.links()[j]);
            allocated_Bps_[link] -= r.flows * r.rate_Bps;
            --crossing_[link];
          }
          r.ended = true;
          if (entries == &component.order) component.ends.set(i, kInfinity);
          component.ended_since_split = true;
          resolve_from_scratch(static_cast<int>(c));
        }
    }
    for (auto& [b, r] : moving) {
      const auto [links, links_end] = route_links(b.route);
      place_bundle(b, r, links, links_end);
    }
    for (int c : dirty_) refresh(c);
  }

  // Marks a component to be solved from scratch at the next solve.
  void resolve_from_scratch(int c) {
    Component& component = mark_changed(c);
    component.entered = true;
    component.quiet_until_s = -kInfinity;
  }

  // Marks a component for the next solve.
  Component& mark_changed(int c) {
    Component& component = components_[static_cast<std::size_t>(c)];
    if (!component.dirty) dirty_.push_back(c);
    component.dirty = true;
    return component;
  }

  // Ends the bundles whose bytes are delivered (or within the merge fraction); true if any.
  bool complete_bundles() {
    std::vector<TaskId> tasks;
    candidates_.clear();
    may_end_.at_most(now_, candidates_);
    for (std::size_t c : candidates_) {
      Component& component = components_[c];
      // A bundle ends when what it has left takes at most the merge fraction of its time in the
      // network; none of this component's can before its first end comes that close, nor while
      // it is quiet after an end.
      const double window_s = std::max(kDoneWithin_s, kMergeFraction * (now_ - component.first_entered_s)) * (1 + 1e-9);
      if (component.next_end_s - now_ > window_s || now_ < component.quiet_until_s) continue;
      due_.clear();
      component.ends.at_most(now_ + window_s, due_);
      bool ended = false;
      for (std::size_t i : due_) {
        Rated& r = component.order[i];
        const Bundle& b = component.bundles[r.slot];
        if (r.bytes_at(now_) > r.rate_Bps * std::max(kDoneWithin_s, kMergeFraction * (now_ - b.entered_s))) continue;
        for (std::uint32_t m = 0; m < b.members; ++m) tasks.push_back(members_[b.first_member + m]);
        for (std::uint32_t j = 0; j < r.link_count; ++j) {
          const auto link = static_cast<std::size_t>(r.links()[j]);
          allocated_Bps_[link] -= r.flows * r.rate_Bps;
          --crossing_[link];
        }
        component.lowest_ended_level = std::min(component.lowest_ended_level, r.rate_Bps / r.weight);
        r.ended = true;
        component.ended_since_split = true;
        component.ends.set(i, kInfinity);
        ended = true;
      }
      if (ended) {
        mark_changed(static_cast<int>(c));
        // The window of its latest bundle: none waits longer than its own.
        component.quiet_until_s = now_ + kMergeFraction * (now_ - component.last_entered_s);
      }
    }
    for (int c : dirty_) refresh(c);  // their quiet windows
    // Ended before finishing: finishing starts new tasks whose flows enter the network.
    for (TaskId t : tasks) flow_done(t);
    return !tasks.empty();
  }

  // Max-min sharing among bundles that share no link, directly or through others, is the sharing
  // of each group on its own: a component is such a group, solved alone, when its own flows
  // change. A bundle entering joins the component that holds any of its links (several: they
  // merge); a component that flows entered, and whose bundles ended since it was last split,
  // splits before its solve from scratch into the groups its bundles still form (entries only
  // join). An EP group's all-to-all under its own leaf is one until a PP send joins it to the next
  // stage's. (Split only where flows entered, so that a re-solve from the ended level and one from
  // scratch see the same components: tests hold them to each other.)
  int component_for(const int* links, std::uint16_t count) {
    if (count == 0) return 0;
    int target = -1;
    for (std::uint16_t j = 0; j < count; ++j) {
      const auto link = static_cast<std::size_t>(links[j]);
      const int c = owner_[link];
      if (crossing_[link] == 0 || c == target) continue;  // no bundle on it: its owner is stale
      if (target < 0) {
        target = c;
      } else {
        // The larger takes in the smaller.
        const bool keep = live_bundles(target) >= live_bundles(c);
        absorb(keep ? target : c, keep ? c : target);
        if (!keep) target = c;
      }
    }
    if (target < 0) target = new_component();
    for (std::uint16_t j = 0; j < count; ++j) owner_[static_cast<std::size_t>(links[j])] = target;
    return target;
  }

  std::size_t live_bundles(int c) const {
    const Component& component = components_[static_cast<std::size_t>(c)];
    return component.bundles.size() - component.free.size();
  }

  int new_component() {
    if (!spare_.empty()) {
      const int c = spare_.back();
      spare_.pop_back();
      return c;
    }
    components_.emplace_back();
    return static_cast<int>(components_.size()) - 1;
  }

  // Moves an entry (and its bundle) into `to`'s fresh bundles, which then hold its links.
  void move_entry(const Component& from, Rated r, int to) {
    Component& target = components_[static_cast<std::size_t>(to)];
    const Bundle& b = from.bundles[r.slot];
    r.slot = target.place(b);
    for (std::uint32_t j = 0; j < r.link_count; ++j) owner_[static_cast<std::size_t>(r.links()[j])] = to;
    target.first_entered_s = std::min(target.first_entered_s, b.entered_s);
    target.last_entered_s = std::max(target.last_entered_s, b.entered_s);
    target.fresh.push_back(r);
  }

  // Merges component `c` into `into`, which is then solved from scratch; `c` is left empty.
  void absorb(int into, int c) {
    Component& from = components_[static_cast<std::size_t>(c)];
    for (const auto* entries : {&from.order, &from.fresh})
      for (const Rated& r : *entries)
        if (!r.ended) move_entry(from, r, into);
    Component& target = mark_changed(into);
    target.entered = true;
    target.ended_since_split |= from.ended_since_split;
    target.quiet_until_s = -kInfinity;
    release(c);
  }

  // Empties a component for the next to form.
  void release(int c) {
    Component& component = components_[static_cast<std::size_t>(c)];
    component = Component();
    spare_.push_back(c);
    refresh(c);
  }

  // A component's keys in the trees the run reads instead of visiting every component: when its
  // next bundle ends (or its quiet window does), and the earliest instant at which a bundle may
  // end within its merge window (complete_bundles), a little before.
  void refresh(int c) {
    const auto i = static_cast<std::size_t>(c);
    if (i >= capacity_) {
      while (capacity_ <= i) capacity_ = std::max<std::size_t>(64, 2 * capacity_);
      next_end_.assign(capacity_);
      may_end_.assign(capacity_);
      for (std::size_t k = 0; k < components_.size(); ++k)
        if (k != i) refresh(static_cast<int>(k));
    }
    const Component& component = components_[i];
    const double end_s = component.next_end_s;
    next_end_.set(i, std::max(end_s, component.quiet_until_s));
    // next_end - now <= f (now - first_entered) from now = (next_end + f first_entered) / (1 + f) on.
    const double merge_s = (end_s + kMergeFraction * component.first_entered_s) / (1 + kMergeFraction);
    const double early_s =
        end_s == kInfinity ? kInfinity : std::min(end_s - 2 * kDoneWithin_s, merge_s) - 1e-9 * std::abs(end_s);
    may_end_.set(i, std::max(early_s, component.quiet_until_s));
  }

  // Before a solve from scratch: the component's bundles that no longer share links, directly or
  // through others, become components of their own (the most numerous stay where they are).
  void split(int c) {
    Component& component = components_[static_cast<std::size_t>(c)];
    if (c == 0 || !component.ended_since_split) return;  // entries only join
    component.ended_since_split = false;
    auto root = [&](int link) {
      auto l = static_cast<std::size_t>(link);
      if (link_root_[l] < 0) {
        link_root_[l] = link;
        touched_links_.push_back(link);
      }
      while (link_root_[l] != static_cast<int>(l)) {
        link_root_[l] = link_root_[static_cast<std::size_t>(link_root_[l])];  // path halving
        l = static_cast<std::size_t>(link_root_[l]);
      }
      return static_cast<int>(l);
    };
    std::vector<Rated> live;
    for (const auto* entries : {&component.order, &component.fresh})
      for (const Rated& r : *entries) {
        if (r.ended) continue;
        live.push_back(r);
        const int first = root(r.links()[0]);
        for (std::uint32_t j = 1; j < r.link_count; ++j) {
          const int other = root(r.links()[j]);
          if (other != first) link_root_[static_cast<std::size_t>(other)] = first;
        }
      }
    // Pieces by their root link, numbered in the order met; the most numerous stays.
    std::vector<int> piece(live.size());
    std::vector<std::size_t> size;
    for (std::size_t i = 0; i < live.size(); ++i) {
      const auto r = static_cast<std::size_t>(root(live[i].links()[0]));
      if (piece_of_root_[r] < 0) {
        piece_of_root_[r] = static_cast<int>(size.size());
        size.push_back(0);
      }
      piece[i] = piece_of_root_[r];
      ++size[static_cast<std::size_t>(piece[i])];
    }
    for (int link : touched_links_)
      link_root_[static_cast<std::size_t>(link)] = piece_of_root_[static_cast<std::size_t>(link)] = -1;
    touched_links_.clear();
    if (size.size() <= 1) return;
    const int keep = static_cast<int>(std::max_element(size.begin(), size.end()) - size.begin());
    std::vector<int> component_of_piece(size.size(), c);
    for (std::size_t p = 0; p < size.size(); ++p)
      if (static_cast<int>(p) != keep) component_of_piece[p] = new_component();
    Component& kept = components_[static_cast<std::size_t>(c)];  // (a deque: new ones move nothing)
    HugeVector<Rated> stays;
    for (std::size_t i = 0; i < live.size(); ++i) {
      if (piece[i] == keep) {
        stays.push_back(live[i]);
        continue;
      }
      const int to = component_of_piece[static_cast<std::size_t>(piece[i])];
      move_entry(kept, live[i], to);
      Component& moved = components_[static_cast<std::size_t>(to)];
      if (!moved.dirty) {
        moved.entered = true;
        mark_changed(to);
      }
    }
    // The kept bundles keep their slots; the others' (moved or ended) are free.
    std::vector<char> in_use(kept.bundles.size(), 0);
    for (const Rated& r : stays) in_use[r.slot] = 1;
    kept.free.clear();
    for (std::uint32_t slot = 0; slot < kept.bundles.size(); ++slot)
      if (!in_use[slot]) kept.free.push_back(slot);
    kept.order.clear();
    kept.fresh = std::move(stays);
  }

  // Weighted max-min fair rates by progressive filling: raise every unfixed bundle's rate in
  // proportion to its weight until a link saturates; fix the bundles through that link; repeat.
  // Only the bundles of components whose flows changed since the last solve, each component on
  // its own (they share no link), in parallel where there is enough of them to share out.
  void solve() {
    ++solves_;
    for (std::size_t i = 0, n = dirty_.size(); i < n; ++i) {  // the pieces split off join dirty_
      const Component& component = components_[static_cast<std::size_t>(dirty_[i])];
      if (component.dirty && component.entered) split(dirty_[i]);
    }
    // Merged into others since they changed: nothing left to solve; released and formed anew: once.
    dirty_.erase(std::remove_if(dirty_.begin(), dirty_.end(),
                                [&](int c) { return !components_[static_cast<std::size_t>(c)].dirty; }),
                 dirty_.end());
    std::sort(dirty_.begin(), dirty_.end());
    dirty_.erase(std::unique(dirty_.begin(), dirty_.end()), dirty_.end());
    std::size_t bundles = 0;
    for (int c : dirty_) bundles += components_[static_cast<std::size_t>(c)].bundles.size();
    // The largest first, so that threads finish together.
    std::sort(dirty_.begin(), dirty_.end(), [&](int a, int b) {
      return components_[static_cast<std::size_t>(a)].bundles.size() >
             components_[static_cast<std::size_t>(b)].bundles.size();
    });
    const std::size_t threads =
        std::min({dirty_.size(), scratch_.size(), std::max<std::size_t>(1, bundles / kBundlesPerThread)});
    std::atomic<std::size_t> next{0};
    auto work = [&](Scratch& scratch) {
      for (std::size_t i; (i = next.fetch_add(1)) < dirty_.size();)
        rate(components_[static_cast<std::size_t>(dirty_[i])], scratch);
    };
    std::vector<std::thread> workers;
    for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(work, std::ref(scratch_[t]));
    work(scratch_[0]);
    for (auto& w : workers) w.join();
    for (int c : dirty_) {
      if (c != 0 && components_[static_cast<std::size_t>(c)].order.empty())
        release(c);
      else
        refresh(c);
    }
    dirty_.clear();
  }

  // Re-rates one component's bundles and finds its next end. Where flows only ended since the
  // last solve, only the bundles at or above the lowest fill level among them are re-rated: in
  // progressive filling every link an ended bundle crossed saturated at that level or later, so
  // all that saturated below it saturate as before, and the bundles they fixed keep their rates.
  // Where flows of one size end in the order of their rates, that is a few bundles, not the
  // network. The bundles are kept in level order, so those are a suffix of it.
  void rate(Component& component, Scratch& scratch) {
    Part& part = component.part;
    auto& order = component.order;
    const std::size_t rated_before = order.size();
    part.from_scratch = component.entered || !from_ended_level_;
    std::size_t first = 0;
    if (!part.from_scratch) {
      const double from_level = component.lowest_ended_level * (1 - 1e-9);
      first = static_cast<std::size_t>(
          std::partition_point(order.begin(), order.end(), [&](const Rated& r) { return r.level < from_level; }) -
          order.begin());
    }
    // The ended bundles (all among those re-rated) leave; the others' bytes come up to now, and
    // they are copied with their links and what filling needs: filling visits them in the order
    // links saturate, and reading them from here rather than from the network's route table
    // saves a cache miss each.
    auto take = [&](const Rated& rated) {
      if (rated.ended) {
        component.free.push_back(rated.slot);
        return;
      }
      Rated& r = part.rated.emplace_back(rated);
      r.bytes_left = r.bytes_at(now_);
      r.since_s = now_;
      part.bundles.push_back({static_cast<double>(r.flows), r.weight, r.rate_Bps,
                              static_cast<std::uint32_t>(part.links.size()), r.link_count});
      const int* links = r.links();
      for (std::uint32_t j = 0; j < r.link_count; ++j) part.links.push_back(links[j]);  // a few: no memmove call
    };
    if (part.from_scratch) {
      // In slot order, which is the routes' order (and the network's): the rates do not depend on
      // the order of the last solve.
      component.first_entered_s = kInfinity;
      component.last_entered_s = -kInfinity;
      const std::size_t live = order.size() + component.fresh.size();  // at most: each grows once, not by doubling
      part.rated.reserve(live);
      part.bundles.reserve(live);
      HugeVector<std::uint32_t>& position = scratch.position;
      position.assign(component.bundles.size(), 0);
      for (std::size_t i = 0; i < order.size(); ++i) position[order[i].slot] = static_cast<std::uint32_t>(i + 1);
      for (std::size_t i = 0; i < component.fresh.size(); ++i)
        position[component.fresh[i].slot] = static_cast<std::uint32_t>(order.size() + i + 1);
      for (std::uint32_t slot = 0; slot < position.size(); ++slot) {
        if (position[slot] == 0) continue;
        const std::size_t i = position[slot] - 1;
        const Rated& r = i < order.size() ? order[i] : component.fresh[i - order.size()];
        if (!r.ended) {
          const double entered_s = component.bundles[slot].entered_s;
          component.first_entered_s = std::min(component.first_entered_s, entered_s);
          component.last_entered_s = std::max(component.last_entered_s, entered_s);
        }
        take(r);
      }
      // Copied: let them go before the order is made anew (4 million bundles take 288 MB each).
      HugeVector<Rated>().swap(component.fresh);
      HugeVector<Rated>().swap(order);
      order.reserve(part.rated.size());
    } else {
      for (std::size_t i = first; i < order.size(); ++i) take(order[i]);  // in level order, in sequence
    }
    fill(part, scratch);
    // What the bundles take of each link, for the next re-solve's starting capacities.
    if (part.from_scratch)
      for (int link : scratch.touched) allocated_Bps_[static_cast<std::size_t>(link)] = 0;
    for (std::size_t i = 0; i < part.bundles.size(); ++i) {
      const Solving& solved = part.bundles[i];
      const double change_Bps = solved.flows * (solved.rate_Bps - (part.from_scratch ? 0.0 : part.rated[i].rate_Bps));
      for (std::uint32_t j = 0; j < solved.links; ++j)
        allocated_Bps_[static_cast<std::size_t>(
            scratch.touched[static_cast<std::size_t>(part.links[solved.first_link + j])])] += change_Bps;
    }
    // Level order again: the re-rated bundles follow in the order filling fixed them, which is
    // theirs (their levels made nondecreasing against rounding). Filling from the lowest ended
    // level up leaves them at or above the kept ones; should rounding say otherwise, the two
    // runs are merged.
    order.resize(first);
    for (auto [level, i] : scratch.order) {
      Rated& r = order.emplace_back(part.rated[i]);
      r.rate_Bps = part.bundles[i].rate_Bps;
      r.level = order.size() > first + 1 ? std::max(level, order[order.size() - 2].level) : level;
    }
    std::size_t changed_from = first;  // positions whose entries changed
    if (first > 0 && first < order.size() && order[first].level < order[first - 1].level) {
      std::inplace_merge(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(first), order.end(),
                         [](const Rated& a, const Rated& b) { return a.level < b.level; });
      changed_from = 0;
    }
    // Ends, by position: all anew after a solve from scratch, else those that changed, and none
    // past the end of the order.
    if (part.from_scratch) component.ends.assign(order.size());
    for (std::size_t i = changed_from; i < order.size(); ++i) component.ends.put(i, order[i].end_s());
    const std::size_t stale_until = part.from_scratch ? order.size() : std::max(order.size(), rated_before);
    for (std::size_t i = order.size(); i < stale_until; ++i) component.ends.put(i, kInfinity);
    component.ends.update(changed_from, stale_until);
    if (order.empty()) component.first_entered_s = kInfinity;
    component.next_end_s = component.ends.min();
    part.bundles.clear();
    part.rated.clear();
    part.links.clear();
    component.dirty = component.entered = false;
    component.lowest_ended_level = kInfinity;
  }

  // Progressive filling of one component's bundles, on a dense copy of its links' state; from
  // scratch, or for some of them, on what the others leave of their links.
  void fill(Part& part, Scratch& scratch) {
    // Each link the component's bundles cross, numbered densely: the filling's random accesses
    // then stay within a few thousand links' state. `local_of_` is shared, but a component's
    // links are its thread's alone.
    scratch.touched.clear();
    scratch.local.clear();
    for (const Solving& bundle : part.bundles)
      for (std::uint32_t j = 0; j < bundle.links; ++j) {
        int& link_id = part.links[bundle.first_link + j];
        int& local = local_of_[static_cast<std::size_t>(link_id)];
        if (local < 0) {
          local = static_cast<int>(scratch.local.size());
          scratch.touched.push_back(link_id);
          const auto l = static_cast<std::size_t>(link_id);
          scratch.local.push_back({link_Bps_[l] - (part.from_scratch ? 0.0 : allocated_Bps_[l]), 0, 0, 0, 0});
        }
        link_id = local;
        LocalLink& link = scratch.local[static_cast<std::size_t>(local)];
        if (!part.from_scratch) link.capacity_Bps += bundle.flows * bundle.rate_Bps;  // its own share returns
        link.weight += bundle.flows * bundle.weight;
        ++link.unfixed;
      }
    for (int link_id : scratch.touched) local_of_[static_cast<std::size_t>(link_id)] = -1;
    for (LocalLink& link : scratch.local) link.capacity_Bps = std::max(0.0, link.capacity_Bps);  // rounding
    // Each link's bundles, contiguous (counted above, placed here).
    std::uint32_t offset = 0;
    for (LocalLink& link : scratch.local) {
      link.first = link.filled = offset;
      offset += link.unfixed;
    }
    scratch.link_bundles.resize(offset);
    for (std::uint32_t i = 0; i < part.bundles.size(); ++i)
      for (std::uint32_t j = 0; j < part.bundles[i].links; ++j)
        scratch.link_bundles[scratch.local[static_cast<std::size_t>(part.links[part.bundles[i].first_link + j])]
                                 .filled++] = i;

    // Fill levels only rise as bundles are fixed, so a link's key in the heap is a lower bound
    // of its level: a link popped with a stale key goes back with its current level, and the
    // first one popped whose key is current is the next to saturate.
    using Level = std::pair<double, std::uint32_t>;
    auto level_of = [](const LocalLink& link) { return link.capacity_Bps / std::max(link.weight, 1e-300); };
    std::vector<Level> keys;
    keys.reserve(scratch.local.size());
    for (std::uint32_t k = 0; k < scratch.local.size(); ++k) keys.push_back({level_of(scratch.local[k]), k});
    std::priority_queue<Level, std::vector<Level>, std::greater<>> heap(std::greater<>{}, std::move(keys));
    scratch.fixed.assign(part.bundles.size(), 0);
    scratch.order.clear();
    while (!heap.empty()) {
      const auto [key, k] = heap.top();
      heap.pop();
      const LocalLink& saturated = scratch.local[k];
      if (saturated.unfixed == 0) continue;
      const double level = level_of(saturated);
      if (level > key * (1 + 1e-12)) {
        heap.push({level, k});
        continue;
      }
      for (std::uint32_t i = saturated.first; i < saturated.filled; ++i) {
        const std::uint32_t b = scratch.link_bundles[i];
        if (scratch.fixed[b]) continue;
        scratch.fixed[b] = 1;
        Solving& bundle = part.bundles[b];
        bundle.rate_Bps = bundle.weight * level;
        scratch.order.push_back({bundle.rate_Bps / bundle.weight, b});
        const double used_Bps = bundle.flows * bundle.rate_Bps, weight = bundle.flows * bundle.weight;
        for (std::uint32_t j = 0; j < bundle.links; ++j) {
          LocalLink& link = scratch.local[static_cast<std::size_t>(part.links[bundle.first_link + j])];
          link.capacity_Bps = std::max(0.0, link.capacity_Bps - used_Bps);
          link.weight -= weight;
          --link.unfixed;
        }
      }
    }
    for (std::uint32_t b = 0; b < part.bundles.size(); ++b)  // on no link: never fixed
      if (!scratch.fixed[b]) scratch.order.push_back({part.bundles[b].rate_Bps / part.bundles[b].weight, b});
  }

  void advance() {
    if (bar_) bar_->update(++finished_);
  }

  const TaskGraph& graph_;
  const ComputeSlowdowns& slowdowns_;
  Network net_;
  HugeVector<double> route_latency_s_;
  HugeVector<std::size_t> first_flow_;
  HugeVector<std::uint32_t> flow_route_;
  HugeVector<std::uint32_t> flow_order_;  // per task, its flows by latency (see the constructor)
  std::vector<TaskSpan> spans_;
  std::vector<int> deps_left_, flows_left_;
  std::vector<bool> done_;
  HugeVector<TaskId> successors_;
  HugeVector<std::uint32_t> first_successor_;
  std::vector<int> stream_of_;
  std::vector<Stream> streams_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  HugeVector<std::pair<TaskId, std::size_t>> entering_;
  std::deque<Component> components_;     // 0: routes without links
  std::vector<int> spare_;               // components holding no bundles, for the next to form
  MinTree next_end_, may_end_;           // per component (see refresh)
  std::size_t capacity_ = 0;             // of the trees
  std::vector<std::size_t> candidates_;  // complete_bundles' scratch
  std::vector<int> owner_;               // per link: the component whose bundles cross it (or did: then any)
  std::vector<int> crossing_;            // per link: the bundles that cross it, ended ones gone
  std::vector<int> link_root_;           // per link: union-find while a component is split, else -1
  std::vector<int> piece_of_root_;       // per link: the piece its root stands for, while split, else -1
  std::vector<int> touched_links_;       // the links split() set
  std::vector<int> dirty_;               // the components whose flows changed since the last solve
  std::vector<std::size_t> due_;         // complete_bundles' scratch
  HugeVector<TaskId> members_;
  std::vector<int> local_of_;          // per link: its dense number in the filling of its component, or -1
  std::vector<double> allocated_Bps_;  // per link: what its bundles take of it at their rates
  std::vector<double> link_Bps_;       // per link: its bandwidth as of now (network changes set it)
  std::vector<char> rerouted_;         // per route, when the network changes: whether a change moved it
  std::vector<std::pair<const int*, const int*>> route_override_;  // per route: its links since, if moved
  bool from_ended_level_;
  std::vector<Scratch> scratch_;  // per thread
  double now_ = 0;
  std::size_t solves_ = 0;
  ProgressBar* bar_ = nullptr;
  double finished_ = 0;
};

}  // namespace

Timeline simulate_fluid(const Platform& platform, const TaskGraph& graph, SimulationStats* stats, FluidSolve solve) {
  const auto started = std::chrono::steady_clock::now();
  FluidRun run(platform, graph, solve);
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
