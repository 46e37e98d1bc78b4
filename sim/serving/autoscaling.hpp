#pragma once
// Autoscaling a serving fleet, per phase (prefill units, decode units), as operators run it: every
// `interval_s` the policy looks at the last interval and sets how many units the phase should
// have. Utilisation above `scale_up_above` (or a queue or latency beyond its limit) adds units,
// enough to bring it to `target_utilisation`; below `scale_down_below` removes them, towards the
// same target but at most a tenth of them (at least one) a look. A unit added serves after its `startup_s` (boot,
// weight load, warm-up); a unit removed first drains: it takes no new requests and is off once its last one has left.
// After a phase changes, it holds for `cooldown_s`. A prefill unit steps whenever it holds a prompt, however few, so
// its time stepping says little of its headroom: it may scale on its latency instead.
namespace serving {

struct PhaseScaling {
  bool enabled = false;
  int min_units = 1, max_units = 1;
  int initial_units = 1;
  double target_utilisation = 0.7;
  double scale_up_above = 0.85, scale_down_below = 0.5;
  double max_queue_per_unit = 0;  // requests waiting per unit that add one (0: not a trigger)
  double max_latency_p90_s = 0;   // TTFT p90 (prefill) or TPOT p90 (decode) that adds one (0: not a trigger)
  // Scaled on latency rather than utilisation: a tenth more units (at least one) while the p90
  // passes max_latency_p90_s or the queue its limit, one fewer while the p90 is below this share of it.
  bool on_latency = false;
  double latency_down_below = 0.5;
  double startup_s = 0;  // from the decision to a unit serving
};

struct Autoscaling {
  PhaseScaling prefill, decode;  // colocated: `decode` scales the units
  double interval_s = 60;
  double cooldown_s = 300;
  bool enabled() const { return prefill.enabled || decode.enabled; }
};

// What the policy saw of a phase over its last interval.
struct PhaseObservation {
  int units = 0;  // serving or starting (the capacity already decided)
  double utilisation =
      0;  // of the units serving: prefill, the share of time stepping; decode, of sequence slots and KV pages in use
  double queue_per_unit = 0;  // requests waiting, per unit serving
  double latency_p90_s = 0;   // NaN where no request gave one
};

// The units the phase should have.
int desired_units(const PhaseScaling& policy, const PhaseObservation& seen);

}  // namespace serving
