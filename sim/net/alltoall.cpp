#include "net/alltoall.hpp"

#include <map>
#include <stdexcept>
#include <string>

namespace net {

core::TaskGraph alltoall_graph(const AllToAllSpec& s) {
  core::TaskGraph g;
  const int G = s.nodes * s.gpus_per_node;
  if (!s.bytes.empty()) {
    bool square = static_cast<int>(s.bytes.size()) == G;
    for (const auto& row : s.bytes) square = square && static_cast<int>(row.size()) == G;
    if (!square) throw std::invalid_argument("all-to-allv byte matrix is not " + std::to_string(G) + " x " + std::to_string(G));
  }
  auto bytes_of = [&](int src, int dst) { return s.bytes.empty() ? s.bytes_per_pair : s.bytes[src][dst]; };
  // Bytes per (from, to) flow, by stage: NVLink inside the node, then the network, and the
  // (src, dst) pairs each carries, for the one-flow-per-pair form.
  std::map<std::pair<int, int>, double> nvlink, network;
  std::map<std::pair<int, int>, std::vector<double>> nvlink_pairs, network_pairs;
  for (int src = 0; src < G; ++src)
    for (int dst = 0; dst < G; ++dst) {
      const double S = bytes_of(src, dst);
      if (src == dst || S <= 0) continue;
      const int src_node = src / s.gpus_per_node, dst_node = dst / s.gpus_per_node;
      if (src_node == dst_node) {
        nvlink[{src, dst}] += S;
        nvlink_pairs[{src, dst}].push_back(S);
        continue;
      }
      int sender = src;
      if (s.pxn) {
        sender = src_node * s.gpus_per_node + dst % s.gpus_per_node;  // same local index as dst
        if (sender != src) {
          nvlink[{src, sender}] += S;
          nvlink_pairs[{src, sender}].push_back(S);
        }
      }
      network[{sender, dst}] += S;
      network_pairs[{sender, dst}].push_back(S);
    }
  std::vector<core::TaskId> all;
  auto add = [&](const std::map<std::pair<int, int>, double>& stage,
                 const std::map<std::pair<int, int>, std::vector<double>>& pairs, const char* name) {
    if (s.aggregate) {
      std::map<int, std::vector<core::Flow>> by_source;
      for (const auto& [pair, bytes] : stage) by_source[pair.first].push_back({pair.first, pair.second, bytes});
      for (auto& [src, flows] : by_source) all.push_back(g.add_transfer(name, src, name, std::move(flows), {}));
      return;
    }
    // One flow per (source, destination) pair of the collective: the data of each pair
    // separately, as one send per peer would carry it.
    for (const auto& [pair, sizes] : pairs) {
      std::vector<core::Flow> flows;
      for (double bytes : sizes) flows.push_back({pair.first, pair.second, bytes});
      all.push_back(g.add_transfer(name, pair.first, std::string(name) + " " + std::to_string(pair.second), std::move(flows), {}));
    }
  };
  add(nvlink, nvlink_pairs, "nvlink");
  add(network, network_pairs, "network");
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
