#pragma once
// NCCL's (or RCCL's) all-reduce inside a node as measured (data/collectives/*.json): a fixed time
// per call plus the ring's bytes (2 (n - 1) / n of the message) at a bus bandwidth, both fitted
// once to a fabric's measured rows by least squares of the relative error (linear in the two). On
// a switched fabric (NVSwitch, a PCIe switch) the bus bandwidth is the same for any group; on a
// mesh (the MI300X's Infinity Fabric: a link to each peer) a group of n drives n - 1 links at
// once, so it is n - 1 times one link's. A fabric whose rows cannot pin the per-call time (all
// large messages) holds it from another fit, named with why. The nodes a file names take its fit
// for their tensor-parallel all-reduces; a node no file names keeps the ring over its scale-up
// rate and latency.
#include <string>
#include <vector>

namespace hw {

struct AllReduceMeasurement {
  int ranks = 0;
  double bytes = 0, seconds = 0;
};

enum class AllReduceFabric { kSwitch, kMesh };

struct AllReduceFit {
  std::string name, description, source;
  AllReduceFabric fabric = AllReduceFabric::kSwitch;
  std::vector<std::string> nodes;  // the nodes it times
  std::vector<AllReduceMeasurement> rows;
  double latency_s = 0;                             // per call
  double busbw_Bps = 0;                             // of the ring's 2 (n - 1) / n x bytes; on a mesh, per link
  std::string latency_held_from, latency_held_why;  // another fit's per-call time, not fitted
  // Nodes without rows of their own that take this fit (the nearest fabric measured).
  std::vector<std::string> scaled_to;

  double bus_bandwidth_Bps(int ranks) const {
    return fabric == AllReduceFabric::kMesh ? (ranks - 1) * busbw_Bps : busbw_Bps;
  }
  double seconds(int ranks, double bytes) const {
    return ranks > 1 ? latency_s + 2.0 * (ranks - 1) / ranks * bytes / bus_bandwidth_Bps(ranks) : 0.0;
  }
};

// The fit of the fabric `node` names, or nullptr where no file names it.
const AllReduceFit* all_reduce_for(const std::string& node);
// InputError at `where` for a name not in the data.
const AllReduceFit& all_reduce_fit(const std::string& name, const std::string& where);
std::vector<std::string> all_reduce_fit_names();

}  // namespace hw
