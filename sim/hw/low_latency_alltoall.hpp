#pragma once
// DeepEP's low-latency all-to-all (decode's dispatch and combine over IBGDA, no SM held while
// waiting) as measured. One message per (token, expert) selection; a GPU's messages to other
// nodes leave through its NIC and those to its own node go over NVLink, the two paths at once,
// each a fixed time per kernel plus its bytes at a fraction of the link's rate. Fitted once to
// DeepEP's published rows (data/comm_kernels/deepep-low-latency.json, `codesim tables --only
// serving-parts` shows them): the NIC path to the kernels that sent every message over RDMA
// (EP8-256), the NVLink path to EP8 inside one node; EP16-64 with both paths are predictions.
// Past the rows' 128 tokens per GPU the time grows with the bytes at the fitted rate: the fixed
// part is the kernel's, the rest the messages streaming.
#include <string>
#include <vector>

namespace hw {

struct LowLatencyPath {
  double latency_s = 0;      // per kernel
  double rate_fraction = 1;  // of the link's rate, once streaming
  double seconds(double bytes, double link_Bps) const {
    return bytes > 0 ? latency_s + bytes / (rate_fraction * link_Bps) : 0.0;
  }
};

struct LowLatencyMeasurement {
  int ep = 0;
  bool combine = false;         // else dispatch
  bool nvlink_in_node = false;  // the kernels that send inside a node over NVLink
  std::string readme;           // the README's date
  double seconds = 0;
  double nic_bytes = 0, nvlink_bytes = 0;  // one GPU's, under uniform routing
};

struct LowLatencyAllToAll {
  std::vector<LowLatencyMeasurement> rows;
  LowLatencyPath nic, nvlink;          // fitted to `rows`
  double nic_Bps = 0, nvlink_Bps = 0;  // the measuring node's
  std::string source;

  // One GPU's kernel: `nic_bytes` to other nodes, `nvlink_bytes` to its own, on links of the rates given.
  double seconds(double nic_bytes, double nvlink_bytes, double nic_link_Bps, double nvlink_link_Bps) const;
};

const LowLatencyAllToAll& deepep_low_latency();

}  // namespace hw
