#include "studies/training/study_training_run.hpp"

#include <cmath>

#include "core/input_error.hpp"
#include "net/topology.hpp"
#include "workload/goodput/goodput.hpp"

namespace studies {

namespace {

// Failure rates per component and hour.
struct FailureRates {
  double gpu = 0, node = 0, nic = 0, link = 0, sw = 0;
};

// What a cluster of `gpus` has of each component: nodes, GPUs and NICs by count; switches and
// links (NIC cables and switch-to-switch) per endpoint as a full fat tree of `radix`-port
// switches has them: two levels while one reaches (MPFT: a plane per NIC of a node, radix^2 / 2
// NICs each; MRFT: one tree, (radix / gpus_per_node) x radix / 2 nodes), three beyond.
struct Components {
  double gpus, nodes, nics, switches, links;
  int levels;
};

Components components(long long gpus, int gpus_per_node, int radix, bool planes) {
  const long long k = radix;
  const long long two_level_max = planes ? gpus_per_node * k * k / 2 : (k / gpus_per_node) * (k / 2) * gpus_per_node;
  const bool two = gpus <= two_level_max;
  const net::TopologyCounts c = two ? net::fat_tree_2_counts(k, 1) : net::fat_tree_3_counts(k);
  const double per_endpoint_switches = double(c.switches) / double(c.endpoints);
  const double per_endpoint_links = double(c.inter_switch_links + c.endpoint_links) / double(c.endpoints);
  return {double(gpus), double(gpus) / gpus_per_node, double(gpus), per_endpoint_switches * gpus, per_endpoint_links * gpus, two ? 2 : 3};
}

class TrainingRunStudy : public Study {
 public:
  std::vector<long long> gpus;
  std::vector<std::string> fabrics;  // "mpft", "mrft"
  std::vector<int> spare_nodes;
  int gpus_per_node = 8, radix = 64;
  bool network_failover = false;
  FailureRates rates;
  workload::RunReliability run_base;
  int monte_carlo_runs = 100;
  std::uint64_t seed = 1;

