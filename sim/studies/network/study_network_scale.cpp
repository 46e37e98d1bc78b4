#include "studies/network/study_network_scale.hpp"

#include <algorithm>
#include <cmath>

#include "core/input_error.hpp"
#include "net/cost_model.hpp"
#include "net/scale/counted_traffic.hpp"
#include "net/scale/scale_traffic.hpp"
#include "studies/config/topology_config.hpp"

namespace studies {

namespace {

// A switch link at a share of its bandwidth, named by its two switches as the topology's builder
// numbers them (an MPFT's: the simulated plane's).
struct DegradedLink {
  long long from_switch = 0, to_switch = 0;
  double bandwidth_share = 1;
  std::string pointer;
};

struct ScaleTopology {
  std::string label;
  TopologyConfig topology;
  net::ScaleRouting routing = net::ScaleRouting::kDModK;
  std::vector<DegradedLink> degraded_links;
  // Counted flow by flow on static routes (net/scale/counted_traffic): ECMP, and d-mod-k on a fat
  // tree with a degraded link. One traffic at a time: no step traffic.
  bool counted() const {
    const bool fat_tree = topology.kind == "ft2" || topology.kind == "mpft" || topology.kind == "ft3";
    return net::counted_flow_by_flow(routing, fat_tree, !degraded_links.empty(), net::ScaleTraffic::kAllToAll);
  }
};

// ", switch 1024 to switch 0 at 25% of its bandwidth, ...": what the notes say of the faults.
std::string degraded_note(const ScaleTopology& t) {
  std::string out;
  for (const DegradedLink& d : t.degraded_links)
    out += ", switch " + std::to_string(d.from_switch) + " to switch " + std::to_string(d.to_switch) + " at " +
           format_number(d.bandwidth_share * 100) + "% of its bandwidth";
  return out;
}

// The degraded links as the fabric's link numbers; one line naming the entry for a switch that
// is not there or not joined to the other.
std::vector<std::pair<int, double>> link_fractions(const net::ScaleFabric& f, const std::vector<DegradedLink>& links) {
  std::vector<std::pair<int, double>> out;
  for (const DegradedLink& d : links) {
    for (const auto& [end, key] : {std::pair{d.from_switch, "/from_switch"}, std::pair{d.to_switch, "/to_switch"}})
      if (end >= f.routers())
        throw core::InputError(d.pointer + key, std::to_string(end) +
                                                    " is not allowed; this topology's switches are 0 to " +
                                                    std::to_string(f.routers() - 1));
    const std::vector<int> joined = f.links_between(static_cast<int>(d.from_switch), static_cast<int>(d.to_switch));
    if (joined.empty())
      throw core::InputError(d.pointer + "/to_switch", std::to_string(d.to_switch) + " is not allowed; switch " +
                                                           std::to_string(d.from_switch) + " has no link to it");
    for (const auto& [link, share] : out)
      if (link == joined.front())
        throw core::InputError(d.pointer, "switch " + std::to_string(d.from_switch) + " to switch " +
                                              std::to_string(d.to_switch) +
                                              " is not allowed twice; give a link one bandwidth_share");
    out.push_back({joined.front(), d.bandwidth_share});
  }
  return out;
}

// When each part of a run ends, in ms: "a / b / c ms".
std::string parts_ms(const net::ScaleRun& run) {
  std::string out;
  for (double s : run.part_seconds) out += (out.empty() ? "" : " / ") + format_number(s * 1e3);
  return out + " ms";
}

class NetworkScaleStudy : public Study {
 public:
  std::vector<ScaleTopology> topologies;
  net::Prices prices;
  double endpoint_Bps = 0, switch_Bps = 0;
  double alltoall_bytes_per_gpu = 0;  // the whole fabric's all-to-all: what each GPU sends in all
  int ep_gpus = 64;
  double ep_bytes_per_gpu = 0;
  double allreduce_bytes = 0;
  // A training step's traffic at once: the EP all-to-all, each stage's send to the next stage
  // (pp_stage_gpus on) and a DP ring step over every GPU.
  double pp_bytes_per_gpu = 0, dp_ring_bytes_per_gpu = 0;
  int pp_stage_gpus = 0;
  // A dense model's step traffic at once: each stage's send to the next and a DP ring step.
  struct DenseStep {
    std::string name;
    double pp_bytes_per_gpu = 0, dp_ring_bytes_per_gpu = 0;
    int pp_stage_gpus = 0;
  } dense;
  double memory_bytes = 0;

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    for (const ScaleTopology& t : topologies) {
      const std::string& L = t.label;
      const TopologyConfig& c = t.topology;
      // An MPFT's planes carry alike: one plane, each of its NICs a node's, sending the node's
      // bytes (PXN); the NVLink stage beside it is not counted.
      const int planes = c.planes;         // 1 but on an MPFT
      c.check_scale_memory(memory_bytes);  // before anything is built, validation too
      const net::TopologyCounts closed = c.plane_counts();
      const auto cost = net::network_cost(closed, prices);
      const double gpus = double(closed.endpoints) * planes;
      r.rows.push_back({L + "/gpus", L, "GPUs", "", std::nullopt, gpus, Basis::kClosedForm});
      r.rows.push_back({L + "/cost_per_endpoint", L, "cost per endpoint (Table 3 prices)", "k$", std::nullopt,
                        cost.per_endpoint_usd / 1e3, Basis::kClosedForm});
      if (!options.simulate) {
        for (const char* id : {"alltoall_s", "alltoall_bw", "ep_alltoall_s", "ep_bw", "step_traffic_s",
                               "dense_step_traffic_s", "allreduce_s", "tree_allreduce_s"})
          if (!t.counted() || std::string(id).find("step") == std::string::npos)
            r.rows.push_back({L + "/" + id, L, id, "", std::nullopt, kNotRun, Basis::kSimulated});
        continue;
      }
      const net::ScaleFabric f = c.build_scale(t.routing, memory_bytes);
      // Classes past the memory allowed: refused before they are made, naming the topology.
      auto simulate = [&](const net::ScaleTrafficSpec& spec) {
        try {
          return net::simulate_scale_traffic(f, spec);
        } catch (const core::InputError& e) {
          throw core::InputError(c.pointer, std::string(e.what()) + " (/network_scale/memory_limit_gb)");
        }
      };
      const double n = double(f.endpoints());
      net::ScaleTrafficSpec spec;
      spec.endpoint_Bps = endpoint_Bps;
      spec.switch_Bps = switch_Bps;
      spec.max_bytes = memory_bytes;
      spec.ecmp_planes = planes;  // ECMP: each plane hashes with its own seed; other routings carry alike
      spec.link_fractions = link_fractions(f, t.degraded_links);
      // The whole fabric's all-to-all: each GPU sends alltoall_bytes_per_gpu over the others.
      spec.bytes_per_pair = alltoall_bytes_per_gpu / (gpus - 1) * planes;
      const net::ScaleRun a2a = simulate(spec);
      const double per_gpu_out = alltoall_bytes_per_gpu * (gpus - planes) / (gpus - 1);  // to other nodes
      r.rows.push_back({L + "/alltoall_s", L,
                        "all-to-all of every GPU, " + format_number(alltoall_bytes_per_gpu / 1e6) + " MB per GPU", "ms",
                        std::nullopt, a2a.seconds * 1e3, Basis::kSimulated});
      r.rows.push_back({L + "/alltoall_bw", L, "all-to-all bandwidth per GPU (bytes to other nodes / time)", "GB/s",
                        std::nullopt, per_gpu_out / a2a.seconds / 1e9, Basis::kSimulated});
      // EP groups of whole routers, at least ep_gpus GPUs each, all at once.
      // The number of routers nearest ep_gpus' (the larger on a tie) that divides the routers.
      long long per_router = 1, hosts = 0;
      for (int router = 0; router < f.routers(); ++router) {
        per_router = std::max<long long>(per_router, f.endpoints_of(router));
        hosts += f.endpoints_of(router) > 0 ? 1 : 0;
      }
      const double wanted = std::max(1.0, double(ep_gpus) / planes / double(per_router));
      long long routers_per_group = hosts;
      for (long long k = 1; k <= hosts; ++k)
        if (hosts % k == 0 && std::abs(double(k) - wanted) <= std::abs(double(routers_per_group) - wanted))
          routers_per_group = k;
      const long long group_nics = routers_per_group * per_router;
      spec.group_endpoints = group_nics;
      const double group_gpus = double(group_nics) * planes;
      spec.bytes_per_pair = ep_bytes_per_gpu / (group_gpus - 1) * planes;
      const net::ScaleRun ep = simulate(spec);
      r.rows.push_back({L + "/ep_alltoall_s", L,
                        "EP all-to-all in every group of " + format_number(group_gpus) + " GPUs, " +
                            format_number(ep_bytes_per_gpu / 1e6) + " MB per GPU",
                        "ms", std::nullopt, ep.seconds * 1e3, Basis::kSimulated});
      r.rows.push_back({L + "/ep_bw", L, "EP all-to-all bandwidth per GPU", "GB/s", std::nullopt,
                        ep_bytes_per_gpu * (group_gpus - planes) / (group_gpus - 1) / ep.seconds / 1e9,
                        Basis::kSimulated});
      // A step's traffic at once: flows of several sizes, which the run by counting does not take
      // (net/scale/counted_traffic); its rows are left out.
      std::string step_notes = " Counted flow by flow, one traffic at a time: no step traffic.";
      if (!t.counted()) {
        // The step's traffic at once: the EP all-to-all above, every stage's send to the next (the
        // stride a whole number of routers) and a DP ring step. On an MPFT each NIC carries its
        // GPU's sends: a node's GPUs each send through their own plane.
        auto stride_of = [&](int stage_gpus) {
          return std::max<long long>(1, std::llround(double(stage_gpus) / planes / double(per_router))) * per_router;
        };
        const long long stride = stride_of(pp_stage_gpus);
        spec.also = {{net::ScaleTraffic::kShift, stride, pp_bytes_per_gpu},
                     {net::ScaleTraffic::kRingStep, 0, dp_ring_bytes_per_gpu}};
        const net::ScaleRun step = simulate(spec);
        spec.also.clear();
        r.rows.push_back({L + "/step_traffic_s", L,
                          "a step's EP all-to-all, PP send (" + format_number(double(stride) * planes) +
                              " GPUs on) and DP ring step at once",
                          "ms", std::nullopt, step.seconds * 1e3, Basis::kSimulated});
        // A dense step: PP sends and a DP ring step at once (the ring of each plane's NICs: a
        // node's GPUs each in their own plane's ring).
        const long long dense_stride = stride_of(dense.pp_stage_gpus);
        spec.kind = net::ScaleTraffic::kShift;
        spec.group_endpoints = dense_stride;
        spec.bytes_per_pair = dense.pp_bytes_per_gpu;
        spec.also = {{net::ScaleTraffic::kRingStep, 0, dense.dp_ring_bytes_per_gpu}};
        const net::ScaleRun dense_step = simulate(spec);
        spec.also.clear();
        r.rows.push_back({L + "/dense_step_traffic_s", L,
                          dense.name + ": PP send (" + format_number(double(dense_stride) * planes) +
                              " GPUs on) and DP ring step at once",
                          "ms", std::nullopt, dense_step.seconds * 1e3, Basis::kSimulated});
        step_notes = " Step traffic: " + step.method + "; its parts end at " + parts_ms(step) +
                     ". Dense step traffic: " + dense_step.method + "; its parts end at " + parts_ms(dense_step) + ".";
      }
      // Ring all-reduce over every endpoint (of a plane: the planes run theirs side by side on
      // their share of the buffer): 2 (n - 1) steps of size / n each, every step alike.
      spec.kind = net::ScaleTraffic::kRingStep;
      spec.group_endpoints = 0;
      spec.bytes_per_pair = allreduce_bytes / planes / n;
      const net::ScaleRun ring = simulate(spec);
      r.rows.push_back({L + "/allreduce_s", L,
                        "ring all-reduce of " + format_number(allreduce_bytes / 1e9) + " GB over every GPU", "s",
                        std::nullopt, ring.seconds * 2 * (n - 1), Basis::kSimulated});
      // NCCL's double binary tree all-reduce over every endpoint (of a plane: its share), its
      // reduce and broadcast pipelined: half the buffer down each tree, a flow each way on every
      // edge at once; the pipeline's fill and drain (latency) are not counted.
      spec.kind = net::ScaleTraffic::kTree;
      spec.bytes_per_pair = allreduce_bytes / planes / 2;
      std::string tree_note;
      try {  // no symmetry keeps a tree: under Valiant's paths its classes can outgrow the memory
        const net::ScaleRun tree = net::simulate_scale_traffic(f, spec);
        r.rows.push_back({L + "/tree_allreduce_s", L,
                          "double binary tree all-reduce of " + format_number(allreduce_bytes / 1e9) +
                              " GB over every GPU (pipelined)",
                          "s", std::nullopt, tree.seconds, Basis::kSimulated});
        tree_note = " Tree: " + tree.method + ".";
      } catch (const core::InputError& e) { tree_note = std::string(" Tree all-reduce not run: ") + e.what() + "."; }
      r.notes.push_back(L + ": built whole (" + std::to_string(f.routers()) + " switches, " +
                        std::to_string(static_cast<long long>(n)) + " endpoints" + (planes > 1 ? " per plane" : "") +
                        ", routing " + net::scale_routing_names()[static_cast<std::size_t>(t.routing)] + ")" +
                        degraded_note(t) + ". All-to-all: " + a2a.method +
                        (t.counted() ? "" : ", " + format_number(a2a.flows) + " flows") + ". EP: " + ep.method + "." +
                        step_notes + " Ring step: " + ring.method + "." + tree_note);
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_network_scale_study(core::JsonReader& root) {
  auto s = std::make_unique<NetworkScaleStudy>();
  core::JsonReader n = root.object("network_scale");
  core::JsonReader prices = n.object("prices");
  s->prices.switch_usd = prices.non_negative_number("switch_usd");
  s->prices.inter_switch_link_usd = prices.non_negative_number("inter_switch_link_usd");
  s->prices.endpoint_link_usd = prices.non_negative_number("endpoint_link_usd");
  prices.finish();
  s->endpoint_Bps = n.number_in("endpoint_bandwidth_Bps", 1e6, 1e15);
  s->switch_Bps = n.number_in("switch_link_bandwidth_Bps", 1e6, 1e15);
  s->alltoall_bytes_per_gpu = n.number_in("alltoall_bytes_per_gpu", 1, 1e15);
  s->ep_gpus = static_cast<int>(n.positive_integer("ep_gpus", 64, 1 << 20));
  s->ep_bytes_per_gpu = n.number_in("ep_bytes_per_gpu", 1, 1e15);
  s->allreduce_bytes = n.number_in("allreduce_bytes", 1, 1e15);
  s->pp_bytes_per_gpu = n.number_in("pp_bytes_per_gpu", 1, 1e15);
  s->pp_stage_gpus = static_cast<int>(n.positive_integer("pp_stage_gpus", 1 << 20));
  s->dp_ring_bytes_per_gpu = n.number_in("dp_ring_bytes_per_gpu", 1, 1e15);
  s->memory_bytes = n.number_in("memory_limit_gb", 0.001, 1e6, 8) * double(1LL << 30);
  core::JsonReader dense = n.object("dense_step");
  s->dense.name = dense.string("name");
  s->dense.pp_bytes_per_gpu = dense.number_in("pp_bytes_per_gpu", 1, 1e15);
  s->dense.pp_stage_gpus = static_cast<int>(dense.positive_integer("pp_stage_gpus", 1 << 20));
  s->dense.dp_ring_bytes_per_gpu = dense.number_in("dp_ring_bytes_per_gpu", 1, 1e15);
  dense.finish();
  for (core::JsonReader& t : n.object_list("topologies", "topologies")) {
    ScaleTopology named;
    named.label = t.string("label");
    named.topology = parse_topology(t);
    named.routing = parse_scale_routing(t, named.topology);
    if (t.raw("degraded_links") != nullptr) {
      for (core::JsonReader& d : t.object_list("degraded_links", "degraded links")) {
        DegradedLink link;
        link.pointer = d.pointer();
        for (auto [key, end] : {std::pair{"from_switch", &link.from_switch}, std::pair{"to_switch", &link.to_switch}}) {
          const double v = d.number_in(key, 0, 1e9);
          if (v != std::floor(v))
            throw core::InputError(d.pointer() + "/" + key,
                                   format_number(v) + " is not allowed; a switch's number, a whole number");
          *end = static_cast<long long>(v);
        }
        link.bandwidth_share = d.number_in("bandwidth_share", 1e-6, 1);
        d.finish();
        named.degraded_links.push_back(link);
      }
      if (named.routing == net::ScaleRouting::kAdaptive)
        throw core::InputError(t.pointer() + "/degraded_links",
                               "a degraded link is not allowed with routing 'adaptive' here: adaptive routing would "
                               "steer off it; d-mod-k, spray or ecmp (static routes)");
    }
    t.finish();
    s->topologies.push_back(std::move(named));
  }
  n.finish();
  return s;
}

}  // namespace studies
