// codesim bench network: building fabrics and their routes, and all-to-all flow simulations;
// codesim bench network-scale: Table 3's topologies at full size, their all-to-all by classes of
// flows (net/scale), and the classes against the exact runs where both fit.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>

#include "cli/options.hpp"
#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/alltoall.hpp"
#include "net/alltoall_symmetric.hpp"
#include "net/fabric.hpp"
#include "net/graph_platform.hpp"
#include "net/scale/scale_traffic.hpp"
#include "studies/config/fabric_config.hpp"
#include "studies/config/input_file.hpp"
#include "studies/report/report.hpp"
#include "workload/moe/moe_dispatch.hpp"

namespace cli {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

long peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss / 1024;
}

}  // namespace

int bench_moe_command(const Args& args) {
  po::options_description options("options");
  int repeat = 5;
  options.add_options()("repeat", po::value(&repeat)->default_value(5),
                        "runs of the gate and the matrices; the fastest is reported");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim bench moe [options]", options, {}, vm)) return 0;
  if (repeat < 1 || repeat > 1000)
    throw core::InputError("--repeat", std::to_string(repeat) + " is not allowed; from 1 to 1000");
  constexpr int kTokens = 4096 * 64, kExperts = 256;
  auto start = std::chrono::steady_clock::now();
  const auto affinities = workload::synthetic_affinities(kTokens, kExperts, workload::AffinitySkew::kUniform, 0, 1);
  const double generate = seconds_since(start);
  const std::vector<float> bias(kExperts, 0.0f);
  // On a shared machine the fastest of several runs is the figure that reproduces.
  double route = 1e300, matrices = 1e300;
  std::size_t gpus = 0;
  for (int i = 0; i < repeat; ++i) {
    start = std::chrono::steady_clock::now();
    const auto routing = workload::route_tokens(affinities, kTokens, workload::GateConfig{}, bias);
    route = std::min(route, seconds_since(start));
    start = std::chrono::steady_clock::now();
    const auto traffic = workload::dispatch_traffic(routing, workload::ExpertPlacement{}, 7168 + 7168 / 128 * 4);
    matrices = std::min(matrices, seconds_since(start));
    gpus = traffic.ib.size();
  }
  std::cout << "| step | wall [s] |\n|---|---:|\n| synthetic affinities, 262,144 tokens x 256 experts | "
            << studies::format_number(generate) << " |\n| gate: group-limited top-8 (fastest of " << repeat << ") | "
            << studies::format_number(route) << " |\n| dispatch byte matrices (IB and NVLink, 64 x 64; fastest of "
            << repeat << ") | " << studies::format_number(matrices) << " |\n"
            << "\ntotal for routing and matrices: " << studies::format_number(route + matrices) << " s (" << gpus
            << " GPUs)\n";
  return 0;
}

