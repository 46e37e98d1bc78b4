#include <catch2/catch.hpp>

#include <functional>
#include <queue>
#include <random>
#include <vector>

#include "serving/containers/event_queue.hpp"

namespace {
struct Ev {
  double t;
  long long seq;
  int lane;
  bool operator>(const Ev& o) const { return t > o.t || (t == o.t && seq > o.seq); }
};
}  // namespace

// The queue gives events in the order one heap of them all would, whatever each lane is given:
// events in order (taken as they come), out of order (to the heap), ties, and lanes that empty
// and fill again or never empty.
TEST_CASE("an event queue's lanes give the order of one heap", "[event_queue]") {
  for (const double out_of_order : {0.0, 0.1, 0.5}) {
    std::mt19937 random(11);
    std::uniform_real_distribution<double> u(0, 1);
    serving::EventQueue<Ev, 2> q;
    std::priority_queue<Ev, std::vector<Ev>, std::greater<Ev>> expected;
    double now = 0, lane_t[2] = {0, 0};
    long long seq = 0;
    for (int op = 0; op < 200000; ++op) {
      if (expected.empty() || u(random) < 0.52) {             // pushes a little ahead of pops: lanes rarely empty
        const int lane = static_cast<int>(random() % 3) - 1;  // -1: the heap's alone
        double t = now + u(random);
        if (lane >= 0) {  // a lane's events mostly come in order, some at the same time
          const double r = u(random);
          t = r < out_of_order ? now + u(random) : r < 0.3 ? lane_t[lane] : lane_t[lane] + u(random);
          t = std::max(t, now);
          lane_t[lane] = std::max(lane_t[lane], t);
        }
        const Ev e{t, seq++, lane};
        q.push(e, lane < 0 ? serving::EventQueue<Ev, 2>::kHeap : lane);
        expected.push(e);
      } else {
        REQUIRE(q.peek()->seq == expected.top().seq);
        const Ev e = q.pop();
        REQUIRE(e.seq == expected.top().seq);
        expected.pop();
        now = e.t;
      }
      REQUIRE(q.empty() == expected.empty());
    }
    while (!expected.empty()) {
      REQUIRE(q.pop().seq == expected.top().seq);
      expected.pop();
    }
    CHECK(q.empty());
    CHECK(q.peek() == nullptr);
  }
}
