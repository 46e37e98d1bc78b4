#include "serving/floor/unit_step.hpp"

#include <algorithm>

#include "serving/floor/autoscaler.hpp"
#include "serving/floor/completions.hpp"
#include "serving/floor/decode_rank.hpp"
#include "serving/floor/prefill_rank.hpp"
#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

namespace {

// A unit's step put together, stage by stage: its page boundaries counted by rank; each rank's
// part in turn; the boundaries of the ranks that took them together placed again; the step
// timed and its end scheduled.
//
// A decode unit's page boundaries are counted by rank, and their new pages found, in one pass:
// a rank whose pages hold them (most) then adds its pages in its turn, and they are placed again
// after the ranks. Those of the other ranks (joins at this step, pages short, a rank that did
// not step every time, a unit that mixes in prompts) are taken one rank at a time as they come.
class StepBuilder {
 public:
  StepBuilder(Floor& f, int u)
      : f_(f),
        u_(u),
        unit_(f.unit(u)),
        config_(*unit_.config),
        tokens_per_step_(unit_.decodes ? 1 + f.c.mtp_drafts : 1),
        mixes_(f.prefills(unit_)),
        calendar_(unit_.boundaries),
        s_(f.pages) {}

  void build() {
    count_boundaries();
    if (mixes_) prefetch_prompts();
    unit_.stepping.clear();
    for (auto& rank : unit_.ranks) add_rank(rank);
    if (!mixes_) place_boundaries_together();
    if (any_) launch();
  }

 private:
  void count_boundaries() {
    s_.boundaries.clear();
    calendar_.take(unit_.steps, s_.boundaries);
    if (s_.boundaries.empty()) return;
    // Each rank's step, read in the ranks' order (the boundaries come in no order of rank).
    s_.due_of_rank.resize(unit_.ranks.size());
    for (std::size_t r = 0; r < unit_.ranks.size(); ++r)
      s_.due_of_rank[r] = {0, false, unit_.ranks[r].decoding.next_step(), 0};
    if (!mixes_) s_.renewed.resize(s_.boundaries.size());
    for (std::size_t i = 0; i < s_.boundaries.size(); ++i) {
      const PageBoundary& b = s_.boundaries[i];
      auto& d = s_.due_of_rank[static_cast<std::size_t>(b.rank)];
      ++d.count;
      if (mixes_) continue;
      if (b.step > d.step) {
        d.one_by_one = true;
        continue;
      }
      s_.renewed[i] = renewal(f_, config_, calendar_, b, d.step, tokens_per_step_);
      d.extra += s_.renewed[i].pages - b.pages;
    }
  }

  // Rank `r`'s boundaries as taken, for a rank taken one by one (linked by rank the first time).
  void take_due(int r) {
    if (s_.boundaries.empty() || s_.due_of_rank[static_cast<std::size_t>(r)].count == 0) return;
    if (!linked_) {
      s_.first_of_rank.assign(unit_.ranks.size(), -1);
      s_.next_of_rank.resize(s_.boundaries.size());
      for (int i = static_cast<int>(s_.boundaries.size()) - 1; i >= 0; --i) {
        int& first = s_.first_of_rank[static_cast<std::size_t>(s_.boundaries[static_cast<std::size_t>(i)].rank)];
        s_.next_of_rank[static_cast<std::size_t>(i)] = first;
        first = i;
      }
      linked_ = true;
    }
    for (int i = s_.first_of_rank[static_cast<std::size_t>(r)]; i >= 0;
         i = s_.next_of_rank[static_cast<std::size_t>(i)])
      s_.due.push_back(s_.boundaries[static_cast<std::size_t>(i)]);
  }

  // The prompts it may take, asked of the memory together (they were read a step or more before).
  void prefetch_prompts() {
    for (const Rank& rank : unit_.ranks) {
      for (int id : rank.prefilling) f_.prefetch(id);
      const std::size_t admissible = static_cast<std::size_t>(std::max(0, config_.max_running - rank.running()));
      for (std::size_t i = 0; i < std::min(rank.waiting.size(), admissible); ++i) f_.prefetch(rank.waiting.at(i));
    }
  }