namespace {

struct AllToAllRun {
  double simulated_s = 0, wall_s = 0;
  std::size_t flows = 0, solves = 0;
  long peak_rss_mib = 0;
};

// One all-to-all in a child process, so that each run's peak memory is its own; simulated whole
// or through the fabric's symmetries (net/alltoall_symmetric).
AllToAllRun run_alltoall(const net::FabricSpec& spec, double bytes_per_gpu, bool symmetric = false) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("cannot create a pipe");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    AllToAllRun r;
    const auto start = std::chrono::steady_clock::now();
    const int gpus = spec.nodes * spec.gpus_per_node;
    if (symmetric) {
      const auto run = net::alltoall_symmetric(spec, bytes_per_gpu / gpus);
      r.simulated_s = run.seconds;
      r.flows = run.flows;
    } else {
      const net::FabricPlatform fabric(spec);
      core::SimulationStats stats;
      r.simulated_s =
          core::simulate(fabric,
                         net::alltoall_graph({spec.nodes, spec.gpus_per_node, bytes_per_gpu / gpus, true, true, {}}),
                         &stats)
              .makespan_s();
      r.flows = stats.flows;
      r.solves = stats.solves;
    }
    r.wall_s = seconds_since(start);
    const bool ok = ::write(fds[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    ::_exit(ok ? 0 : 1);
  }
  ::close(fds[1]);
  AllToAllRun r;
  const bool got = ::read(fds[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("an all-to-all benchmark run failed");
  r.peak_rss_mib = usage.ru_maxrss / 1024;
  return r;
}

// The latencies the shipped all-to-all scenario gives its fabric (the per-hop model's IB inputs),
// so that the benchmark runs what users run: flows of different hop counts then start at
// different instants (and, with "sharing": "latency-weighted", take different shares).
void set_shipped_latencies(net::FabricSpec& spec) {
  const auto scenario = core::read_json_file(studies::resolve_input_file("scenarios/paper/alltoall-mpft-128.json"));
  core::JsonReader hops(scenario.at("fabric").at("hop_latency"), "/fabric/hop_latency");
  const auto links = net::link_latencies(studies::read_hop_latencies(hops));
  spec.nic_latency_s = links.endpoint_link_s;
  spec.switch_link_latency_s = links.switch_link_s;
  spec.nvlink_latency_s = scenario.at("fabric").at("nvlink_latency_s").get<double>();
}

// An all-to-all row's fabric: `gpus` in nodes of 8; MRFT's rails' leaves under shared spines
// need a larger radix past 2,048 GPUs.
net::FabricSpec alltoall_fabric(net::FabricKind kind, net::Routing routing, int gpus) {
  net::FabricSpec spec;
  spec.kind = kind;
  spec.routing = routing;
  spec.nodes = gpus / 8;
  while (spec.kind == net::FabricKind::kMultiRail &&
         (spec.nodes + spec.radix / 2 - 1) / (spec.radix / 2) * spec.gpus_per_node > spec.radix)
    spec.radix *= 2;
  return spec;
}

// An all-to-all row's first cells: fabric, GPUs, bytes per GPU, routing.
std::string row_start(const net::FabricSpec& spec, int gpus, double bytes, const char* routing_name) {
  return std::string("| ") + (spec.kind == net::FabricKind::kMultiPlane ? "MPFT " : "MRFT ") +
         std::to_string(spec.radix) + "-port | " + std::to_string(gpus) + " | " +
         (bytes < (64 << 20) ? "1 MiB" : "64 MiB") + " | " + routing_name + " | ";
}

}  // namespace

int bench_network_command(const Args& args) {
  po::options_description options("options");
  std::vector<int> alltoall_gpus, symmetric_gpus;
  int repeat = 3;
  options.add_options()("alltoall-gpus", po::value(&alltoall_gpus)->multitoken(),
                        "GPU counts for the all-to-all runs (default 1024 2048)")(
      "symmetric-gpus", po::value(&symmetric_gpus)->multitoken(),
      "GPU counts for the all-to-all runs through the fabric's symmetries (default 16320 16384: a partial last leaf, and full)")(
      "repeat", po::value(&repeat)->default_value(3), "runs of each all-to-all; the median is reported");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim bench network [options]", options, {}, vm)) return 0;
  if (alltoall_gpus.empty()) alltoall_gpus = {1024, 2048};
  if (symmetric_gpus.empty()) symmetric_gpus = {16320, 16384};
  for (const auto& [name, counts] :
       {std::pair{"--alltoall-gpus", &alltoall_gpus}, {"--symmetric-gpus", &symmetric_gpus}})
    for (int g : *counts)
      if (g < 16 || g % 8 != 0 || g > 16384)
        throw core::InputError(name, std::to_string(g) + " is not allowed; a multiple of 8 from 16 to 16384");
  if (repeat < 1 || repeat > 100)
    throw core::InputError("--repeat", std::to_string(repeat) + " is not allowed; from 1 to 100");

  std::cout << "| fabric | GPUs | build [s] | routes | routes [s] | peak RSS [MiB] |\n|---|---:|---:|---:|---:|---:|\n";
  for (int nodes : {256, 2048}) {
    net::FabricSpec spec;
    spec.nodes = nodes;
    auto start = std::chrono::steady_clock::now();
    const net::FabricPlatform fabric(spec);
    const double build = seconds_since(start);
    long long routes = 0;
    double routing = 0;
    if (nodes <= 256) {  // every same-plane pair between nodes: 522k routes at 2048 GPUs
      start = std::chrono::steady_clock::now();
      for (int src = 0; src < fabric.gpus(); ++src)
        for (int dst = src % 8; dst < fabric.gpus(); dst += 8)
          if (dst / 8 != src / 8) {
            fabric.route(src, dst);
            ++routes;
          }
      routing = seconds_since(start);
    }
    std::cout << "| MPFT 64-port | " << fabric.gpus() << " | " << studies::format_number(build) << " | " << routes
              << " | " << studies::format_number(routing) << " | " << peak_rss_mib() << " |\n";
  }

  std::cout
      << "\n| all-to-all with PXN, fluid engine | GPUs | per GPU | routing | flows | solves | simulated [ms] | wall [s] (median of "
      << repeat << ") | peak RSS [MiB] |\n|---|---:|---:|---|---:|---:|---:|---:|---:|\n";
  const std::pair<net::Routing, const char*> routings[] = {{net::Routing::kDModK, "d-mod-k"},
                                                           {net::Routing::kEcmp, "ECMP"},
                                                           {net::Routing::kAdaptive, "adaptive"},
                                                           {net::Routing::kSpray, "spray"}};
  for (int gpus : alltoall_gpus)
    for (double bytes : {double(1 << 20), 64.0 * (1 << 20)})
      for (auto kind : {net::FabricKind::kMultiPlane, net::FabricKind::kMultiRail})
        for (const auto& [routing, routing_name] : routings) {
          const net::FabricSpec spec = alltoall_fabric(kind, routing, gpus);
          std::vector<AllToAllRun> runs;
          for (int i = 0; i < repeat; ++i) runs.push_back(run_alltoall(spec, bytes));
          std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.wall_s < b.wall_s; });
          const AllToAllRun& median = runs[runs.size() / 2];
          std::cout << row_start(spec, gpus, bytes, routing_name) << median.flows << " | " << median.solves << " | "
                    << studies::format_number(median.simulated_s * 1e3) << " | "
                    << studies::format_number(median.wall_s) << " | " << median.peak_rss_mib << " |" << std::endl;
        }

