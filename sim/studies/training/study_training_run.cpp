#include "studies/training/study_training_run.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <thread>

#include "core/input_error.hpp"
#include "core/progress_bar.hpp"
#include "net/topology.hpp"
#include "studies/config/reliability_config.hpp"
#include "workload/goodput/closed_form.hpp"
#include "workload/goodput/monte_carlo.hpp"
#include "workload/goodput/restart_parts.hpp"

namespace studies {

namespace {

// What a cluster of `gpus` has of each component: nodes, GPUs and NICs by count; switches and
// links (NIC cables and switch-to-switch) per endpoint as a full fat tree of `radix`-port
// switches has them: two levels while one reaches (MPFT: a plane per NIC of a node, radix^2 / 2
// NICs each; MRFT: one tree, (radix / gpus_per_node) x radix / 2 nodes), three beyond.
struct Components {
  double gpus, nodes, nics, switches, links, switch_links;
  int levels;
  double count(workload::Component c) const {
    switch (c) {
      case workload::Component::kGpu:
        return gpus;
      case workload::Component::kNode:
        return nodes;
      case workload::Component::kNic:
        return nics;
      case workload::Component::kLink:
        return links;
      case workload::Component::kSwitchLink:
        return switch_links;
      case workload::Component::kSwitch:
        return switches;
      case workload::Component::kJob:
        return 1;
    }
    return 0;
  }
};

Components components(long long gpus, int gpus_per_node, int radix, bool planes) {
  const long long k = radix;
  const long long two_level_max = planes ? gpus_per_node * k * k / 2 : (k / gpus_per_node) * (k / 2) * gpus_per_node;
  const bool two = gpus <= two_level_max;
  const net::TopologyCounts c = two ? net::fat_tree_2_counts(k, 1) : net::fat_tree_3_counts(k);
  const double per_endpoint_switches = double(c.switches) / double(c.endpoints);
  const double per_endpoint_links = double(c.inter_switch_links + c.endpoint_links) / double(c.endpoints);
  const double per_endpoint_switch_links = double(c.inter_switch_links) / double(c.endpoints);
  return {double(gpus),
          double(gpus) / gpus_per_node,
          double(gpus),
          per_endpoint_switches * gpus,
          per_endpoint_links * gpus,
          per_endpoint_switch_links * gpus,
          two ? 2 : 3};
}

const char* const kCodeDataChange = "code or data change";

// ETTR as the papers count it: kept training over wall time, the stops' losses alone. A slow
// node slows the steps but the job trains: its loss is throughput's, reported beside.
double ettr_of_stops(const workload::GoodputEstimate& g) { return g.ettr + g.loss_s_per_day.fail_slow / 86400; }

const char* cause_names[] = {"detection", "restart", "lost work", "checkpoints", "waiting for spares", "fail-slow"};
const char* cause_ids[] = {"detection", "restart", "lost_work", "checkpoint", "spares", "fail_slow"};
double cause(const workload::LossByCause& l, int i) {
  const double all[] = {l.detection, l.restart, l.lost_work, l.checkpoint, l.spares, l.fail_slow};
  return all[i];
}
void set_cause(workload::LossByCause& l, int i, double value) {
  double* all[] = {&l.detection, &l.restart, &l.lost_work, &l.checkpoint, &l.spares, &l.fail_slow};
  *all[i] = value;
}

class TrainingRunStudy : public Study {
 public:
  std::vector<long long> gpus;
  std::vector<std::string> fabrics;  // "mpft", "mrft"
  std::vector<int> spare_nodes;
  int gpus_per_node = 8, radix = 64;
  bool network_failover = false;
  ReliabilityConfig reliability;
  workload::Checkpointing checkpoint;
  RecoveryConfig recovery;
  double checkpoint_bytes_per_gpu = 0;  // 0: not given (write_s)
  double run_s = 0;
  double tokens_per_s_per_gpu = 0;  // 0: no goodput in tokens
  bool loss_by_cause = true;
  int monte_carlo_runs = 100;
  std::uint64_t seed = 1;

