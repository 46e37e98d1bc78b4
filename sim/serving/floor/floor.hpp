#pragma once
// The serving floor: the state every room of a run reads and changes (its units and ranks, the
// requests in flight, the events, the routers, the fleet's groups and the result), with the
// small accessors they share. The rooms are free functions over it, one header each:
// event_loop (the spine), arrivals, prefill_rank, kv_transfer, decode_rank, preemption,
// unit_step, completions, autoscaler and fleet_series; the routers and the schedulers live in
// their own folders behind one interface each. sim/serving/README.md walks a request through
// them.
#include <array>
#include <climits>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "core/fast_random.hpp"
#include "requests/request_source.hpp"
#include "serving/containers/event_queue.hpp"
#include "serving/floor/fleet_series.hpp"
#include "serving/floor/rank.hpp"
#include "serving/floor/request_state.hpp"
#include "serving/percentile_sketch.hpp"
#include "serving/prefix_cache.hpp"
#include "serving/routers/router.hpp"
#include "serving/serving_config.hpp"
#include "serving/serving_result.hpp"

namespace serving {

class RankScheduler;

// What happens next on the floor. Arrivals come in order (the source's), and prompts ready at
// once in the order they arrive: each of those two kinds has a lane of its own beside the heap.
enum class EventKind : std::int8_t {
  kArrival,         // a request reaches the engine
  kPromptReady,     // its prompt can be scheduled (after a prefix-cache hit held outside HBM is read in)
  kStepEnd,         // a unit's step ends
  kTransferEnd,     // a KV cache has moved from its prefill rank to its decode rank
  kSwapInEnd,       // a swapped-out KV cache is back in HBM
  kAutoscalerTick,  // the autoscaler looks at the last interval
  kUnitStarted,     // a unit the autoscaler started is up
};

struct Event {
  double t;
  long long seq;
  EventKind kind;
  int who;  // the request, or the unit (a step's end), or the group (a unit started)
  bool operator>(const Event& o) const {
    return (t > o.t) | ((t == o.t) & (seq > o.seq));
  }  // (no branch: see EventQueue)
};
using Events = EventQueue<Event, 2>;

// Whether an event's `who` is a request (its record is then read as it is handled).
inline bool names_request(EventKind kind) {
  return kind == EventKind::kArrival || kind == EventKind::kPromptReady || kind == EventKind::kTransferEnd ||
         kind == EventKind::kSwapInEnd;
}

// The two sides of the floor, prefill and decode (colocated: every unit is on the decode side).
enum class Side : std::uint8_t { kPrefill, kDecode };
template <class T>
struct BySide {
  T prefill{}, decode{};
  T& operator[](Side s) { return s == Side::kPrefill ? prefill : decode; }
  const T& operator[](Side s) const { return s == Side::kPrefill ? prefill : decode; }
};
inline constexpr std::array kSides{Side::kPrefill, Side::kDecode};

// Autoscaling's view: a deployment's unit (a group of floor units where its DP ranks step alone).
enum class UnitState { kServing, kStarting, kDraining, kOff };
struct Group {
  Side side;
  std::vector<int> units;
  UnitState state;
};

// A unit's step in the making: the scratch its stages share, kept between steps so that none
// is allocated again (unit_step.cpp).
struct PageBoundaryScratch {
  std::vector<PageBoundary> boundaries, due, joined;  // a unit's page boundaries at a step, a rank's, and its joins'
  // A rank's boundaries at its unit's step: how many, the pages they add, and whether they are
  // taken one by one (in its turn) rather than together.
  struct RankDue {
    int count = 0;
    bool one_by_one = false;
    long long step = 0;   // the rank's step
    long long extra = 0;  // pages
  };
  std::vector<RankDue> due_of_rank;
  struct Renewed {
    int room, pages;
  };
  std::vector<Renewed> renewed;                  // by boundary: its room and pages past this step
  std::vector<int> first_of_rank, next_of_rank;  // the unit's boundaries, linked by rank (those taken one by one)
};

// A unit's batches at its step's end: the sequences that got their first token or finished
// (slot, request), and for each batch its tokens and its share of them.
struct StepEndScratch {
  std::vector<int> first_tokens, finished;  // a decoding batch's
  struct Ended {
    int slot, id;
  };
  struct BatchEnd {
    double produced;
    std::size_t from, first_tokens, finished;
  };
  std::vector<Ended> ended;
  std::vector<BatchEnd> batch_ends;
};

struct Floor {
  Floor(requests::RequestSource& source, const ServingConfig& config, const std::function<void(double)>& progress,
        const std::function<void(const RequestRecord&)>& on_record);
  ~Floor();