  // Max-min sharing for every routing; latency-weighted for ECMP too, whose collisions it spreads.
  std::cout
      << "\n| all-to-all with PXN, fluid engine, the shipped scenario's hop latencies, one run | GPUs | per GPU | routing | "
         "sharing | flows | solves | simulated [ms] | wall [s] | peak RSS [MiB] |\n|---|---:|---:|---|---|---:|---:|---:|---:|---:|\n";
  for (int gpus : alltoall_gpus)
    for (const auto& [routing, routing_name] : routings)
      for (auto sharing : {core::Sharing::kMaxMin, core::Sharing::kLatencyWeighted}) {
        if (sharing == core::Sharing::kLatencyWeighted && routing != net::Routing::kEcmp) continue;
        net::FabricSpec spec;
        spec.routing = routing;
        spec.nodes = gpus / 8;
        spec.sharing = sharing;
        set_shipped_latencies(spec);
        const AllToAllRun r = run_alltoall(spec, double(1 << 20));
        std::cout << "| MPFT " << spec.radix << "-port | " << gpus << " | 1 MiB | " << routing_name << " | "
                  << (sharing == core::Sharing::kMaxMin ? "max-min" : "latency-weighted") << " | " << r.flows << " | "
                  << r.solves << " | " << studies::format_number(r.simulated_s * 1e3) << " | "
                  << studies::format_number(r.wall_s) << " | " << r.peak_rss_mib << " |" << std::endl;
      }

  // The cluster scale: every plane's (or rail's) all-to-all on its own (they share no link under
  // PXN), with the shipped scenario's hop latencies.
  std::cout
      << "\n| all-to-all with PXN, symmetric method, the shipped scenario's hop latencies, one run | GPUs | per GPU | "
         "routing | flows | simulated [ms] | wall [s] | peak RSS [MiB] |\n|---|---:|---:|---|---:|---:|---:|---:|\n";
  for (int gpus : symmetric_gpus)
    for (double bytes : {double(1 << 20), 64.0 * (1 << 20)})
      for (auto kind : {net::FabricKind::kMultiPlane, net::FabricKind::kMultiRail})
        for (const auto& [routing, routing_name] : routings) {
          net::FabricSpec spec = alltoall_fabric(kind, routing, gpus);
          set_shipped_latencies(spec);
          const AllToAllRun r = run_alltoall(spec, bytes, true);
          std::cout << row_start(spec, gpus, bytes, routing_name) << r.flows << " | "
                    << studies::format_number(r.simulated_s * 1e3) << " | " << studies::format_number(r.wall_s) << " | "
                    << r.peak_rss_mib << " |" << std::endl;
        }
  return 0;
}

