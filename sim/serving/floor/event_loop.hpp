#pragma once
// The spine of a serving run: the floor built from its config (units, ranks, routers, the
// autoscaler's groups), then its events taken in order of time, each handed to the room it
// belongs to, until none is left or the drain limit passes; then the result.
#include "serving/floor/floor.hpp"

namespace serving {

ServingResult run(Floor& f);

}  // namespace serving
