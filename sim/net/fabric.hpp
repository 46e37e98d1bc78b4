#pragma once
// A scale-out fabric of nodes (GPUs on NVLink, one NIC per GPU) over switches, as a Boost.Graph
// and as a SimGrid platform whose routes come from our routing, not SimGrid's (its fat-tree zone
// routes only d-mod-k and knows neither planes nor ECMP):
//  - multi-plane fat tree (MPFT, ISCA'25 §5.1): NIC i of every node in plane i, each plane its
//    own two-level fat tree; no path joins two planes.
//  - multi-rail fat tree (MRFT): one two-level fat tree; NIC i of every node on rail i (its own
//    leaves), all leaves under shared spines.
#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <string>
#include <vector>

#include "hw/node.hpp"
#include "net/fabric_fault.hpp"
#include "net/platform.hpp"
#include "net/topology.hpp"

namespace net {

enum class FabricKind { kMultiPlane, kMultiRail };
enum class Routing {
  kDModK,     // static: the spine is the destination's port under its leaf modulo the spines
  kEcmp,      // a hash of (source, destination) picks the spine
  kAdaptive,  // each route takes the spine with the fewest routes on its two leaf links so far
  kSpray,     // packet spraying: a flow's packets take every spine in turn; in the fluid limit
              // each leaf's uplinks carry equal shares of what leaves it (and its downlinks of
              // what enters it), so they act as one link of their summed bandwidth
  kStatic,    // a configured table: the spine for a destination (from every leaf, or from one);
              // destinations it does not name fall back to d-mod-k, as a switch's default table
};

// One entry of a static route table: traffic for `dst_gpu` leaves `from_leaf` (the leaf's index in
// its plane or rail; -1: every leaf) through spine `spine` (its index among the plane's or rail's
// spines).
struct StaticRoute {
  int dst_gpu = 0;
  int from_leaf = -1;
  int spine = 0;
};

struct FabricSpec {
  std::string node;  // the named node its defaults came from (hw/node.hpp; "": none)
  FabricKind kind = FabricKind::kMultiPlane;
  Routing routing = Routing::kDModK;
  int nodes = 1;
  int gpus_per_node = 8;
  int radix = 64;
  double nvlink_Bps = hw::default_node().scale_up_achieved_Bps;  // per GPU, per direction
  double nic_Bps = hw::default_node().nic_Bps;
  double switch_link_Bps = hw::default_node().nic_Bps;
  double pcie_Bps = 0;          // per GPU, between the GPU and its NIC; 0: not modelled
  double nvlink_latency_s = 0;  // per link
  double nic_latency_s = 0;
  double switch_link_latency_s = 0;
  double gpu_flops_per_s = 1e15;
  std::vector<StaticRoute> static_routes;  // Routing::kStatic
  core::Sharing sharing = core::Sharing::kMaxMin;
  // Multi-port NICs (MPFT, ISCA'25 Figure 4): each NIC has this many ports, one in each plane of
  // its group of as many NICs (NIC i's group: planes i / ports x ports onwards), and sprays a
  // flow's packets over them. In the fluid limit a NIC is one link of its ports' summed
  // bandwidth (nic_Bps, unchanged), its flows routed in its own plane while it works and in a
  // sibling plane of its group, from the same NIC, when it does not: a port or plane lost costs
  // its share of the NIC, not the NIC.
  int nic_ports = 1;
  // Faults of the fabric's components, and how routing reacts to one that is down.
  std::vector<Fault> faults;
  // Switch routing tables (d-mod-k, ECMP, static) keep sending into a dead link or switch until
  // the subnet manager's next sweep has routed around it (OpenSM's sweep_interval: 10 s by
  // default), and take it back as late after its repair. Adaptive routing and packet spraying
  // leave a dead port at once: the switch sees its link go down.
  double table_update_s = 10;
  // PXN forwarding of a GPU whose NIC (or plane, or leaf) is down to a peer GPU of its node
  // whose NIC still works, over NVLink, from this long after the fault.
  double pxn_failover_s = 0;
};

int fabric_leaves_per_group(const FabricSpec& spec);  // leaves of a plane (MPFT) or rail (MRFT)
int fabric_spines_per_group(const FabricSpec& spec);  // spines of a plane, or shared by the rails

// Throws core::InputError naming `where` + the field for a fabric that cannot be built.
void check_fabric(const FabricSpec& spec, const std::string& where);

// Throws core::InputError naming `where` + "faults/i/..." for a fault that names no component
// of the fabric, a component named twice at overlapping times, a fraction outside [0, 1), or a
// time below 0.
void check_faults(const FabricSpec& spec, const std::string& where);

// Throws core::InputError naming `where` + "to_gpu", "spine" or "from_leaf" for a static route
// naming a GPU, spine or leaf the (otherwise valid) fabric does not have.
void check_static_route(const FabricSpec& spec, const StaticRoute& route, const std::string& where);

class FabricPlatform : public Platform {
 public:
  explicit FabricPlatform(FabricSpec spec);
  // One plane of a multi-plane fat tree, or one rail of a multi-rail one, alone: one NIC per
  // node, the platform's GPU n standing for GPU n x gpus_per_node + plane, routed as in the
  // whole fabric (ECMP hashes, d-mod-k and static tables read those GPU numbers). A rail's
  // leaves and their links to the spines are its own, as a plane's are, so under PXN neither
  // shares a link with another: the whole fabric's all-to-all is theirs, one after another, in
  // an eighth of the memory.
  FabricPlatform(FabricSpec spec, int plane);

