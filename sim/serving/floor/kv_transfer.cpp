#include "serving/floor/kv_transfer.hpp"

#include <algorithm>

#include "serving/floor/arrivals.hpp"
#include "serving/floor/autoscaler.hpp"
#include "serving/floor/completions.hpp"
#include "serving/floor/decode_rank.hpp"
#include "serving/floor/unit_step.hpp"

namespace serving {

void send_to_decode(Floor& f, int id, int u, int r) {
  RequestState& l = f.state(id);
  l.prefill_unit = u;
  l.prefill_rank = r;
  l.pages = 0;
  if (f.c.decode_unbounded) {  // no decode to wait for: the transfer starts now
    l.phase = RequestPhase::kTransferring;
    f.push(transfer_end_s(f, l, nullptr), EventKind::kTransferEnd, id);
    return;
  }
  const auto [du, to] = place(f, l, Side::kDecode, RequestPhase::kAwaitingKv);
  to.incoming.push_back(id);
  to.incoming_pages += f.pages_for(f.c.decode, l.in_kv + 1);
  tell_router(f, du, to);
  f.units_to_start.push_back(du);
}

double transfer_end_s(Floor& f, const RequestState& l, Rank* to) {
  Rank* from = l.prefill_unit >= 0 ? &f.rank_of(l.prefill_unit, l.prefill_rank) : nullptr;
  const bool nvlink = from && to && from->nvlink_domain >= 0 && from->nvlink_domain == to->nvlink_domain;
  auto link_free_s = [nvlink](Rank* rank) -> double& { return nvlink ? rank->nvlink_free_s : rank->nic_free_s; };
  double start = f.now;
  for (Rank* rank : {from, to})
    if (rank) start = std::max(start, link_free_s(rank));
  const double latency_s = nvlink ? f.c.kv_scale_up_latency_s : f.c.kv_transfer_latency_s;
  const double per_gpu_Bps = nvlink ? f.c.kv_scale_up_Bps : f.c.kv_transfer_Bps;
  const double end = start + latency_s + f.c.prefill.memory.kv_pages.bytes(l.in_kv) / (f.c.kv_senders * per_gpu_Bps);
  for (Rank* rank : {from, to})
    if (rank) link_free_s(rank) = end;
  return end;
}

void transfer_end(Floor& f, int id) {
  RequestState& l = f.state(id);
  auto& rec = f.record(id);
  rec.transfer_end_s = f.now;
  const int from_unit = l.prefill_unit;
  if (from_unit >= 0) {  // the prefill rank's copy is released
    Rank& from = f.rank_of(from_unit, l.prefill_rank);
    from.pages_used -= f.pages_for(f.c.prefill, l.in_kv);
    tell_router(f, from_unit, from);
  }
  if (f.c.decode_unbounded) {
    first_token(f, rec);
    finish(f, id);
  } else {
    join_decode(f, id);
  }
  if (from_unit >= 0) {
    start_step(f, from_unit);
    retire_if_drained(f, f.unit(from_unit).group);
  }
}

void swap_in_end(Floor& f, int id) { join_decode(f, id); }

}  // namespace serving
