#include "serving/autoscaling.hpp"

#include <algorithm>
#include <cmath>

namespace serving {

int desired_units(const PhaseScaling& p, const PhaseObservation& o) {
  const bool queue_high = p.max_queue_per_unit > 0 && o.queue_per_unit > p.max_queue_per_unit;
  const bool latency_high = p.max_latency_p90_s > 0 && o.latency_p90_s > p.max_latency_p90_s;
  // The units that would run at the target utilisation.
  const int at_target = static_cast<int>(std::ceil(double(o.units) * o.utilisation / p.target_utilisation - 1e-9));
  // Fewer units make each busier than in proportion (a decode rank's batch slows its steps, so its
  // sequences stay longer): a look removes at most a tenth of them, at least one.
  const int step_down = std::max(1, o.units / 10);
  int units = o.units;
  if (p.on_latency) {
    const bool low = !(o.latency_p90_s > p.latency_down_below * p.max_latency_p90_s) && !queue_high;  // no request: low
    if (latency_high || queue_high)
      units = o.units + std::max(1, static_cast<int>(std::ceil(0.1 * o.units)));
    else if (low)
      units = o.units - 1;
    return std::clamp(units, p.min_units, p.max_units);
  }
  if (o.utilisation > p.scale_up_above || queue_high || latency_high)
    units = std::max(o.units + 1, at_target);
  else if (o.utilisation < p.scale_down_below)
    units = std::min(o.units, std::max(at_target, o.units - step_down));
  return std::clamp(units, p.min_units, p.max_units);
}

}  // namespace serving
