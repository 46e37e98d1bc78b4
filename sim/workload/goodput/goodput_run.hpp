#pragma once
// A long training run under failures, as the goodput methods (closed form, Monte-Carlo) read it:
// the failure processes that reach the job, how it checkpoints, how it recovers, its fail-slow
// episodes; and what they report: the effective training time ratio (ETTR) and the loss by cause.
#include <string>
#include <vector>

namespace workload {

// How the job comes back after a failure stops it.
enum class RecoveryPath {
  kInPlace,  // processes relaunched on the same nodes
  kSwap,     // the failed node swapped for a hot spare (a re-queue when none is ready)
  kRequeue,  // the job rescheduled by the cluster's scheduler
};

// What a stop rolls the job back to.
enum class Rollback {
  kLastCheckpoint,    // the last checkpoint on storage
  kBeforeCorruption,  // the last one written before a silent corruption, found detection_s later
  kNone,              // planned: a checkpoint is written before the stop
};

struct FailureProcess {
  std::string kind;
  double rate_per_s = 0;   // in the whole job
  double detection_s = 0;  // the job waits this long to learn of it (a corruption: trains on, in vain)
  RecoveryPath path = RecoveryPath::kSwap;
  Rollback rollback = Rollback::kLastCheckpoint;
  bool per_replica = true;     // inside one data-parallel replica: per-replica fault tolerance contains it
  bool while_running = false;  // strikes the job's processes (software, a hang), not a part: never while it is down
};

struct Checkpointing {
  double interval_s = 0;  // of training between checkpoints; 0: the best
  double write_s = 0;     // to write one to where it is kept
  bool async = false;     // a stall of stall_s (a snapshot to host memory), then the write overlaps training
  double stall_s = 0;
  // In memory (asynchronous, as Gemini and in-memory checkpointing do it): every snapshot stays in
  // host memory, usable once its stall ends, and only every `storage_every`-th is written to
  // storage. A failure rolls back to the copy in memory unless it took it: a node swapped out
  // takes its own (not where `memory_peers` other nodes hold copies), a re-queue takes them all.
  bool in_memory = false;
  int storage_every = 1;
  int memory_peers = 0;
  double stall() const { return async ? stall_s : write_s; }
  // Snapshots per one written to storage: storage_every in memory, else every one.
  int snapshots_per_write() const { return in_memory ? storage_every : 1; }
  // From a checkpoint's snapshot to the moment a restart can use it from storage, past its stall.
  double durable_lag_s() const { return async ? write_s : 0; }
  // Whether a failure recovered by `path` can roll back to the snapshot in memory.
  bool memory_survives(RecoveryPath path) const {
    return in_memory && (path == RecoveryPath::kInPlace || (path == RecoveryPath::kSwap && memory_peers > 0));
  }
};

enum class RecoveryStrategy {
  kRestart,     // every failure stops the whole job, which rolls back to its last checkpoint
  kPerReplica,  // a failure in one DP replica stalls the job for its detection only; that replica
                // recovers from its peers while the others train on (HSDP-style fault tolerance)
  kElastic,     // as kRestart, but with no spare the job shrinks by a replica rather than re-queue
};

struct Recovery {
  RecoveryStrategy strategy = RecoveryStrategy::kRestart;
  int replicas = 1;  // data-parallel replicas, the unit per-replica recovery and shrink work in
  // Every recovery beyond its path: the image and dependencies, communicator initialisation and
  // warm-up (given whole, their sum), and the checkpoint read back, from storage or from host
  // memory (the node's own or a peer's; a replica recovering from its peers reads theirs).
  double restart_s = 0;
  double image_s = 0, comm_init_s = 0, warmup_s = 0;  // restart_s's parts, when given by part
  double storage_read_s = 0, memory_read_s = 0;
  double in_place_s = 0;  // relaunching on the same nodes
  double swap_s = 0;      // bringing in a hot spare
  double requeue_s = 0;   // waiting for the scheduler: no spare ready, or a requeue path
  double repair_s = 0;    // a failed node's way back into the spare pool
  int spare_nodes = 0;
  double manual_fraction = 0;  // unplanned stops that need an operator
  double manual_s = 0;         // their mean extra time (exponential)
};

// Fail-slow: a node that computes slower for a while (a throttled GPU, a flapping link). A
// synchronous step runs at its slowest rank's pace, so the whole job slows by the worst slowdown
// under way. After exclude_after_s the slow node is swapped out as a planned stop.
struct FailSlow {
  double rate_per_s = 0;                      // episodes starting in the job
  double min_s = 0, max_s = 0;                // log-uniform durations
  double slowdown_min = 1, slowdown_max = 1;  // uniform: 1.5 computes in 1.5x the time
  double exclude_after_s = 0;                 // 0: never excluded
};

struct RunReliability {
  std::vector<FailureProcess> failures;
  Checkpointing checkpoint;
  Recovery recovery;
  FailSlow fail_slow;
  double run_s = 0;  // wall-clock length of the run
};

// Wall time not turned into kept training, in seconds a day of the whole job (a replica out
// for an hour costs 1 / replicas hour).
struct LossByCause {
  double detection = 0;   // stalled until the failure is known (a hang: the watchdog's timeout)
  double restart = 0;     // relaunch, swap, reload, warm-up, operators
  double lost_work = 0;   // training since the checkpoint rolled back to
  double checkpoint = 0;  // checkpoint stalls, and writes before planned stops
  double spares = 0;      // waiting for a node: re-queues with no spare, a shrunk job
  double fail_slow = 0;   // steps at a slow node's pace
  double total() const { return detection + restart + lost_work + checkpoint + spares + fail_slow; }
};

struct GoodputEstimate {
  double checkpoint_interval_s = 0;  // the one used (the best, when asked for)
  double interruptions_per_day = 0;  // job stops and replica recoveries, fail-slow exclusions included
  // The same by failure process (as RunReliability::failures lists them), the exclusions apart;
  // and the fail-slow episodes that end without stopping anything.
  std::vector<double> interruptions_per_day_by_process;
  double exclusions_per_day = 0;
  double fail_slow_episodes_per_day = 0;
  double job_stops_per_day = 0;  // those that stop the whole job
  double ettr = 0;               // effective training time ratio: kept training over wall time
  LossByCause loss_s_per_day;
  double spare_empty_probability = 0;  // that a node failure finds no spare (Erlang B)
  // The Monte-Carlo's alone:
  double ettr_sd = 0;
  double requeues_per_day = 0;
  int runs = 0;
  // Job mean time to interruption: between stops of the whole job (a replica's recovery under
  // per-replica fault tolerance does not interrupt it); 0 with none.
  double mtti_h() const { return job_stops_per_day > 0 ? 24 / job_stops_per_day : 0; }
};

}  // namespace workload
