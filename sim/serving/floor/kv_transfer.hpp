#pragma once
// The KV cache between the phases (disaggregated): a prefilled request is placed on a decode
// rank, whose pages it awaits while its prefill rank still holds its KV; once the decode rank
// has pages, the cache moves over both ranks' NICs, and its end frees the prefill rank's copy.
// A swapped-out cache coming back from host memory ends the same way, in its decode rank.
#include "serving/floor/floor.hpp"

namespace serving {

// A prefilled request goes to a decode rank, whose pages it awaits; its KV cache is still held
// by the prefill rank (`u`, `r`; -1 where prefill is not simulated).
void send_to_decode(Floor& f, int id, int u, int r);
// When a KV cache that starts moving now has arrived. It takes the NICs of the prefill rank
// that holds it and of the decode rank `to` (none where a phase is not simulated) whole, so
// transfers to or from one rank queue one after another; where both ranks are in one NVLink
// domain, their NVLink instead. (The EP all-to-all's share of those links is not taken from them.)
double transfer_end_s(Floor& f, const RequestState& l, Rank* to);
void transfer_end(Floor& f, int id);
void swap_in_end(Floor& f, int id);

}  // namespace serving
