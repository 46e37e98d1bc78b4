#pragma once
// All-to-all as a task graph: every GPU sends `bytes_per_pair` to every other GPU.
//  - Inside a node the data goes over NVLink.
//  - Between nodes with PXN (NCCL's PCIe x NVLink path, ISCA'25 §5.1.1): the source forwards the
//    data over NVLink to the GPU of its node with the destination's local index, whose NIC sits
//    on the destination's plane or rail, and that GPU sends it across. Without PXN each GPU
//    sends from its own NIC (impossible across the planes of an MPFT).
// The NVLink and network stages run concurrently, as NCCL's chunked PXN pipelines them; the
// all-to-all ends when the last flow does.
//  - aggregated: one flow per (GPU, peer GPU) and stage, carrying the sum of the pairs' data:
//    O(GPUs x GPUs per node + GPUs x nodes) flows instead of O(GPUs^2), with the same bytes on
//    every link, so max-min sharing gives the same times.
#include <vector>

#include "core/task_graph.hpp"

namespace net {

struct AllToAllSpec {
  int nodes = 1;
  int gpus_per_node = 8;
  double bytes_per_pair = 0;
  bool pxn = true;
  bool aggregate = true;
  // All-to-allv: when not empty, bytes[src][dst] replaces bytes_per_pair (GPUs x GPUs; the
  // diagonal is ignored).
  std::vector<std::vector<double>> bytes;
};

core::TaskGraph alltoall_graph(const AllToAllSpec& spec);

// nccl-tests conventions: size = bytes each rank sends in all (its buffer, self included);
// algbw = size / time; busbw = algbw x (ranks - 1) / ranks.
struct CollectiveBandwidth {
  double algbw_Bps = 0;
  double busbw_Bps = 0;
};
CollectiveBandwidth alltoall_bandwidth(const AllToAllSpec& spec, double seconds);

}  // namespace net