  // The run on one cluster; `ridden_through_per_s`: the network faults failover rides through.
  workload::RunReliability run_on(const Components& c, int spares, workload::RecoveryStrategy strategy,
                                  double* ridden_through_per_s = nullptr) const {
    workload::RunReliability r;
    double ridden = 0;
    for (const workload::FailureKind& k : reliability.kinds) {
      const double rate = c.count(k.component) * k.rate_per_hour / 3600;
      if (rate <= 0) continue;
      if (network_failover && k.network) {
        ridden += rate;
        continue;
      }
      r.failures.push_back({k.name, rate, k.detection_s, k.path, k.rollback, k.per_replica, k.while_running});
    }
    if (ridden_through_per_s) *ridden_through_per_s = ridden;
    // Planned changes of code or data: their share of all stops, so a rate in proportion to the others.
    if (reliability.code_data_share > 0) {
      double others = 0;
      for (const workload::FailureProcess& p : r.failures) others += p.rate_per_s;
      r.failures.push_back({kCodeDataChange, others * reliability.code_data_share / (1 - reliability.code_data_share),
                            0, workload::RecoveryPath::kInPlace, workload::Rollback::kNone, false, true});
    }
    r.fail_slow = reliability.fail_slow;
    r.fail_slow.rate_per_s = c.nodes * reliability.fail_slow_rate_per_node_hour / 3600;
    r.checkpoint = checkpoint;
    r.recovery = recovery.recovery;
    r.recovery.strategy = strategy;
    r.recovery.spare_nodes = spares;
    r.recovery.manual_fraction = reliability.manual_fraction;
    r.recovery.manual_s = reliability.manual_s;
    if (recovery.parts) set_restart_parts(r.recovery, c.gpus);
    r.run_s = run_s;
    return r;
  }

  // The restart by part: each given, or the data file's (communicator initialisation in
  // proportion to the job's GPUs); the checkpoint read from storage at the write's bandwidth
  // unless given, from a peer's memory at the data file's.
  void set_restart_parts(workload::Recovery& rec, double job_gpus) const {
    const RestartPartsConfig& p = *recovery.parts;
    const workload::ReliabilityData& d = workload::reliability_by_name(reliability.data);
    rec.image_s = p.image_s.value_or(d.image_s);
    rec.comm_init_s = p.comm_init_s.value_or(d.comm_init_s_per_gpu * job_gpus);
    rec.warmup_s = p.warmup_s.value_or(d.warmup_s);
    rec.restart_s = rec.image_s + rec.comm_init_s + rec.warmup_s;
    const bool sized = checkpoint_bytes_per_gpu > 0;
    rec.storage_read_s =
        sized && p.read_Bps_per_gpu ? checkpoint_bytes_per_gpu / *p.read_Bps_per_gpu : checkpoint.write_s;
    rec.memory_read_s = sized ? checkpoint_bytes_per_gpu / p.peer_read_Bps_per_gpu.value_or(d.peer_read_Bps_per_gpu)
                              : (checkpoint.async ? checkpoint.stall_s : checkpoint.write_s);
  }