namespace {

struct ScaleCase {
  double simulated_s = 0, build_s = 0, classes_s = 0, solve_s = 0, wall_s = 0, flows = 0;
  std::size_t source_routers = 0, link_classes = 0, flow_classes = 0;
  double valiant_share = -1;  // UGAL's share of the bytes over Valiant's paths; -1: another routing
  double busiest_link_flows = 0, mean_link_flows = 0;  // ECMP
  long peak_rss_mib = 0;
  bool refused = false;
};

// One case in a child process, so that its peak memory is its own.
ScaleCase in_child(const std::function<ScaleCase()>& body) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("cannot create a pipe");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    ScaleCase r;
    const auto start = std::chrono::steady_clock::now();
    try {
      r = body();
    } catch (const core::InputError& e) {
      std::cerr << "  refused: " << e.what() << "\n";
      r.refused = true;
    }
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const bool ok = ::write(fds[1], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
    ::_exit(ok ? 0 : 1);
  }
  ::close(fds[1]);
  ScaleCase r;
  const bool got = ::read(fds[0], &r, sizeof r) == static_cast<ssize_t>(sizeof r);
  ::close(fds[0]);
  int status = 0;
  rusage usage{};
  ::wait4(pid, &status, 0, &usage);
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error("a network-scale benchmark run failed");
  r.peak_rss_mib = usage.ru_maxrss / 1024;
  return r;
}

using Build = std::function<net::ScaleFabric()>;

// A link to degrade, chosen on the built fabric.
using FaultLink = std::function<int(const net::ScaleFabric&)>;

// The first global link out of router 0 (a Dragonfly's of `routers_per_group`).
FaultLink first_global_link(int routers_per_group) {
  return [routers_per_group](const net::ScaleFabric& f) {
    for (int v = routers_per_group; v < f.routers(); ++v)
      if (!f.links_between(0, v).empty()) return f.links_between(0, v)[0];
    throw std::logic_error("router 0 has no global link");
  };
}

// A run's figures on fabric `f`, for the tables.
ScaleCase case_of(const net::ScaleFabric& f, const net::ScaleRun& run) {
  ScaleCase c;
  c.simulated_s = run.seconds;
  c.build_s = f.build_s();
  c.classes_s = run.classes_s;
  c.solve_s = run.solve_s;
  c.flows = run.flows;
  c.source_routers = run.source_routers;
  c.link_classes = run.link_classes;
  c.flow_classes = run.flow_classes;
  if (f.routing() == net::ScaleRouting::kUgal) c.valiant_share = run.valiant_share;
  c.busiest_link_flows = run.busiest_link_flows;
  c.mean_link_flows = run.mean_link_flows;
  return c;
}

ScaleCase alltoall_case(const Build& build, double bytes_per_gpu, bool symmetry, double fault_fraction = 1,
                        const FaultLink& fault_link = {}, int ecmp_planes = 1) {
  return in_child([&] {
    const net::ScaleFabric f = build();
    net::ScaleTrafficSpec spec;
    spec.ecmp_planes = ecmp_planes;
    spec.bytes_per_pair = bytes_per_gpu / double(f.endpoints() - 1);
    spec.use_symmetry = symmetry;
    if (fault_fraction < 1) spec.link_fractions = {{fault_link(f), fault_fraction}};
    const net::ScaleRun run = net::simulate_scale_traffic(f, spec);
    return case_of(f, run);
  });
}

// A training step's traffic at once (`spec` with its parts), on the fabric `build` makes.
ScaleCase step_case(const Build& build, const net::ScaleTrafficSpec& spec) {
  return in_child([&] {
    const net::ScaleFabric f = build();
    const net::ScaleRun run = net::simulate_scale_traffic(f, spec);
    return case_of(f, run);
  });
}

