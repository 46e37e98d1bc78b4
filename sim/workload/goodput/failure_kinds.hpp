#pragma once
// Failure kinds by GPU generation, read from data/reliability/*.json: for each kind (a GPU, its
// HBM, a host, a NIC, a switch, a link, software, a hang, a silent data corruption, planned
// maintenance) the component it strikes, its rate per component and hour, how long the job takes
// to learn of it, how it recovers and what it rolls back to, each figure with its source; and
// the generation's fail-slow episodes and manual-intervention tail.
#include <string>
#include <vector>

#include "core/json_reader.hpp"
#include "workload/goodput/goodput_run.hpp"

namespace workload {

// What a kind's rate is per: a cluster has so many of each.
// kLink: every cable, NIC to leaf included; kSwitchLink: switch-to-switch cables only (a NIC's own
// cable counted with the NIC).
enum class Component { kGpu, kNode, kNic, kLink, kSwitchLink, kSwitch, kJob };

struct FailureKind {
  std::string name;
  Component component = Component::kNode;
  double rate_per_hour = 0;  // per component
  double detection_s = 0;
  RecoveryPath path = RecoveryPath::kSwap;
  Rollback rollback = Rollback::kLastCheckpoint;
  bool per_replica = true;     // scope "replica": inside one data-parallel replica
  bool network = false;        // a fabric fault that failover (PXN, rerouting) can ride through
  bool while_running = false;  // the job's processes' (software, a hang, a corruption), not a part's
};

struct ReliabilityData {
  std::string name;  // "h100"
  std::string gpu;
  std::vector<std::string> notes;  // why these rates: the cluster chosen, by argument from the sources
  std::vector<FailureKind> kinds;
  double fail_slow_rate_per_node_hour = 0;
  FailSlow fail_slow;  // its rate_per_s and exclude_after_s left 0: the job's to set
  double manual_fraction = 0, manual_s = 0;
  // Planned changes of code or data, as a share of all the job's stops (each a checkpoint first).
  double code_data_share = 0;
  // The restart's parts where a scenario gives them by part and leaves one out.
  double comm_init_s_per_gpu = 0;  // communicator initialisation, in proportion to the job's GPUs
  double image_s = 0, warmup_s = 0;
  double peer_read_Bps_per_gpu = 0;  // a checkpoint read back from a peer's host memory
  // Stragglers: the share of throughput a job loses to slow steps beside its stops and its
  // fail-slow nodes (stage imbalance, sequence lengths, pauses), in [0, 1).
  double straggler_loss = 0;
};

// A share (of stops, as a planned-stop share; of throughput): from 0 to below 1 (at 1 every stop
// would be planned, their rate without end; no throughput left). Throws InputError naming `key`
// and `what` the share is otherwise.
double read_stop_share(core::JsonReader& r, const std::string& key, const std::string& what);

const ReliabilityData& reliability_by_name(const std::string& name, const std::string& where = "");
std::vector<std::string> reliability_names();

const std::vector<std::string>& component_names();      // "gpu", "node", "nic", "link", "switch-link", "switch", "job"
const std::vector<std::string>& recovery_path_names();  // "in-place", "swap", "requeue"
const std::vector<std::string>& rollback_names();       // "last-checkpoint", "before-corruption", "none"
Component component_named(const std::string& name);     // one of component_names()
RecoveryPath recovery_path_named(const std::string& name);  // one of recovery_path_names()
Rollback rollback_named(const std::string& name);           // one of rollback_names()

}  // namespace workload
