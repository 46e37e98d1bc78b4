#pragma once
// Completions: a request's first token and its finish (its record out, streamed where the run
// streams them, and its closed-loop client told so it sends its next).
#include "serving/floor/floor.hpp"

namespace serving {

// A request's first token, now.
void first_token(Floor& f, RequestRecord& rec);
void finish(Floor& f, int id);

}  // namespace serving
