#include "serving/serving_simulation.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>

#include "core/fast_random.hpp"
#include "requests/listed_source.hpp"
#include "serving/decode_batch.hpp"
#include "serving/event_queue.hpp"
#include "serving/id_queue.hpp"
#include "serving/least_loaded.hpp"
#include "serving/page_calendar.hpp"
#include "serving/percentile_sketch.hpp"
#include "serving/prefix_cache.hpp"

namespace serving {

namespace {

enum class Phase : std::uint8_t { kWaiting, kPrefilling, kAwaitingKv, kTransferring, kDecoding, kSwapped, kDone };

// A request's state while it is not decoding (decoding ones live in their rank's `DecodeBatch`).
struct Live {
  int prompt = 0;     // tokens to hold before decoding: the input, and after a recompute what was generated
  int in_kv = 0;      // tokens whose KV this request holds (cached prefix and computed)
  int cached = 0;
  int generated = 0;
  Phase phase = Phase::kWaiting;
  bool sent = false;                   // its record's arrival is when its client sent it (an engine's front end delayed it)
  int unit = -1, rank = -1;            // where it is now
  int prefill_unit = -1, prefill_rank = -1;  // disaggregated: the rank that holds its KV until the transfer ends
  int client = -1;                     // the closed-loop client that sent it, told of its finish
  int arriving = -1;                   // until it arrives: its place among the requests on their way
  long long pages = 0;                 // pages held where it is now
};

// A request's record and its state in flight, together: each of its events reads both, and they
// are two cache lines side by side, where they were three in as many tables (the request as
// drawn, its state, its record) that each event read cold.
struct alignas(64) InFlight {
  RequestRecord record;
  Live live;
};
static_assert(sizeof(InFlight) == 128, "a request in flight is two cache lines");

struct Chunk {
  int request;
  int tokens;  // prompt tokens computed in the step
};

// A DP rank. Its unit steps all its ranks together, dozens of times a second, and most ranks
// have nothing happening at a step: what such a step reads is its first two cache lines (the
// decode queues, its pages and whether its router heard it, then the batch's first line), the
// sequences' records elsewhere.
struct alignas(64) Rank {
  IdQueue received;  // decode: KV cache in place, waiting for a place in the batch
  IdQueue swapped;   // decode: preempted to host memory
  IdQueue incoming;  // decode: prefilled, waiting for pages and a transfer
  long long pages_used = 0;
  int pages_total = 0;           // (two billion pages: a petabyte of KV at the smallest)
  bool unheard = false;          // its load changed since its router last heard (a join during a step)
  DecodeBatch decoding;
  IdQueue waiting;   // for prefill (or, colocated, admission)
  long long incoming_pages = 0;  // what the incoming requests will need (the KV-aware router counts it)
  long long pages_told_below = 0;  // while its pages (with those) stay below this, its router's load is as last told
  int transferring = 0;
  int router_slot = -1;          // its place in the router's index
  std::vector<int> prefilling;   // admitted prompts, in order of admission
  std::vector<Chunk> chunks;     // prefill chunks in the step in flight
  long long pending_tokens = 0;  // prompt tokens waiting or being prefilled, for the router
  double pending_pairs = 0;      // ... and the query-key pairs of their attention
  double nic_free_s = 0;         // when its NICs are done with the KV caches queued on them

  int running() const { return static_cast<int>(prefilling.size() + decoding.size()); }
};
static_assert(offsetof(Rank, decoding) == 64, "a quiet rank's step reads two cache lines");

// A rank in its unit's step in flight: its decoding sequences, and whether its end has more than
// their tokens (a first token, a finish, a prefill chunk). The others' ends are not visited.
struct SteppingRank {
  int rank;
  int sequences;
  bool events;
};

struct Unit {
  bool prefill_kind = false;  // a prefill unit of a disaggregated deployment
  bool serving = true;        // takes new requests (autoscaling: not starting, draining or off)
  int group = 0;              // the deployment's unit it is part of (several where its DP ranks step alone)
  bool decodes = true;
  const UnitConfig* config = nullptr;
  std::vector<Rank> ranks;
  PageCalendar boundaries;  // its decoding sequences' page boundaries
  long long steps = 0;      // steps started
  std::vector<SteppingRank> stepping;  // in the step in flight, in order
  bool busy = false;
  double step_start_s = 0;
};

struct Event {
  double t;
  long long seq;
  int kind;  // -1 arrival, 0 ready, 1 step end, 2 transfer end, 3 swap-in end, 4 autoscaling's look, 5 a unit started
  int who;
  bool operator>(const Event& o) const { return (t > o.t) | ((t == o.t) & (seq > o.seq)); }  // (no branch: see EventQueue)
};

// Sums over a kind of unit's measured steps, each weighted by its duration.
struct SeriesSum {
  double batch = 0, tokens = 0, queue = 0, kv = 0, imbalance = 0;
  workload::GroupLoad load;
  double unit_tokens_sum = 0, prefill_steps = 0;
  int mtp_drafts = 0;
  UnitSeries out;
  void add(double step_s, double batch_per_rank, double unit_tokens, double queue_len, double kv_use, double imb, const StepLoad& step) {
    load.decode_sequences += step.busiest.decode_sequences;
    load.decode_context_tokens += step.busiest.decode_context_tokens;
    load.prefill_sequences += step.busiest.prefill_sequences;
    load.prefill_tokens += step.busiest.prefill_tokens;
    load.prefill_context_tokens += step.busiest.prefill_context_tokens;
    unit_tokens_sum += double(step.unit_tokens);
    prefill_steps += step.prefill ? 1 : 0;
    mtp_drafts = std::max(mtp_drafts, step.mtp_drafts);
    batch += step_s * batch_per_rank;
    tokens += step_s * unit_tokens;
    queue += step_s * queue_len;
    kv += step_s * kv_use;
    imbalance += imb;
    out.steps += 1;
    out.busy_s += step_s;
    out.max_batch = std::max(out.max_batch, batch_per_rank);
    out.max_queue = std::max(out.max_queue, queue_len);
    out.max_kv_use = std::max(out.max_kv_use, kv_use);
  }
  UnitSeries finish() const {
    UnitSeries s = out;
    if (s.busy_s > 0) {
      s.mean_batch = batch / s.busy_s;
      s.mean_step_tokens = tokens / s.busy_s;
      s.mean_queue = queue / s.busy_s;
      s.mean_kv_use = kv / s.busy_s;
    }
    if (s.steps > 0) {
      s.mean_step_s = s.busy_s / s.steps;
      s.engine_s /= s.steps;
      s.imbalance = imbalance / s.steps;
      auto& m = s.mean_load;
      m.busiest = {load.decode_sequences / s.steps, load.decode_context_tokens / s.steps, load.prefill_sequences / s.steps,
                   load.prefill_tokens / s.steps, load.prefill_context_tokens / s.steps};
      m.unit_tokens = std::llround(unit_tokens_sum / s.steps);
      m.prefill = prefill_steps > 0;
      m.mtp_drafts = mtp_drafts;
    }
    return s;
  }
};

// The ranks a router chooses among: their places, and (least-loaded, KV-aware) their loads.
struct RankChoice {
  std::vector<std::pair<int, int>> slots;  // slot -> (unit, rank)
  std::optional<LeastLoaded> index;
  long long turn = 0;                      // round-robin
};

class Simulation {
 public:
  Simulation(RequestSource& source, const ServingConfig& c, const std::function<void(double)>& progress,
             const std::function<void(const RequestRecord&)>& on_record)
      : source_(source), c_(c), progress_(progress), random_(c.seed * 7 + 3), decode_steps_(mtp_acceptance(c)), prefix_(c.prefix_cache_blocks), on_record_(on_record) {
    // Room for about as many requests as the source expects, so the records are not moved as they grow.
    if (const long long n = source.expected_requests(); n > 0) {
      const auto room = static_cast<std::size_t>(std::min<double>(double(kMaxRequests), double(n) + 6 * std::sqrt(double(n)) + 16));
      flights_.reserve(room);
    }
    auto add_units = [&](int count, const UnitConfig& config, bool prefill_kind, bool decodes, RankChoice& choice) {
      // Ranks that step on their own clocks are simulated as units of one rank each.
      const int ranks = config.ranks_step_together ? config.ranks() : 1;
      const int per_group = config.ranks() / ranks;
      for (int i = 0; i < count * per_group; ++i) {
        if (i % per_group == 0) groups_.push_back({prefill_kind, {}, UnitState::kServing});
        groups_.back().units.push_back(static_cast<int>(units_.size()));
        Unit u;
        u.group = static_cast<int>(groups_.size()) - 1;
        u.prefill_kind = prefill_kind;
        u.decodes = decodes;
        u.config = &config;
        if (decodes) u.boundaries = PageCalendar(decode_steps_.mean_tokens(), 1 + c_.mtp_drafts, c_.page_tokens);
        u.ranks.resize(static_cast<std::size_t>(ranks));
        for (int r = 0; r < ranks; ++r) {
          auto& k = u.ranks[static_cast<std::size_t>(r)];
          k.pages_total = static_cast<int>(std::min<long long>(config.memory.kv_group_tokens / c_.page_tokens, INT_MAX));
          if (decodes) k.decoding = DecodeBatch(decode_steps_.mean_tokens(), 1 + c_.mtp_drafts, c_.page_tokens);
          k.router_slot = static_cast<int>(choice.slots.size());
          choice.slots.push_back({static_cast<int>(units_.size()), r});
        }
        units_.push_back(std::move(u));
      }
    };
    if (c.disaggregated) {
      add_units(c.prefill_units, c.prefill, true, false, prefill_choice_);
      first_decode_unit_ = static_cast<int>(units_.size());
    }
    add_units(c.decode_units, c.decode, false, true, c.disaggregated ? decode_choice_ : prefill_choice_);
    if (prefill_config().cost) pair_weight_ = prefill_config().cost->pair_weight();
    for (auto* choice : {&prefill_choice_, &decode_choice_})
      if (c_.router != RouterPolicy::kRoundRobin && !choice->slots.empty()) choice->index.emplace(static_cast<int>(choice->slots.size()));
    for (const auto& g : groups_) {
      ++in_use_[phase(g)];
      ++serving_[phase(g)];
    }
    // Autoscaling: a phase starts with its initial units serving, the rest off.
    int seen[2] = {0, 0};
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const PhaseScaling& p = policy(phase(groups_[g]));
      if (p.enabled && seen[phase(groups_[g])]++ >= p.initial_units) set_state(static_cast<int>(g), UnitState::kOff);
    }
    if (c_.autoscaling.enabled()) push(c_.autoscaling.interval_s, 4, 0);
    // Each arrival takes the next from the source, so the event queue holds what is in flight
    // rather than every request of the run.
    pull();
  }

