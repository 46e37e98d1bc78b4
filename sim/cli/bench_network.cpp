// codesim bench network: building fabrics and their routes, and all-to-all flow simulations.
#include <sys/resource.h>

#include <chrono>
#include <iostream>

#include "cli/options.hpp"
#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/alltoall.hpp"
#include "net/alltoall_symmetric.hpp"
#include "net/fabric.hpp"
#include "studies/report.hpp"
#include "workload/moe_dispatch.hpp"

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
  options.add_options()("repeat", po::value(&repeat)->default_value(5), "runs of the gate and the matrices; the fastest is reported");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim bench moe [options]", options, {}, vm)) return 0;
  if (repeat < 1 || repeat > 1000) throw core::InputError("--repeat", std::to_string(repeat) + " is not allowed; from 1 to 1000");
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
            << studies::format_number(route) << " |\n| dispatch byte matrices (IB and NVLink, 64 x 64; fastest of " << repeat
            << ") | " << studies::format_number(matrices) << " |\n"
            << "\ntotal for routing and matrices: " << studies::format_number(route + matrices) << " s (" << gpus << " GPUs)\n";
  return 0;
}

int bench_network_command(const Args& args) {
  po::options_description options("options");
  std::vector<int> alltoall_nodes;
  options.add_options()("alltoall-nodes", po::value(&alltoall_nodes)->multitoken(),
                        "node counts for the all-to-all runs (default 16 32 64)");
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim bench network [options]", options, {}, vm)) return 0;
  if (alltoall_nodes.empty()) alltoall_nodes = {16, 32, 64};

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
    std::cout << "| MPFT 64-port | " << fabric.gpus() << " | " << studies::format_number(build) << " | " << routes << " | "
              << studies::format_number(routing) << " | " << peak_rss_mib() << " |\n";
  }
  std::cout << "\n| all-to-all, 64 MB per GPU, MPFT with PXN | GPUs | flows | simulated [ms] | wall [s] |\n"
               "|---|---:|---:|---:|---:|\n";
  for (int nodes : alltoall_nodes) {
    net::FabricSpec spec;
    spec.nodes = nodes;
    const net::FabricPlatform fabric(spec);
    const net::AllToAllSpec a{nodes, 8, 64e6 / (nodes * 8), true, true, {}};
    core::SimulationStats stats;
    const double t = core::simulate(fabric, net::alltoall_graph(a), &stats).makespan_s();
    std::cout << "| aggregated | " << fabric.gpus() << " | " << stats.flows << " | " << studies::format_number(t * 1e3)
              << " | " << studies::format_number(stats.wall_s) << " |\n";
  }
  std::cout << "\n| all-to-all, 64 MB per GPU, MPFT with PXN, d-mod-k | GPUs | flows | simulated [ms] | wall [s] |\n"
               "|---|---:|---:|---:|---:|\n";
  for (int nodes : {16, 256, 2048}) {
    net::FabricSpec spec;
    spec.nodes = nodes;
    const auto start = std::chrono::steady_clock::now();
    const auto r = net::alltoall_symmetric(spec, 64e6 / (nodes * 8));
    std::cout << "| symmetric | " << nodes * 8 << " | " << r.flows << " | " << studies::format_number(r.seconds * 1e3)
              << " | " << studies::format_number(seconds_since(start)) << " |\n";
  }
  return 0;
}

}  // namespace cli
