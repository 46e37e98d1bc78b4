#pragma once
// Faults of a fabric's components: a link, NIC (or one port of a multi-port NIC), switch, plane
// (a rail on a multi-rail fat tree: its leaves, the spines being shared), GPU or node that fails
// at a time and may come back (a flap), or runs at a fraction of its bandwidth. Components are
// named as the fabric's own layout names them ("plane 3 / leaf 12 / spine 5",
// "plane 3 / leaf 12 / port 5", "node 17 / nic 3"); fabric_component_names lists them all.
#include <limits>
#include <string>
#include <vector>

namespace net {

struct FabricSpec;

enum class FaultKind { kLink, kNic, kSwitch, kPlane, kGpu, kNode };

const std::vector<std::string>& fault_kind_names();  // "link", "nic", ... in FaultKind's order

struct Fault {
  FaultKind kind = FaultKind::kLink;
  std::string target;
  double at_s = 0;
  double for_s = std::numeric_limits<double>::infinity();  // then it is back
  double bandwidth_fraction = 0;                           // what it keeps of its bandwidth meanwhile (0: down)
};

// A named component, resolved: the indices its name gives (-1: not part of it).
struct FabricComponent {
  FaultKind kind = FaultKind::kLink;
  int plane = -1;  // or rail
  int leaf = -1;
  int spine = -1;
  int leaf_port = -1;  // a leaf's port: below radix / 2 a node's NIC, from there its spines
  int node = -1;
  int local = -1;  // a NIC's or GPU's index in its node
  int port = -1;   // a port of a multi-port NIC
};

// The component `target` names, of the fault's kind; throws core::InputError naming `where` and
// saying what the fabric has, for a name it does not have.
FabricComponent find_fabric_component(const FabricSpec& spec, FaultKind kind, const std::string& target,
                                      const std::string& where);

// Every component a fault may name, as "kind: name", in the order of fault_kind_names.
std::vector<std::string> fabric_component_names(const FabricSpec& spec);

}  // namespace net
