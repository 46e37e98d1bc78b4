#pragma once
// Communication kernels that run on SMs (DeepEP's, ISCA'25 §2.3 and the V3 report §3.2.2): the
// SMs form channels (two SMs each: "20 SMs into 10 communication channels"), and a channel moves
// at most a fixed rate on each link class, so what a GPU achieves is its link's bandwidth capped
// by channels x that rate. The default rates are the lowest with which 10 channels fill a 50 GB/s
// NIC and 160 GB/s of NVLink, the report's "only 20 SMs are sufficient to fully utilize the
// bandwidths of IB and NVLink". Zero SMs means the work is offloaded to hardware (the papers'
// recommendation): links run at their own rate.
#include <algorithm>

namespace workload {

struct CommKernels {
  int sms = 20;
  int sms_per_channel = 2;
  double ib_Bps_per_channel = 5e9;
  double nvlink_Bps_per_channel = 16e9;

  bool offloaded() const { return sms == 0; }
  int channels() const { return sms / sms_per_channel; }
  double ib_Bps(double link_Bps) const {
    return offloaded() ? link_Bps : std::min(link_Bps, channels() * ib_Bps_per_channel);
  }
  double nvlink_Bps(double link_Bps) const {
    return offloaded() ? link_Bps : std::min(link_Bps, channels() * nvlink_Bps_per_channel);
  }
};

}  // namespace workload