  bool strategies_named() const {
    return recovery.strategies.size() > 1 || recovery.strategies[0] != workload::RecoveryStrategy::kRestart;
  }

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    const int threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
    // One bar for all the clusters' Monte-Carlos, each filling its unit.
    core::ProgressBar bar(
        "goodput Monte-Carlo, " +
            std::to_string(gpus.size() * fabrics.size() * spare_nodes.size() * recovery.strategies.size()) + " cases",
        double(gpus.size() * fabrics.size() * spare_nodes.size() * recovery.strategies.size()));
    int done = 0;
    for (const std::string& fabric : fabrics)
      for (long long g : gpus) {
        const Components c = components(g, gpus_per_node, radix, fabric == "mpft");
        for (int spares : spare_nodes)
          for (workload::RecoveryStrategy strategy : recovery.strategies) {
            double ridden = 0;
            workload::RunReliability rel = run_on(c, spares, strategy, &ridden);
            const auto closed = workload::goodput_closed_form(rel);
            std::string id = fabric + "/" + std::to_string(g) + "/spares-" + std::to_string(spares);
            std::string label = (fabric == "mpft" ? std::string("MPFT") : std::string("MRFT")) + " (" +
                                std::to_string(c.levels) + " levels), " + format_number(double(g)) + " GPUs, " +
                                std::to_string(spares) + " spare nodes";
            if (strategies_named()) {
              id += std::string("/") + strategy_name(strategy);
              label += std::string(", ") + strategy_name(strategy) + " recovery";
            }
            auto row = [&](const std::string& key, const std::string& metric, const std::string& unit, double value,
                           Basis basis) {
              r.rows.push_back({id + "/" + key, label, metric, unit, std::nullopt, value, basis});
            };
            rel.checkpoint.interval_s = closed.checkpoint_interval_s;
            // Validation names the Monte-Carlo's rows without running it.
            workload::GoodputEstimate not_run;
            not_run.ettr = not_run.interruptions_per_day = not_run.job_stops_per_day = not_run.requeues_per_day =
                kNotRun;
            for (int i = 0; i < 6; ++i) set_cause(not_run.loss_s_per_day, i, kNotRun);
            const auto mc = [&] {
              const core::ProgressBar::Inside inside(bar);
              return options.simulate ? workload::goodput_monte_carlo(rel, monte_carlo_runs, seed, threads) : not_run;
            }();
            bar.update(++done);
            row("interruptions_mc", "interruptions per day (Monte-Carlo)", "", mc.interruptions_per_day,
                Basis::kSimulated);
            row("mtti_mc", "job mean time to interruption (Monte-Carlo)", "h", options.simulate ? mc.mtti_h() : kNotRun,
                Basis::kSimulated);
            row("interruptions", "interruptions per day (closed form)", "", closed.interruptions_per_day,
                Basis::kFormula);
            if (strategy == workload::RecoveryStrategy::kPerReplica) {  // a replica's recovery does not stop the job
              row("job_stops_mc", "of which whole-job stops (Monte-Carlo)", "", mc.job_stops_per_day,
                  Basis::kSimulated);
              row("job_stops", "of which whole-job stops (closed form)", "", closed.job_stops_per_day, Basis::kFormula);
            }
            row("network_degradations", network_failover ? "network faults ridden through per day" : "of which network",
                "", network_failover ? ridden * 86400 : network_stops_per_day(rel), Basis::kFormula);
            if (loss_by_cause) interruption_rows(rel, mc, closed, row);
            if (checkpoint.interval_s >
                0) {  // the given interval, and the best beside it: two rows, never one for both
              workload::RunReliability best_run = rel;
              best_run.checkpoint.interval_s = 0;
              const auto best = workload::goodput_closed_form(best_run);
              row("interval", "checkpoint interval as given (the write's length where longer)", "min",
                  closed.checkpoint_interval_s / 60, Basis::kInput);
              row("interval_best", "best checkpoint interval (closed form)", "min", best.checkpoint_interval_s / 60,
                  Basis::kFormula);
              row("effective_best", "ETTR at the best interval (closed form)", "%", 100 * ettr_of_stops(best),
                  Basis::kFormula);
            } else {
              row("interval", "best checkpoint interval", "min", closed.checkpoint_interval_s / 60, Basis::kFormula);
            }
            row("effective", "ETTR, effective training time ratio (closed form)", "%", 100 * ettr_of_stops(closed),
                Basis::kFormula);
            row("effective_mc", "ETTR, effective training time ratio (Monte-Carlo)", "%", 100 * ettr_of_stops(mc),
                Basis::kSimulated);
            const double stragglers = reliability.straggler_loss;
            if (rel.fail_slow.rate_per_s > 0 || stragglers > 0) {
              if (stragglers > 0)
                row("straggler_loss", "throughput lost to stragglers", "%", 100 * stragglers, Basis::kInput);
              row("goodput_ratio", "goodput ratio: ETTR less fail-slow and stragglers (closed form)", "%",
                  100 * closed.ettr * (1 - stragglers), Basis::kFormula);
              row("goodput_ratio_mc", "goodput ratio: ETTR less fail-slow and stragglers (Monte-Carlo)", "%",
                  100 * mc.ettr * (1 - stragglers), Basis::kSimulated);
            }
            row("requeues", "re-queues per day (Monte-Carlo)", "", mc.requeues_per_day, Basis::kSimulated);
            if (loss_by_cause)
              for (int i = 0; i < 6; ++i) {
                row(std::string("loss_") + cause_ids[i] + "_mc",
                    std::string("lost to ") + cause_names[i] + " (Monte-Carlo)", "h/day",
                    cause(mc.loss_s_per_day, i) / 3600, Basis::kSimulated);
                row(std::string("loss_") + cause_ids[i], std::string("lost to ") + cause_names[i] + " (closed form)",
                    "h/day", cause(closed.loss_s_per_day, i) / 3600, Basis::kFormula);
              }
            if (loss_by_cause && stragglers > 0) {
              row("loss_stragglers_mc", "lost to stragglers (Monte-Carlo)", "h/day", 24 * mc.ettr * stragglers,
                  Basis::kSimulated);
              row("loss_stragglers", "lost to stragglers (closed form)", "h/day", 24 * closed.ettr * stragglers,
                  Basis::kFormula);
            }
            if (loss_by_cause && recovery.parts) {
              const workload::RestartByPart parts = workload::restart_by_part(rel, closed.loss_s_per_day.restart);
              const std::pair<const char*, double> by_part[] = {
                  {"path", parts.path},           {"image", parts.image},
                  {"comm_init", parts.comm_init}, {"checkpoint_read", parts.checkpoint_read},
                  {"warmup", parts.warmup},       {"operators", parts.operators}};
              const char* names[] = {"relaunch, swap or re-queue",
                                     "image and dependencies",
                                     "communicator initialisation",
                                     "checkpoint read",
                                     "warm-up",
                                     "operators"};
              for (int i = 0; i < 6; ++i)
                row(std::string("restart_") + by_part[i].first,
                    std::string("of the restart: ") + names[i] + " (closed form)", "h/day", by_part[i].second / 3600,
                    Basis::kFormula);
            }
            if (tokens_per_s_per_gpu > 0) {
              const double healthy = tokens_per_s_per_gpu * double(g) * 86400;
              row("goodput_mc", "goodput (Monte-Carlo)", "B tokens/day", healthy * mc.ettr * (1 - stragglers) / 1e9,
                  Basis::kSimulated);
              row("goodput", "goodput (closed form)", "B tokens/day", healthy * closed.ettr * (1 - stragglers) / 1e9,
                  Basis::kFormula);
            }
          }
      }
    r.notes.push_back(notes());
    if (checkpoint.async && checkpoint.interval_s > 0 &&
        checkpoint.interval_s < checkpoint.write_s / checkpoint.snapshots_per_write())
      r.warnings.push_back("the checkpoint interval of " + format_number(checkpoint.interval_s) +
                           " s (/checkpoint/interval_s) is raised to " +
                           format_number(checkpoint.write_s / checkpoint.snapshots_per_write()) +
                           " s: an asynchronous snapshot waits for the previous write to storage to end");
    return r;
  }