  ServingResult run() {
    const double limit = c_.drain_limit_s > 0 ? c_.drain_limit_s : 10 * c_.duration_s;
    while (!events_.empty()) {
      const Event e = events_.pop();
      if (e.t > limit) break;
      // The request of the event after this one, asked of the memory while this one is handled
      // (a KV cache's arrival reads its request's record, last read at its prompt's end).
      if (const Event* next = events_.peek(); next && next->kind != 1 && next->kind < 4) ask_memory(next->who);
      if (c_.interval_s > 0) account(e.t);
      now_ = e.t;
      if (progress_ && ++handled_ % 4096 == 0) progress_(now_);
      switch (e.kind) {
        case -1: arrive(e.who); break;
        case 0: ready(e.who); break;
        case 1: step_end(e.who); break;
        case 2: transfer_end(e.who); break;
        case 3: swap_in_end(e.who); break;
        case 4: look(); break;
        case 5:
          if (groups_[static_cast<std::size_t>(e.who)].state == UnitState::kStarting) set_state(e.who, UnitState::kServing);
          break;
      }
    }
    result_.end_s = now_;
    for (const InFlight& f : flights_)
      if (f.live.phase != Phase::kDone) {
        ++result_.unfinished;
        if (on_record_) on_record_(f.record);
      }
    if (!on_record_) {  // the records, by arrival
      result_.requests.reserve(flights_.size());
      for (const InFlight& f : flights_) result_.requests.push_back(f.record);
    }
    std::vector<InFlight>().swap(flights_);
    result_.prefill = prefill_series_.finish();
    result_.decode = decode_series_.finish();
    if (c_.trace_until_s > 0) result_.trace_json = trace_json();
    return std::move(result_);
  }

 private:
  static std::vector<double> mtp_acceptance(const ServingConfig& c) {
    return {c.mtp_acceptance.begin(), c.mtp_acceptance.begin() + std::min<std::ptrdiff_t>(c.mtp_drafts, std::ssize(c.mtp_acceptance))};
  }
  // Arrivals come in order (the source's), and prompts ready at once in the order they arrive:
  // each kind has a lane of its own.
  void push(double t, int kind, int who) { events_.push({t, seq_++, kind, who}, kind <= 0 ? kind + 1 : Events::kHeap); }
  long long pages_for(const UnitConfig& config, long long tokens) const { return config.memory.kv_pages.pages(tokens, c_.page_tokens); }
  // Tokens a sequence's pages hold once it has `tokens`: it takes pages again only past them.
  int room_for(long long tokens) const { return static_cast<int>(page_room(tokens, c_.page_tokens)); }
  bool measuring(double t) const { return t >= c_.warmup_s && t <= c_.duration_s; }
  Rank& rank_of(int u, int r) { return units_[static_cast<std::size_t>(u)].ranks[static_cast<std::size_t>(r)]; }
  // Whether the unit computes prompts: a prefill unit, or any unit of a colocated deployment.
  bool prefills(const Unit& unit) const { return unit.prefill_kind || !c_.disaggregated; }
  Live& live(int id) { return flights_[static_cast<std::size_t>(id)].live; }
  const Live& live(int id) const { return flights_[static_cast<std::size_t>(id)].live; }
  RequestRecord& record(int id) { return flights_[static_cast<std::size_t>(id)].record; }
  // A request's two lines asked of the memory ahead of their use.
  void ask_memory(int id) const {
    const char* f = reinterpret_cast<const char*>(&flights_[static_cast<std::size_t>(id)]);
    __builtin_prefetch(f);
    __builtin_prefetch(f + 64);
  }
  // The request as its source sent it, for its source at its finish (its lengths, its client and
  // when it was sent; its prefix blocks are gone by then).
  Request as_sent(int id) const {
    const InFlight& f = flights_[static_cast<std::size_t>(id)];
    Request q;
    q.arrival_s = f.record.arrival_s;
    q.sent_s = f.live.sent ? f.record.arrival_s : -1;
    q.input_tokens = f.record.input_tokens;
    q.output_tokens = f.record.output_tokens;
    q.client = f.live.client;
    return q;
  }

