#include "net/alltoall_symmetric.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "core/progress_bar.hpp"
#include "net/platform.hpp"

namespace net {

namespace {

// Planes simulated at once, on threads of their own, where cores allow: each holds its own flows.
constexpr int kPlanesAtOnce = 4;

// Plane 0 of an MPFT with one merged source per leaf. Receivers are the nodes' plane-0 NICs,
// ranks [0, receivers); ranks [receivers, receivers + leaves) are the merged senders.
// `one_position`: when every leaf is full, the nodes at the same position under their leaves
// form classes that the fabric treats alike (d-mod-k sends position p through spine p, whose
// links carry that class alone; spraying gives each class an equal share of the trunks), so one
// class, position 0, stands for all: its receivers are one node per leaf, and a merged sender
// keeps 1/positions of its uplink, its share of the class.
class MergedPlanePlatform : public Platform {
 public:
  MergedPlanePlatform(const FabricSpec& s, bool one_position)
      : s_(s), per_leaf_(s.radix / 2), one_position_(one_position) {
    leaves_ = (s.nodes + per_leaf_ - 1) / per_leaf_;
  }
  int leaves() const { return leaves_; }
  int receivers() const { return one_position_ ? leaves_ : s_.nodes; }
  int node_of_receiver(int r) const { return one_position_ ? r * per_leaf_ : r; }
  int leaf_of(int node) const { return node / per_leaf_; }
  int nodes_under(int leaf) const { return std::min(per_leaf_, s_.nodes - leaf * per_leaf_); }
  int gpus() const override { return receivers() + leaves_; }
  double gpu_flops_per_s() const override { return s_.gpu_flops_per_s; }

  core::Network network(const RoutePairs& pairs) const override {
    core::Network net;
    std::vector<int> nic(receivers()), merged(leaves_);
    for (int r = 0; r < receivers(); ++r) nic[r] = net.add_link(s_.nic_Bps, s_.nic_latency_s);  // into the NIC
    for (int l = 0; l < leaves_; ++l) {
      const double senders = one_position_ ? nodes_under(l) / double(per_leaf_) : nodes_under(l);
      merged[l] = net.add_link(s_.nic_Bps * senders, s_.nic_latency_s);
    }
    // Leaf-spine links, one per (leaf, spine) and direction, as in the fabric; with spraying, one
    // trunk per leaf and direction of the spines' summed bandwidth (of which one position class
    // holds its 1/positions share).
    const bool spray = s_.routing == Routing::kSpray;
    const int spine_links = spray || one_position_ ? 1 : per_leaf_;
    const double spine_Bps = spray && !one_position_ ? s_.switch_link_Bps * per_leaf_ : s_.switch_link_Bps;
    std::vector<std::vector<int>> up(leaves_), down(leaves_);
    if (leaves_ > 1)
      for (int l = 0; l < leaves_; ++l)
        for (int sp = 0; sp < spine_links; ++sp) {
          up[l].push_back(net.add_link(spine_Bps, s_.switch_link_latency_s));
          down[l].push_back(net.add_link(spine_Bps, s_.switch_link_latency_s));
        }
    for (const auto& [src, dst] : pairs) {
      const int leaf = src - receivers();  // a merged sender
      const int node = node_of_receiver(dst);
      std::vector<int> path = {merged[leaf]};
      if (leaf_of(node) != leaf) {
        const int spine = spine_links == 1 ? 0 : node % per_leaf_;  // d-mod-k, as FabricPlatform routes it
        path.push_back(up[leaf][spine]);
        path.push_back(down[leaf_of(node)][spine]);
      }
      path.push_back(nic[dst]);
      net.add_route(src, dst, path);
    }
    return net;
  }

