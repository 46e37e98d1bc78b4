#include "net/scale/counted_traffic.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/input_error.hpp"
#include "core/progress_bar.hpp"
#include "net/scale/double_tree.hpp"

namespace net {

ScaleRun simulate_counted_traffic(const ScaleFabric& f, const ScaleTrafficSpec& s) {
  const auto start = std::chrono::steady_clock::now();
  const bool ecmp = f.routing() == ScaleRouting::kEcmp;
  if (!s.also.empty())
    throw core::InputError(
        "also", std::string("more traffic is not allowed beside ") +
                    (ecmp ? "ECMP's" : "d-mod-k's counted flow by flow (a fault, or a tree)") +
                    ": its run, flow by flow, is the busiest link's, exact for flows of one size only; one traffic at "
                    "a time, or spray for traffic at once");
  const long long n = f.endpoints(), G = s.group_endpoints > 0 ? s.group_endpoints : n;
  const bool shift = s.kind == ScaleTraffic::kShift;
  if (G < 1 || G > n || (shift ? G == n : n % G != 0 || G < 2))
    throw core::InputError("group_endpoints", std::to_string(G) + " is not allowed; " +
                                                  (shift ? "a shift by 1 to " + std::to_string(n - 1) + " endpoints"
                                                         : "groups of consecutive endpoints that divide the " +
                                                               std::to_string(n) + " endpoints, 2 or more"));
  const std::vector<double> kept = f.kept_shares(s.link_fractions);
  const int planes = ecmp ? std::max(1, s.ecmp_planes) : 1;  // d-mod-k: every plane alike
  const bool tree = s.kind == ScaleTraffic::kTree;
  // Flows from each endpoint, and into it (a tree's: its most joined rank's, and all of them).
  long long flows_out = s.kind == ScaleTraffic::kAllToAll ? G - 1 : 1, tree_flows = 0;
  std::vector<long long> neighbours;
  if (tree) {
    flows_out = 0;
    for (long long rank = 0; rank < G; ++rank) {
      neighbours.clear();
      double_tree_neighbours(rank, G, neighbours);
      flows_out = std::max<long long>(flows_out, static_cast<long long>(neighbours.size()));
      tree_flows += static_cast<long long>(neighbours.size());
    }
  }
  const int switch_links = f.links() - 2 * f.routers();

  // Each plane's flows counted per switch link, sources shared out to threads a block at a time.
  const long long block = 64;
  const int threads = static_cast<int>(
      std::clamp<long long>(std::thread::hardware_concurrency(), 1, std::max<long long>(1, n / block)));
  core::ProgressBar bar(ecmp ? "ECMP: hashing every flow's path" : "d-mod-k: every flow's path", double(n) * planes);
  std::mutex progress;
  ScaleRun run;
  const double endpoint_s = double(flows_out) * s.bytes_per_pair / s.endpoint_Bps;  // every endpoint's own link
  double switch_s = 0;  // the longest plane's busiest switch link
  for (int plane = 0; plane < planes; ++plane) {
    std::vector<std::vector<std::uint32_t>> counts(static_cast<std::size_t>(threads));
    std::atomic<long long> next{0};
    std::exception_ptr failure;
    auto work = [&](std::vector<std::uint32_t>& count) {
      const core::ProgressBar::Inside inside(bar);
      try {
        count.assign(static_cast<std::size_t>(switch_links), 0);
        int path[4];
        std::vector<long long> joined;
        auto add = [&](long long src, long long dst) {
          for (int k = f.flow_links(src, dst, plane, path); k-- > 0;) ++count[static_cast<std::size_t>(path[k])];
        };
        for (long long first; (first = next.fetch_add(block)) < n;) {
          for (long long src = first; src < std::min(first + block, n); ++src) {
            const long long group = src / G * G;
            if (shift)
              add(src, (src + G) % n);
            else if (s.kind == ScaleTraffic::kRingStep)
              add(src, group + (src - group + 1) % G);
            else if (tree) {
              joined.clear();
              double_tree_neighbours(src - group, G, joined);
              for (long long rank : joined) add(src, group + rank);
            } else
              for (long long dst = group; dst < group + G; ++dst)
                if (dst != src) add(src, dst);
          }
          const std::lock_guard<std::mutex> lock(progress);
          bar.update(double(plane) * double(n) + double(std::min(next.load(), n)));
        }
      } catch (...) {
        const std::lock_guard<std::mutex> lock(progress);
        failure = std::current_exception();
        next = n;
      }
    };
    std::vector<std::thread> workers;
    for (int t = 1; t < threads; ++t) workers.emplace_back(work, std::ref(counts[static_cast<std::size_t>(t)]));
    work(counts[0]);
    for (auto& w : workers) w.join();
    if (failure) std::rethrow_exception(failure);
    double plane_s = 0, busiest = 0, used = 0, carried = 0;
    for (int l = 0; l < switch_links; ++l) {
      double flows = 0;
      for (const auto& count : counts) flows += count[static_cast<std::size_t>(l)];
      if (flows == 0) continue;
      used += 1;
      carried += flows;
      const double share = plane == 0 ? kept[static_cast<std::size_t>(l)] : 1.0;  // faults: plane 0's
      const double seconds = flows * s.bytes_per_pair / (s.switch_Bps * share);
      if (seconds > plane_s) {
        plane_s = seconds;
        busiest = flows;
      }
    }
    if (plane_s > switch_s || plane == 0) {
      switch_s = plane_s;
      run.busiest_link_flows = busiest;
      run.mean_link_flows = used > 0 ? carried / used : 0;
    }
  }
  run.seconds = std::max(endpoint_s, switch_s);
  run.part_seconds = {run.seconds};
  run.flows = (tree ? double(tree_flows) * double(n / G) : double(n) * double(flows_out)) * planes;
  run.link_classes = static_cast<std::size_t>(switch_links);
  run.classes_s = seconds_since(start);
  std::ostringstream method;
  method.precision(4);
  method << (ecmp ? "ECMP: every flow's path hashed (" : "d-mod-k flow by flow: every flow's path routed (")
         << static_cast<long long>(run.flows) << " flows"
         << (planes > 1 ? ", " + std::to_string(planes) + " planes each with its own seed" : std::string()) << ") and "
         << "the flows on each link counted; flows of one size end when the busiest link's do (exact for max-min "
         << "sharing)";
  if (run.busiest_link_flows > 0)
    method << "; the busiest switch link carries " << static_cast<long long>(run.busiest_link_flows) << " flows, "
           << run.busiest_link_flows / run.mean_link_flows << " x the mean of those that carry any"
           << (switch_s >= endpoint_s ? "" : ", the endpoints' own links busier");
  else
    method << "; no flow leaves its switch";
  run.method = method.str();
  return run;
}

}  // namespace net
