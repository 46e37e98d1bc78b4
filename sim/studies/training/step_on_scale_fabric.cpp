#include "studies/training/step_on_scale_fabric.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "net/scale/scale_traffic.hpp"
#include "studies/report/report.hpp"

namespace studies {

ScaleStepNetwork parse_scale_step_network(core::JsonReader& n) {
  ScaleStepNetwork s;
  core::JsonReader t = n.object("topology");
  s.topology = parse_topology(t);
  s.routing = parse_scale_routing(t, s.topology);
  if (s.routing == net::ScaleRouting::kEcmp)
    throw core::InputError(
        s.topology.pointer + "/routing",
        "'ecmp' is not allowed here; a step's EP and PP traffic run at once, and ECMP at this scale "
        "runs one traffic at a time (network-scale's all-to-all and ring): d-mod-k, spray or adaptive");
  t.finish();
  s.endpoint_Bps = n.number_in("endpoint_bandwidth_Bps", 1e6, 1e15, s.endpoint_Bps);
  s.switch_Bps = n.number_in("switch_link_bandwidth_Bps", 1e6, 1e15, s.switch_Bps);
  s.memory_bytes = n.number_in("memory_limit_gb", 0.001, 1e6, 8) * double(1LL << 30);
  return s;
}

void check_scale_step_network(const ScaleStepNetwork& network, long long gpus, int gpus_per_node) {
  const TopologyConfig& c = network.topology;
  if (c.planes != 1 && c.planes != gpus_per_node)
    throw core::InputError(c.pointer + "/planes", std::to_string(c.planes) + " is not allowed; each of a node's " +
                                                      std::to_string(gpus_per_node) +
                                                      " GPUs sends through its own plane (PXN)");
  // The endpoints from the closed forms, before anything is built.
  const long long endpoints = c.plane_counts().endpoints;
  if (endpoints * c.planes != gpus)
    throw core::InputError(c.pointer, std::to_string(endpoints) + " endpoints" +
                                          (c.planes > 1 ? " x " + std::to_string(c.planes) + " planes" : "") +
                                          " is not allowed for a step of " + std::to_string(gpus) +
                                          " GPUs; the topology's endpoints are the step's GPUs");
  c.check_scale_memory(network.memory_bytes);
}

ScaleStepSlowdowns scale_step_slowdowns(const ScaleStepNetwork& network, const ScaleStepTraffic& traffic,
                                        const std::string& where) {
  const TopologyConfig& c = network.topology;
  const int planes = c.planes;  // 1 but on an MPFT
  const net::ScaleFabric f = c.build_scale(network.routing, network.memory_bytes);
  auto simulate = [&](const net::ScaleTrafficSpec& spec) {
    try {
      return net::simulate_scale_traffic(f, spec);
    } catch (const core::InputError& e) { throw core::InputError(where, std::string(e.what())); }
  };
  net::ScaleTrafficSpec spec;
  spec.endpoint_Bps = network.endpoint_Bps;
  spec.switch_Bps = network.switch_Bps;
  spec.max_bytes = network.memory_bytes;
  // The steady state: every EP group's all-to-all and every stage's send to the next at once.
  const long long stage_endpoints = traffic.stage_gpus / planes;
  const bool ep = traffic.ep_gpus > 0 && traffic.ep_bytes > 0;
  const bool pp = traffic.stage_gpus > 0 && traffic.stage_gpus < traffic.gpus && traffic.pp_bytes > 0;
  ScaleStepSlowdowns out;
  std::string note = "The step's traffic on " + c.kind + " (" + std::to_string(f.routers()) + " switches, " +
                     std::to_string(f.endpoints()) + " endpoints" +
                     (planes > 1 ? " a plane, one simulated, a node's GPUs one to a plane" : "") + ", routing " +
                     net::scale_routing_names()[static_cast<std::size_t>(network.routing)] + ") by classes of flows: ";
  if (ep || pp) {
    const long long group = traffic.ep_gpus / planes;
    if (ep) {
      spec.kind = net::ScaleTraffic::kAllToAll;
      spec.group_endpoints = group;
      spec.bytes_per_pair = traffic.ep_bytes / double(group - 1);
      if (pp) spec.also = {{net::ScaleTraffic::kShift, stage_endpoints, traffic.pp_bytes}};
    } else {
      spec.kind = net::ScaleTraffic::kShift;
      spec.group_endpoints = stage_endpoints;
      spec.bytes_per_pair = traffic.pp_bytes;
    }
    const net::ScaleRun run = simulate(spec);
    spec.also.clear();
    std::size_t part = 0;
    if (ep) out.ep = std::max(1.0, run.part_seconds[part++] / (traffic.ep_bytes / network.endpoint_Bps));
    if (pp) out.pp = std::max(1.0, run.part_seconds[part] / (traffic.pp_bytes / network.endpoint_Bps));
    note += std::string(ep ? "every EP group's all-to-all" : "") + (ep && pp ? " beside " : "") +
            (pp ? "every stage's send to the next" : "") + " at once (" + run.method + ")" +
            (ep ? ", the all-to-all " + format_number(out.ep) + "x its endpoints' own time" : "") +
            (pp ? ", the sends " + format_number(out.pp) + "x" : "") + "; ";
  }
  // The data-parallel synchronisation after it: a ring step over every GPU.
  spec.kind = net::ScaleTraffic::kRingStep;
  spec.group_endpoints = 0;
  spec.bytes_per_pair = traffic.dp_bytes;
  const net::ScaleRun ring = simulate(spec);
  out.dp = std::max(1.0, ring.seconds / (traffic.dp_bytes / network.endpoint_Bps));
  out.note = note + "then a data-parallel ring step (" + ring.method + "), " + format_number(out.dp) +
             "x. The step stretches the times it gives each traffic by these factors.";
  return out;
}

}  // namespace studies