 private:
  FabricSpec s_;
  int per_leaf_;
  bool one_position_;
  int leaves_ = 1;
};

}  // namespace

SymmetricAllToAll alltoall_symmetric(const FabricSpec& s, double S) {
  check_fabric(s, "");
  SymmetricAllToAll out;
  const int gpn = s.gpus_per_node;
  // NVLink stage of one node: to each peer, its own share plus what it forwards to the other
  // nodes (PXN).
  {
    Cluster node;
    node.nodes = 1;
    node.gpus_per_node = gpn;
    node.gpu_flops_per_s = s.gpu_flops_per_s;
    node.scale_up_Bps = s.nvlink_Bps;
    node.scale_out_Bps = s.nic_Bps;
    node.scale_up_latency_s = 2 * s.nvlink_latency_s;  // StarPlatform splits it over two links
    core::TaskGraph g;
    std::vector<core::TaskId> all;
    for (int src = 0; src < gpn; ++src) {
      std::vector<core::Flow> flows;
      for (int peer = 0; peer < gpn; ++peer)
        if (peer != src) flows.push_back({src, peer, S * s.nodes});  // 1 local + (nodes - 1) forwarded
      if (!flows.empty()) all.push_back(g.add_transfer("nvlink", src, "nvlink", std::move(flows), {}));
    }
    if (!all.empty()) out.nvlink_stage_s = core::simulate(StarPlatform(node), g).makespan_s();
    out.flows += static_cast<std::size_t>(gpn) * (gpn - 1);
  }
  // Network stage: every other node receives S x gpn from each node through its plane's NIC.
  // Adaptive routing's choices differ NIC by NIC, but alike in every plane (it routes each
  // plane's pairs in the same order), so plane 0 runs as it is, one NIC per node. ECMP hashes
  // GPU numbers and a static table names GPUs, so their planes differ: every plane runs on its
  // own (they share no link under PXN), a few at once.
  if (s.nodes > 1 && s.routing != Routing::kDModK && s.routing != Routing::kSpray) {
    const int planes = s.routing == Routing::kAdaptive ? 1 : gpn;
    core::ProgressBar bar(std::string("simulating the all-to-all ") +
                              (s.kind == FabricKind::kMultiPlane ? "plane" : "rail") + " by " +
                              (s.kind == FabricKind::kMultiPlane ? "plane" : "rail"),
                          planes);  // each plane's simulation fills its part
    // Planes on threads of their own, a few at a time: each holds its flows (1.3 GB at 16,320
    // GPUs). SimGrid runs one simulation per process.
    const int threads =
        core::default_engine() == core::EngineKind::kSimGrid
            ? 1
            : std::min({planes, static_cast<int>(std::max(1u, std::thread::hardware_concurrency())), kPlanesAtOnce});
    std::vector<double> plane_s(static_cast<std::size_t>(planes));
    std::atomic<int> next{0}, done{0};
    std::mutex progress;
    std::exception_ptr failure;
    auto work = [&] {
      const core::ProgressBar::Inside inside(bar);
      try {
        for (int p; (p = next.fetch_add(1)) < planes;) {
          const FabricPlatform plane(s, p);
          core::TaskGraph g;
          for (int node = 0; node < s.nodes; ++node) {
            std::vector<core::Flow> flows;
            flows.reserve(static_cast<std::size_t>(s.nodes - 1));
            for (int other = 0; other < s.nodes; ++other)
              if (other != node) flows.push_back({node, other, S * gpn});
            g.add_transfer("network", node, "network", std::move(flows), {});
          }
          plane_s[static_cast<std::size_t>(p)] = core::simulate(plane, g).makespan_s();
          const std::lock_guard<std::mutex> lock(progress);
          bar.update(++done);
        }
      } catch (...) {
        const std::lock_guard<std::mutex> lock(progress);
        failure = std::current_exception();
        next = planes;
      }
    };
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t) workers.emplace_back(work);
    work();
    for (auto& w : workers) w.join();
    if (failure) std::rethrow_exception(failure);
    out.network_stage_s = *std::max_element(plane_s.begin(), plane_s.end());
    out.flows += static_cast<std::size_t>(planes) * s.nodes * (s.nodes - 1);
  } else if (s.nodes > 1) {
    const int per_leaf = s.radix / 2;
    const MergedPlanePlatform plane(s, s.nodes % per_leaf == 0 && s.nodes > per_leaf);
    core::TaskGraph g;
    std::vector<core::TaskId> all;
    for (int leaf = 0; leaf < plane.leaves(); ++leaf) {
      std::vector<core::Flow> flows;
      for (int r = 0; r < plane.receivers(); ++r) {
        const int senders = plane.nodes_under(leaf) - (plane.leaf_of(plane.node_of_receiver(r)) == leaf ? 1 : 0);
        if (senders > 0) {
          flows.push_back({plane.receivers() + leaf, r, S * gpn, senders});  // one flow per sending NIC
          out.flows += static_cast<std::size_t>(senders);
        }
      }
      all.push_back(g.add_transfer("network", plane.receivers() + leaf, "network", std::move(flows), {}));
    }
    out.network_stage_s = core::simulate(plane, g).makespan_s();
  }
  out.seconds = std::max(out.nvlink_stage_s, out.network_stage_s);
  return out;
}

}  // namespace net