  int gpus() const override { return plane_ >= 0 ? spec_.nodes : spec_.nodes * spec_.gpus_per_node; }
  double gpu_flops_per_s() const override { return spec_.gpu_flops_per_s; }
  core::Network network(const RoutePairs& pairs) const override;

  const FabricSpec& spec() const { return spec_; }
  const Graph& graph() const { return graph_; }
  // The switches a route between two GPUs of different nodes passes, in order (routing
  // decisions are made once, in the order routes are first asked for; with spraying, the two
  // leaves, every spine between them taken evenly). Throws std::logic_error when no path exists
  // (two planes of an MPFT).
  std::vector<VertexId> route(int src_gpu, int dst_gpu) const;

 private:
  struct Links;
  struct View;
  struct AdaptiveState {
    // Routes chosen through each (leaf, spine index) link, up and down; flat, as every route
    // reads a plane's spines.
    std::vector<int> up_load, down_load;
    std::unordered_map<std::uint64_t, std::size_t> chosen_spine;  // (GPU, GPU) as one key: the spine's index
  };
  // The spine from leaf `a` to leaf `b` for the pair, among those the view has alive; -1: none.
  long pick_spine(VertexId a, VertexId b, int src, int dst, const View* view, const Links* links,
                  AdaptiveState& state) const;
  // The links of a pair's route as the view sees the fabric; empty: no path is left.
  std::vector<int> path(int src, int dst, const Links& links, const View* view, AdaptiveState& state) const;
  // The switch links a route takes between two leaves of one plane or rail, through `spine`
  // (-1: spraying's trunks).
  void add_switch_links(std::vector<int>& path, VertexId a, VertexId b, long spine, const Links& links) const;
  // The network with the faults: the links as at 0, then a change at each instant a fault
  // starts or ends or routing reacts to one.
  void add_faults(core::Network& net, const RoutePairs& pairs, const Links& links) const;

  // The fabric's number of the platform's GPU, and its node.
  int fabric_gpu(int gpu) const { return plane_ >= 0 ? gpu * spec_.gpus_per_node + plane_ : gpu; }
  int node_of(int gpu) const { return plane_ >= 0 ? gpu : gpu / spec_.gpus_per_node; }

  FabricSpec spec_;
  int plane_ = -1;  // >= 0: that plane or rail alone
  Graph graph_;
  std::vector<VertexId> nic_;                        // per GPU: its NIC (endpoint vertex)
  std::vector<VertexId> leaf_;                       // per GPU: its leaf switch
  std::vector<std::vector<VertexId>> spines_;        // per plane (MPFT) or one list (MRFT)
  mutable AdaptiveState adaptive_;                   // adaptive routing's choices, in the order routes were asked for
  std::map<std::pair<int, int>, int> static_spine_;  // (from leaf or -1, destination GPU) -> spine index
};

}  // namespace net