  // The source's next request, if it has one now: its arrival is scheduled.
  void pull() {
    std::optional<Request> q = source_.next();
    if (!q) return;
    ++result_.arrived;
    RequestRecord rec;
    rec.arrival_s = q->sent_s >= 0 ? q->sent_s : q->arrival_s;  // the client's clock
    rec.input_tokens = q->input_tokens;
    rec.output_tokens = q->output_tokens;
    rec.in_window = rec.arrival_s >= c_.warmup_s && rec.arrival_s < c_.duration_s;
    Live l;
    l.sent = q->sent_s >= 0;
    l.client = q->client;
    // Until it arrives, the request as drawn waits among the few on their way (its prefix
    // blocks are read at its arrival, and no more after).
    if (arriving_free_.empty()) {
      arriving_free_.push_back(static_cast<int>(arriving_.size()));
      arriving_.emplace_back();
    }
    l.arriving = arriving_free_.back();
    arriving_free_.pop_back();
    const double arrival_s = q->arrival_s;
    arriving_[static_cast<std::size_t>(l.arriving)] = std::move(*q);
    int id;
    if (on_record_ && !free_.empty()) {  // streamed: a finished request's place
      id = free_.back();
      free_.pop_back();
    } else {
      if (!on_record_ && static_cast<long long>(flights_.size()) >= kMaxRequests)
        throw TooManyRequests("more than " + std::to_string(kMaxRequests) + " requests arrive before " + std::to_string(c_.duration_s) + " s");
      id = static_cast<int>(flights_.size());
      flights_.emplace_back();
    }
    flights_[static_cast<std::size_t>(id)] = {rec, l};
    push(arrival_s, -1, id);
  }

  void arrive(int id) {
    pull();
    ++waiting_first_;
    if (c_.interval_s > 0) ++interval(now_).arrivals;
    Live& l = live(id);
    Request& q = arriving_[static_cast<std::size_t>(l.arriving)];
    int cached = std::max(0, q.cached_tokens);
    if (q.cached_tokens < 0 && c_.prefix_cache_blocks > 0 && !q.block_hashes.empty())
      cached = prefix_.lookup_and_insert(q.block_hashes) * c_.prefix_block_tokens;
    cached = std::min(cached, q.input_tokens - 1);  // the last token is computed for its logits
    l.cached = cached;
    l.prompt = q.input_tokens;
    record(id).cached_tokens = cached;
    q = Request{};  // (its prefix blocks freed)
    arriving_free_.push_back(l.arriving);
    l.arriving = -1;
    // A hit held outside HBM is read in before the prompt can be scheduled.
    const double fetch_s = c_.prefix_fetch_Bps > 0 ? prefill_config().memory.kv_pages.bytes(cached) / c_.prefix_fetch_Bps : 0.0;
    push(now_ + fetch_s, 0, id);
  }

  const UnitConfig& prefill_config() const { return c_.disaggregated ? c_.prefill : c_.decode; }

  // A rank's load as its router sees it. KV-aware: its pages (held and promised). Least-loaded
  // as DeepSeek's balancers do it: in prefill the work it has to compute (prompt tokens through
  // the projections and the core attention's query-key pairs, in tokens' time); in decode the
  // requests it holds, then its KV-cache use.
  double router_load(const Rank& k, bool prefill) const {
    const double kv_use = double(k.pages_used + k.incoming_pages) / double(std::max<long long>(1, k.pages_total));
    if (c_.router == RouterPolicy::kKvAware) return kv_use + (prefill ? double(k.pending_tokens) * 1e-12 : 0.0);
    if (prefill) return double(k.pending_tokens) + k.pending_pairs * pair_weight_;
    // (KV use in sixteenths: it breaks ties, and a rank's place in the index moves less often.)
    return double(k.running() + k.incoming.size() + k.swapped.size() + k.received.size()) + double(k.transferring) + double(kv_sixteenths(k)) / 16;
  }
  // A rank's KV use (pages held and promised) in whole sixteenths, at most 15.
  static long long kv_sixteenths(const Rank& k) {
    const double kv_use = double(k.pages_used + k.incoming_pages) / double(std::max<long long>(1, k.pages_total));
    return static_cast<long long>(std::min(std::floor(kv_use * 16), 15.0));
  }

  // Query-key pairs still to compute for a prompt of `prompt` tokens with `in_kv` in its cache.
  static double pairs_left(int prompt, int in_kv) { return 0.5 * (double(prompt) * prompt - double(in_kv) * in_kv); }

  // The rank's load changed: its router hears of it. A unit not serving is never chosen.
  void touch(int u, Rank& k) {
    const Unit& unit = units_[static_cast<std::size_t>(u)];
    const bool prefill = prefills(unit);
    RankChoice& choice = prefill ? prefill_choice_ : decode_choice_;
    k.unheard = false;
    if (!choice.index) return;
    choice.index->set(k.router_slot, unit.serving ? router_load(k, prefill) : kClosed);
    k.pages_told_below = pages_told_below(k, prefill, unit.serving);
  }

  // The least pages (held and promised) at which the rank's load, as its router was last told,
  // changes with nothing else changed: the next sixteenth of its KV where the decode router
  // counts those, any page where the KV-aware router does, none where it is closed.
  long long pages_told_below(const Rank& k, bool prefill, bool serving) const {
    if (!serving) return std::numeric_limits<long long>::max();
    const long long pages = k.pages_used + k.incoming_pages;
    if (prefill || c_.router == RouterPolicy::kKvAware || pages < 0) return pages + 1;
    // The next sixteenth's least pages, ceil((s + 1) pages_total / 16): the quotient of pages in
    // doubles rounds by far less than a sixteenth's least step, 1 / (16 pages_total), so it
    // reaches the sixteenth exactly there.
    const long long sixteenths = kv_sixteenths(k);
    const long long total = std::max<long long>(1, k.pages_total);
    return sixteenths == 15 ? std::numeric_limits<long long>::max() : ((sixteenths + 1) * total + 15) / 16;
  }

  std::pair<int, int> choose(RankChoice& choice) {
    if (!choice.index)
      for (;;) {  // a phase always has a unit serving
        const auto slot = choice.slots[static_cast<std::size_t>(choice.turn++ % static_cast<long long>(choice.slots.size()))];
        if (units_[static_cast<std::size_t>(slot.first)].serving) return slot;
      }
    return choice.slots[static_cast<std::size_t>(choice.index->take())];
  }

  // Autoscaling and the fleet over time. Phase 0 is prefill, 1 decode (colocated: the units).
  enum class UnitState { kServing, kStarting, kDraining, kOff };
  struct Group {
    bool prefill;
    std::vector<int> units;
    UnitState state;
  };
  static constexpr double kClosed = 1e300;  // a closed rank's load for its router
  static int phase(const Group& g) { return g.prefill ? 0 : 1; }
  const PhaseScaling& policy(int ph) const { return ph == 0 ? c_.autoscaling.prefill : c_.autoscaling.decode; }

  FleetInterval& interval(double t) {
    const auto i = static_cast<std::size_t>(std::max(0.0, t) / c_.interval_s);
    if (i >= result_.intervals.size()) result_.intervals.resize(i + 1);
    return result_.intervals[i];
  }

  // The time integrals of the intervals, from where they were to `t`.
  void account(double t) {
    while (clock_s_ < t) {
      const double boundary = double(clock_index_ + 1) * c_.interval_s;
      const double until = std::min(t, boundary);
      const double dt = until - clock_s_;
      if (clock_index_ >= result_.intervals.size()) result_.intervals.resize(clock_index_ + 1);
      FleetInterval& f = result_.intervals[clock_index_];
      f.prefill_unit_s += dt * in_use_[0];
      f.decode_unit_s += dt * in_use_[1];
      f.prefill_serving_unit_s += dt * serving_[0];
      f.decode_serving_unit_s += dt * serving_[1];
      f.waiting_s += dt * double(waiting_first_);
      f.prefill_peak = std::max(f.prefill_peak, in_use_[0]);
      f.decode_peak = std::max(f.decode_peak, in_use_[1]);
      if (t < boundary) {
        clock_s_ = t;
        break;
      }
      f.waiting_at_end = double(waiting_first_);
      clock_s_ = boundary;
      ++clock_index_;
    }
  }

  // The serving units' unit-seconds since autoscaling last looked.
  void account_serving() {
    for (int ph : {0, 1}) look_serving_s_[ph] += serving_[ph] * (now_ - look_clock_s_);
    look_clock_s_ = now_;
  }

