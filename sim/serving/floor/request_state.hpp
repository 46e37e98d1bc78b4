#pragma once
// A request on the floor: its record (what the report reads) and its state while it is not
// decoding (decoding ones live in their rank's `DecodeBatch`), in one record of two cache lines.
#include <cstdint>

#include "serving/serving_result.hpp"

namespace serving {

// Where a request is on its walk (sim/serving/README.md).
enum class RequestPhase : std::uint8_t {
  kWaiting,
  kPrefilling,
  kAwaitingKv,
  kTransferring,
  kDecoding,
  kSwapped,
  kDone
};

struct RequestState {
  int prompt = 0;  // tokens to hold before decoding: the input, and after a recompute what was generated
  int in_kv = 0;   // tokens whose KV this request holds (cached prefix and computed)
  int cached = 0;
  int generated = 0;
  RequestPhase phase = RequestPhase::kWaiting;
  bool sent = false;         // its record's arrival is when its client sent it (an engine's front end delayed it)
  int unit = -1, rank = -1;  // where it is now
  int prefill_unit = -1, prefill_rank = -1;  // disaggregated: the rank that holds its KV until the transfer ends
  int client = -1;                           // the closed-loop client that sent it, told of its finish
  int arriving = -1;                         // until it arrives: its place among the requests on their way
  long long pages = 0;                       // pages held where it is now
};

// A request's record and its state in flight, together: each of its events reads both, and they
// are two cache lines side by side (BENCHMARKS.md, "One record in flight").
struct alignas(64) InFlight {
  RequestRecord record;
  RequestState state;
};
static_assert(sizeof(InFlight) == 128, "a request in flight is two cache lines");

}  // namespace serving
