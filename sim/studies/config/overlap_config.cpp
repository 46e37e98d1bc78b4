#include "studies/config/overlap_config.hpp"

#include <cstdio>

#include "hw/low_latency_alltoall.hpp"

namespace studies {

void parse_overlap(core::JsonReader& unit, workload::ServingDeployment& d) {
  d.overlap = unit.one_of("overlap", {"deployed", "two-streams"}, "deployed") == "deployed"
                  ? workload::Overlap::kDeployed
                  : workload::Overlap::kTwoStreams;
  d.measured_all_to_all = unit.one_of("all_to_all", {"measured", "link-rate"}, "measured") == "measured";
}

std::string describe_overlap(const workload::ServingDeployment& d, bool prefill) {
  std::string s;
  if (d.micro_batches == 2 && d.overlap == workload::Overlap::kDeployed)
    s = prefill ? "DeepSeek's deployed prefill order (the shared expert beside the all-to-alls)"
                : "DeepSeek's deployed five-stage decode order (attention in two stages)";
  else
    s = "micro-batches on two streams (each attention, then the experts)";
  if (d.direct_comm) {
    const auto& ll = hw::deepep_low_latency();
    char fit[96];
    std::snprintf(fit, sizeof fit, "%.1f us + %.0f%% of the NIC's rate", ll.nic.latency_s * 1e6,
                  100 * ll.nic.rate_fraction);
    s += d.measured_all_to_all
             ? std::string("; all-to-alls as DeepEP's low-latency kernels measure (") + fit + ", fitted to its README)"
             : "; all-to-alls at the links' full rate";
  }
  return s;
}

}  // namespace studies
