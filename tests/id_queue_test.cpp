#include <catch2/catch.hpp>

#include <deque>
#include <random>

#include "serving/containers/id_queue.hpp"

TEST_CASE("an id queue is a deque's front and back, through growth, copies and moves", "[id_queue]") {
  static_assert(sizeof(serving::IdQueue) == 16);
  std::mt19937 random(7);
  serving::IdQueue q;
  std::deque<int> expected;
  CHECK(q.empty());
  for (int op = 0; op < 20000; ++op) {
    const unsigned r = random() % 10;
    if (r < 5 || expected.empty()) {  // pushes outnumber pops, so the ring grows and wraps
      const int id = static_cast<int>(random() % 100000);
      if (r == 0) {
        q.push_front(id);
        expected.push_front(id);
      } else {
        q.push_back(id);
        expected.push_back(id);
      }
    } else {
      REQUIRE(q.front() == expected.front());
      q.pop_front();
      expected.pop_front();
    }
    REQUIRE(q.size() == expected.size());
    REQUIRE(q.empty() == expected.empty());
    if (op % 997 == 0) {
      const serving::IdQueue copy = q;
      serving::IdQueue moved = serving::IdQueue(copy);
      REQUIRE(moved.size() == expected.size());
      for (std::size_t i = 0; i < expected.size(); ++i) REQUIRE(moved.at(i) == expected[i]);
      q = std::move(moved);
    }
  }
  q.clear();
  CHECK(q.empty());
  q.push_back(3);
  CHECK(q.front() == 3);
}