  // Interruptions as the papers count them: unplanned by cause, planned (maintenance, code and
  // data changes, a slow node's exclusion), and fail-slow episodes that stop nothing.
  template <class Row>
  void interruption_rows(const workload::RunReliability& rel, const workload::GoodputEstimate& mc,
                         const workload::GoodputEstimate& closed, Row& row) const {
    const bool simulated = !mc.interruptions_per_day_by_process.empty();  // else validation names the rows
    auto of = [](const workload::GoodputEstimate& g, std::size_t i) {
      return i < g.interruptions_per_day_by_process.size() ? g.interruptions_per_day_by_process[i] : kNotRun;
    };
    double unplanned[2] = {0, 0}, planned[2] = {closed.exclusions_per_day, mc.exclusions_per_day};
    for (std::size_t i = 0; i < rel.failures.size(); ++i) {
      const bool is_planned = rel.failures[i].rollback == workload::Rollback::kNone;
      (is_planned ? planned : unplanned)[0] += of(closed, i);
      (is_planned ? planned : unplanned)[1] += of(mc, i);
    }
    row("unplanned_mc", "unplanned interruptions per day (Monte-Carlo)", "", simulated ? unplanned[1] : kNotRun,
        Basis::kSimulated);
    row("unplanned", "unplanned interruptions per day (closed form)", "", unplanned[0], Basis::kFormula);
    for (std::size_t i = 0; i < rel.failures.size(); ++i)
      if (rel.failures[i].rollback != workload::Rollback::kNone)
        row("unplanned_" + id_of(rel.failures[i].kind) + "_mc", "of which " + rel.failures[i].kind + " (Monte-Carlo)",
            "", of(mc, i), Basis::kSimulated);
    row("planned_mc", "planned interruptions per day (Monte-Carlo)", "", simulated ? planned[1] : kNotRun,
        Basis::kSimulated);
    row("planned", "planned interruptions per day (closed form)", "", planned[0], Basis::kFormula);
    for (std::size_t i = 0; i < rel.failures.size(); ++i)
      if (rel.failures[i].rollback == workload::Rollback::kNone)
        row("planned_" + id_of(rel.failures[i].kind) + "_mc", "of which " + rel.failures[i].kind + " (Monte-Carlo)", "",
            of(mc, i), Basis::kSimulated);
    if (rel.fail_slow.rate_per_s > 0) {
      row("planned_exclusion_mc", "of which a slow node's exclusion (Monte-Carlo)", "",
          simulated ? mc.exclusions_per_day : kNotRun, Basis::kSimulated);
      row("fail_slow_episodes_mc", "fail-slow episodes per day, the job not stopped (Monte-Carlo)", "",
          simulated ? mc.fail_slow_episodes_per_day : kNotRun, Basis::kSimulated);
      row("fail_slow_episodes", "fail-slow episodes per day, the job not stopped (closed form)", "",
          closed.fail_slow_episodes_per_day, Basis::kFormula);
    }
  }

