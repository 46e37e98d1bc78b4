#pragma once
// What the engines simulate on: GPU hosts joined by one-directional links, and the route (the
// links in order) between each pair of GPUs the work uses. Implementations (net/) describe
// their fabric here; the engines build from it (SimGrid's zone, or the fluid engine's links).
// Routes are asked for only for the pairs the work uses: a full table is quadratic in the GPUs.
#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "core/compute_slowdown.hpp"
#include "core/huge_page_allocator.hpp"

namespace core {

// (source, destination) pairs, sorted and unique: a 16,384-GPU plane's all-to-all asks for 4
// million, which a std::set holds at several times the memory and time.
using RoutePairs = HugeVector<std::pair<int, int>>;

// How flows on a link share it. Max-min: every flow an equal share, the fluid limit of
// InfiniBand's credit-based link arbitration and of RoCE's rate control, neither of which
// favours short round trips. Latency-weighted: SimGrid's CM02, which weights each flow by the
// inverse of its route's latency, as TCP's window favours short round trips.
enum class Sharing { kMaxMin, kLatencyWeighted };

struct NetworkLink {
  double Bps = 0;  // one direction
  double latency_s = 0;
};

// What changes in the network at an instant (a fault, a repair, routing reacting to them):
// links' bandwidths (0: down) and routes' links. Flows in the network at that instant that take
// a changed route move to its new links with the bytes they have left; a route keeps the latency
// it had (flows enter by it).
struct NetworkChange {
  double at_s = 0;
  std::vector<std::pair<int, double>> link_Bps;                  // (link, its bandwidth from now)
  std::vector<std::pair<std::size_t, std::vector<int>>> routes;  // (route, its links from now)
};

// Links, and one route per asked-for pair, held flat: a 2,048-GPU all-to-all has 500,000 routes.
class Network {
 public:
  int add_link(double Bps, double latency_s) {
    links_.push_back({Bps, latency_s});
    return static_cast<int>(links_.size()) - 1;
  }
  void set_link_Bps(int link, double Bps) { links_[static_cast<std::size_t>(link)].Bps = Bps; }
  // Routes must be added in increasing (src, dst) order, as a RoutePairs set iterates.
  void add_route(int src, int dst, const std::vector<int>& links) {
    if (!pairs_.empty() && !(pairs_.back() < std::make_pair(src, dst)))
      throw std::logic_error("routes must be added in increasing (src, dst) order");
    pairs_.push_back({src, dst});
    begin_.push_back(route_links_.size());
    route_links_.insert(route_links_.end(), links.begin(), links.end());
  }

  const std::vector<NetworkLink>& links() const { return links_; }
  std::size_t routes() const { return pairs_.size(); }
  std::pair<int, int> pair(std::size_t route) const { return pairs_[route]; }
  // The route's index; throws std::out_of_range when the pair has none.
  std::size_t route_of(int src, int dst) const;
  // The route's links, in order.
  std::pair<const int*, const int*> route_links(std::size_t route) const {
    const std::size_t end = route + 1 < begin_.size() ? begin_[route + 1] : route_links_.size();
    return {route_links_.data() + begin_[route], route_links_.data() + end};
  }
  // A route's links, rewritten in place (a traffic class moved onto links of its own).
  template <typename F>
  void map_route_links(std::size_t route, F f) {
    const std::size_t end = route + 1 < begin_.size() ? begin_[route + 1] : route_links_.size();
    for (std::size_t i = begin_[route]; i < end; ++i) route_links_[i] = f(route_links_[i]);
  }
  // Weighted sharing: a flow's share of a link in proportion to its route's weight (a traffic
  // class's); 1 unless set. Only the fluid engine weights flows.
  void set_route_weight(std::size_t route, double weight) {
    if (route_weights_.empty()) route_weights_.assign(pairs_.size(), 1.0);
    route_weights_[route] = weight;
  }
  double route_weight(std::size_t route) const { return route_weights_.empty() ? 1.0 : route_weights_[route]; }
  bool weighted() const { return !route_weights_.empty(); }
  Sharing sharing() const { return sharing_; }
  void set_sharing(Sharing sharing) { sharing_ = sharing; }
  // Changes, in time order; the fluid engine applies them (SimGrid's engine refuses them).
  void add_change(NetworkChange change) {
    if (!changes_.empty() && change.at_s < changes_.back().at_s)
      throw std::logic_error("network changes must come in time order");
    changes_.push_back(std::move(change));
  }
  const std::vector<NetworkChange>& changes() const { return changes_; }
  double route_latency_s(std::size_t route) const {
    double s = 0;
    for (auto [l, end] = route_links(route); l != end; ++l) s += links_[static_cast<std::size_t>(*l)].latency_s;
    return s;
  }

 private:
  std::vector<NetworkLink> links_;
  HugeVector<std::pair<int, int>> pairs_;  // large, and read in scattered order: huge pages
  HugeVector<std::size_t> begin_;
  HugeVector<int> route_links_;
  Sharing sharing_ = Sharing::kMaxMin;
  std::vector<double> route_weights_;  // empty: all 1
  std::vector<NetworkChange> changes_;
};

class Platform {
 public:
  virtual ~Platform() = default;
  virtual int gpus() const = 0;
  virtual double gpu_flops_per_s() const = 0;
  // The links, with a route for each pair in `pairs`.
  virtual Network network(const RoutePairs& pairs) const = 0;

  // GPUs that compute slower than the rest; none unless set.
  const ComputeSlowdowns& compute_slowdowns() const { return compute_slowdowns_; }
  void set_compute_slowdowns(ComputeSlowdowns slowdowns) { compute_slowdowns_ = std::move(slowdowns); }

 private:
  ComputeSlowdowns compute_slowdowns_;
};

}  // namespace core
