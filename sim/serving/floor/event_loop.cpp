#include "serving/floor/event_loop.hpp"

#include <algorithm>
#include <cmath>

#include "serving/floor/arrivals.hpp"
#include "serving/floor/autoscaler.hpp"
#include "serving/floor/kv_transfer.hpp"
#include "serving/floor/unit_step.hpp"
#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

namespace {

std::vector<double> mtp_acceptance(const ServingConfig& c) {
  return {c.mtp_acceptance.begin(),
          c.mtp_acceptance.begin() + std::min<std::ptrdiff_t>(c.mtp_drafts, std::ssize(c.mtp_acceptance))};
}

}  // namespace

Floor::Floor(requests::RequestSource& source, const ServingConfig& config, const std::function<void(double)>& progress,
             const std::function<void(const RequestRecord&)>& on_record)
    : source(source),
      c(config),
      progress(progress),
      on_record(on_record),
      random(config.seed * 7 + 3),
      decode_steps(mtp_acceptance(config)),
      prefix(config.prefix_cache_blocks),
      scheduler(&scheduler_for(config.scheduler)) {
  series.interval_s = c.interval_s;
  // Room for about as many requests as the source expects, so the records are not moved as they grow.
  if (const long long n = source.expected_requests(); n > 0) {
    const auto room = static_cast<std::size_t>(
        std::min<double>(double(requests::kMaxRequests), double(n) + 6 * std::sqrt(double(n)) + 16));
    flights.reserve(room);
  }
  BySide<std::vector<Router::Slot>> slots;
  long long placed_gpus = 0;  // where the group being placed begins: groups take the GPUs in order
  auto add_units = [&](int count, const UnitConfig& unit_config, bool prefill_kind, bool decodes, Side side) {
    // Ranks that step on their own clocks are simulated as units of one rank each.
    const int ranks = unit_config.ranks_step_together ? unit_config.ranks() : 1;
    const int per_group = unit_config.ranks() / ranks;
    const long long group_gpus = 1LL * unit_config.deployment.gpus * unit_config.deployment.pipeline_stages;
    for (int i = 0; i < count * per_group; ++i) {
      if (i > 0 && i % per_group == 0) placed_gpus += group_gpus;
      if (i % per_group == 0)
        groups.push_back({prefill_kind ? Side::kPrefill : Side::kDecode, {}, UnitState::kServing});
      groups.back().units.push_back(static_cast<int>(units.size()));
      Unit u;
      u.group = static_cast<int>(groups.size()) - 1;
      u.prefill_kind = prefill_kind;
      u.decodes = decodes;
      u.config = &unit_config;
      if (decodes) u.boundaries = PageCalendar(decode_steps.mean_tokens(), 1 + c.mtp_drafts, c.page_tokens);
      u.ranks.resize(static_cast<std::size_t>(ranks));
      for (int r = 0; r < ranks; ++r) {
        auto& rank = u.ranks[static_cast<std::size_t>(r)];
        rank.pages_total =
            static_cast<int>(std::min<long long>(unit_config.memory.kv_group_tokens / c.page_tokens, INT_MAX));
        if (decodes) rank.decoding = DecodeBatch(decode_steps.mean_tokens(), 1 + c.mtp_drafts, c.page_tokens);
        rank.router_slot = static_cast<int>(slots[side].size());
        rank.nvlink_domain = nvlink_domain(c, unit_config, placed_gpus, i % per_group + r);
        slots[side].push_back({static_cast<int>(units.size()), r});
      }
      units.push_back(std::move(u));
    }
    if (count > 0) placed_gpus += group_gpus;
  };
  if (c.disaggregated) add_units(c.prefill_units, c.prefill, true, false, Side::kPrefill);
  // (Colocated: every unit computes prompts, and the prefill side's router places them.)
  add_units(c.decode_units, c.decode, false, true, c.disaggregated ? Side::kDecode : Side::kPrefill);
  const double pair_weight = prefill_config().cost ? prefill_config().cost->pair_weight() : 0.0;
  for (Side side : kSides) routers[side] = make_router(c.router, std::move(slots[side]), pair_weight);
  for (const auto& g : groups) {
    ++in_use[g.side];
    ++serving[g.side];
  }
  // Autoscaling: a side starts with its initial units serving, the rest off.
  BySide<int> seen;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const Side side = groups[g].side;
    const PhaseScaling& p = side == Side::kPrefill ? c.autoscaling.prefill : c.autoscaling.decode;
    if (p.enabled && seen[side]++ >= p.initial_units) set_state(*this, static_cast<int>(g), UnitState::kOff);
  }
  if (c.autoscaling.enabled()) push(c.autoscaling.interval_s, EventKind::kAutoscalerTick, 0);
  // Each arrival takes the next from the source, so the event queue holds what is in flight
  // rather than every request of the run.
  pull_next(*this);
}

Floor::~Floor() = default;

ServingResult run(Floor& f) {
  const ServingConfig& c = f.c;
  const double limit = c.drain_limit_s > 0 ? c.drain_limit_s : 10 * c.duration_s;
  while (!f.events.empty()) {
    const Event e = f.events.pop();
    if (e.t > limit) break;
    // The request of the event after this one, asked of the memory while this one is handled
    // (a KV cache's arrival reads its request's record, last read at its prompt's end).
    if (const Event* next = f.events.peek(); next && names_request(next->kind)) f.prefetch(next->who);
    if (c.interval_s > 0)
      f.series.account(f.result, e.t, f.in_use.prefill, f.in_use.decode, f.serving.prefill, f.serving.decode,
                       f.waiting_first);
    f.now = e.t;
    if (f.progress && ++f.handled % 4096 == 0) f.progress(f.now);
    switch (e.kind) {
      case EventKind::kArrival:
        arrive(f, e.who);
        break;
      case EventKind::kPromptReady:
        prompt_ready(f, e.who);
        break;
      case EventKind::kStepEnd:
        end_step(f, e.who);
        break;
      case EventKind::kTransferEnd:
        transfer_end(f, e.who);
        break;
      case EventKind::kSwapInEnd:
        swap_in_end(f, e.who);
        break;
      case EventKind::kAutoscalerTick:
        autoscaler_tick(f);
        break;
      case EventKind::kUnitStarted:
        if (f.groups[static_cast<std::size_t>(e.who)].state == UnitState::kStarting)
          set_state(f, e.who, UnitState::kServing);
        break;
    }
  }
  ServingResult& result = f.result;
  result.end_s = f.now;
  for (const InFlight& x : f.flights)
    if (x.state.phase != RequestPhase::kDone) {
      ++result.unfinished;
      if (f.on_record) f.on_record(x.record);
    }
  if (!f.on_record) {  // the records, by arrival
    result.requests.reserve(f.flights.size());
    for (const InFlight& x : f.flights) result.requests.push_back(x.record);
  }
  std::vector<InFlight>().swap(f.flights);
  result.prefill = f.series.prefill.finish();
  result.decode = f.series.decode.finish();
  if (c.trace_until_s > 0) result.trace_json = f.series.trace_json(result, c.disaggregated, c.trace_until_s);
  return std::move(result);
}

}  // namespace serving