  void set_state(int g, UnitState to) {
    Group& group = groups_[static_cast<std::size_t>(g)];
    if (group.state == to) return;
    account_serving();
    const int ph = phase(group);
    const auto counts = [&](UnitState st, int sign) {
      if (st != UnitState::kOff) in_use_[ph] += sign;
      if (st == UnitState::kServing) serving_[ph] += sign;
      if (st == UnitState::kStarting) starting_[ph] += sign;
    };
    counts(group.state, -1);
    counts(to, +1);
    group.state = to;
    if (c_.interval_s > 0) {
      FleetInterval& f = interval(now_);
      f.prefill_peak = std::max(f.prefill_peak, in_use_[0]);
      f.decode_peak = std::max(f.decode_peak, in_use_[1]);
    }
    for (int u : group.units) {
      Unit& unit = units_[static_cast<std::size_t>(u)];
      unit.serving = to == UnitState::kServing;
      for (auto& k : unit.ranks) touch(u, k);
    }
    if (to == UnitState::kServing)
      for (int u : group.units) try_start(u);
    if (to == UnitState::kDraining) settle(g);
  }

  static bool empty(const Unit& unit) {
    if (unit.busy) return false;
    for (const auto& k : unit.ranks)
      if (!k.waiting.empty() || !k.incoming.empty() || !k.swapped.empty() || !k.prefilling.empty() || !k.decoding.empty() ||
          k.transferring > 0 || k.pages_used > 0)
        return false;
    return true;
  }

  // A draining unit whose last request has left is off.
  void settle(int g) {
    const Group& group = groups_[static_cast<std::size_t>(g)];
    if (group.state != UnitState::kDraining) return;
    for (int u : group.units)
      if (!empty(units_[static_cast<std::size_t>(u)])) return;
    set_state(g, UnitState::kOff);
  }

  // Requests waiting in a phase's serving units.
  double queued(int ph) const {
    double n = 0;
    for (const auto& g : groups_)
      if (phase(g) == ph && g.state == UnitState::kServing)
        for (int u : g.units)
          for (const auto& k : units_[static_cast<std::size_t>(u)].ranks) n += double(k.waiting.size() + k.incoming.size() + k.swapped.size());
    return n;
  }

  // Autoscaling looks at the last interval and sets each phase's units.
  void look() {
    account_serving();
    for (int ph : {0, 1}) {
      const PhaseScaling& p = policy(ph);
      PhaseObservation seen;
      seen.units = serving_[ph] + starting_[ph];
      seen.utilisation = look_serving_s_[ph] > 0 ? look_busy_s_[ph] / look_serving_s_[ph] : 0;
      seen.queue_per_unit = queued(ph) / std::max(1, serving_[ph]);
      seen.latency_p90_s = look_latency_[ph].percentile(90);
      look_busy_s_[ph] = look_serving_s_[ph] = 0;
      look_latency_[ph] = PercentileSketch();
      if (!p.enabled || now_ - last_change_s_[ph] < c_.autoscaling.cooldown_s) continue;
      const int want = desired_units(p, seen);
      if (want != seen.units) {
        resize(ph, seen.units, want);
        last_change_s_[ph] = now_;
      }
    }
    if (now_ + c_.autoscaling.interval_s < c_.duration_s) push(now_ + c_.autoscaling.interval_s, 4, 0);
  }

  // From `have` units serving or starting to `want`: draining ones back, else off ones started;
  // starting ones stopped, else the serving ones with the fewest requests drained.
  void resize(int ph, int have, int want) {
    auto find = [&](UnitState st) {
      int best = -1;
      double fewest = 0;
      for (std::size_t g = 0; g < groups_.size(); ++g) {
        const Group& group = groups_[g];
        if (phase(group) != ph || group.state != st) continue;
        double n = 0;
        if (st == UnitState::kServing)
          for (int u : group.units)
            for (const auto& k : units_[static_cast<std::size_t>(u)].ranks) n += k.running() + double(k.waiting.size() + k.incoming.size());
        if (best < 0 || n < fewest) {
          best = static_cast<int>(g);
          fewest = n;
        }
      }
      return best;
    };
    for (; have < want; ++have, ++result_.scale_ups) {
      if (const int g = find(UnitState::kDraining); g >= 0) {
        set_state(g, UnitState::kServing);
      } else if (const int off = find(UnitState::kOff); off >= 0) {
        set_state(off, UnitState::kStarting);
        push(now_ + policy(ph).startup_s, 5, off);
      } else {
        break;
      }
    }
    for (; have > want && serving_[ph] + starting_[ph] > 1; --have, ++result_.scale_downs) {
      const int g = find(UnitState::kStarting);
      set_state(g >= 0 ? g : find(UnitState::kServing), g >= 0 ? UnitState::kOff : UnitState::kDraining);
    }
  }

  // A request put on the rank its router chooses, in `phase`: that rank's unit, and the rank.
  std::pair<int, Rank&> place(Live& l, RankChoice& choice, Phase phase) {
    const auto [u, r] = choose(choice);
    l.unit = u;
    l.rank = r;
    l.phase = phase;
    return {u, rank_of(u, r)};
  }

  // A prefilled request goes to a decode rank, whose pages it awaits; its KV cache is still
  // held by the prefill rank (`u`, `r`; -1 where prefill is not simulated).
  void to_decode(int id, int u, int r) {
    Live& l = live(id);
    l.prefill_unit = u;
    l.prefill_rank = r;
    l.pages = 0;
    if (c_.decode_unbounded) {  // no decode to wait for: the transfer starts now
      l.phase = Phase::kTransferring;
      push(transfer_end_s(l, nullptr), 2, id);
      return;
    }
    const auto [du, to] = place(l, decode_choice_, Phase::kAwaitingKv);
    to.incoming.push_back(id);
    to.incoming_pages += pages_for(c_.decode, l.in_kv + 1);
    touch(du, to);
    decode_units_to_kick_.push_back(du);
  }

  // When a KV cache that starts moving now has arrived. It takes the NICs of the prefill rank
  // that holds it and of the decode rank `to` (none where a phase is not simulated) whole, so
  // transfers to or from one rank queue one after another. (The EP all-to-all's share of those
  // NICs is not taken from them.)
  double transfer_end_s(const Live& l, Rank* to) {
    Rank* from = l.prefill_unit >= 0 ? &rank_of(l.prefill_unit, l.prefill_rank) : nullptr;
    double start = now_;
    for (Rank* k : {from, to})
      if (k) start = std::max(start, k->nic_free_s);
    const double end = start + c_.kv_transfer_latency_s + c_.prefill.memory.kv_pages.bytes(l.in_kv) / (c_.kv_senders * c_.kv_transfer_Bps);
    for (Rank* k : {from, to})
      if (k) k->nic_free_s = end;
    return end;
  }

  void ready(int id) {
    Live& l = live(id);
    if (c_.prefill_unbounded) {  // the prompt is computed the moment it can be
      auto& rec = record(id);
      if (rec.prefill_start_s < 0) rec.prefill_start_s = rec.prefill_end_s = now_;
      if (measuring(now_)) {
        result_.input_tokens_in_window += l.prompt;
        result_.computed_input_tokens_in_window += l.prompt - l.cached;
      }
      l.in_kv = l.prompt;
      to_decode(id, -1, -1);
      for (int du : decode_units_to_kick_) try_start(du);
      decode_units_to_kick_.clear();
      return;
    }
    const auto [u, k] = place(l, prefill_choice_, Phase::kWaiting);
    k.waiting.push_back(id);
    k.pending_tokens += l.prompt - l.cached;
    k.pending_pairs += pairs_left(l.prompt, l.cached);
    touch(u, k);
    try_start(u);
  }

