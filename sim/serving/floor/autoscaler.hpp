#pragma once
// The autoscaler on the floor: each side's groups of units serving, starting, draining or off.
// At each tick it looks at the last interval (utilisation, queue, latency against the policy's
// targets, `autoscaling.hpp`) and resizes a side: draining units called back, else off ones
// started (serving a start-up later); starting ones stopped, else the serving ones with the
// fewest requests drained. A draining unit is retired (off) once its last request has left.
#include "serving/floor/floor.hpp"

namespace serving {

void set_state(Floor& f, int g, UnitState to);
// A draining group whose last request has left is off.
void retire_if_drained(Floor& f, int g);
void autoscaler_tick(Floor& f);

}  // namespace serving
