#include "serving/floor/autoscaler.hpp"

#include <algorithm>

#include "serving/floor/unit_step.hpp"

namespace serving {

namespace {

const PhaseScaling& policy(const Floor& f, Side side) {
  return side == Side::kPrefill ? f.c.autoscaling.prefill : f.c.autoscaling.decode;
}

// The serving units' unit-seconds since the autoscaler last looked.
void account_serving(Floor& f) {
  for (Side side : kSides) f.look_serving_s[side] += f.serving[side] * (f.now - f.look_clock_s);
  f.look_clock_s = f.now;
}

bool empty(const Unit& unit) {
  if (unit.busy) return false;
  for (const auto& rank : unit.ranks)
    if (!rank.waiting.empty() || !rank.incoming.empty() || !rank.swapped.empty() || !rank.prefilling.empty() ||
        !rank.decoding.empty() || rank.transferring > 0 || rank.pages_used > 0)
      return false;
  return true;
}

// Requests waiting in a side's serving units.
double queued(const Floor& f, Side side) {
  double n = 0;
  for (const auto& g : f.groups)
    if (g.side == side && g.state == UnitState::kServing)
      for (int u : g.units)
        for (const auto& rank : f.units[static_cast<std::size_t>(u)].ranks)
          n += double(rank.waiting.size() + rank.incoming.size() + rank.swapped.size());
  return n;
}

// From `have` groups serving or starting to `want`.
void resize(Floor& f, Side side, int have, int want) {
  auto find = [&](UnitState st) {
    int best = -1;
    double fewest = 0;
    for (std::size_t g = 0; g < f.groups.size(); ++g) {
      const Group& group = f.groups[g];
      if (group.side != side || group.state != st) continue;
      double n = 0;
      if (st == UnitState::kServing)
        for (int u : group.units)
          for (const auto& rank : f.units[static_cast<std::size_t>(u)].ranks)
            n += rank.running() + double(rank.waiting.size() + rank.incoming.size());
      if (best < 0 || n < fewest) {
        best = static_cast<int>(g);
        fewest = n;
      }
    }
    return best;
  };
  for (; have < want; ++have, ++f.result.scale_ups) {
    if (const int g = find(UnitState::kDraining); g >= 0) {
      set_state(f, g, UnitState::kServing);
    } else if (const int off = find(UnitState::kOff); off >= 0) {
      set_state(f, off, UnitState::kStarting);
      f.push(f.now + policy(f, side).startup_s, EventKind::kUnitStarted, off);
    } else {
      break;
    }
  }
  for (; have > want && f.serving[side] + f.starting_units[side] > 1; --have, ++f.result.scale_downs) {
    const int g = find(UnitState::kStarting);
    set_state(f, g >= 0 ? g : find(UnitState::kServing), g >= 0 ? UnitState::kOff : UnitState::kDraining);
  }
}

}  // namespace

void set_state(Floor& f, int g, UnitState to) {
  Group& group = f.groups[static_cast<std::size_t>(g)];
  if (group.state == to) return;
  account_serving(f);
  const Side side = group.side;
  const auto counts = [&](UnitState st, int sign) {
    if (st != UnitState::kOff) f.in_use[side] += sign;
    if (st == UnitState::kServing) f.serving[side] += sign;
    if (st == UnitState::kStarting) f.starting_units[side] += sign;
  };
  counts(group.state, -1);
  counts(to, +1);
  group.state = to;
  if (f.c.interval_s > 0) {
    FleetInterval& i = f.interval(f.now);
    i.prefill_peak = std::max(i.prefill_peak, f.in_use.prefill);
    i.decode_peak = std::max(i.decode_peak, f.in_use.decode);
  }
  for (int u : group.units) {
    Unit& unit = f.unit(u);
    unit.serving = to == UnitState::kServing;
    for (auto& rank : unit.ranks) tell_router(f, u, rank);
  }
  if (to == UnitState::kServing)
    for (int u : group.units) start_step(f, u);
  if (to == UnitState::kDraining) retire_if_drained(f, g);
}

void retire_if_drained(Floor& f, int g) {
  const Group& group = f.groups[static_cast<std::size_t>(g)];
  if (group.state != UnitState::kDraining) return;
  for (int u : group.units)
    if (!empty(f.unit(u))) return;
  set_state(f, g, UnitState::kOff);
}

void autoscaler_tick(Floor& f) {
  account_serving(f);
  for (Side side : kSides) {
    const PhaseScaling& p = policy(f, side);
    PhaseObservation seen;
    seen.units = f.serving[side] + f.starting_units[side];
    seen.utilisation = f.look_serving_s[side] > 0 ? f.look_busy_s[side] / f.look_serving_s[side] : 0;
    seen.queue_per_unit = queued(f, side) / std::max(1, f.serving[side]);
    seen.latency_p90_s = f.look_latency[side].percentile(90);
    f.look_busy_s[side] = f.look_serving_s[side] = 0;
    f.look_latency[side] = PercentileSketch();
    if (!p.enabled || f.now - f.last_change_s[side] < f.c.autoscaling.cooldown_s) continue;
    const int want = desired_units(p, seen);
    if (want != seen.units) {
      resize(f, side, seen.units, want);
      f.last_change_s[side] = f.now;
    }
  }
  if (f.now + f.c.autoscaling.interval_s < f.c.duration_s)
    f.push(f.now + f.c.autoscaling.interval_s, EventKind::kAutoscalerTick, 0);
}

}  // namespace serving
