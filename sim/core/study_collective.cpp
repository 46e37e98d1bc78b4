#include "core/study_collective.hpp"

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/alltoall.hpp"
#include "net/alltoall_symmetric.hpp"
#include "net/fabric.hpp"
#include "net/ring.hpp"

namespace core {

namespace {

class CollectiveStudy : public Study {
 public:
  net::FabricSpec fabric;
  std::vector<double> sizes_bytes;  // nccl-tests "size": what each rank sends in all
  bool pxn = true;
  std::string label;
  std::string collective = "alltoall";
  bool symmetric = false;  // simulate through the MPFT's symmetries (see alltoall_symmetric.hpp)
  std::string routing_name;
  bool interleaved_rings = false;

  // One ring per local GPU index (rail or plane), through every node.
  std::vector<net::Ring> rings() const {
    std::vector<net::Ring> out(static_cast<std::size_t>(fabric.gpus_per_node));
    const int half = fabric.nodes / 2;
    for (int i = 0; i < fabric.gpus_per_node; ++i)
      for (int k = 0; k < fabric.nodes; ++k) {
        // Interleaved: alternate the two halves of the nodes (0, half, 1, half + 1, ...), so
        // that with two leaves per rail every ring hop crosses the spines.
        const int node = interleaved_rings && fabric.nodes % 2 == 0 ? (k % 2 ? half + k / 2 : k / 2) : k;
        out[static_cast<std::size_t>(i)].push_back(node * fabric.gpus_per_node + i);
      }
    return out;
  }

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    const net::FabricPlatform platform(fabric);
    const int ranks = platform.gpus();
    for (double size : sizes_bytes) {
      net::CollectiveBandwidth bw;
      if (symmetric) {
        const net::AllToAllSpec a{fabric.nodes, fabric.gpus_per_node, size / ranks, true, true, {}};
        const double seconds = net::alltoall_symmetric(fabric, a.bytes_per_pair).seconds;
        bw = net::alltoall_bandwidth(a, seconds);
        const std::string tag = format_number(size);
        const std::string row = label + ", " + format_number(size / 1048576.0) + " MiB";
        r.rows.push_back({tag + "/time", row, "time", "us", std::nullopt, seconds * 1e6});
        r.rows.push_back({tag + "/algbw", row, "algbw", "GB/s", std::nullopt, bw.algbw_Bps / 1e9});
        r.rows.push_back({tag + "/busbw", row, "busbw", "GB/s", std::nullopt, bw.busbw_Bps / 1e9});
        continue;
      }
      core::TaskGraph graph;
      if (collective == "alltoall") {
        graph = net::alltoall_graph({fabric.nodes, fabric.gpus_per_node, size / ranks, pxn, true, {}});
      } else {
        graph = net::ring_graph(rings(), size, collective == "allreduce" ? 2 : 1);
      }
      const Timeline t = simulate(platform, graph);
      if (collective == "alltoall") {
        bw = net::alltoall_bandwidth({fabric.nodes, fabric.gpus_per_node, size / ranks, pxn, true, {}}, t.makespan_s());
      } else {
        const double n = fabric.nodes;  // ranks per ring
        bw.algbw_Bps = size / t.makespan_s();
        bw.busbw_Bps = bw.algbw_Bps * (collective == "allreduce" ? 2 : 1) * (n - 1) / n;
      }
      const std::string tag = format_number(size);
      const std::string row = label + ", " + format_number(size / 1048576.0) + " MiB";
      r.rows.push_back({tag + "/time", row, "time", "us", std::nullopt, t.makespan_s() * 1e6});
      r.rows.push_back({tag + "/algbw", row, "algbw", "GB/s", std::nullopt, bw.algbw_Bps / 1e9});
      r.rows.push_back({tag + "/busbw", row, "busbw", "GB/s", std::nullopt, bw.busbw_Bps / 1e9});
      if (options.trace && size == sizes_bytes.back()) r.trace_json = t.chrome_trace_json();
    }
    const std::string where = std::to_string(ranks) + " GPUs in " + std::to_string(fabric.nodes) + " nodes, " +
                              (fabric.kind == net::FabricKind::kMultiPlane ? "multi-plane" : "multi-rail") +
                              " two-level fat tree of " + std::to_string(fabric.radix) + "-port switches";
    if (collective == "alltoall")
      r.notes.push_back(label + ": all-to-all, " + where + ", " +
                        (pxn ? "PXN (NVLink forwarding to the GPU on the destination's plane or rail)" : "no PXN") +
                        (symmetric ? "; simulated through the planes' and leaves' symmetry (one plane, one node's "
                                     "NVLink, one merged sender per leaf; a test holds it to the full simulation)."
                                   : "; flows aggregated per GPU pair and stage (a test holds them to one flow per pair)."));
    else
      r.notes.push_back(label + ": ring " + collective + ", " + where + ", one ring per rail through every node" +
                        (interleaved_rings ? " in interleaved order (every hop crosses the spines)" : "") +
                        ", routing " + routing_name + "; busbw = algbw x " + (collective == "allreduce" ? "2" : "1") +
                        " x (n - 1) / n with n = " +
                        std::to_string(fabric.nodes) + " ranks per ring.");
    return r;
  }
};

net::Routing routing_by_name(const std::string& name) {
  return name == "ecmp" ? net::Routing::kEcmp : name == "adaptive" ? net::Routing::kAdaptive : net::Routing::kDModK;
}

}  // namespace

