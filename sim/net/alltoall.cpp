#include "net/alltoall.hpp"

#include <map>
#include <string>

namespace net {

core::TaskGraph alltoall_graph(const AllToAllSpec& s) {
  core::TaskGraph g;
  const int G = s.nodes * s.gpus_per_node;
  const double S = s.bytes_per_pair;
  // Bytes per (from, to) flow, by stage: NVLink inside the node, then the network.
  std::map<std::pair<int, int>, double> nvlink, network;
  for (int src = 0; src < G; ++src)
    for (int dst = 0; dst < G; ++dst) {
      if (src == dst) continue;
      const int src_node = src / s.gpus_per_node, dst_node = dst / s.gpus_per_node;
      if (src_node == dst_node) {
        nvlink[{src, dst}] += S;
        continue;
      }
      int sender = src;
      if (s.pxn) {
        sender = src_node * s.gpus_per_node + dst % s.gpus_per_node;  // same local index as dst
        if (sender != src) nvlink[{src, sender}] += S;
      }
      network[{sender, dst}] += S;
    }
  std::vector<core::TaskId> all;
  auto add = [&](const std::map<std::pair<int, int>, double>& stage, const char* name) {
    if (s.aggregate) {
      std::map<int, std::vector<core::Flow>> by_source;
      for (const auto& [pair, bytes] : stage) by_source[pair.first].push_back({pair.first, pair.second, bytes});
      for (auto& [src, flows] : by_source) all.push_back(g.add_transfer(name, src, name, std::move(flows), {}));
      return;
    }
    // One flow per (source, destination) pair of the collective: the data of each pair
    // separately, as one send per peer would carry it.
    for (const auto& [pair, bytes] : stage) {
      const int pairs = static_cast<int>(bytes / S + 0.5);
      std::vector<core::Flow> flows(static_cast<std::size_t>(pairs), core::Flow{pair.first, pair.second, S});
      all.push_back(g.add_transfer(name, pair.first, std::string(name) + " " + std::to_string(pair.second), std::move(flows), {}));
    }
  };
  add(nvlink, "nvlink");
  add(network, "network");
  g.add_join("all-to-all done", all);
  return g;
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
