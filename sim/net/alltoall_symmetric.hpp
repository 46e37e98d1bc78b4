#pragma once
// All-to-all with PXN on a multi-plane or multi-rail fat tree, simulated through its symmetries
// so that it scales to thousands of GPUs (DESIGN.md: "use the symmetry of EP groups and planes"):
//  - with PXN every flow between nodes stays in its plane (MPFT) or rail (MRFT: a rail's leaves
//    and their links to the shared spines are its own), so the planes or rails share no link
//    and each is a two-level fat tree of one NIC per node, alike for both kinds;
//  - under d-mod-k, adaptive and spray routing they carry identical traffic alike: simulate
//    plane 0 only;
//  - every node's NVLink stage is the same and touches no other node: simulate one node;
//  - adaptive routing chooses NIC by NIC, but alike in every plane (it routes each plane's pairs
//    in the same order over the plane's own links): plane 0 runs whole, one NIC per node;
//  - ECMP hashes GPU numbers and a static table names GPUs, so the planes differ: each runs
//    whole, one NIC per node, on its own (a few at once, on threads; the makespan is the
//    longest plane's);
//  - with destination-based (d-mod-k) routing, the NICs under one leaf send the same bytes to a
//    given destination over the same spine: merge them into one source per leaf whose uplink
//    has their summed bandwidth. Each destination NIC keeps its own link;
//    With packet spraying (the fluid limit: each leaf's uplinks act as one trunk of their summed
//    bandwidth, and its downlinks) every NIC under a leaf sees the same links too, so the merge
//    holds alike;
//  - when every leaf is full, the nodes at one position under their leaves stand for all
//    positions (each position has its own spine under d-mod-k, an equal share of the trunks
//    under spraying), so one node per leaf receives.
// The two stages overlap (as in alltoall_graph), so the time is the longer of the two.
// Exact for the symmetric all-to-all; a test holds it to the full simulation.
#include "core/engine.hpp"
#include "net/fabric.hpp"

namespace net {

struct SymmetricAllToAll {
  double seconds = 0;
  double nvlink_stage_s = 0;
  double network_stage_s = 0;
  std::size_t flows = 0;  // the flows of the planes and the one node that the simulation runs
};

SymmetricAllToAll alltoall_symmetric(const FabricSpec& spec, double bytes_per_pair);

}  // namespace net
