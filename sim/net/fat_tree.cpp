// Fat trees of k-port switches (Al-Fares et al.): two levels, k leaves with k/2 endpoints and
// k/2 uplinks each under k/2 spines (k^2/2 endpoints); three levels, k pods of k/2 edge and k/2
// aggregation switches under (k/2)^2 cores (k^3/4 endpoints; fewer pods, fewer endpoints). A
// multi-plane fat tree (MPFT, ISCA'25 §5.1) is `planes` independent trees, two-level (up to k^2/2
// NICs a plane) or three-level past that, NIC i of every node in plane i.
#include <string>

#include "core/input_error.hpp"
#include "net/topology.hpp"

namespace net {

namespace {

void check_radix(int radix, const std::string& where) {
  if (radix < 2 || radix % 2 != 0 || radix > 1024)
    throw core::InputError(
        where + "radix",
        std::to_string(radix) + " is not allowed; a fat tree needs an even switch radix from 2 to 1024");
}

VertexId add(Graph& g, VertexKind kind, int plane, int level, int group) {
  return boost::add_vertex(Vertex{kind, plane, level, group}, g);
}

}  // namespace

Graph fat_tree_2(int radix, int planes, const std::string& where) {
  check_radix(radix, where);
  if (planes < 1 || planes > 64)
    throw core::InputError(where + "planes", std::to_string(planes) + " is not allowed; from 1 to 64 planes");
  const int half = radix / 2;
  Graph g;
  for (int p = 0; p < planes; ++p) {
    std::vector<VertexId> spines;
    for (int s = 0; s < half; ++s) spines.push_back(add(g, VertexKind::kSwitch, p, 1, 0));
    for (int l = 0; l < radix; ++l) {
      const VertexId leaf = add(g, VertexKind::kSwitch, p, 0, l);
      for (VertexId spine : spines) boost::add_edge(leaf, spine, g);
      for (int e = 0; e < half; ++e) boost::add_edge(add(g, VertexKind::kEndpoint, p, 0, l), leaf, g);
    }
  }
  return g;
}

Graph fat_tree_3(int radix, const std::string& where, int pods, int planes) {
  check_radix(radix, where);
  if (pods == 0) pods = radix;
  if (pods < 1 || pods > radix)
    throw core::InputError(where + "pods", std::to_string(pods) +
                                               " is not allowed; a three-level fat tree has from 1 to radix (" +
                                               std::to_string(radix) + ") pods");
  if (planes < 1 || planes > 64)
    throw core::InputError(where + "planes", std::to_string(planes) + " is not allowed; from 1 to 64 planes");
  const int half = radix / 2;
  Graph g;
  for (int p = 0; p < planes; ++p) {
    std::vector<VertexId> cores;
    for (int c = 0; c < half * half; ++c) cores.push_back(add(g, VertexKind::kSwitch, p, 2, 0));
    for (int pod = 0; pod < pods; ++pod) {
      std::vector<VertexId> aggregation;
      for (int a = 0; a < half; ++a) {
        aggregation.push_back(add(g, VertexKind::kSwitch, p, 1, pod));
        for (int c = 0; c < half; ++c) boost::add_edge(aggregation.back(), cores[a * half + c], g);  // core group a
      }
      for (int e = 0; e < half; ++e) {
        const VertexId edge = add(g, VertexKind::kSwitch, p, 0, pod);
        for (VertexId agg : aggregation) boost::add_edge(edge, agg, g);
        for (int h = 0; h < half; ++h) boost::add_edge(add(g, VertexKind::kEndpoint, p, 0, pod), edge, g);
      }
    }
  }
  return g;
}

}  // namespace net