  void add_rank(Rank& rank) {
    const int r = unit_.index_of(rank);
    // Most ranks of a decode unit have nothing at a step but their batch's step and a page
    // boundary or two: nothing queued, room for their pages, their router's load as it heard it.
    // Those (calm) skip what follows from queues; those without a boundary (quiet) also tell
    // their router nothing.
    auto* due = s_.boundaries.empty() ? nullptr : &s_.due_of_rank[static_cast<std::size_t>(r)];
    const bool calm = !mixes_ && rank.received.empty() && rank.swapped.empty() && rank.incoming.empty() &&
                      !rank.unheard && rank.pages_used <= rank.pages_total;
    const bool quiet = calm && (!due || due->count == 0);
    if (unit_.decodes && !calm) admit_incoming(f_, u_, rank);  // in the same pass: the rank's state is read once a step
    int in_step = 0;                                           // its decoding sequences in the step
    RankStepLoad load;
    load.budget = config_.max_batch_tokens;
    const bool prompts_only = mixes_ && unit_.decodes && f_.scheduler->prompts_only(f_, unit_, rank);
    // The boundaries of sequences that joined at this step, if any; a rank with none whose pages
    // hold its boundaries takes their pages now (they are placed again after the ranks).
    s_.joined.clear();
    if (unit_.decodes && !calm) calendar_.take(unit_.steps, s_.joined);  // (a calm rank admitted none)
    const bool decoding = unit_.decodes && !rank.decoding.empty() && !prompts_only;
    const long long extra_due = due ? due->extra : 0;
    const bool due_together = !mixes_ && decoding && !(due && due->one_by_one) && s_.joined.empty() &&
                              rank.pages_used + extra_due <= rank.pages_total;
    if (due_together)
      rank.pages_used += extra_due;
    else if (due)
      due->one_by_one = true;
    // Else its boundaries at this step: those taken, and those of sequences that just joined.
    s_.due.clear();
    if (!due_together) {
      take_due(r);
      s_.due.insert(s_.due.end(), s_.joined.begin(), s_.joined.end());
    }
    if (!decoding)  // they wait for its next step
      for (const PageBoundary& b : s_.due) calendar_.place(b, unit_.steps + 1);
    // Decoding sequences grow by their tokens; when pages run out, the latest admitted go.
    if (decoding) {
      // (Without boundaries, nothing to do here where the rank has room.)
      if (!due_together && (!s_.due.empty() || rank.pages_used > rank.pages_total))
        grow_pages(f_, u_, rank, s_.due, tokens_per_step_);
      const double context = rank.decoding.context();
      streaming_ += rank.decoding.size() - rank.decoding.fresh();
      in_step = rank.decoding.start_step();
      if (rank.decoding.ending_count() > 0)
        for (const DecodeBatch::Ending& e : rank.decoding.ending()) f_.prefetch(e.id);  // (read at the step's end)
      load.budget -= tokens_per_step_ * in_step;
      load.tokens += tokens_per_step_ * in_step;
      load.group.decode_sequences = in_step;
      load.group.decode_context_tokens = context / in_step;
    }
    if (mixes_) {
      take_prompt_chunks(f_, u_, rank, load);
      if (!rank.chunks.empty()) any_prefill_ = true;
    }
    workload::GroupLoad& g = load.group;
    // A proxy of this rank's attention time, to find the busiest: its new tokens through the
    // projections, the KV its decoding sequences read, its prefill's query-key pairs.
    const double score = double(load.tokens) +
                         g.decode_context_tokens * g.decode_sequences * config_.cost->kv_token_weight() +
                         load.pairs * config_.cost->pair_weight();
    if (g.prefill_sequences > 0) {
      g.prefill_tokens /= g.prefill_sequences;
      g.prefill_context_tokens /= g.prefill_sequences;
    }
    if (score > busiest_score_) {
      busiest_score_ = score;
      busiest_ = g;
    }
    unit_tokens_ += load.tokens;
    const int entries = in_step + static_cast<int>(rank.chunks.size());
    any_ = any_ || entries > 0;
    if (entries > 0)
      unit_.stepping.push_back({r, in_step, !rank.chunks.empty() || (in_step > 0 && !rank.decoding.ends_quietly())});
    if (!calm)
      queue_ += double(rank.waiting.size() + rank.incoming.size() + rank.swapped.size());  // (a calm rank has none)
    batch_ += double(entries);
    kv_use_ = std::max(kv_use_, double(rank.pages_used) / double(std::max<long long>(1, rank.pages_total)));
    // A calm rank whose step only added pages below its told bound has the load its router
    // heard: a page boundary is a step's usual event, and a sixteenth of KV is hundreds of pages.
    if (!quiet && !(calm && due_together && rank.pages_used + rank.incoming_pages < rank.pages_told_below))
      tell_router(f_, u_, rank);
  }