  // A decoding rank takes in what it has pages for: swapped-out requests first, then (disaggregated)
  // prefilled ones, whose KV cache then comes over the fabric. Transfers run ahead of the batch,
  // as engines pre-allocate a decode request's pages: up to a batch's worth beyond the running
  // ones, so a place freed in the batch is taken by a cache already received, the next step.
  // (Its router hears of it with the rest of the rank's step.)
  void admit_incoming(int u, Rank& k) {
    const Unit& unit = units_[static_cast<std::size_t>(u)];
    const int cap = unit.config->max_running;
    while (!k.received.empty() && k.running() < cap) {
      const int id = k.received.front();
      k.received.pop_front();
      join_batch(u, k, id, live(id));
    }
    if (k.swapped.empty() && k.incoming.empty()) return;
    auto room = [&](int id) {
      const long long p = pages_for(*unit.config, live(id).in_kv + 1);
      return k.running() + k.transferring + static_cast<int>(k.received.size()) < 2 * cap && k.pages_used + p <= k.pages_total;
    };
    while (!k.swapped.empty() && room(k.swapped.front())) {
      const int id = k.swapped.front();
      k.swapped.pop_front();
      Live& l = live(id);
      l.pages = pages_for(*unit.config, l.in_kv + 1);
      k.pages_used += l.pages;
      ++k.transferring;
      push(now_ + unit.config->memory.kv_pages.bytes_gpu(l.in_kv) / c_.swap_Bps, 3, id);
    }
    while (k.swapped.empty() && !k.incoming.empty() && room(k.incoming.front())) {
      const int id = k.incoming.front();
      k.incoming.pop_front();
      Live& l = live(id);
      l.pages = pages_for(*unit.config, l.in_kv + 1);
      k.incoming_pages -= l.pages;
      k.pages_used += l.pages;
      ++k.transferring;
      l.phase = Phase::kTransferring;
      push(transfer_end_s(l, &k), 2, id);
    }
  }

  void transfer_end(int id) {
    Live& l = live(id);
    auto& rec = record(id);
    rec.transfer_end_s = now_;
    const int from_unit = l.prefill_unit;
    if (from_unit >= 0) {  // the prefill rank's copy is released
      Rank& from = rank_of(from_unit, l.prefill_rank);
      from.pages_used -= pages_for(c_.prefill, l.in_kv);
      touch(from_unit, from);
    }
    if (c_.decode_unbounded) {
      first_token(rec);
      finish(id);
    } else {
      join_decode(id);
    }
    if (from_unit >= 0) {
      try_start(from_unit);
      settle(units_[static_cast<std::size_t>(from_unit)].group);
    }
  }

  void swap_in_end(int id) { join_decode(id); }

  // A request joins its rank's decoding batch. Its pages were taken for its KV and the token it
  // decodes next; how many steps it takes is drawn now, and its first page boundary placed.
  void join_batch(int u, Rank& k, int id, const Live& l) {
    DecodeSeq s;
    s.id = id;
    s.in_kv = l.in_kv;
    s.generated = l.generated;
    s.output = record(id).output_tokens;
    s.room = room_for(l.in_kv + 1);
    Unit& unit = units_[static_cast<std::size_t>(u)];
    PageBoundary b = k.decoding.join(s, decode_steps_.draw(s.output - s.generated, random_));
    b.rank = static_cast<int>(&k - unit.ranks.data());
    b.pages = static_cast<int>(l.pages);
    unit.boundaries.schedule(b, k.decoding.next_step(), unit.steps);
  }

  void join_decode(int id) {
    Live& l = live(id);
    Rank& k = rank_of(l.unit, l.rank);
    --k.transferring;
    k.unheard = true;  // heard at its unit's next step, as the router hears of every rank
    l.phase = Phase::kDecoding;
    if (k.running() < units_[static_cast<std::size_t>(l.unit)].config->max_running) join_batch(l.unit, k, id, l);
    else k.received.push_back(id);
    try_start(l.unit);
  }

  // Frees the latest admitted request of rank `k` of unit `u` (a prompt being prefilled, else the
  // latest to join decoding): recomputed from its prompt and what it has generated, or swapped out
  // to host memory. Returns the request where it was decoding, else -1.
  int preempt(int u, Rank& k) {
    int decoding = -1;
    int id;
    Live* l;
    if (!k.prefilling.empty()) {
      id = k.prefilling.back();
      k.prefilling.pop_back();
      l = &live(id);
      k.pending_tokens -= l->prompt - l->in_kv;
      k.pending_pairs -= pairs_left(l->prompt, l->in_kv);
    } else {
      const DecodeSeq s = k.decoding.leave_latest();
      id = s.id;
      l = &live(id);
      l->in_kv = s.in_kv;
      l->generated = s.generated;
      l->pages = pages_for(*units_[static_cast<std::size_t>(u)].config, s.room);
      decoding = id;
    }
    k.pages_used -= l->pages;
    l->pages = 0;
    ++record(id).preemptions;
    ++result_.preemptions;
    if (c_.preemption == Preemption::kSwap && l->phase == Phase::kDecoding) {
      l->phase = Phase::kSwapped;
      k.swapped.push_back(id);
      return decoding;
    }
    l->prompt = record(id).input_tokens + l->generated;
    l->in_kv = 0;
    l->cached = 0;
    l->phase = Phase::kWaiting;
    if (c_.disaggregated) {
      push(now_, 0, id);  // back through the prefill router
    } else {
      k.waiting.push_front(id);
      k.pending_tokens += l->prompt;
      k.pending_pairs += pairs_left(l->prompt, 0);
    }
    return decoding;
  }

  // Whether a colocated rank could admit its first waiting prompt now.
  bool can_admit(const Rank& k, const Unit& unit) const {
    if (k.waiting.empty() || k.running() >= unit.config->max_running) return false;
    const Live& l = live(k.waiting.front());
    return k.pages_used + pages_for(*unit.config, l.prompt + 1) <= k.pages_total;
  }

