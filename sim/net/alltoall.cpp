#include "net/alltoall.hpp"

#include <map>
#include <stdexcept>
#include <string>

namespace net {

namespace {

// One flow per (GPU, peer GPU) and stage. The bytes are summed in dense arrays rather than maps
// of pairs (a 2,048-GPU all-to-all has 4 million pairs, and maps of them were most of a fault
// case's time), in the order the pairs come (source, then destination, ascending), so an
// all-to-allv's sums round as before. Each stage's transfers come by source, their flows by
// destination.
core::TaskGraph aggregated_alltoall_graph(const AllToAllSpec& s) {
  const int gpn = s.gpus_per_node, G = s.nodes * gpn;
  auto bytes_of = [&](int src, int dst) { return s.bytes.empty() ? s.bytes_per_pair : s.bytes[src][dst]; };
  // NVLink: from a GPU to the GPU of its node with a local index, by (GPU, local index).
  std::vector<double> nvlink(static_cast<std::size_t>(G) * gpn, 0.0);
  // Network with PXN: the sender has the destination's local index, so (sender's node,
  // destination) names the flow. Without PXN each pair is a flow of its own, sent as it comes.
  std::vector<double> network(s.pxn ? static_cast<std::size_t>(s.nodes) * G : 0, 0.0);
  std::vector<std::vector<core::Flow>> direct(s.pxn ? 0 : static_cast<std::size_t>(G));
  for (int src = 0; src < G; ++src) {
    const int src_node = src / gpn;
    for (int dst = 0; dst < G; ++dst) {
      const double S = bytes_of(src, dst);
      if (src == dst || S <= 0) continue;
      const int dst_node = dst / gpn, local = dst % gpn;
      if (src_node == dst_node) {
        nvlink[static_cast<std::size_t>(src) * gpn + local] += S;
      } else if (!s.pxn) {
        direct[static_cast<std::size_t>(src)].push_back({src, dst, S});
      } else {
        if (src % gpn != local) nvlink[static_cast<std::size_t>(src) * gpn + local] += S;
        network[static_cast<std::size_t>(src_node) * G + dst] += S;
      }
    }
  }
  core::TaskGraph g;
  std::vector<core::TaskId> all;
  auto add = [&](const char* name, int src, std::vector<core::Flow>&& flows) {
    if (!flows.empty()) all.push_back(g.add_transfer(name, src, name, std::move(flows), {}));
  };
  for (int src = 0; src < G; ++src) {
    std::vector<core::Flow> flows;
    for (int local = 0; local < gpn; ++local)
      if (const double bytes = nvlink[static_cast<std::size_t>(src) * gpn + local]; bytes > 0)
        flows.push_back({src, src / gpn * gpn + local, bytes});
    add("nvlink", src, std::move(flows));
  }
  for (int sender = 0; sender < G; ++sender) {
    if (!s.pxn) {
      add("network", sender, std::move(direct[static_cast<std::size_t>(sender)]));
      continue;
    }
    const int node = sender / gpn;
    std::vector<core::Flow> flows;
    for (int dst = sender % gpn; dst < G; dst += gpn)
      if (const double bytes = network[static_cast<std::size_t>(node) * G + dst]; bytes > 0)
        flows.push_back({sender, dst, bytes});
    add("network", sender, std::move(flows));
  }
  g.add_join("all-to-all done", all);
  return g;
}

// One flow per (source, destination) pair of the collective: the data of each pair
// separately, as one send per peer would carry it.
core::TaskGraph per_pair_alltoall_graph(const AllToAllSpec& s) {
  const int G = s.nodes * s.gpus_per_node;
  auto bytes_of = [&](int src, int dst) { return s.bytes.empty() ? s.bytes_per_pair : s.bytes[src][dst]; };
  // The (src, dst) pairs each (from, to) flow carries, by stage: NVLink inside the node, then the network.
  std::map<std::pair<int, int>, std::vector<double>> nvlink, network;
  for (int src = 0; src < G; ++src)
    for (int dst = 0; dst < G; ++dst) {
      const double S = bytes_of(src, dst);
      if (src == dst || S <= 0) continue;
      const int src_node = src / s.gpus_per_node, dst_node = dst / s.gpus_per_node;
      if (src_node == dst_node) {
        nvlink[{src, dst}].push_back(S);
        continue;
      }
      int sender = src;
      if (s.pxn) {
        sender = src_node * s.gpus_per_node + dst % s.gpus_per_node;  // same local index as dst
        if (sender != src) nvlink[{src, sender}].push_back(S);
      }
      network[{sender, dst}].push_back(S);
    }
  core::TaskGraph g;
  std::vector<core::TaskId> all;
  auto add = [&](const std::map<std::pair<int, int>, std::vector<double>>& pairs, const char* name) {
    for (const auto& [pair, sizes] : pairs) {
      std::vector<core::Flow> flows;
      for (double bytes : sizes) flows.push_back({pair.first, pair.second, bytes});
      all.push_back(g.add_transfer(name, pair.first, std::string(name) + " " + std::to_string(pair.second),
                                   std::move(flows), {}));
    }
  };
  add(nvlink, "nvlink");
  add(network, "network");
  g.add_join("all-to-all done", all);
  return g;
}

}  // namespace

core::TaskGraph alltoall_graph(const AllToAllSpec& s) {
  const int G = s.nodes * s.gpus_per_node;
  if (!s.bytes.empty()) {
    bool square = static_cast<int>(s.bytes.size()) == G;
    for (const auto& row : s.bytes) square = square && static_cast<int>(row.size()) == G;
    if (!square)
      throw std::invalid_argument("all-to-allv byte matrix is not " + std::to_string(G) + " x " + std::to_string(G));
  }
  return s.aggregate ? aggregated_alltoall_graph(s) : per_pair_alltoall_graph(s);
}

CollectiveBandwidth alltoall_bandwidth(const AllToAllSpec& s, double seconds) {
  const double ranks = s.nodes * s.gpus_per_node;
  const double size = s.bytes_per_pair * ranks;
  CollectiveBandwidth b;
  b.algbw_Bps = size / seconds;
  b.busbw_Bps = b.algbw_Bps * (ranks - 1) / ranks;
  return b;
}

}  // namespace net
