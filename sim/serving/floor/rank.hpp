#pragma once
// The floor's places: a unit of GPUs that steps as one, and its DP ranks (attention groups),
// each with its own queues, batch and KV pages.
#include <cstddef>
#include <vector>

#include "serving/containers/decode_batch.hpp"
#include "serving/containers/id_queue.hpp"
#include "serving/containers/page_calendar.hpp"
#include "serving/serving_config.hpp"

namespace serving {

// A prompt's chunk in a step in flight.
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
  int pages_total = 0;   // (two billion pages: a petabyte of KV at the smallest)
  bool unheard = false;  // its load changed since its router last heard (a join during a step)
  DecodeBatch decoding;
  IdQueue waiting;                 // for prefill (or, colocated, admission)
  long long incoming_pages = 0;    // what the incoming requests will need (the KV-aware router counts it)
  long long pages_told_below = 0;  // while its pages (with those) stay below this, its router's load is as last told
  int transferring = 0;
  int router_slot = -1;          // its place in the router's index
  std::vector<int> prefilling;   // admitted prompts, in order of admission
  std::vector<Chunk> chunks;     // prefill chunks in the step in flight
  long long pending_tokens = 0;  // prompt tokens waiting or being prefilled, for the router
  double pending_pairs = 0;      // ... and the query-key pairs of their attention
  double nic_free_s = 0;         // when its NICs are done with the KV caches queued on them
  double nvlink_free_s = 0;      // ... and its NVLink, with those to ranks of its domain
  int nvlink_domain = -1;        // the NVLink domain all its GPUs are in (-1: they span several)
  long long promised_pages = 0;  // a scheduler that reserves to the end: its sequences' pages at their last tokens

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
  PageCalendar boundaries;             // its decoding sequences' page boundaries
  long long steps = 0;                 // steps started
  std::vector<SteppingRank> stepping;  // in the step in flight, in order
  bool busy = false;
  bool step_has_prompts = false;  // the step in flight computes prompt chunks
  double step_start_s = 0;
  double decode_step_s = 0;  // its last step without prompt chunks (0: none yet)

  int index_of(const Rank& rank) const { return static_cast<int>(&rank - ranks.data()); }
};

}  // namespace serving
