// codesim bench network-scale: Table 3's topologies at full size, their all-to-all by classes of
// flows (net/scale_traffic), and the classes against the exact runs where both fit.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <stdexcept>
#include <string>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "net/alltoall_symmetric.hpp"
#include "net/scale_traffic.hpp"
#include "studies/report/report.hpp"

namespace cli {

namespace {

struct ScaleCase {
  double simulated_s = 0, build_s = 0, classes_s = 0, solve_s = 0, wall_s = 0, flows = 0;
  std::size_t source_routers = 0, link_classes = 0, flow_classes = 0;
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
  if (!got || !WIFEXITED(status) || WEXITSTATUS(status) != 0) throw std::runtime_error("a network-scale benchmark run failed");
  r.peak_rss_mib = usage.ru_maxrss / 1024;
  return r;
}

using Build = std::function<net::ScaleFabric()>;

ScaleCase alltoall_case(const Build& build, double bytes_per_gpu, bool symmetry) {
  return in_child([&] {
    const net::ScaleFabric f = build();
    net::ScaleTrafficSpec spec;
    spec.bytes_per_pair = bytes_per_gpu / double(f.endpoints() - 1);
    spec.use_symmetry = symmetry;
    const net::ScaleRun run = net::simulate_scale_traffic(f, spec);
    ScaleCase c;
    c.simulated_s = run.seconds;
    c.build_s = f.build_s();
    c.classes_s = run.classes_s;
    c.solve_s = run.solve_s;
    c.flows = run.flows;
    c.source_routers = run.source_routers;
    c.link_classes = run.link_classes;
    c.flow_classes = run.flow_classes;
    return c;
  });
}

std::string n(double x) { return studies::format_number(x); }

}  // namespace

int bench_network_scale_command(const Args& args) {
  po::options_description options("options");
  bool exact = true;
  options.add_options()("no-exact", po::bool_switch()->notifier([&](bool v) { exact = !v; }), "leave out the exact runs");
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
      {"Slim Fly q=29", "minimal", [] { return net::ScaleFabric::slim_fly(29, R::kMinimal); }},
      {"Slim Fly q=29", "Valiant", [] { return net::ScaleFabric::slim_fly(29, R::kValiant); }},
      {"Dragonfly 16/32/16, 511 groups", "minimal", [] { return net::ScaleFabric::dragonfly(16, 32, 16, 511, R::kMinimal); }},
      {"Dragonfly 16/32/16, 511 groups", "Valiant", [] { return net::ScaleFabric::dragonfly(16, 32, 16, 511, R::kValiant); }},
  };
  std::cout << "| all-to-all by classes, 1 GiB per GPU | routing | endpoints | build [s] | source routers | link classes | flow classes | "
               "flows | classes [s] | solve [s] | wall [s] | peak RSS [MiB] | simulated [ms] |\n"
               "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& t : full) {
    const ScaleCase c = alltoall_case(t.build, bytes, true);
    const net::ScaleFabric f = t.build();
    std::cout << "| " << t.name << " | " << t.routing << " | " << f.endpoints() << " | " << n(c.build_s) << " | " << c.source_routers << " | "
              << c.link_classes << " | " << c.flow_classes << " | " << n(c.flows) << " | " << n(c.classes_s) << " | " << n(c.solve_s) << " | "
              << n(c.wall_s) << " | " << c.peak_rss_mib << " | " << n(c.simulated_s * 1e3) << " |" << std::endl;
  }
  if (!exact) return 0;
  // The classes against runs without them: every router pair a class of its own (no symmetry),
  // and the MPFT plane against net::alltoall_symmetric's fluid-engine run of the same fabric.
  std::cout << "\n| classes against the exact run, 1 GiB per GPU | routing | GPUs | exact run | exact [ms] | classes [ms] | difference | "
               "exact wall [s] | exact peak RSS [MiB] |\n|---|---|---:|---|---:|---:|---:|---:|---:|\n";
  const std::vector<Topology> both = {
      {"FT3 40-port", "d-mod-k", [] { return net::ScaleFabric::fat_tree_3(40, R::kDModK); }},
      {"Slim Fly q=29", "minimal", [] { return net::ScaleFabric::slim_fly(29, R::kMinimal); }},
      {"Dragonfly 8/16/8, 129 groups", "minimal", [] { return net::ScaleFabric::dragonfly(8, 16, 8, 129, R::kMinimal); }},
  };
  for (const auto& t : both) {
    const ScaleCase c = alltoall_case(t.build, bytes, true);
    const ScaleCase e = alltoall_case(t.build, bytes, false);
    const net::ScaleFabric f = t.build();
    std::cout << "| " << t.name << " | " << t.routing << " | " << f.endpoints() << " | every router pair a class | "
              << (e.refused ? std::string("refused") : n(e.simulated_s * 1e3)) << " | " << n(c.simulated_s * 1e3) << " | "
              << (e.refused ? std::string("–") : n((c.simulated_s / e.simulated_s - 1) * 100) + "%") << " | " << n(e.wall_s) << " | "
              << e.peak_rss_mib << " |" << std::endl;
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
    const ScaleCase k = alltoall_case([] { return net::ScaleFabric::fat_tree_2(64, R::kDModK); }, per_pair * planes * 2047, true);
    std::cout << "| MPFT 64-port, 8 planes (network stage) | d-mod-k | 16384 | net::alltoall_symmetric (fluid engine) | " << n(e.simulated_s * 1e3)
              << " | " << n(k.simulated_s * 1e3) << " | " << n((k.simulated_s / e.simulated_s - 1) * 100) << "% | " << n(e.wall_s) << " | "
              << e.peak_rss_mib << " |" << std::endl;
  }
  return 0;
}

}  // namespace cli
