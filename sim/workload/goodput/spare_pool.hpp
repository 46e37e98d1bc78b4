#pragma once
// The hot spares of a job. The job holds its N nodes and S spares; a node failure takes a spare
// when one is ready and sends the failed node to repair, after which it refills the pool. A
// failure that finds none is blocked: the job waits for a node from the cluster at large (a
// re-queue), or shrinks, and the blocked failure's own node, once repaired, goes back to where
// the job's replacement came from, never into the pool. So the pool never holds more than S and
// the job never more than N + S nodes: an Erlang loss system, whose blocking is Erlang's B
// formula whatever the repair time's distribution. (Returning a blocked failure's node to the
// pool as well would let the job hold more than N + S nodes, and its blocking would fall below
// Erlang B's.)
#include <functional>
#include <queue>
#include <vector>

namespace workload {

// The chance that a node failure finds no spare: failures arrive at `rate_per_s`, each takes a
// spare for `repair_s`.
double no_spare_probability(double rate_per_s, double repair_s, int spares);

class SparePool {
 public:
  SparePool(int spares, double repair_s) : ready_(spares), repair_s_(repair_s) {}
  // At `now_s`: refills the pool from the repairs done, then takes a spare if one is ready (its
  // failed node starts its repair). False: blocked.
  bool take(double now_s) {
    while (!back_s_.empty() && back_s_.top() <= now_s) {
      back_s_.pop();
      ++ready_;
    }
    if (ready_ == 0) return false;
    --ready_;
    back_s_.push(now_s + repair_s_);
    return true;
  }

 private:
  int ready_;
  double repair_s_;
  std::priority_queue<double, std::vector<double>, std::greater<>> back_s_;  // when nodes in repair return
};

}  // namespace workload