  static std::string id_of(const std::string& kind) {
    std::string id;
    for (char ch : kind) id += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return id;
  }

  double network_stops_per_day(const workload::RunReliability& rel) const {
    double rate = 0;
    for (const workload::FailureProcess& p : rel.failures)
      for (const workload::FailureKind& k : reliability.kinds)
        if (k.name == p.kind && k.network) rate += p.rate_per_s;
    return rate * 86400;
  }

  std::string notes() const {
    const workload::Recovery& rec = recovery.recovery;
    std::string n = reliability.data.empty()
                        ? "Failures: per-component rates of the scenario"
                        : "Failures: data/reliability/" + reliability.data +
                              ".json (each rate, detection time and recovery with its source there)";
    n +=
        network_failover
            ? "; NIC, link and switch faults do not stop the job: PXN and routing ride through them (their cost in bandwidth is the faults-alltoall table's)"
            : "; every NIC, link and switch fault stops the job (no failover: the collective library stops it)";
    n += ". Checkpoints: " +
         std::string(checkpoint.async ? "asynchronous, a " + format_number(checkpoint.stall_s) + " s stall, then a "
                                      : "synchronous, the job stops for a ") +
         format_number(checkpoint.write_s) + " s write; " +
         (checkpoint.interval_s > 0 ? "every " + format_number(checkpoint.interval_s / 60) +
                                          " min as given (the closed form's best beside it)"
                                    : "the best interval by the closed form's optimum");
    if (checkpoint.in_memory)
      n += "; each snapshot kept in host memory" +
           (checkpoint.memory_peers > 0 ? " and copied to " + std::to_string(checkpoint.memory_peers) + " other node" +
                                              (checkpoint.memory_peers > 1 ? "s" : "")
                                        : std::string()) +
           (checkpoint.storage_every > 1 ? ", one in " + std::to_string(checkpoint.storage_every)
                                         : std::string(", each")) +
           " written to storage: a stop rolls back to memory unless it took the copy (" +
           (checkpoint.memory_peers > 0 ? "a re-queue" : "a node swapped out, or a re-queue") + ")";
    if (recovery.parts) {
      workload::Recovery at_first = rec;
      set_restart_parts(at_first, double(gpus.front()));
      n += ". Recovery: restart by part at " + format_number(double(gpus.front())) + " GPUs: image and dependencies " +
           format_number(at_first.image_s / 60) + " min, communicator initialisation " +
           format_number(at_first.comm_init_s) + " s" +
           (recovery.parts->comm_init_s ? "" : " (in proportion to the GPUs)") + ", warm-up " +
           format_number(at_first.warmup_s / 60) + " min, the checkpoint read from storage in " +
           format_number(at_first.storage_read_s) + " s or from host memory in " +
           format_number(at_first.memory_read_s) + " s; after";
    } else {
      n += ". Recovery: restart " + format_number(rec.restart_s / 60) + " min, after";
    }
    n += " an in-place relaunch of " + format_number(rec.in_place_s / 60) + " min, a spare's swap of " +
         format_number(rec.swap_s / 60) + " min or a re-queue of " + format_number(rec.requeue_s / 60) +
         " min (with no spare ready); a failed node rejoins the spares after " + format_number(rec.repair_s / 3600) +
         " h";
    if (rec.replicas > 1) n += "; " + std::to_string(rec.replicas) + " data-parallel replicas";
    if (reliability.fail_slow_rate_per_node_hour > 0)
      n += ". Fail-slow: " + format_number(reliability.fail_slow_rate_per_node_hour) + " episodes per node-hour of " +
           format_number(reliability.fail_slow.min_s) + " s to " + format_number(reliability.fail_slow.max_s / 3600) +
           " h, " + format_number(reliability.fail_slow.slowdown_min) + "x to " +
           format_number(reliability.fail_slow.slowdown_max) + "x slower, the step at the slowest node's pace" +
           (reliability.fail_slow.exclude_after_s > 0
                ? ", the node excluded after " + format_number(reliability.fail_slow.exclude_after_s / 60) + " min"
                : "");
    if (reliability.straggler_loss > 0)
      n += ". Stragglers take " + format_number(100 * reliability.straggler_loss) + "% of throughput";
    if (reliability.fail_slow_rate_per_node_hour > 0 || reliability.straggler_loss > 0)
      n +=
          ". ETTR counts the stops' losses alone, as the papers do; fail-slow and stragglers slow the steps of a job that trains, and the goodput ratio takes them off it";
    if (reliability.code_data_share > 0)
      n += ". Code and data changes: " + format_number(100 * reliability.code_data_share) + "% of the stops, planned";
    if (reliability.manual_fraction > 0)
      n += ". " + format_number(100 * reliability.manual_fraction) + "% of unplanned stops wait for an operator, " +
           format_number(reliability.manual_s / 3600) + " h on average";
    n += ". Switches and links per GPU from a full fat tree of " + std::to_string(radix) +
         "-port switches: MPFT two levels up to " + format_number(double(gpus_per_node) * radix * radix / 2) +
         " GPUs, MRFT up to " + format_number(double(radix / gpus_per_node) * (radix / 2) * gpus_per_node) +
         ", three beyond. Monte-Carlo: " + std::to_string(monte_carlo_runs) + " runs of " +
         format_number(run_s / 86400) + " days, seed " + std::to_string(seed) +
         "; the closed form is the run as a renewal of up-times between stops and the recoveries after them.";
    if (!reliability.sources.empty()) n += " Sources: " + reliability.sources;
    return n;
  }
};

}  // namespace

