#include "studies/network/study_latency.hpp"

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "core/units.hpp"
#include "hw/node.hpp"
#include "net/fabric.hpp"
#include "net/graph_platform.hpp"
#include "net/latency_model.hpp"
#include "studies/config/fabric_config.hpp"

namespace studies {

namespace {

struct LinkLayer {
  std::string label;
  bool scale_up = false;  // NVLink: two GPUs of one node through its switch
  net::FabricKind fabric = net::FabricKind::kMultiPlane;
  int radix = 64;
  double bandwidth_Bps = hw::default_node().nic_Bps;
  net::HopLatencies hops;
  bool three_level = false;  // also a route across the pods of a three-level fat tree
};

// One-way latency as ib_write_lat reports it: half a round trip, the reply sent when the
// message has arrived. (The simulation is deterministic: one round trip is the average.)
double ping_pong_s(const net::Platform& platform, int a, int b, double bytes) {
  core::TaskGraph g;
  const core::TaskId ping = g.add_transfer("ping", a, "comm", {{a, b, bytes}}, {});
  g.add_transfer("pong", b, "comm", {{b, a, bytes}}, {ping});
  return core::simulate(platform, g).makespan_s() / 2;
}

class LatencyStudy : public Study {
 public:
  double message_bytes = 64;
  std::vector<LinkLayer> layers;

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    // Validation pings nothing: the rows are named, their values not a number.
    auto measure = [&](const core::Platform& platform, int a, int b, double bytes) {
      return options.simulate ? ping_pong_s(platform, a, b, bytes) : kNotRun;
    };
    for (const auto& l : layers) {
      const net::LinkLatencies links = net::link_latencies(l.hops);
      auto row = [&](const std::string& where, const std::string& metric, double seconds, int switches) {
        r.rows.push_back({l.label + "/" + where, l.label, metric, "us", std::nullopt, seconds / core::kMicrosecond,
                          Basis::kSimulated});
        r.notes.push_back(l.label + ", " + metric + ": " + std::to_string(switches) + " switch" +
                          (switches == 1 ? "" : "es") + ", model " +
                          format_number(net::route_latency_s(l.hops, switches) / core::kMicrosecond) +
                          " us + serialisation of " + format_number(message_bytes) + " B at " +
                          format_number(l.bandwidth_Bps / 1e9) + " GB/s.");
      };
      if (l.scale_up) {
        net::FabricSpec spec;
        spec.nodes = 1;
        spec.gpus_per_node = 2;
        spec.nvlink_Bps = l.bandwidth_Bps;
        spec.nvlink_latency_s = links.endpoint_link_s;
        row("same_node", "same node", measure(net::FabricPlatform(spec), 0, 1, message_bytes), 1);
        continue;
      }
      // One NIC per node, one plane or rail: node radix/2 is the first under the second leaf.
      net::FabricSpec spec;
      spec.kind = l.fabric;
      spec.radix = l.radix;
      spec.gpus_per_node = 1;
      spec.nodes = l.radix / 2 + 1;
      spec.nic_Bps = spec.switch_link_Bps = l.bandwidth_Bps;
      spec.nic_latency_s = links.endpoint_link_s;
      spec.switch_link_latency_s = links.switch_link_s;
      const net::FabricPlatform fabric(spec);
      row("same_leaf", "same leaf", measure(fabric, 0, 1, message_bytes), 1);
      row("cross_leaf", "cross leaf", measure(fabric, 0, l.radix / 2, message_bytes), 3);
      if (l.three_level) {
        // The route's shape, not the fabric's size, sets the latency: the smallest three-level
        // fat tree (4-port switches, 16 endpoints in 4 pods) has the same five-switch route.
        const net::GraphLinks graph_links{l.bandwidth_Bps, l.bandwidth_Bps, links.endpoint_link_s, links.switch_link_s};
        const net::GraphPlatform ft3(net::fat_tree_3(4), graph_links, net::Routing::kDModK);
        row("cross_pod", "cross pod (three-level fat tree)", measure(ft3, 0, ft3.gpus() - 1, message_bytes), 5);
      }
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_latency_study(core::JsonReader& root) {
  auto s = std::make_unique<LatencyStudy>();
  s->message_bytes = root.positive_number("message_bytes", 64);
  if (s->message_bytes > 1e9)
    throw core::InputError(
        root.pointer_of("message_bytes"),
        format_number(s->message_bytes) + " is not allowed; at most 1e9 bytes (this is a latency test)");
  for (core::JsonReader& l : root.object_list("link_layers", "link layers")) {
    LinkLayer layer;
    layer.label = l.string("label");
    if (layer.label.empty() || layer.label.find('/') != std::string::npos)
      throw core::InputError(l.pointer_of("label"),
                             "'" + layer.label + "' is not allowed; a non-empty name without '/'");
    for (const auto& other : s->layers)
      if (other.label == layer.label)
        throw core::InputError(l.pointer_of("label"), "'" + layer.label + "' names two link layers");
    const std::string fabric = l.one_of("fabric", {"mpft", "mrft", "scale-up"}, "mpft");
    layer.scale_up = fabric == "scale-up";
    layer.fabric = fabric == "mrft" ? net::FabricKind::kMultiRail : net::FabricKind::kMultiPlane;
    if (!layer.scale_up) {
      layer.radix = static_cast<int>(l.positive_integer("radix", 64, 1024));
      if (layer.radix < 4 || layer.radix % 2)
        throw core::InputError(l.pointer_of("radix"),
                               std::to_string(layer.radix) + " is not allowed; an even switch radix from 4 to 1024");
      layer.three_level = l.boolean("three_level", false);
    }
    layer.bandwidth_Bps = l.positive_number("bandwidth_Bps", hw::default_node().nic_Bps);
    layer.hops = read_hop_latencies(l);
    l.finish();
    s->layers.push_back(layer);
  }
  return s;
}

}  // namespace studies