  void try_start(int u) {
    Unit& unit = units_[static_cast<std::size_t>(u)];
    if (unit.busy) return;
    const UnitConfig& cfg = *unit.config;
    const int tps = unit.decodes ? 1 + c_.mtp_drafts : 1;
    bool any = false, any_prefill = false;
    double queue = 0, kv_use = 0, batch = 0, busiest_score = -1;
    long long unit_tokens = 0, streaming = 0;  // streaming: sequences whose token this step is not their first
    workload::GroupLoad busiest;
    // The step's page boundaries. A decode unit's are counted by rank, and their new pages found,
    // in one pass: a rank whose pages hold them (most) then adds its pages in its turn, and they
    // are placed again after the ranks. Those of the other ranks (joins at this step, pages short,
    // a rank that did not step every time, a unit that mixes in prompts) are taken one rank at a
    // time as they come; a rank's due boundaries, a few at most, were each a loop of its own.
    PageCalendar& calendar = unit.boundaries;
    const bool mixes = prefills(unit);
    // A boundary's room and pages once its rank's `step` has computed its tokens.
    const auto renewal = [&](const PageBoundary& b, long long step) {
      const long long tokens = calendar.tokens(b, step) + tps;
      return Renewed{room_for(tokens), static_cast<int>(pages_for(cfg, tokens))};
    };
    boundaries_.clear();
    calendar.take(unit.steps, boundaries_);
    bool linked = false;  // first_of_rank_ and next_of_rank_ made (for the ranks taken one by one)
    if (!boundaries_.empty()) {
      // Each rank's step, read in the ranks' order (the boundaries come in no order of rank).
      due_of_rank_.resize(unit.ranks.size());
      for (std::size_t r = 0; r < unit.ranks.size(); ++r) due_of_rank_[r] = {0, false, unit.ranks[r].decoding.next_step(), 0};
      if (!mixes) renewed_.resize(boundaries_.size());
      for (std::size_t i = 0; i < boundaries_.size(); ++i) {
        const PageBoundary& b = boundaries_[i];
        RankDue& d = due_of_rank_[static_cast<std::size_t>(b.rank)];
        ++d.count;
        if (mixes) continue;
        if (b.step > d.step) {
          d.one_by_one = true;
          continue;
        }
        renewed_[i] = renewal(b, d.step);
        d.extra += renewed_[i].pages - b.pages;
      }
    }
    // The rank's boundaries as taken, for a rank taken one by one.
    const auto take_due = [&](int r) {
      if (boundaries_.empty() || due_of_rank_[static_cast<std::size_t>(r)].count == 0) return;
      if (!linked) {
        first_of_rank_.assign(unit.ranks.size(), -1);
        next_of_rank_.resize(boundaries_.size());
        for (int i = static_cast<int>(boundaries_.size()) - 1; i >= 0; --i) {
          int& first = first_of_rank_[static_cast<std::size_t>(boundaries_[static_cast<std::size_t>(i)].rank)];
          next_of_rank_[static_cast<std::size_t>(i)] = first;
          first = i;
        }
        linked = true;
      }
      for (int i = first_of_rank_[static_cast<std::size_t>(r)]; i >= 0; i = next_of_rank_[static_cast<std::size_t>(i)]) due_.push_back(boundaries_[static_cast<std::size_t>(i)]);
    };
    if (mixes)  // the prompts it may take, asked of the memory together (they were read a step or more before)
      for (const Rank& k : unit.ranks) {
        for (int id : k.prefilling) ask_memory(id);
        const std::size_t admissible = static_cast<std::size_t>(std::max(0, cfg.max_running - k.running()));
        for (std::size_t i = 0; i < std::min(k.waiting.size(), admissible); ++i) ask_memory(k.waiting.at(i));
      }
    unit.stepping.clear();
    for (auto& k : unit.ranks) {
      const int r = static_cast<int>(&k - unit.ranks.data());
      // Most ranks of a decode unit have nothing at a step but their batch's step and a page
      // boundary or two: nothing queued, room for their pages, their router's load as it heard it.
      // Those (calm) skip what follows from queues; those without a boundary (quiet) also tell
      // their router nothing.
      RankDue* due = boundaries_.empty() ? nullptr : &due_of_rank_[static_cast<std::size_t>(r)];
      const bool calm = !mixes && k.received.empty() && k.swapped.empty() && k.incoming.empty() && !k.unheard && k.pages_used <= k.pages_total;
      const bool quiet = calm && (!due || due->count == 0);
      if (unit.decodes && !calm) admit_incoming(u, k);  // in the same pass: the rank's state is read once a step
      int in_step = 0;  // its decoding sequences in the step
      int budget = cfg.max_batch_tokens;
      workload::GroupLoad g;
      long long rank_tokens = 0;
      double pairs = 0;
      // Prefill first: a step of prompts alone whenever one can be admitted.
      const bool prompts_only = mixes && unit.decodes && c_.scheduler == Scheduler::kPrefillFirst && can_admit(k, unit);
      // The boundaries of sequences that joined at this step, if any; a rank with none whose pages
      // hold its boundaries takes their pages now (they are placed again after the ranks).
      joined_.clear();
      if (unit.decodes && !calm) calendar.take(unit.steps, joined_);  // (a calm rank admitted none)
      const bool decoding = unit.decodes && !k.decoding.empty() && !prompts_only;
      const long long extra_due = due ? due->extra : 0;
      const bool due_together = !mixes && decoding && !(due && due->one_by_one) && joined_.empty() && k.pages_used + extra_due <= k.pages_total;
      if (due_together) k.pages_used += extra_due;
      else if (due) due->one_by_one = true;
      // Else its boundaries at this step: those taken, and those of sequences that just joined.
      due_.clear();
      if (!due_together) {
        take_due(r);
        due_.insert(due_.end(), joined_.begin(), joined_.end());
      }
      if (!decoding)  // they wait for its next step
        for (const PageBoundary& b : due_) calendar.place(b, unit.steps + 1);
      // Decoding sequences grow by their tokens; when pages run out, the latest admitted go.
      if (decoding) {
        // (Without boundaries, nothing to do here where the rank has room.)
        if (!due_together && (!due_.empty() || k.pages_used > k.pages_total)) {
          const long long step = k.decoding.next_step();
          // Pages for those whose context and this step's tokens pass their room. (Where the rank
          // has not stepped at every step of its unit since a boundary was placed, it comes later.)
          std::erase_if(due_, [&](const PageBoundary& b) {
            if (b.step > step) calendar.place(b, unit.steps + (b.step - step));
            return b.step > step;
          });
          long long extra = 0;
          for (;;) {
            extra = 0;
            for (const PageBoundary& b : due_)
              if (b.id >= 0) extra += renewal(b, step).pages - b.pages;
            if (k.pages_used + extra <= k.pages_total || k.running() <= 1) break;
            const int left = preempt(u, k);
            if (left < 0) continue;
            const auto was_due = std::find_if(due_.begin(), due_.end(), [&](const PageBoundary& b) { return b.id == left; });
            if (was_due != due_.end()) was_due->id = -1;  // (gone)
            else calendar.cancel(r, left);
          }
          for (PageBoundary& b : due_) {
            if (b.id < 0) continue;
            const Renewed n = renewal(b, step);
            b.room = n.room;
            b.pages = n.pages;
            calendar.schedule(b, step, unit.steps);
          }
          k.pages_used += extra;
        }
        const double context = k.decoding.context();
        streaming += k.decoding.size() - k.decoding.fresh();
        in_step = k.decoding.start_step();
        if (k.decoding.ending_count() > 0)
          for (const DecodeBatch::Ending& e : k.decoding.ending()) ask_memory(e.id);  // (read at the step's end)
        budget -= tps * in_step;
        rank_tokens += tps * in_step;
        g.decode_sequences = in_step;
        g.decode_context_tokens = context / in_step;
      }
      if (mixes) {
        // Prefill: chunks of the prompts already admitted, then new ones while pages, the batch
        // cap and the token budget allow (first come, first served). Without chunked prefill a
        // prompt goes whole (alone when it is larger than the budget).
        const bool whole = c_.scheduler != Scheduler::kChunkedPrefill;
        auto chunk_of = [&](int id) {
          const Live& l = live(id);
          const int chunk = whole ? l.prompt - l.in_kv : std::min(budget, l.prompt - l.in_kv);
          k.chunks.push_back({id, chunk});
          budget -= chunk;
          g.prefill_sequences += 1;
          g.prefill_tokens += chunk;
          g.prefill_context_tokens += l.in_kv;
          pairs += chunk * (l.in_kv + chunk / 2.0);
          rank_tokens += chunk;
        };
        for (int id : k.prefilling)
          if (budget > 0) chunk_of(id);
        // Static batching: a new batch only once the last has left.
        const bool admitting = c_.scheduler != Scheduler::kStatic || !unit.decodes || k.running() == 0;
        while (admitting && budget > 0 && !k.waiting.empty() && k.running() < cfg.max_running) {
          const int id = k.waiting.front();
          Live& l = live(id);
          if (whole && !k.chunks.empty() && l.prompt - l.cached > budget) break;
          const long long p = pages_for(cfg, l.prompt + (unit.decodes ? 1 : 0));
          if (k.pages_used + p > k.pages_total) break;
          k.waiting.pop_front();
          k.pages_used += p;
          l.pages = p;
          l.in_kv = l.cached;
          l.phase = Phase::kPrefilling;
          l.unit = u;
          l.rank = static_cast<int>(&k - unit.ranks.data());
          k.prefilling.push_back(id);
          auto& rec = record(id);
          if (rec.prefill_start_s < 0) rec.prefill_start_s = now_;
          chunk_of(id);
        }
        if (!k.chunks.empty()) any_prefill = true;
      }
      // A proxy of this rank's attention time, to find the busiest: its new tokens through the
      // projections, the KV its decoding sequences read, its prefill's query-key pairs.
      const double score = double(rank_tokens) + g.decode_context_tokens * g.decode_sequences * cfg.cost->kv_token_weight() + pairs * cfg.cost->pair_weight();
      if (g.prefill_sequences > 0) {
        g.prefill_tokens /= g.prefill_sequences;
        g.prefill_context_tokens /= g.prefill_sequences;
      }
      if (score > busiest_score) {
        busiest_score = score;
        busiest = g;
      }
      unit_tokens += rank_tokens;
      const int entries = in_step + static_cast<int>(k.chunks.size());
      any = any || entries > 0;
      if (entries > 0) unit.stepping.push_back({r, in_step, !k.chunks.empty() || (in_step > 0 && !k.decoding.ends_quietly())});
      if (!calm) queue += double(k.waiting.size() + k.incoming.size() + k.swapped.size());  // (a calm rank has none)
      batch += double(entries);
      kv_use = std::max(kv_use, double(k.pages_used) / double(std::max<long long>(1, k.pages_total)));
      // A calm rank whose step only added pages below its told bound has the load its router
      // heard: a page boundary is a step's usual event, and a sixteenth of KV is hundreds of pages.
      if (!quiet && !(calm && due_together && k.pages_used + k.incoming_pages < k.pages_told_below)) touch(u, k);
    }
    // The boundaries of the ranks that took them together, placed again.
    if (!mixes)
      for (std::size_t i = 0; i < boundaries_.size(); ++i) {
        const RankDue& d = due_of_rank_[static_cast<std::size_t>(boundaries_[i].rank)];
        if (d.one_by_one) continue;
        PageBoundary& b = boundaries_[i];
        b.room = renewed_[i].room;
        b.pages = renewed_[i].pages;
        calendar.schedule(b, d.step, unit.steps);
      }
    if (!any) return;
    StepLoad load{busiest, unit_tokens, any_prefill, unit.decodes ? c_.mtp_drafts : 0};
    const double gpu_s = cfg.cost->seconds(load);
    const double step_s = c_.engine.step_s(gpu_s, busiest.decode_sequences + busiest.prefill_sequences);
    unit.busy = true;
    unit.step_start_s = now_;
    const double ranks = double(unit.ranks.size());
    const double busiest_tokens = busiest.decode_sequences * tps + busiest.prefill_sequences * busiest.prefill_tokens;
    const double imbalance = unit_tokens > 0 ? busiest_tokens / (double(unit_tokens) / ranks) : 1.0;
    if (measuring(now_)) {
      auto& series = unit.prefill_kind ? prefill_series_ : decode_series_;
      series.add(step_s, batch / ranks, double(unit_tokens), queue, kv_use, imbalance, load);
      series.out.engine_s += step_s - gpu_s;
      result_.inter_token_s.add(step_s, streaming);
    }
    if (c_.interval_s > 0 || c_.autoscaling.enabled()) {
      // A prefill unit's use is its time stepping; a decoding unit's, the share of its sequence
      // slots or KV pages in use, whichever is higher.
      const Group& group = groups_[static_cast<std::size_t>(unit.group)];
      const double share = unit.prefill_kind ? 1.0 : std::max(batch / ranks / cfg.max_running, kv_use);
      const double used_s = step_s * share / double(group.units.size());
      if (group.state == UnitState::kServing) look_busy_s_[phase(group)] += used_s;
      if (c_.interval_s > 0) (unit.prefill_kind ? interval(now_).prefill_busy_s : interval(now_).decode_occupancy_s) += used_s;
    }
    if (now_ < c_.trace_until_s) counters_.push_back({now_, u, batch / ranks, queue, kv_use});
    ++unit.steps;
    push(now_ + step_s, 1, u);
  }