std::unique_ptr<Study> parse_training_run_study(core::JsonReader& root) {
  auto s = std::make_unique<TrainingRunStudy>();
  core::JsonReader c = root.object("clusters");
  for (double g : c.number_list("gpus", {8, 1e6, true, 0, true})) s->gpus.push_back(static_cast<long long>(g));
  s->gpus_per_node = static_cast<int>(c.positive_integer("gpus_per_node", 8, 72));
  s->radix = static_cast<int>(c.positive_integer("radix", 64, 1024));
  s->fabrics = c.string_list("fabrics", {"mpft", "mrft"});
  for (double n : c.number_list("spare_nodes", {0, 1e5, true, 0, true})) s->spare_nodes.push_back(static_cast<int>(n));
  s->network_failover = c.boolean("network_failover", false);
  c.finish();
  for (long long g : s->gpus)
    if (g % s->gpus_per_node != 0)
      throw core::InputError(c.pointer_of("gpus"), std::to_string(g) + " is not allowed; whole nodes of " +
                                                       std::to_string(s->gpus_per_node) + " GPUs");
  s->reliability = read_reliability(root);
  s->checkpoint = read_checkpoint(root);
  s->recovery = read_recovery(root);
  if (s->recovery.parts && s->reliability.data.empty())
    throw core::InputError(
        s->recovery.parts_pointer,
        "is not allowed with failure_rates_per_hour; a part left out is a reliability data file's: give /reliability, or restart_s");
  if (const nlohmann::json* k = root.raw("checkpoint"); k && k->contains("size_bytes_per_gpu"))
    s->checkpoint_bytes_per_gpu = k->at("size_bytes_per_gpu").get<double>();
  s->run_s =
      root.number_in("run_days", 1.0 / 24, 1e9) * 86400;  // an hour or more; the events it implies are bounded below
  if (auto t = root.optional_object("throughput")) {
    s->tokens_per_s_per_gpu = t->positive_number("tokens_per_s_per_gpu");
    t->optional_string("sources");
    t->finish();
  }
  s->loss_by_cause = root.boolean("loss_by_cause", true);
  core::JsonReader m = root.object("monte_carlo");
  s->monte_carlo_runs = static_cast<int>(m.positive_integer("runs", 100, 100000));
  s->seed = static_cast<std::uint64_t>(m.non_negative_integer("seed", 1, 1LL << 62));
  m.finish();

  // A detection that outlasts the run never ends it; a replica is whole nodes of the job.
  for (std::size_t i = 0; i < s->reliability.kinds.size(); ++i) {
    const workload::FailureKind& k = s->reliability.kinds[i];
    if (k.rate_per_hour > 0 && k.detection_s >= s->run_s)
      throw core::InputError(s->reliability.detection_from[i],
                             format_number(k.detection_s) +
                                 " s is not allowed; a detection time shorter than the run (" +
                                 format_number(s->run_s) + " s, /run_days)");
  }
  const int replicas = s->recovery.recovery.replicas;
  for (long long g : s->gpus)
    if (g % replicas != 0 || (g / replicas) % s->gpus_per_node != 0)
      throw core::InputError(s->recovery.replicas_pointer,
                             std::to_string(replicas) + " replicas is not allowed; they do not divide the " +
                                 std::to_string(g) + " GPUs into whole nodes of " + std::to_string(s->gpus_per_node));
  // A write that outlasts the run, or an interval below a second, is no checkpoint policy: their
  // figures would come out as 0 or not a number.
  const std::string checkpoint = root.pointer_of("checkpoint");
  if (!(s->checkpoint.write_s < s->run_s))
    throw core::InputError(checkpoint + (root.object("checkpoint").has("write_s") ? "/write_s" : "/write_Bps_per_gpu"),
                           "a write of " +
                               (std::isfinite(s->checkpoint.write_s) ? format_number(s->checkpoint.write_s) + " s"
                                                                     : std::string("no end")) +
                               " is not allowed; shorter than the run (" + format_number(s->run_s) + " s)");
  if (s->checkpoint.interval_s > 0 && s->checkpoint.interval_s < 1)
    throw core::InputError(checkpoint + "/interval_s", format_number(s->checkpoint.interval_s) +
                                                           " s is not allowed; at least 1 s (or 0: the best interval)");
  if (s->checkpoint.interval_s >= s->run_s)
    throw core::InputError(root.pointer_of("checkpoint") + "/interval_s",
                           format_number(s->checkpoint.interval_s) +
                               " s is not allowed; a checkpoint interval shorter than the run (" +
                               format_number(s->run_s) + " s)");

  // The Monte-Carlo steps from one event to the next: their count is refused before it runs.
  const std::string rates_pointer =
      root.has("reliability") ? root.pointer_of("reliability") : root.pointer_of("failure_rates_per_hour");
  for (const std::string& fabric : s->fabrics)
    for (long long g : s->gpus)
      for (workload::RecoveryStrategy strategy : s->recovery.strategies) {
        const workload::RunReliability run =
            s->run_on(components(g, s->gpus_per_node, s->radix, fabric == "mpft"), 0, strategy);
        const double per_run = workload::monte_carlo_events_per_run(run);
        const double events = per_run * s->monte_carlo_runs;
        if (events > workload::kMaxMonteCarloEvents)
          throw core::InputError(
              s->run_s > 3650 * 86400.0 ? root.pointer_of("run_days") : rates_pointer,
              format_number(per_run / (s->run_s / 3600)) + " events an hour on " + std::to_string(g) + " GPUs (" +
                  fabric + ") over " + format_number(s->run_s / 86400) + " days x " +
                  std::to_string(s->monte_carlo_runs) + " Monte-Carlo runs is not allowed: " + format_number(events) +
                  " events to simulate; at most " + format_number(workload::kMaxMonteCarloEvents) +
                  " (lower the rates, run_days or /monte_carlo/runs)");
      }
  return s;
}

}  // namespace studies
