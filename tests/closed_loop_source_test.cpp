#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "requests/closed_loop_source.hpp"
#include "requests/generated_source.hpp"
#include "requests/request_generator.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"

#include "serving_fixtures.hpp"

using namespace requests;
using namespace serving;
using namespace serving_fixtures;

TEST_CASE("request sources: N closed-loop clients keep exactly N requests in flight", "[serving]") {
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  ServingConfig c = colocated(cost, 64);
  c.duration_s = 60;
  const GeneratedWorkload w = a_minute_of_requests();
  for (const double think_s : {0.0, 2.0}) {
    ClientLoop loop;
    loop.clients = 48;
    loop.think_s = think_s;
    loop.exponential_think = true;
    ClosedLoopSource clients(w, loop);
    const auto r = simulate_serving(clients, c);
    INFO("think " << think_s << " s, " << r.requests.size() << " requests");
    REQUIRE(r.requests.size() > 5 * 48);  // each client sent several
    CHECK(r.unfinished == 0);
    long long sent_late = 0;
    for (const auto& q : r.requests) sent_late += q.arrival_s >= c.duration_s;
    CHECK(sent_late == 0);
    // In flight at sample instants: N where no client thinks; between 0 and N where they do.
    long long min_flight = 1 << 30, max_flight = 0;
    for (double t = 0.5; t < 50; t += 0.37) {
      long long n = 0;
      for (const auto& q : r.requests) n += q.arrival_s <= t && q.finish_s > t;
      min_flight = std::min(min_flight, n);
      max_flight = std::max(max_flight, n);
    }
    if (think_s == 0) {
      CHECK(min_flight == 48);
      CHECK(max_flight == 48);
    } else {
      CHECK(max_flight <= 48);
      CHECK(min_flight < 48);
      CHECK(min_flight > 0);
    }
  }
}