std::unique_ptr<Study> parse_collective_study(JsonReader& root) {
  auto s = std::make_unique<CollectiveStudy>();
  JsonReader f = root.object("fabric");
  auto& spec = s->fabric;
  spec.kind = f.one_of("kind", {"mpft", "mrft"}) == "mpft" ? net::FabricKind::kMultiPlane : net::FabricKind::kMultiRail;
  s->routing_name = f.one_of("routing", {"d-mod-k", "ecmp", "adaptive"}, "d-mod-k");
  spec.routing = routing_by_name(s->routing_name);
  spec.nodes = static_cast<int>(f.positive_integer("nodes", 1'000'000));
  spec.gpus_per_node = static_cast<int>(f.positive_integer("gpus_per_node", 8, 72));
  spec.radix = static_cast<int>(f.positive_integer("radix", 64, 1024));
  spec.nvlink_Bps = f.positive_number("nvlink_bandwidth_Bps", 160e9);
  spec.nic_Bps = f.positive_number("nic_bandwidth_Bps", 50e9);
  spec.switch_link_Bps = f.positive_number("switch_link_bandwidth_Bps", spec.nic_Bps);
  spec.nvlink_latency_s = f.non_negative_number("nvlink_latency_s", 0.0);
  spec.nic_latency_s = f.non_negative_number("nic_latency_s", 0.0);
  spec.switch_link_latency_s = f.non_negative_number("switch_link_latency_s", 0.0);
  f.finish();
  net::check_fabric(spec, f.pointer() + "/");
  JsonReader a = root.object("collective");
  s->collective = a.one_of("kind", {"alltoall", "allgather", "reducescatter", "allreduce"});
  s->interleaved_rings = a.one_of("ring_order", {"node", "interleaved"}, "node") == "interleaved";
  s->label = a.optional_string("label").value_or(spec.kind == net::FabricKind::kMultiPlane ? "MPFT" : "MRFT");
  s->pxn = a.has("pxn") ? a.raw("pxn")->is_boolean() && a.raw("pxn")->get<bool>() : true;
  if (a.has("pxn") && !a.raw("pxn")->is_boolean())
    throw InputError(a.pointer_of("pxn"), describe(*a.raw("pxn")) + " is not allowed; expected true or false");
  if (!s->pxn && s->collective == "alltoall" && spec.kind == net::FabricKind::kMultiPlane && spec.nodes > 1)
    throw InputError(a.pointer_of("pxn"), "false is not allowed on a multi-plane fat tree: no path joins two planes, so "
                                          "traffic between GPUs of different local index needs PXN");
  const std::string method = a.one_of("method", {"auto", "full"}, "auto");
  s->symmetric = method == "auto" && s->collective == "alltoall" && s->pxn && spec.kind == net::FabricKind::kMultiPlane &&
                 spec.routing == net::Routing::kDModK;
  const auto* sizes = a.raw("sizes_bytes");
  if (!sizes || !sizes->is_array() || sizes->empty())
    throw InputError(a.pointer_of("sizes_bytes"), "expected a non-empty array of message sizes in bytes");
  for (std::size_t i = 0; i < sizes->size(); ++i) {
    const auto& v = (*sizes)[i];
    if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e12)
      throw InputError(a.pointer_of("sizes_bytes") + "/" + std::to_string(i), describe(v) + " is not allowed; a size from 1 byte to 1e12");
    s->sizes_bytes.push_back(v.get<double>());
  }
  a.finish();
  if (!s->symmetric && static_cast<long long>(spec.nodes) * spec.gpus_per_node > 4096)
    throw InputError(f.pointer_of("nodes"), std::to_string(spec.nodes) + " nodes is more than the full simulation handles "
                                            "(4096 GPUs); an all-to-all on an MPFT with d-mod-k routing and PXN goes further");
  return s;
}

}  // namespace core
