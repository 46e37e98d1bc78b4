#include <catch2/catch.hpp>

#include "serving/autoscaling.hpp"

using namespace serving;

TEST_CASE("autoscaling policy: up above the threshold to the target, down below it, within min and max", "[serving]") {
  PhaseScaling p;
  p.min_units = 2;
  p.max_units = 40;
  p.target_utilisation = 0.7;
  p.scale_up_above = 0.85;
  p.scale_down_below = 0.5;
  CHECK(desired_units(p, {4, 0.95, 0, 0}) == 6);   // ceil(4 x 0.95 / 0.7)
  CHECK(desired_units(p, {4, 0.86, 0, 0}) == 5);   // at least one more
  CHECK(desired_units(p, {4, 0.6, 0, 0}) == 4);    // between the thresholds: as is
  CHECK(desired_units(p, {8, 0.2, 0, 0}) == 7);    // towards ceil(8 x 0.2 / 0.7) = 3, one a look
  CHECK(desired_units(p, {30, 0.2, 0, 0}) == 27);  // a tenth a look
  CHECK(desired_units(p, {10, 0.6, 0, 0}) == 10);
  CHECK(desired_units(p, {2, 0.0, 0, 0}) == 2);    // not below min
  CHECK(desired_units(p, {39, 1.0, 0, 0}) == 40);  // not above max
  p.max_queue_per_unit = 5;
  CHECK(desired_units(p, {4, 0.6, 8, 0}) == 5);  // the queue adds one
  PhaseScaling l = p;
  l.on_latency = true;
  l.max_latency_p90_s = 2;
  l.latency_down_below = 0.5;
  CHECK(desired_units(l, {4, 1.0, 0, 2.5}) == 5);
  CHECK(desired_units(l, {10 - 1, 1.0, 0, 2.5}) == 10);
  CHECK(desired_units(l, {4, 1.0, 0, 1.5}) == 4);
  CHECK(desired_units(l, {4, 1.0, 0, 0.5}) == 3);
  CHECK(desired_units(l, {4, 0.0, 0, std::nan("")}) == 3);  // no request: down
}
