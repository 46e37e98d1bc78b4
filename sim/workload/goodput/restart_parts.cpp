#include "workload/goodput/restart_parts.hpp"

#include "workload/goodput/closed_form.hpp"
#include "workload/goodput/fail_slow.hpp"

namespace workload {

namespace {

void add(RestartByPart& to, const RunReliability& r, const FailureProcess& p, double weight) {
  const Recovery& rec = r.recovery;
  const double read = restart_s_of(r, p) - rec.restart_s;
  // Given whole, the restart has no parts but its read.
  const double rest = rec.restart_s - (rec.image_s + rec.comm_init_s + rec.warmup_s);
  to.path += weight * path_s(rec, p.path);
  to.image += weight * rec.image_s;
  to.whole += weight * rest;
  to.comm_init += weight * rec.comm_init_s;
  to.checkpoint_read += weight * read;
  to.warmup += weight * rec.warmup_s;
  if (p.rollback != Rollback::kNone) to.operators += weight * rec.manual_fraction * rec.manual_s;
}

}  // namespace

RestartByPart restart_by_part(const RunReliability& r, double restart_loss) {
  RestartByPart w;
  auto weigh = [&](const FailureProcess& p, double rate) {
    add(w, r, p, rate * (contained_to_replica(r.recovery, p) ? 1.0 / r.recovery.replicas : 1.0));
  };
  for (const FailureProcess& p : r.failures) weigh(p, p.rate_per_s);
  weigh(FailureProcess{"fail-slow exclusion", 0, 0, RecoveryPath::kSwap, Rollback::kNone, true},
        r.fail_slow.rate_per_s * fail_slow_excluded_share(r.fail_slow));
  const double total = w.total();
  if (total <= 0) return {};
  const double k = restart_loss / total;
  return {k * w.path, k * w.image, k * w.comm_init, k * w.checkpoint_read, k * w.warmup, k * w.operators, k * w.whole};
}

}  // namespace workload
