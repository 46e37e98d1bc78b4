#include "studies/network/study_collective.hpp"

#include <set>

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/alltoall.hpp"
#include "net/alltoall_symmetric.hpp"
#include "net/fabric.hpp"
#include "net/graph_platform.hpp"
#include "net/ring.hpp"
#include "net/tree.hpp"
#include "studies/config/fabric_config.hpp"
#include "studies/config/topology_config.hpp"

namespace studies {

namespace {

class CollectiveStudy : public Study {
 public:
  // What runs.
  std::string collective = "alltoall";
  std::vector<double> sizes_bytes;  // nccl-tests "size": what each rank sends in all
  bool pxn = true;
  bool interleaved_rings = false;
  bool tree = false;  // all-reduce by pipelined binary trees instead of rings
  int tree_chunks = 8;
  std::string label;
  // Where: a fabric of nodes (MPFT, MRFT), or any topology graph with one GPU per endpoint.
  net::FabricSpec fabric;
  std::optional<TopologyConfig> topology;
  std::string routing_name;
  bool symmetric = false;  // core::simulate through the fabric's symmetries (see alltoall_symmetric.hpp)
  // Fault cases, each run on its own: (row id prefix, label, faults); none: the fabric as given.
  struct FaultCase {
    std::string id, label;
    std::vector<net::Fault> faults;
    std::string where;  // its faults' JSON pointer
  };
  std::vector<FaultCase> cases;

  int gpus_per_node() const { return topology ? 1 : fabric.gpus_per_node; }

  std::unique_ptr<net::Platform> platform(const std::vector<net::Fault>& faults) const {
    net::FabricSpec spec = fabric;
    spec.faults = faults;
    if (!topology) return std::make_unique<net::FabricPlatform>(spec);
    const net::GraphLinks links{fabric.nic_Bps, fabric.switch_link_Bps, fabric.nic_latency_s,
                                fabric.switch_link_latency_s, fabric.sharing};
    return std::make_unique<net::GraphPlatform>(topology->build(), links, fabric.routing);
  }

  // One ring per local GPU index (rail or plane), through every node.
  std::vector<net::Ring> rings(int n_nodes, int gpn) const {
    std::vector<net::Ring> out(static_cast<std::size_t>(gpn));
    const int half = n_nodes / 2;
    for (int i = 0; i < gpn; ++i)
      for (int k = 0; k < n_nodes; ++k) {
        // Interleaved: alternate the two halves of the nodes (0, half, 1, half + 1, ...), so
        // that with two leaves per rail every ring hop crosses the spines.
        const int node = interleaved_rings && n_nodes % 2 == 0 ? (k % 2 ? half + k / 2 : k / 2) : k;
        out[static_cast<std::size_t>(i)].push_back(node * gpn + i);
      }
    return out;
  }

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    if (cases.empty()) {
      run_case(options, {"", "", fabric.faults, "/fabric/faults"}, r);
    } else {
      for (const FaultCase& c : cases) run_case(options, c, r);
    }
    const int ranks = topology ? static_cast<int>(topology->counts().endpoints) : fabric.nodes * fabric.gpus_per_node;
    add_notes(r, ranks, topology ? ranks : fabric.nodes);
    return r;
  }

  void run_case(const RunOptions& options, const FaultCase& fault_case, StudyResult& r) const {
    const auto where = platform(fault_case.faults);
    const int ranks = where->gpus();
    const int n_nodes = topology ? ranks : fabric.nodes, gpn = gpus_per_node();
    for (double size : sizes_bytes) {
      const net::AllToAllSpec a{n_nodes, gpn, size / ranks, pxn && !topology, true, {}};
      double seconds = kNotRun;  // validation simulates nothing
      if (options.simulate && symmetric) {
        seconds = net::alltoall_symmetric(fabric, a.bytes_per_pair).seconds;
      } else if (options.simulate) {
        const auto graph = collective == "alltoall" ? net::alltoall_graph(a)
                           : tree                   ? net::tree_allreduce_graph(rings(n_nodes, gpn), size, tree_chunks)
                                  : net::ring_graph(rings(n_nodes, gpn), size, collective == "allreduce" ? 2 : 1);
        const core::Timeline t = core::simulate(*where, graph);
        seconds = t.makespan_s();
        check_faults_within(fault_case, seconds, size);
        if (options.trace && size == sizes_bytes.back()) r.trace_json = t.chrome_trace_json();
      }
      net::CollectiveBandwidth bw;
      if (collective == "alltoall") {
        bw = net::alltoall_bandwidth(a, seconds);
      } else {
        const double n = n_nodes;  // ranks per ring
        bw.algbw_Bps = size / seconds;
        bw.busbw_Bps = bw.algbw_Bps * (collective == "allreduce" ? 2 : 1) * (n - 1) / n;
      }
      const std::string tag = (fault_case.id.empty() ? "" : fault_case.id + "/") + id_number(size);
      const std::string row = label + (fault_case.label.empty() ? "" : ", " + fault_case.label) + ", " +
                              format_number(size / 1048576.0) + " MiB";
      r.rows.push_back({tag + "/time", row, "time", "us", std::nullopt, seconds * 1e6, Basis::kSimulated});
      r.rows.push_back({tag + "/algbw", row, "algbw", "GB/s", std::nullopt, bw.algbw_Bps / 1e9, Basis::kSimulated});
      r.rows.push_back({tag + "/busbw", row, "busbw", "GB/s", std::nullopt, bw.busbw_Bps / 1e9, Basis::kSimulated});
    }
    if (!fault_case.faults.empty())
      r.notes.push_back(label + (fault_case.label.empty() ? "" : ", " + fault_case.label) + ":" +
                        faults_note(fault_case.faults));
  }