  requests::RequestSource& source;
  const ServingConfig& c;
  std::function<void(double)> progress;
  std::function<void(const RequestRecord&)> on_record;  // streamed records: a finished request's place is taken again
  core::FastNormal random;
  DecodeSteps decode_steps;
  PrefixCache prefix;
  const RankScheduler* scheduler = nullptr;  // colocated units' (schedulers/)

  // Requests.
  std::vector<InFlight> flights;  // by request id (streamed: a finished request's place is taken again)
  std::vector<int> free_ids;      // streamed: finished requests' places
  std::vector<requests::Request>
      arriving;  // requests pulled, not yet arrived (RequestState::arriving), and free places
  std::vector<int> arriving_free;
  long long waiting_first = 0;  // arrived, no first token yet

  // Units, their ranks' routers, and the events.
  std::vector<Unit> units;
  BySide<std::unique_ptr<Router>> routers;
  Events events;
  long long seq = 0, handled = 0;
  double now = 0;
  double token_lag_s =
      0;  // at a step's end under an overlapping engine: the step that ended (its tokens come after the next)
  std::vector<int> units_to_start,
      units_to_start_now;  // decode units a finished prompt or a transfer may start (two buffers)
  PageBoundaryScratch pages;
  StepEndScratch ends;

  // The fleet: groups of units by side, as autoscaling sees them, and the series.
  std::vector<Group> groups;
  BySide<int> in_use, serving, starting_units;  // groups by side
  double look_clock_s = 0;
  BySide<double> look_serving_s, look_busy_s;
  BySide<double> last_change_s{-1e300, -1e300};
  BySide<PercentileSketch> look_latency;
  FleetSeries series;
  ServingResult result;

  // Accessors the rooms share.
  RequestState& state(int id) { return flights[static_cast<std::size_t>(id)].state; }
  const RequestState& state(int id) const { return flights[static_cast<std::size_t>(id)].state; }
  RequestRecord& record(int id) { return flights[static_cast<std::size_t>(id)].record; }
  Unit& unit(int u) { return units[static_cast<std::size_t>(u)]; }
  Rank& rank_of(int u, int r) { return units[static_cast<std::size_t>(u)].ranks[static_cast<std::size_t>(r)]; }
  const UnitConfig& prefill_config() const { return c.disaggregated ? c.prefill : c.decode; }
  // Whether the unit computes prompts: a prefill unit, or any unit of a colocated deployment.
  bool prefills(const Unit& unit) const { return unit.prefill_kind || !c.disaggregated; }
  Router& router_of(const Unit& unit) { return *routers[prefills(unit) ? Side::kPrefill : Side::kDecode]; }
  bool measuring(double t) const { return t >= c.warmup_s && t <= c.duration_s; }
  long long pages_for(const UnitConfig& config, long long tokens) const {
    return config.memory.kv_pages.pages(tokens, c.page_tokens);
  }
  // Tokens a sequence's pages hold once it has `tokens`: it takes pages again only past them.
  int room_for(long long tokens) const { return static_cast<int>(page_room(tokens, c.page_tokens)); }
  FleetInterval& interval(double t) { return series.interval(result, t); }

  void push(double t, EventKind kind, int who) {
    const int lane = kind == EventKind::kArrival ? 0 : kind == EventKind::kPromptReady ? 1 : Events::kHeap;
    events.push({t, seq++, kind, who}, lane);
  }
  // A request's two cache lines asked of the memory ahead of their use.
  void prefetch(int id) const {
    const char* f = reinterpret_cast<const char*>(&flights[static_cast<std::size_t>(id)]);
    __builtin_prefetch(f);
    __builtin_prefetch(f + 64);
  }
};

// The rank's load changed: its router hears of it. A unit not serving is never chosen.
inline void tell_router(Floor& f, int u, Rank& rank) {
  const Unit& unit = f.unit(u);
  const bool prefill = f.prefills(unit);
  Router& router = f.router_of(unit);
  rank.unheard = false;
  if (!router.hears_loads()) return;
  router.tell(rank.router_slot, unit.serving ? router.load(rank, prefill) : Router::kClosed);
  rank.pages_told_below = unit.serving ? router.pages_told_below(rank, prefill) : LLONG_MAX;
}

// Query-key pairs still to compute for a prompt of `prompt` tokens with `in_kv` in its cache.
inline double pairs_left(int prompt, int in_kv) { return 0.5 * (double(prompt) * prompt - double(in_kv) * in_kv); }

}  // namespace serving