  void finish(int id) {
    Live& l = live(id);
    l.pages = 0;
    l.phase = Phase::kDone;
    auto& rec = record(id);
    rec.finish_s = now_;
    if (c_.autoscaling.decode.max_latency_p90_s > 0 && rec.output_tokens > 1 && rec.first_token_s >= 0)
      look_latency_[1].add((now_ - rec.first_token_s) / (rec.output_tokens - 1));
    if (on_record_) on_record_(rec);
    if (source_.finished(as_sent(id), now_)) pull();  // a client's next
    if (on_record_) free_.push_back(id);
  }

  // A request's first token, now.
  void first_token(RequestRecord& rec) {
    if (rec.first_token_s < 0) {
      --waiting_first_;
      if (c_.autoscaling.prefill.max_latency_p90_s > 0) look_latency_[0].add(now_ - rec.arrival_s);
    }
    rec.first_token_s = now_;
  }

  void step_end(int u) {
    Unit& unit = units_[static_cast<std::size_t>(u)];
    unit.busy = false;
    // The step's tokens count for the measured window by the share of the step inside it: a long
    // prefill step across the window's edge counts in part, not whole or not at all.
    const double inside_s = std::min(now_, c_.duration_s) - std::max(unit.step_start_s, c_.warmup_s);
    const double share = now_ > unit.step_start_s ? std::clamp(inside_s / (now_ - unit.step_start_s), 0.0, 1.0) : measuring(now_) ? 1.0 : 0.0;
    const bool count = share > 0;
    FleetInterval* here = c_.interval_s > 0 ? &interval(now_) : nullptr;
    // The batches' ends first, each request that gets its first token or finishes asked of the
    // memory as it is found; then each rank's in order. A unit's step has a few dozen of them,
    // each reading its record cold, and they are read together rather than one after another.
    ended_.clear();
    batch_ends_.clear();
    if (prefills(unit))  // and its prompts too
      for (const SteppingRank& e : unit.stepping)
        for (const Chunk& c : unit.ranks[static_cast<std::size_t>(e.rank)].chunks) ask_memory(c.request);
    for (const SteppingRank& e : unit.stepping) {
      if (!e.events || e.sequences == 0) continue;
      DecodeBatch& batch = unit.ranks[static_cast<std::size_t>(e.rank)].decoding;
      batch_ends_.push_back({batch.end_step(first_tokens_, finished_), ended_.size(), first_tokens_.size(), finished_.size()});
      for (const std::vector<int>* slots : {&first_tokens_, &finished_})
        for (int slot : *slots) {
          ended_.push_back({slot, batch.at(slot).id});
          ask_memory(ended_.back().id);
        }
    }
    const BatchEnd* end = batch_ends_.data();
    for (const SteppingRank& e : unit.stepping) {
      // Decoding: each sequence of the step gains a token, and one more for each of MTP's drafts
      // accepted in a row. Where that is all, the rank is not visited.
      if (!e.events) {
        const double produced = double(e.sequences) * decode_steps_.mean_tokens();  // (its batch's arithmetic)
        if (count) result_.output_tokens_in_window += share * produced;
        if (here && produced > 0) here->output_tokens += produced;
        continue;
      }
      const int r = e.rank;
      Rank& k = unit.ranks[static_cast<std::size_t>(r)];
      bool changed = !k.chunks.empty();  // its router's load (a step of first tokens alone leaves it)
      if (e.sequences > 0) {
        const Ended* first = ended_.data() + end->from;
        for (const Ended* x = first; x != first + end->first_tokens; ++x) first_token(record(x->id));
        if (count) result_.output_tokens_in_window += share * end->produced;
        if (here && end->produced > 0) here->output_tokens += end->produced;
        changed = changed || end->finished > 0;
        for (const Ended* x = first + end->first_tokens; x != first + end->first_tokens + end->finished; ++x) {
          k.pages_used -= pages_for(*unit.config, k.decoding.room_tokens(k.decoding.at(x->slot)));
          finish(x->id);
        }
        ++end;
      }
      // Prefill: chunks computed; a finished prompt goes to decode.
      for (const Chunk& e : k.chunks) {
        Live& l = live(e.request);
        auto& rec = record(e.request);
        if (l.in_kv == l.cached && count) result_.input_tokens_in_window += share * l.cached;
        k.pending_pairs -= pairs_left(l.prompt, l.in_kv) - pairs_left(l.prompt, l.in_kv + e.tokens);
        l.in_kv += e.tokens;
        k.pending_tokens -= e.tokens;
        if (count) {
          result_.input_tokens_in_window += share * e.tokens;
          result_.computed_input_tokens_in_window += share * e.tokens;
        }
        if (here) {
          FleetInterval& f = *here;
          f.input_tokens += e.tokens + (l.in_kv == l.cached + e.tokens ? l.cached : 0);
          f.computed_input_tokens += e.tokens;
        }
        if (l.in_kv < l.prompt) continue;
        if (rec.prefill_end_s < 0) rec.prefill_end_s = now_;
        k.prefilling.erase(std::find(k.prefilling.begin(), k.prefilling.end(), e.request));
        if (c_.disaggregated) {
          to_decode(e.request, u, r);
          continue;
        }
        // Colocated: the prefill's logits give the first token.
        if (rec.first_token_s < 0) {
          first_token(rec);
          l.generated = 1;
          if (count) result_.output_tokens_in_window += share;
          if (here) here->output_tokens += 1;
        }
        if (l.generated >= rec.output_tokens) {
          k.pages_used -= l.pages;
          finish(e.request);
          continue;
        }
        l.phase = Phase::kDecoding;
        join_batch(u, k, e.request, l);
      }
      k.chunks.clear();
      if (changed) touch(u, k);
    }
    kicking_.swap(decode_units_to_kick_);  // two buffers, so neither is allocated again
    for (int du : kicking_) try_start(du);
    kicking_.clear();
    try_start(u);
    if (groups_[static_cast<std::size_t>(unit.group)].state == UnitState::kDraining) settle(unit.group);
  }