  void add_notes(StudyResult& r, int ranks, int n_nodes) const {
    const std::string network =
        topology ? std::to_string(ranks) + " endpoints of a " + topology->kind + " graph, one GPU each"
                 : std::to_string(ranks) + " GPUs in " + std::to_string(fabric.nodes) + " nodes, " +
                       (fabric.kind == net::FabricKind::kMultiPlane ? "multi-plane" : "multi-rail") +
                       " two-level fat tree of " + std::to_string(fabric.radix) + "-port switches";
    if (collective == "alltoall")
      r.notes.push_back(
          label + ": all-to-all, " + network + ", " +
          (uses_pxn() ? "PXN (NVLink forwarding to the GPU on the destination's plane or rail)" : "no PXN") +
          ", routing " + routing_name +
          (symmetric ? symmetric_note()
                     : "; flows aggregated per GPU pair and stage (a test holds them to one flow per pair)."));
    else
      r.notes.push_back(label + ": " +
                        (tree ? "tree (" + std::to_string(tree_chunks) + " pipelined chunks) " : "ring ") + collective +
                        ", " + network + ", one " + (tree ? "tree" : "ring") + " per rail through every node" +
                        (interleaved_rings ? " in interleaved order (every hop crosses the spines)" : "") +
                        ", routing " + routing_name + "; busbw = algbw x " + (collective == "allreduce" ? "2" : "1") +
                        " x (n - 1) / n with n = " + std::to_string(n_nodes) + " ranks per ring.");
  }

  bool uses_pxn() const { return pxn && !topology; }

  // A fault must come while the collective runs.
  void check_faults_within(const FaultCase& c, double seconds, double size) const {
    for (std::size_t i = 0; i < c.faults.size(); ++i)
      if (c.faults[i].at_s >= seconds)
        throw core::InputError(c.where + "/" + std::to_string(i) + "/at_s",
                               format_number(c.faults[i].at_s) + " s is not allowed; the " +
                                   format_number(size / 1048576.0) + " MiB " + collective + " ends at " +
                                   format_number(seconds) + " s, before it");
  }

  std::string faults_note(const std::vector<net::Fault>& faults) const {
    std::string out = " faults:";
    for (const net::Fault& f : faults)
      out += " " + net::fault_kind_names()[static_cast<std::size_t>(f.kind)] + " '" + f.target + "' " +
             (f.bandwidth_fraction > 0 ? "at " + format_number(100 * f.bandwidth_fraction) + "% of its bandwidth"
                                       : std::string("down")) +
             " from " + format_number(f.at_s) + " s" +
             (std::isfinite(f.for_s) ? " for " + format_number(f.for_s) + " s" : "") + ";";
    const bool tables = fabric.routing != net::Routing::kAdaptive && fabric.routing != net::Routing::kSpray;
    return out + " routing avoids a dead part " +
           (tables ? "after the tables' update (" + format_number(fabric.table_update_s) + " s)"
                   : std::string("at once")) +
           ", PXN moves a dead NIC's flows to its node's other NICs after " + format_number(fabric.pxn_failover_s) +
           " s" +
           (fabric.nic_ports > 1 ? ", multi-port NICs (" + std::to_string(fabric.nic_ports) +
                                       " ports) spray over their live ports at once"
                                 : "") +
           ".";
  }