  // Interruptions a second that take a node out, and those of the network.
  std::pair<double, double> stop_rates_per_s(const Components& c) const {
    return {(c.gpus * rates.gpu + c.nodes * rates.node) / 3600, (c.nics * rates.nic + c.links * rates.link + c.switches * rates.sw) / 3600};
  }
  double stop_rate_per_s(const Components& c) const {
    const auto [node, network] = stop_rates_per_s(c);
    return node + (network_failover ? 0.0 : network);
  }

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    for (const std::string& fabric : fabrics)
      for (long long g : gpus) {
        const Components c = components(g, gpus_per_node, radix, fabric == "mpft");
        const auto [node_rate, network_rate] = stop_rates_per_s(c);
        for (int spares : spare_nodes) {
          workload::RunReliability rel = run_base;
          rel.node_stop_rate_per_s = node_rate;
          rel.stop_rate_per_s = node_rate + (network_failover ? 0.0 : network_rate);
          rel.spare_nodes = spares;
          const auto closed = workload::goodput_closed_form(rel);
          const std::string id = fabric + "/" + std::to_string(g) + "/spares-" + std::to_string(spares);
          const std::string label = (fabric == "mpft" ? std::string("MPFT") : std::string("MRFT")) + " (" + std::to_string(c.levels) +
                                    " levels), " + format_number(double(g)) + " GPUs, " + std::to_string(spares) + " spare nodes";
          r.rows.push_back({id + "/interruptions", label, "interruptions per day", "", std::nullopt, closed.interruptions_per_day, Basis::kFormula});
          r.rows.push_back({id + "/network_degradations", label, network_failover ? "network faults ridden through per day" : "of which network", "",
                            std::nullopt, network_rate * 86400, Basis::kFormula});
          r.rows.push_back({id + "/interval", label, "best checkpoint interval", "min", std::nullopt, closed.checkpoint_interval_s / 60, Basis::kFormula});
          r.rows.push_back({id + "/effective", label, "effective training time (closed form)", "%", std::nullopt, 100 * closed.effective_fraction, Basis::kFormula});
          if (options.simulate) {
            rel.checkpoint_interval_s = closed.checkpoint_interval_s;
            const auto mc = workload::goodput_monte_carlo(rel, monte_carlo_runs, seed);
            r.rows.push_back({id + "/effective_mc", label, "effective training time (Monte-Carlo)", "%", std::nullopt, 100 * mc.effective_fraction, Basis::kSimulated});
            r.rows.push_back({id + "/requeues", label, "re-queues per day (Monte-Carlo)", "", std::nullopt, mc.requeues_per_day, Basis::kSimulated});
          }
        }
      }
    r.notes.push_back(
        "Interruptions: every GPU and node failure (the node swapped for a spare, else re-queued for " + format_number(run_base.requeue_s / 60) +
        " min; a failed node rejoins the spares after " + format_number(run_base.repair_s / 3600) + " h)" +
        (network_failover ? "; NIC, link and switch faults do not stop the job: PXN and routing ride through them (their cost in bandwidth is the faults-alltoall table's)"
                          : "; and every NIC, link and switch fault (no failover: the collective library stops the job)") +
        ". Restart " + format_number(run_base.restart_s / 60) + " min, checkpoint write " + format_number(run_base.checkpoint_write_s) +
        " s, the best interval by the closed form's optimum (near Young's sqrt(2 write / rate)). Switches and links per GPU from a full fat tree of " +
        std::to_string(radix) + "-port switches: MPFT two levels up to " + format_number(double(gpus_per_node) * radix * radix / 2) +
        " GPUs, MRFT up to " + format_number(double(radix / gpus_per_node) * (radix / 2) * gpus_per_node) +
        ", three beyond. Monte-Carlo: " + std::to_string(monte_carlo_runs) + " runs of " + format_number(run_base.run_s / 86400) +
        " days, seed " + std::to_string(seed) + ".");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_training_run_study(core::JsonReader& root) {
  auto s = std::make_unique<TrainingRunStudy>();
  core::JsonReader c = root.object("clusters");
  for (double g : c.number_list("gpus", {8, 1e6, true, 0})) s->gpus.push_back(static_cast<long long>(g));
  s->gpus_per_node = static_cast<int>(c.positive_integer("gpus_per_node", 8, 72));
  s->radix = static_cast<int>(c.positive_integer("radix", 64, 1024));
  s->fabrics = c.string_list("fabrics", {"mpft", "mrft"});
  for (double n : c.number_list("spare_nodes", {0, 1e5, true, 0})) s->spare_nodes.push_back(static_cast<int>(n));
  s->network_failover = c.boolean("network_failover", false);
  c.finish();
  for (long long g : s->gpus)
    if (g % s->gpus_per_node != 0)
      throw core::InputError(c.pointer_of("gpus"), std::to_string(g) + " is not allowed; whole nodes of " + std::to_string(s->gpus_per_node) + " GPUs");
  core::JsonReader f = root.object("failure_rates_per_hour");
  auto rate = [&](const char* key) { return f.has(key) ? f.non_negative_number(key) : 0.0; };
  s->rates = {rate("gpu"), rate("node"), rate("nic"), rate("link"), rate("switch")};
  f.optional_string("sources");
  f.finish();
  core::JsonReader k = root.object("checkpoint");
  s->run_base.checkpoint_interval_s = k.non_negative_number("interval_s", 0.0);
  s->run_base.checkpoint_write_s = k.non_negative_number("write_s");
  s->run_base.restart_s = k.non_negative_number("restart_s");
  s->run_base.requeue_s = k.non_negative_number("requeue_s");
  s->run_base.repair_s = k.non_negative_number("repair_s");
  k.finish();
  s->run_base.run_s = root.positive_number("run_days") * 86400;
  core::JsonReader m = root.object("monte_carlo");
  s->monte_carlo_runs = static_cast<int>(m.positive_integer("runs", 100, 100000));
  s->seed = static_cast<std::uint64_t>(m.non_negative_integer("seed", 1, 1LL << 62));
  m.finish();
  // The Monte-Carlo steps from one interruption to the next: their count is refused before it runs.
  for (const std::string& fabric : s->fabrics)
    for (long long g : s->gpus) {
      const double rate = s->stop_rate_per_s(components(g, s->gpus_per_node, s->radix, fabric == "mpft"));
      const double events = rate * s->run_base.run_s * s->monte_carlo_runs;
      if (events > workload::kMaxMonteCarloInterruptions)
        throw core::InputError(s->run_base.run_s > 3650 * 86400.0 ? root.pointer_of("run_days") : f.pointer(),
                               format_number(rate * 3600) + " interruptions an hour on " + std::to_string(g) + " GPUs (" + fabric + ") over " +
                                   format_number(s->run_base.run_s / 86400) + " days x " + std::to_string(s->monte_carlo_runs) +
                                   " Monte-Carlo runs is not allowed: " + format_number(events) + " interruptions to simulate; at most " +
                                   format_number(workload::kMaxMonteCarloInterruptions) + " (lower the rates, run_days or /monte_carlo/runs)");
    }
  return s;
}

}  // namespace studies