  // The boundaries of the ranks that took them together, placed again.
  void place_boundaries_together() {
    for (std::size_t i = 0; i < s_.boundaries.size(); ++i) {
      const auto& d = s_.due_of_rank[static_cast<std::size_t>(s_.boundaries[i].rank)];
      if (d.one_by_one) continue;
      PageBoundary& b = s_.boundaries[i];
      b.room = s_.renewed[i].room;
      b.pages = s_.renewed[i].pages;
      calendar_.schedule(b, d.step, unit_.steps);
    }
  }

  // The step timed by its busiest rank and the engine's CPU work; its figures summed; its end.
  void launch() {
    const ServingConfig& c = f_.c;
    StepLoad load{busiest_, unit_tokens_, any_prefill_, unit_.decodes ? c.mtp_drafts : 0};
    const double gpu_s = config_.cost->seconds(load);
    const double step_s = c.engine.step_s(gpu_s, busiest_.decode_sequences + busiest_.prefill_sequences,
                                          config_.deployment.attention_tp * config_.deployment.pipeline_stages);
    unit_.busy = true;
    unit_.step_has_prompts = any_prefill_;
    unit_.step_start_s = f_.now;
    const double ranks = double(unit_.ranks.size());
    const double busiest_tokens =
        busiest_.decode_sequences * tokens_per_step_ + busiest_.prefill_sequences * busiest_.prefill_tokens;
    const double imbalance = unit_tokens_ > 0 ? busiest_tokens / (double(unit_tokens_) / ranks) : 1.0;
    if (f_.measuring(f_.now)) {
      StepSums& sums = unit_.prefill_kind ? f_.series.prefill : f_.series.decode;
      sums.add(step_s, batch_ / ranks, double(unit_tokens_), queue_, kv_use_, imbalance, load,
               config_.cost->last_parts());
      sums.out.engine_s += step_s - gpu_s;
      f_.result.inter_token_s.add(step_s, streaming_);
    }
    if (c.interval_s > 0 || c.autoscaling.enabled()) {
      // A prefill unit's use is its time stepping; a decoding unit's, the share of its sequence
      // slots or KV pages in use, whichever is higher.
      const Group& group = f_.groups[static_cast<std::size_t>(unit_.group)];
      const double share = unit_.prefill_kind ? 1.0 : std::max(batch_ / ranks / config_.max_running, kv_use_);
      const double used_s = step_s * share / double(group.units.size());
      if (group.state == UnitState::kServing) f_.look_busy_s[group.side] += used_s;
      if (c.interval_s > 0)
        (unit_.prefill_kind ? f_.interval(f_.now).prefill_busy_s : f_.interval(f_.now).decode_occupancy_s) += used_s;
    }
    if (f_.now < c.trace_until_s) f_.series.counters.push_back({f_.now, u_, batch_ / ranks, queue_, kv_use_});
    ++unit_.steps;
    f_.push(f_.now + step_s, EventKind::kStepEnd, u_);
  }

  Floor& f_;
  const int u_;
  Unit& unit_;
  const UnitConfig& config_;
  const int tokens_per_step_;
  const bool mixes_;  // it computes prompts
  PageCalendar& calendar_;
  PageBoundaryScratch& s_;
  bool linked_ = false;  // first_of_rank and next_of_rank made (for the ranks taken one by one)
  bool any_ = false, any_prefill_ = false;
  double queue_ = 0, kv_use_ = 0, batch_ = 0, busiest_score_ = -1;
  long long unit_tokens_ = 0, streaming_ = 0;  // streaming: sequences whose token this step is not their first
  workload::GroupLoad busiest_;
};

}  // namespace

void start_step(Floor& f, int u) {
  if (f.unit(u).busy) return;
  StepBuilder(f, u).build();
}

