#include "net/latency_model.hpp"

namespace net {

LinkLatencies link_latencies(const HopLatencies& h) {
  return {h.endpoint_s + h.endpoint_cable_m * h.propagation_s_per_m + h.switch_s / 2,
          h.switch_cable_m * h.propagation_s_per_m + h.switch_s};
}

double route_latency_s(const HopLatencies& h, int switches) {
  return 2 * (h.endpoint_s + h.endpoint_cable_m * h.propagation_s_per_m) + switches * h.switch_s +
         (switches - 1) * h.switch_cable_m * h.propagation_s_per_m;
}

}  // namespace net
