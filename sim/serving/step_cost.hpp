#pragma once
// The time of one step of a serving unit, from workload::serving_step (the kernel models, the EP
// all-to-all, the memory-bound kernels, micro-batch overlap) for the busiest attention group's
// load and the unit's tokens. A simulated hour takes hundreds of thousands of steps, so times are
// kept by their inputs rounded to a grid: whole numbers up to 32, then 32 points per doubling
// (each input within 1.1% of its own); each grid point is computed once, directly. The all-to-all
// is kept by tokens per micro-batch (its routing and flows do not depend on the context).
#include <array>
#include <unordered_map>

#include "workload/inference/inference.hpp"

namespace serving {

struct StepLoad {
  workload::GroupLoad busiest;  // the DP rank (attention group) that gates the step
  long long unit_tokens = 0;    // new tokens of the whole unit
  bool prefill = false;         // the step computes prefill tokens
  int mtp_drafts = 0;           // decode verifies this many drafted tokens per sequence and drafts as many
};

class StepCost {
 public:
  StepCost(const workload::Model& model, const workload::Roofline& roofline, const workload::ServingDeployment& unit,
           const workload::ServingLinks& links, const workload::ServingRequest& base, const net::Cluster* flow_on);

  double seconds(const StepLoad& load);  // on the grid, kept
  // The parts of the step `seconds` last timed (kept with it), for the mean of the steps' parts.
  const workload::ServingStepBreakdown& last_parts() const { return *last_parts_; }
  double direct_seconds(const StepLoad& load);  // as given, not kept
  workload::ServingStep step(const StepLoad& load,
                             bool keep_graph = true);  // the whole step as given, for its breakdown

  // Which DP rank gates a step is found by a proxy of each rank's attention time, in new tokens
  // through the projections: what a token of KV cache read and a query-key pair of prefill cost
  // against that (one layer, from the roofline).
  double kv_token_weight() const { return kv_token_weight_; }
  double pair_weight() const { return pair_weight_; }

  long long computed() const { return computed_; }
  long long looked_up() const { return looked_up_; }

  static double on_grid(double x);

 private:
  const workload::Model& model_;
  workload::Roofline roofline_;
  workload::ServingDeployment unit_;
  workload::ServingLinks links_;
  workload::ServingRequest base_;
  const net::Cluster* flow_on_;
  workload::AllToAllCache alltoall_;
  struct KeyHash {
    std::size_t operator()(const std::array<double, 8>& k) const;
  };
  struct Kept {
    double seconds;
    workload::ServingStepBreakdown parts;
  };
  std::unordered_map<std::array<double, 8>, Kept, KeyHash> kept_;
  const workload::ServingStepBreakdown* last_parts_ = nullptr;
  long long computed_ = 0, looked_up_ = 0;
  double kv_token_weight_ = 0, pair_weight_ = 0;
};

}  // namespace serving
