#include "serving/floor/prefill_rank.hpp"

#include <algorithm>

#include "serving/floor/completions.hpp"
#include "serving/floor/decode_rank.hpp"
#include "serving/floor/kv_transfer.hpp"
#include "serving/schedulers/rank_scheduler.hpp"

namespace serving {

void take_prompt_chunks(Floor& f, int u, Rank& rank, RankStepLoad& load) {
  Unit& unit = f.unit(u);
  const UnitConfig& cfg = *unit.config;
  const RankScheduler& scheduler = *f.scheduler;
  const bool whole = scheduler.whole_prompts();
  auto chunk_of = [&](int id) {
    const RequestState& l = f.state(id);
    const int chunk = whole ? l.prompt - l.in_kv : std::min(load.budget, l.prompt - l.in_kv);
    rank.chunks.push_back({id, chunk});
    load.budget -= chunk;
    load.group.prefill_sequences += 1;
    load.group.prefill_tokens += chunk;
    load.group.prefill_context_tokens += l.in_kv;
    load.pairs += chunk * (l.in_kv + chunk / 2.0);
    load.tokens += chunk;
  };
  for (int id : rank.prefilling)
    if (load.budget > 0) chunk_of(id);
  const bool admitting = scheduler.admitting(unit, rank);
  while (admitting && load.budget > 0 && !rank.waiting.empty() && rank.running() < cfg.max_running) {
    const int id = rank.waiting.front();
    RequestState& l = f.state(id);
    if (whole && !rank.chunks.empty() && l.prompt - l.cached > load.budget) break;
    const long long p = f.pages_for(cfg, l.prompt + (unit.decodes ? 1 : 0));
    if (rank.pages_used + p > rank.pages_total) break;
    if (scheduler.reserves_to_end()) {
      const long long promise = promised_pages(f, cfg, id);
      if (rank.promised_pages + promise > rank.pages_total && rank.running() > 0) break;
      rank.promised_pages += promise;
    }
    rank.waiting.pop_front();
    rank.pages_used += p;
    l.pages = p;
    l.in_kv = l.cached;
    l.phase = RequestPhase::kPrefilling;
    l.unit = u;
    l.rank = unit.index_of(rank);
    rank.prefilling.push_back(id);
    auto& rec = f.record(id);
    if (rec.prefill_start_s < 0) rec.prefill_start_s = f.now;
    chunk_of(id);
  }
}

void end_prompt_chunks(Floor& f, int u, Rank& rank, double share, bool count, FleetInterval* here) {
  const int r = f.unit(u).index_of(rank);
  for (const Chunk& e : rank.chunks) {
    RequestState& l = f.state(e.request);
    auto& rec = f.record(e.request);
    if (l.in_kv == l.cached && count) f.result.input_tokens_in_window += share * l.cached;
    rank.pending_pairs -= pairs_left(l.prompt, l.in_kv) - pairs_left(l.prompt, l.in_kv + e.tokens);
    l.in_kv += e.tokens;
    rank.pending_tokens -= e.tokens;
    if (count) {
      f.result.input_tokens_in_window += share * e.tokens;
      f.result.computed_input_tokens_in_window += share * e.tokens;
    }
    if (here) {
      here->input_tokens += e.tokens + (l.in_kv == l.cached + e.tokens ? l.cached : 0);
      here->computed_input_tokens += e.tokens;
    }
    if (l.in_kv < l.prompt) continue;
    if (rec.prefill_end_s < 0) rec.prefill_end_s = f.now;
    rank.prefilling.erase(std::find(rank.prefilling.begin(), rank.prefilling.end(), e.request));
    if (f.c.disaggregated) {
      send_to_decode(f, e.request, u, r);
      continue;
    }
    // Colocated: the prefill's logits give the first token.
    if (rec.first_token_s < 0) {
      first_token(f, rec);
      l.generated = 1;
      if (count) f.result.output_tokens_in_window += share;
      if (here) here->output_tokens += 1;
    }
    if (l.generated >= rec.output_tokens) {
      rank.pages_used -= l.pages;
      finish(f, e.request);
      continue;
    }
    l.phase = RequestPhase::kDecoding;
    join_batch(f, u, rank, e.request, l);
  }
  rank.chunks.clear();
}

}  // namespace serving
