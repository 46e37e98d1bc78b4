#pragma once
// A training-run scenario's reliability: its failure kinds (a GPU generation's data file,
// data/reliability/*.json, with per-kind overrides, or the older per-component rates), fail-slow
// episodes, manual interventions, checkpoints and recovery:
//   "reliability": {"data": "h100", "kinds": {"hang": {"detection_s": 300}},
//                   "fail_slow": {"exclude_after_s": 600}, "manual_intervention": {...},
//                   "planned": {"code_data_share": 0.173}, "stragglers": {"throughput_loss": 0.104},
//                   "throughput_losses": false (neither fail-slow nor stragglers), "sources": "..."},
//   "checkpoint": {"interval_s": 0, "write_s": 30 | "size_bytes_per_gpu" + "write_Bps_per_gpu",
//                  "async": true, "stall_s": 2 | "snapshot_Bps_per_gpu"},
//   "recovery": {"strategies": ["restart", "per-replica", "elastic"], "replicas": 8, "restart_s": 600,
//                "in_place_s": 60, "swap_s": 300, "requeue_s": 1800, "repair_s": 86400}
//   or, the restart by part, each left out the data file's:
//   "recovery": {"restart_parts": {"image_s": 180, "comm_init_s": 40, "warmup_s": 60,
//                "read_Bps_per_gpu": 1.25e8, "peer_read_Bps_per_gpu": 1e10}, ...}
#include <optional>
#include <string>
#include <vector>

#include "core/json_reader.hpp"
#include "workload/goodput/failure_kinds.hpp"
#include "workload/goodput/goodput_run.hpp"

namespace studies {

struct ReliabilityConfig {
  std::vector<workload::FailureKind> kinds;  // rates per component and hour
  std::vector<std::string> detection_from;   // where each kind's detection time was given
  double fail_slow_rate_per_node_hour = 0;
  workload::FailSlow fail_slow;  // its rate_per_s set per cluster
  double manual_fraction = 0, manual_s = 0;
  double code_data_share = 0;  // planned changes of code or data: their share of the job's stops
  double straggler_loss = 0;   // throughput lost to stragglers, beside the stops and fail-slow
  std::string data;            // the data file's name; empty for per-component rates
  std::string sources;         // the scenario's own sources, for the notes
};

// Reads "reliability", or the older "failure_rates_per_hour" ({gpu, node, nic, link, switch}:
// a node lost for a GPU or node failure, a restart in place for the network's), never both.
ReliabilityConfig read_reliability(core::JsonReader& root);

workload::Checkpointing read_checkpoint(core::JsonReader& root);

// The restart given by part (/recovery/restart_parts); a part left out is the data file's.
struct RestartPartsConfig {
  std::optional<double> image_s, comm_init_s, warmup_s;
  std::optional<double> read_Bps_per_gpu;       // from storage; else at the write's bandwidth
  std::optional<double> peer_read_Bps_per_gpu;  // from a peer's host memory
};

struct RecoveryConfig {
  workload::Recovery recovery;              // strategy set per row
  std::optional<RestartPartsConfig> parts;  // else restart_s, given whole
  std::string parts_pointer;
  std::vector<workload::RecoveryStrategy> strategies;
  std::string replicas_pointer;
};
RecoveryConfig read_recovery(core::JsonReader& root);

const char* strategy_name(workload::RecoveryStrategy s);

}  // namespace studies
