#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "requests/capped_source.hpp"
#include "requests/generated_source.hpp"
#include "requests/listed_source.hpp"
#include "requests/request_generator.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"

#include "serving_fixtures.hpp"

using namespace requests;
using namespace serving;
using namespace serving_fixtures;

TEST_CASE("capped arrivals: each sent at its time or when a place frees, in order, never more in flight than the cap",
          "[serving]") {
  // Requests at 0, 1, 2 and 3 s through 2 places: the third waits for the first to finish (at
  // 2.5 s), the fourth for the next finish (4 s); none is sent at or after 10 s.
  std::vector<Request> list(5);
  for (int i = 0; i < 5; ++i) list[static_cast<std::size_t>(i)].arrival_s = i < 4 ? i : 12;
  ListedSource listed(list);
  CappedSource capped(listed, 2, 10);
  CHECK(capped.next()->arrival_s == 0);
  CHECK(capped.next()->arrival_s == 1);
  CHECK_FALSE(capped.next());            // two in flight: the third waits
  CHECK(capped.finished(list[1], 0.5));  // a place frees: the waiting one may go
  CHECK(capped.next()->arrival_s == 2);  // at its own time, the place free since 0.5 s
  CHECK_FALSE(capped.next());
  CHECK(capped.finished(list[0], 4.0));
  CHECK(capped.next()->arrival_s == 4.0);      // sent when the place freed, after its 3 s
  CHECK_FALSE(capped.finished(list[2], 5.0));  // none waits
  CHECK_FALSE(capped.next());                  // the last would be sent after until_s
}

TEST_CASE("capped arrivals through a unit: the arrival rate below the cap, the cap's in flight above it", "[serving]") {
  workload::ServingRequest base;
  base.kv_bytes_per_element = 1;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  ServingConfig c = colocated(cost, 64);
  c.duration_s = 60;
  GeneratedWorkload w = a_minute_of_requests();
  for (const double rate : {2.0, 400.0}) {
    w.arrivals.rate_per_s = rate;
    GeneratedSource arrivals(w);
    CappedSource capped(arrivals, 16, c.duration_s);
    const auto r = simulate_serving(capped, c);
    INFO("rate " << rate << ", " << r.requests.size() << " requests");
    long long most = 0, sent_late = 0;
    for (const auto& q : r.requests) {
      sent_late += q.arrival_s >= c.duration_s;
      long long n = 0;
      for (const auto& o : r.requests) n += o.arrival_s <= q.arrival_s && o.finish_s > q.arrival_s;
      most = std::max(most, n);
    }
    CHECK(sent_late == 0);
    CHECK(most <= 16);
    if (rate < 10)
      CHECK(double(r.requests.size()) == Approx(rate * c.duration_s).epsilon(0.2));  // every arrival sent
    else
      CHECK(most == 16);  // the cap binds
  }
}