  std::string trace_json() const;

  RequestSource& source_;
  const ServingConfig& c_;
  std::function<void(double)> progress_;
  core::FastNormal random_;
  DecodeSteps decode_steps_;
  PrefixCache prefix_;
  std::vector<InFlight> flights_;  // by request id (streamed: a finished request's place is taken again)
  std::vector<Request> arriving_;  // requests pulled, not yet arrived (Live::arriving), and free places
  std::vector<int> arriving_free_;
  std::vector<Unit> units_;
  int first_decode_unit_ = 0;
  RankChoice prefill_choice_, decode_choice_;
  double pair_weight_ = 0;  // a query-key pair of prefill attention, in tokens through the projections
  using Events = EventQueue<Event, 2>;
  Events events_;
  long long seq_ = 0, handled_ = 0;
  double now_ = 0;
  std::vector<int> decode_units_to_kick_, kicking_;
  std::vector<int> first_tokens_, finished_;  // a decoding batch's at its step's end
  // A unit's batches at its step's end: the sequences that got their first token or finished
  // (slot, request), and for each batch its tokens and its share of them.
  struct Ended {
    int slot, id;
  };
  struct BatchEnd {
    double produced;
    std::size_t from, first_tokens, finished;
  };
  std::vector<Ended> ended_;
  std::vector<BatchEnd> batch_ends_;
  std::vector<PageBoundary> boundaries_, due_, joined_;  // a unit's page boundaries at a step, a rank's, and its joins'
  // A rank's boundaries at its unit's step: how many, the pages they add, and whether they are
  // taken one by one (in its turn) rather than together.
  struct RankDue {
    int count = 0;
    bool one_by_one = false;
    long long step = 0;   // the rank's step
    long long extra = 0;  // pages
  };
  std::vector<RankDue> due_of_rank_;
  struct Renewed {
    int room, pages;
  };
  std::vector<Renewed> renewed_;  // by boundary: its room and pages past this step
  std::vector<int> first_of_rank_, next_of_rank_;  // the unit's boundaries, linked by rank (those taken one by one)
  SeriesSum prefill_series_, decode_series_;
  struct Counter {
    double t;
    int unit;
    double batch, queue, kv;
  };
  std::vector<Counter> counters_;
  ServingResult result_;
  std::function<void(const RequestRecord&)> on_record_;  // streamed records: a finished request's place is taken again
  std::vector<int> free_;
  long long waiting_first_ = 0;  // arrived, no first token yet
  std::vector<Group> groups_;
  int in_use_[2] = {0, 0}, serving_[2] = {0, 0}, starting_[2] = {0, 0};  // groups by phase
  double clock_s_ = 0;           // the intervals' integrals reach here, in this interval
  std::size_t clock_index_ = 0;
  double look_clock_s_ = 0, look_serving_s_[2] = {0, 0}, look_busy_s_[2] = {0, 0};
  double last_change_s_[2] = {-1e300, -1e300};
  PercentileSketch look_latency_[2];
};

std::string Simulation::trace_json() const {
  std::ostringstream o;
  o.precision(9);
  o << "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  bool first = true;
  auto event = [&](const std::string& name, int pid, long long tid, double from_s, double to_s) {
    if (from_s < 0 || to_s < from_s) return;
    o << (first ? "" : ",\n") << "{\"name\":\"" << name << "\",\"ph\":\"X\",\"pid\":" << pid << ",\"tid\":" << tid
      << ",\"ts\":" << from_s * 1e6 << ",\"dur\":" << (to_s - from_s) * 1e6 << "}";
    first = false;
  };
  long long shown = 0;
  for (std::size_t i = 0; i < result_.requests.size() && shown < 5000; ++i) {
    const auto& r = result_.requests[i];
    if (r.arrival_s >= c_.trace_until_s) break;
    ++shown;
    const long long id = static_cast<long long>(i);
    const double decode_from = c_.disaggregated ? r.transfer_end_s : r.prefill_end_s;
    event("queued", 1, id, r.arrival_s, r.prefill_start_s);
    event("prefill", 1, id, r.prefill_start_s, r.prefill_end_s);
    if (c_.disaggregated) event("KV transfer", 1, id, r.prefill_end_s, r.transfer_end_s);
    event("decode", 1, id, decode_from, r.finish_s);
  }
  for (const auto& k : counters_) {
    o << (first ? "" : ",\n") << "{\"name\":\"unit " << k.unit << "\",\"ph\":\"C\",\"pid\":2,\"ts\":" << k.t * 1e6
      << ",\"args\":{\"batch per rank\":" << k.batch << ",\"queued\":" << k.queue << ",\"KV use\":" << k.kv << "}}";
    first = false;
  }
  o << "\n]}\n";
  return o.str();
}

}  // namespace

// (A kept run's records are copied out of its requests' state at its end.)
double bytes_per_request() { return double(sizeof(InFlight) + sizeof(RequestRecord)); }
// (A rank's queues take memory only once something is queued.)
double bytes_per_rank() { return double(sizeof(Rank) + sizeof(Unit)); }

ServingResult simulate_serving(RequestSource& source, const ServingConfig& config, const std::function<void(double)>& progress) {
  Simulation s(source, config, progress, {});
  return s.run();
}

ServingResult simulate_serving(RequestSource& source, const ServingConfig& config, const std::function<void(double)>& progress,
                               const std::function<void(const RequestRecord&)>& on_record) {
  Simulation s(source, config, progress, on_record);
  return s.run();
}

ServingResult simulate_serving(const std::vector<Request>& requests, const ServingConfig& config,
                               const std::function<void(double)>& progress) {
  ListedSource source(requests);
  return simulate_serving(source, config, progress);
}

}  // namespace serving