void end_step(Floor& f, int u) {
  Unit& unit = f.unit(u);
  const ServingConfig& c = f.c;
  unit.busy = false;
  // The step's tokens count for the measured window by the share of the step inside it: a long
  // prefill step across the window's edge counts in part, not whole or not at all.
  const double inside_s = std::min(f.now, c.duration_s) - std::max(unit.step_start_s, c.warmup_s);
  const double share = f.now > unit.step_start_s ? std::clamp(inside_s / (f.now - unit.step_start_s), 0.0, 1.0)
                       : f.measuring(f.now)      ? 1.0
                                                 : 0.0;
  const bool count = share > 0;
  FleetInterval* here = c.interval_s > 0 ? &f.interval(f.now) : nullptr;
  // An engine that overlaps its CPU work hands this step's tokens out once the next step has run:
  // a decoding step's time later (the last one the unit ran; this one where it has run none).
  const double ended_s = f.now - unit.step_start_s;
  if (!unit.step_has_prompts) unit.decode_step_s = ended_s;
  f.token_lag_s = c.engine.tokens_a_step_later ? (unit.decode_step_s > 0 ? unit.decode_step_s : ended_s) : 0;
  // The batches' ends first, each request that gets its first token or finishes asked of the
  // memory as it is found; then each rank's in order. A unit's step has a few dozen of them,
  // each reading its record cold, and they are read together rather than one after another.
  StepEndScratch& s = f.ends;
  s.ended.clear();
  s.batch_ends.clear();
  if (f.prefills(unit))  // and its prompts too
    for (const SteppingRank& e : unit.stepping)
      for (const Chunk& chunk : unit.ranks[static_cast<std::size_t>(e.rank)].chunks) f.prefetch(chunk.request);
  for (const SteppingRank& e : unit.stepping) {
    if (!e.events || e.sequences == 0) continue;
    DecodeBatch& batch = unit.ranks[static_cast<std::size_t>(e.rank)].decoding;
    s.batch_ends.push_back(
        {batch.end_step(s.first_tokens, s.finished), s.ended.size(), s.first_tokens.size(), s.finished.size()});
    for (const std::vector<int>* slots : {&s.first_tokens, &s.finished})
      for (int slot : *slots) {
        s.ended.push_back({slot, batch.at(slot).id});
        f.prefetch(s.ended.back().id);
      }
  }
  const StepEndScratch::BatchEnd* end = s.batch_ends.data();
  for (const SteppingRank& e : unit.stepping) {
    // Decoding: each sequence of the step gains a token, and one more for each of MTP's drafts
    // accepted in a row. Where that is all, the rank is not visited.
    if (!e.events) {
      const double produced = double(e.sequences) * f.decode_steps.mean_tokens();  // (its batch's arithmetic)
      if (count) f.result.output_tokens_in_window += share * produced;
      if (here && produced > 0) here->output_tokens += produced;
      continue;
    }
    Rank& rank = unit.ranks[static_cast<std::size_t>(e.rank)];
    bool changed = !rank.chunks.empty();  // its router's load (a step of first tokens alone leaves it)
    if (e.sequences > 0) {
      const StepEndScratch::Ended* first = s.ended.data() + end->from;
      for (const auto* x = first; x != first + end->first_tokens; ++x) first_token(f, f.record(x->id));
      if (count) f.result.output_tokens_in_window += share * end->produced;
      if (here && end->produced > 0) here->output_tokens += end->produced;
      changed = changed || end->finished > 0;
      for (const auto* x = first + end->first_tokens; x != first + end->first_tokens + end->finished; ++x) {
        rank.pages_used -= f.pages_for(*unit.config, rank.decoding.room_tokens(rank.decoding.at(x->slot)));
        finish(f, x->id);
      }
      ++end;
    }
    // Prefill: chunks computed; a finished prompt goes to decode.
    end_prompt_chunks(f, u, rank, share, count, here);
    if (changed) tell_router(f, u, rank);
  }
  f.token_lag_s = 0;
  f.units_to_start_now.swap(f.units_to_start);  // two buffers, so neither is allocated again
  for (int du : f.units_to_start_now) start_step(f, du);
  f.units_to_start_now.clear();
  start_step(f, u);
  if (f.groups[static_cast<std::size_t>(unit.group)].state == UnitState::kDraining) retire_if_drained(f, unit.group);
}

}  // namespace serving