  // How the symmetric method ran it (see alltoall_symmetric.hpp).
  std::string symmetric_note() const {
    const bool planes = fabric.kind == net::FabricKind::kMultiPlane;
    const std::string group = planes ? "plane" : "rail";
    std::string how;
    switch (fabric.routing) {
      case net::Routing::kAdaptive:
        how = "one " + group + ", one node's NVLink";
        break;
      case net::Routing::kEcmp:
      case net::Routing::kStatic:
        how = "each " + group + " alone, one after another, one node's NVLink";
        break;
      default:
        how = "one " + group + ", one node's NVLink, one merged sender per leaf";
        break;
    }
    return "; simulated through the " + group + "s' symmetry (" + how + "; a test holds it to the full simulation).";
  }
};

}  // namespace

std::unique_ptr<Study> parse_collective_study(core::JsonReader& root) {
  auto s = std::make_unique<CollectiveStudy>();
  core::JsonReader f = root.object("fabric");
  auto& spec = s->fabric;
  const std::string fabric_kind = f.one_of("kind", {"mpft", "mrft", "topology"});
  spec.kind = fabric_kind == "mpft" ? net::FabricKind::kMultiPlane : net::FabricKind::kMultiRail;
  if (fabric_kind == "topology") {
    core::JsonReader t = f.object("topology");
    s->topology = parse_topology(t);
    t.finish();
  }
  s->routing_name = read_fabric_fields(f, spec, !s->topology);
  f.finish();
  if (s->topology) {
    const auto counts = s->topology->counts();  // builds it: refuses a topology that cannot exist
    if (counts.endpoints > 4096)
      throw core::InputError(
          f.pointer_of("topology"),
          std::to_string(counts.endpoints) + " endpoints is more than this study simulates on a general graph (4096)");
  } else {
    net::check_fabric(spec, f.pointer() + "/");
    refuse_job_stopping_faults(spec, f.pointer() + "/");
  }
  core::JsonReader a = root.object("collective");
  s->collective = a.one_of("kind", {"alltoall", "allgather", "reducescatter", "allreduce"});
  s->interleaved_rings = a.one_of("ring_order", {"node", "interleaved"}, "node") == "interleaved";
  s->tree = a.one_of("algorithm", {"ring", "tree"}, "ring") == "tree";
  s->tree_chunks = static_cast<int>(a.positive_integer("chunks", 8, 4096));
  if (s->tree && s->collective != "allreduce")
    throw core::InputError(a.pointer_of("algorithm"),
                           "'tree' is not allowed for " + s->collective + "; only all-reduce runs on trees");
  s->label = a.optional_string("label").value_or(spec.kind == net::FabricKind::kMultiPlane ? "MPFT" : "MRFT");
  s->pxn = a.boolean("pxn", true);
  if (!s->pxn && !s->topology && s->collective == "alltoall" && spec.kind == net::FabricKind::kMultiPlane &&
      spec.nodes > 1)
    throw core::InputError(a.pointer_of("pxn"),
                           "false is not allowed on a multi-plane fat tree: no path joins two planes, so "
                           "traffic between GPUs of different local index needs PXN");
  const std::string method = a.one_of("method", {"auto", "full"}, "auto");
  s->symmetric = method == "auto" && !s->topology && spec.faults.empty() && s->collective == "alltoall" && s->pxn &&
                 (spec.pcie_Bps == 0 || spec.pcie_Bps >= spec.nic_Bps);  // a slower PCIe is not in its merged plane
  s->sizes_bytes = a.number_list("sizes_bytes", {1, 1e12, false, 0, true});
  a.finish();
  if (root.has("fault_cases")) {
    if (s->topology)
      throw core::InputError(root.pointer_of("fault_cases"),
                             "is not allowed on a topology graph; faults name a fabric's components");
    if (!spec.faults.empty())
      throw core::InputError(root.pointer_of("fault_cases"),
                             "is not allowed with /fabric/faults; give the faults in each case");
    std::set<std::string> ids;
    for (core::JsonReader& c : root.object_list("fault_cases", "cases: {id, label, faults}")) {
      CollectiveStudy::FaultCase fault_case;
      fault_case.id = c.unique_string("id", ids);
      fault_case.label = c.string("label");
      fault_case.where = c.pointer_of("faults");
      net::FabricSpec with = spec;
      with.faults = read_faults(c);
      c.finish();
      net::check_faults(with, c.pointer() + "/");
      refuse_job_stopping_faults(with, c.pointer() + "/");
      fault_case.faults = with.faults;
      s->cases.push_back(fault_case);
    }
    s->symmetric = false;
  }
  if (!s->topology && !s->symmetric && static_cast<long long>(spec.nodes) * spec.gpus_per_node > 4096)
    throw core::InputError(f.pointer_of("nodes"), std::to_string(spec.nodes) +
                                                      " nodes is more than the full simulation handles "
                                                      "(4096 GPUs); an all-to-all with PXN goes further");
  return s;
}

}  // namespace studies
