#pragma once
// Per-hop latency of a link layer (ISCA'25 Table 5: InfiniBand, RoCE, NVLink). A message pays
// the latency of its two endpoints (host software, PCIe and NIC at each side; for NVLink the
// GPU's copy path), of every switch it crosses (port to port) and of every cable's propagation;
// its bytes serialise once, at the slowest link, because the switches cut through.
namespace net {

struct HopLatencies {
  double endpoint_s = 0;              // one side
  double switch_s = 0;                // port to port, per switch crossed
  double propagation_s_per_m = 5e-9;  // light in fibre (refractive index ~1.47) or twinax copper
  double endpoint_cable_m = 0;        // NIC (or GPU) to its first switch
  double switch_cable_m = 0;          // between two switches
};

// What each link of a route carries so that a route's links add up to the model: an endpoint
// link holds its endpoint, its cable and half of the switch it enters; a switch-to-switch link
// holds its cable and half of each switch at its ends.
struct LinkLatencies {
  double endpoint_link_s = 0;
  double switch_link_s = 0;
};

LinkLatencies link_latencies(const HopLatencies& h);

// The model in closed form: a route through `switches` >= 1 switches (two endpoint cables and
// switches - 1 switch-to-switch cables), without serialisation.
double route_latency_s(const HopLatencies& h, int switches);

}  // namespace net