std::string n(double x) { return studies::format_number(x); }

}  // namespace

int bench_network_scale_command(const Args& args) {
  po::options_description options("options");
  bool exact = true;
  options.add_options()("no-exact", po::bool_switch()->notifier([&](bool v) { exact = !v; }),
                        "leave out the exact runs");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim bench network-scale [options]", options, {}, vm)) return 0;
  const double bytes = double(1 << 30);  // per GPU
  using R = net::ScaleRouting;
  struct Topology {
    const char* name;
    const char* routing;
    Build build;
  };
  const std::vector<Topology> full = {
      {"FT2 64-port (one MPFT plane)", "d-mod-k", [] { return net::ScaleFabric::fat_tree_2(64, R::kDModK); }},
      {"FT3 64-port", "d-mod-k", [] { return net::ScaleFabric::fat_tree_3(64, R::kDModK); }},
      {"FT3 64-port", "spray", [] { return net::ScaleFabric::fat_tree_3(64, R::kSpray); }},
      {"FT3 64-port", "adaptive", [] { return net::ScaleFabric::fat_tree_3(64, R::kAdaptive); }},
      {"Slim Fly q=29", "minimal", [] { return net::ScaleFabric::slim_fly(29, R::kMinimal); }},
      {"Slim Fly q=29", "Valiant", [] { return net::ScaleFabric::slim_fly(29, R::kValiant); }},
      {"Slim Fly q=29", "UGAL", [] { return net::ScaleFabric::slim_fly(29, R::kUgal); }},
      {"Dragonfly 16/32/16, 511 groups", "minimal",
       [] { return net::ScaleFabric::dragonfly(16, 32, 16, 511, R::kMinimal); }},
      {"Dragonfly 16/32/16, 511 groups", "Valiant",
       [] { return net::ScaleFabric::dragonfly(16, 32, 16, 511, R::kValiant); }},
      {"Dragonfly 16/32/16, 511 groups", "UGAL", [] { return net::ScaleFabric::dragonfly(16, 32, 16, 511, R::kUgal); }},
  };
  // UGAL's routing with the share of the bytes it sent over Valiant's paths.
  auto routing_of = [](const char* routing, const ScaleCase& c) {
    return std::string(routing) + (c.valiant_share >= 0 ? " (" + n(c.valiant_share * 100) + "% Valiant)" : "");
  };
  std::cout
      << "| all-to-all by classes, 1 GiB per GPU | routing | endpoints | build [s] | source routers | link classes | flow classes | "
         "flows | classes [s] | solve [s] | wall [s] | peak RSS [MiB] | simulated [ms] |\n"
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& t : full) {
    const ScaleCase c = alltoall_case(t.build, bytes, true);
    const net::ScaleFabric f = t.build();
    std::cout << "| " << t.name << " | " << routing_of(t.routing, c) << " | " << f.endpoints() << " | " << n(c.build_s)
              << " | " << c.source_routers << " | " << c.link_classes << " | " << c.flow_classes << " | " << n(c.flows)
              << " | " << n(c.classes_s) << " | " << n(c.solve_s) << " | " << n(c.wall_s) << " | " << c.peak_rss_mib
              << " | " << n(c.simulated_s * 1e3) << " |" << std::endl;
  }
  // An adversarial shift on the Dragonfly: every GPU to the GPU a group on, so that minimal
  // routing sends each group's traffic over its one global link to the next group.
  std::cout
      << "\n| Dragonfly 16/32/16, 511 groups: every GPU 1 GiB to the GPU a group (512 GPUs) on | routing | build [s] | "
         "flow classes | classes [s] | solve [s] | wall [s] | peak RSS [MiB] | simulated [ms] |\n"
         "|---|---|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& t : full) {
    if (std::string(t.name).rfind("Dragonfly", 0) != 0) continue;
    net::ScaleTrafficSpec shift;
    shift.kind = net::ScaleTraffic::kShift;
    shift.group_endpoints = 16 * 32;
    shift.bytes_per_pair = bytes;
    const ScaleCase c = step_case(t.build, shift);
    std::cout << "| group shift | " << routing_of(t.routing, c) << " | " << n(c.build_s) << " | " << c.flow_classes
              << " | " << n(c.classes_s) << " | " << n(c.solve_s) << " | " << n(c.wall_s) << " | " << c.peak_rss_mib
              << " | " << n(c.simulated_s * 1e3) << " |" << std::endl;
  }
  // 131,072 GPUs: an MPFT of 8 planes, each a three-level fat tree of 16 pods (16,384 NICs, one
  // a node's); one plane, each NIC carrying its GPU's sends, every flow class of the step at once.
  std::cout
      << "\n| 131,072-GPU step traffic at once, one plane of a three-level MPFT (8 x 16,384 NICs) | build [s] | source routers | "
         "link classes | flow classes | flows | classes [s] | solve [s] | wall [s] | peak RSS [MiB] | simulated [ms] |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  {
    const Build plane = [] { return net::ScaleFabric::fat_tree_3(64, R::kDModK, "", 16); };
    net::ScaleTrafficSpec
        moe;  // DeepSeek-V3: EP all-to-all in groups of an edge switch, PP 1,024 GPUs on, a DP ring step
    moe.group_endpoints = 32;
    moe.bytes_per_pair = 121110528.0 / (256 - 1) * 8;
    moe.also = {{net::ScaleTraffic::kShift, 128, 58720256}, {net::ScaleTraffic::kRingStep, 0, 8388608}};
    net::ScaleTrafficSpec dense;  // 405B, TP 8 PP 16 DP 1,024: PP 8,192 GPUs on, a DP ring step
    dense.kind = net::ScaleTraffic::kShift;
    dense.group_endpoints = 1024;
    dense.bytes_per_pair = 33554432;
    dense.also = {{net::ScaleTraffic::kRingStep, 0, 12385971}};
    for (const auto& [name, spec] : {std::pair{"DeepSeek-V3, EP 64: EP all-to-all, PP send, DP ring step", moe},
                                     std::pair{"405B dense, TP 8 PP 16: PP send, DP ring step", dense}}) {
      const ScaleCase c = step_case(plane, spec);
      std::cout << "| " << name << " | " << n(c.build_s) << " | " << c.source_routers << " | " << c.link_classes
                << " | " << c.flow_classes << " | " << n(c.flows) << " | " << n(c.classes_s) << " | " << n(c.solve_s)
                << " | " << n(c.wall_s) << " | " << c.peak_rss_mib << " | " << n(c.simulated_s * 1e3) << " |"
                << std::endl;
    }
  }
  // ECMP: a hash per flow, which no symmetry keeps: every flow hashed and its links' flows counted
  // (an MPFT's planes each with their own seed, all counted); beside d-mod-k's classes.
  std::cout
      << "\n| ECMP all-to-all, every flow's path hashed and counted, 1 GiB per GPU | endpoints a plane | planes | "
         "flows | busiest link / mean | wall [s] | peak RSS [MiB] | simulated [ms] | d-mod-k [ms] |\n"
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  struct EcmpTopology {
    const char* name;
    int radix, levels, pods, planes;
  };
  for (const EcmpTopology& t :
       {EcmpTopology{"MPFT 64-port (16,384 GPUs)", 64, 2, 0, 8}, EcmpTopology{"FT3 64-port", 64, 3, 0, 1},
        EcmpTopology{"three-level MPFT 64-port, 16 pods (131,072 GPUs)", 64, 3, 16, 8}}) {
    auto build = [t](R routing) -> Build {
      return [t, routing] {
        return t.levels == 2 ? net::ScaleFabric::fat_tree_2(t.radix, routing)
                             : net::ScaleFabric::fat_tree_3(t.radix, routing, "", t.pods);
      };
    };
    const net::ScaleFabric f = build(R::kEcmp)();
    const double per_gpu = bytes * t.planes * double(f.endpoints() - 1) / double(f.endpoints() * t.planes - 1);
    const ScaleCase c = alltoall_case(build(R::kEcmp), per_gpu, true, 1, {}, t.planes);
    const ScaleCase d = alltoall_case(build(R::kDModK), per_gpu, true);
    std::cout << "| " << t.name << " | " << f.endpoints() << " | " << t.planes << " | " << n(c.flows) << " | "
              << n(c.busiest_link_flows) << " / " << n(c.mean_link_flows) << " | " << n(c.wall_s) << " | "
              << c.peak_rss_mib << " | " << n(c.simulated_s * 1e3) << " | " << n(d.simulated_s * 1e3) << " |"
              << std::endl;
  }
  // A fault at full size: FT3's first aggregation switch's uplink to core 0 at 25%. Static routes
  // keep sending over it; flow by flow (d-mod-k's and ECMP's paths), no classes to run out of memory.
  std::cout
      << "\n| FT3 64-port (65,536 endpoints), pod 0's first aggregation switch's uplink to core 0 at 25%, "
         "1 GiB per GPU | routing | flows | busiest link's flows / mean | wall [s] | peak RSS [MiB] | simulated [ms] |\n"
         "|---|---|---:|---:|---:|---:|---:|\n";
  for (const auto& [routing, name] : {std::pair{R::kDModK, "d-mod-k"}, std::pair{R::kEcmp, "ECMP"}}) {
    const Build ft3 = [routing = routing] { return net::ScaleFabric::fat_tree_3(64, routing); };
    const FaultLink uplink = [](const net::ScaleFabric& f) { return f.links_between(1024, 0).at(0); };
    const ScaleCase c = alltoall_case(ft3, bytes, true, 0.25, uplink);
    std::cout << "| counted flow by flow | " << name << " | " << n(c.flows) << " | " << n(c.busiest_link_flows) << " / "
              << n(c.mean_link_flows) << " | " << n(c.wall_s) << " | " << c.peak_rss_mib << " | "
              << n(c.simulated_s * 1e3) << " |" << std::endl;
  }
  if (!exact) return 0;
  // The classes against runs without them: every router pair a class of its own (no symmetry),
  // and the MPFT plane against net::alltoall_symmetric's fluid-engine run of the same fabric.
  std::cout
      << "\n| classes against the exact run, 1 GiB per GPU | routing | GPUs | exact run | exact [ms] | classes [ms] | difference | "
         "exact wall [s] | exact peak RSS [MiB] |\n|---|---|---:|---|---:|---:|---:|---:|---:|\n";
  const std::vector<Topology> both = {
      {"FT3 40-port", "d-mod-k", [] { return net::ScaleFabric::fat_tree_3(40, R::kDModK); }},
      {"Slim Fly q=29", "minimal", [] { return net::ScaleFabric::slim_fly(29, R::kMinimal); }},
      {"Dragonfly 8/16/8, 129 groups", "minimal",
       [] { return net::ScaleFabric::dragonfly(8, 16, 8, 129, R::kMinimal); }},
  };
  for (const auto& t : both) {
    const ScaleCase c = alltoall_case(t.build, bytes, true);
    const ScaleCase e = alltoall_case(t.build, bytes, false);
    const net::ScaleFabric f = t.build();
    std::cout << "| " << t.name << " | " << t.routing << " | " << f.endpoints() << " | every router pair a class | "
              << (e.refused ? std::string("refused") : n(e.simulated_s * 1e3)) << " | " << n(c.simulated_s * 1e3)
              << " | " << (e.refused ? std::string("–") : n((c.simulated_s / e.simulated_s - 1) * 100) + "%") << " | "
              << n(e.wall_s) << " | " << e.peak_rss_mib << " |" << std::endl;
  }
  {  // A degraded global link: no symmetry keeps it, so every router pair is a class.
    const Build df = [] { return net::ScaleFabric::dragonfly(8, 16, 8, 129, R::kMinimal); };
    const ScaleCase healthy = alltoall_case(df, bytes, true);
    const ScaleCase e = alltoall_case(df, bytes, true, 0.25, first_global_link(16));
    std::cout
        << "| Dragonfly 8/16/8, 129 groups, router 0's first global link at 25% | minimal | 16512 | the fault kept no symmetry: every router pair a class | "
        << n(e.simulated_s * 1e3) << " | healthy: " << n(healthy.simulated_s * 1e3) << " | – | " << n(e.wall_s) << " | "
        << e.peak_rss_mib << " |" << std::endl;
  }
  {  // A sprayed FT3 with one core uplink at a quarter: no generator keeps it, so every router pair
     // is a class (at 40 ports, 640,000 of them would need 8.1 GiB: refused), here at 32 ports.
    const Build ft3 = [] { return net::ScaleFabric::fat_tree_3(32, R::kSpray); };
    const FaultLink uplink = [](const net::ScaleFabric& f) { return f.links_between(256, 0).at(0); };
    const ScaleCase healthy = alltoall_case(ft3, bytes, true);
    const ScaleCase c = alltoall_case(ft3, bytes, true, 0.25, uplink);
    const ScaleCase e = alltoall_case(ft3, bytes, false, 0.25, uplink);
    std::cout << "| FT3 32-port, pod 0's first aggregation switch's uplink to core 0 at 25% | spray | 8192 | every "
                 "router pair a class | "
              << (e.refused ? std::string("refused") : n(e.simulated_s * 1e3)) << " | " << n(c.simulated_s * 1e3)
              << " (healthy: " << n(healthy.simulated_s * 1e3) << ", " << c.flow_classes << " classes in "
              << n(c.wall_s) << " s) | "
              << (e.refused ? std::string("–") : n((c.simulated_s / e.simulated_s - 1) * 100) + "%") << " | "
              << n(e.wall_s) << " | " << e.peak_rss_mib << " |" << std::endl;
  }
  {  // ECMP counted against the fluid engine on net::GraphPlatform, which hashes each route hop by
     // hop on the same graph: one plane of the MPFT, a flow per NIC pair.
    const double per_pair = bytes / (2048 - 1);
    const ScaleCase e = in_child([&] {
      ScaleCase r;
      const net::GraphPlatform plane(net::fat_tree_2(64, 1), net::GraphLinks{50e9, 50e9}, net::Routing::kEcmp);
      core::TaskGraph g;
      for (int src = 0; src < plane.gpus(); ++src) {
        std::vector<core::Flow> flows;
        for (int dst = 0; dst < plane.gpus(); ++dst)
          if (dst != src) flows.push_back({src, dst, per_pair});
        g.add_transfer("a2a", src, "a2a", std::move(flows), {});
      }
      r.simulated_s = core::simulate(plane, g, nullptr, core::EngineKind::kFluid).makespan_s();
      return r;
    });
    const ScaleCase c = alltoall_case([] { return net::ScaleFabric::fat_tree_2(64, R::kEcmp); }, per_pair * 2047, true);
    std::cout << "| FT2 64-port (an MPFT plane) | ECMP | 2048 | a fluid flow per NIC pair, net::GraphPlatform's hashed "
                 "routes | "
              << n(e.simulated_s * 1e3) << " | " << n(c.simulated_s * 1e3) << " | "
              << n((c.simulated_s / e.simulated_s - 1) * 100) << "% | " << n(e.wall_s) << " | " << e.peak_rss_mib
              << " |" << std::endl;
  }
  {  // MPFT of 8 planes, 16,384 GPUs, d-mod-k: one plane by classes, against the symmetric fluid run
    const int planes = 8;
    net::FabricSpec spec;
    spec.nodes = 2048;
    const double per_pair = bytes / (16384 - 1);
    const ScaleCase e = in_child([&] {
      ScaleCase r;
      r.simulated_s = net::alltoall_symmetric(spec, per_pair).network_stage_s;
      return r;
    });
    const ScaleCase k =
        alltoall_case([] { return net::ScaleFabric::fat_tree_2(64, R::kDModK); }, per_pair * planes * 2047, true);
    std::cout
        << "| MPFT 64-port, 8 planes (network stage) | d-mod-k | 16384 | net::alltoall_symmetric (fluid engine) | "
        << n(e.simulated_s * 1e3) << " | " << n(k.simulated_s * 1e3) << " | "
        << n((k.simulated_s / e.simulated_s - 1) * 100) << "% | " << n(e.wall_s) << " | " << e.peak_rss_mib << " |"
        << std::endl;
  }
  return 0;
}

}  // namespace cli
