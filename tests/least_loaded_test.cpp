#include <catch2/catch.hpp>

#include <cmath>

#include "core/fast_random.hpp"
#include "serving/containers/least_loaded.hpp"

using namespace serving;

TEST_CASE("router index: the least loaded rank; ties go to the one chosen longest ago", "[serving]") {
  LeastLoaded index(5);
  std::vector<int> order;
  for (int i = 0; i < 7; ++i) order.push_back(index.take());
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4, 0, 1});
  index.set(3, -1);
  CHECK(index.take() == 3);
  CHECK(index.take() == 3);  // still the least loaded
  index.set(3, 5);
  index.set(2, 5);
  CHECK(index.take() == 4);  // 2 and 3 now loaded; 4 was chosen before 0 and 1
  CHECK(index.take() == 0);
  CHECK(index.load(2) == 5);
  LeastLoaded one(1);
  CHECK(one.take() == 0);
  CHECK(one.take() == 0);
}

TEST_CASE("router index: any run of loads and choices picks what a scan of every rank picks", "[serving]") {
  // (Changes come one or two at a time between choices, or in runs of dozens, as a unit's step
  // changes most of its ranks' loads.)
  const int sizes[] = {1, 2, 7, 64, 1296};
  for (int run = 0; run < 10; ++run) {
    const int ranks = sizes[run % 5];
    const double changes = run < 5 ? 0.6 : 0.97;
    LeastLoaded index(ranks);
    std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
    std::vector<long long> chosen(static_cast<std::size_t>(ranks));
    for (int i = 0; i < ranks; ++i) chosen[static_cast<std::size_t>(i)] = i - ranks;
    core::FastNormal random(static_cast<std::uint64_t>(1000 * run + ranks));
    long long clock = 0;
    for (int op = 0; op < 20000; ++op) {
      if (random.uniform() < changes) {  // a few load levels, some below zero, so that ties are common
        const int r = static_cast<int>(random.uniform() * ranks);
        load[static_cast<std::size_t>(r)] = std::floor(random.uniform() * 8) / 2 - 1;
        index.set(r, load[static_cast<std::size_t>(r)]);
        REQUIRE(index.load(r) == load[static_cast<std::size_t>(r)]);
        continue;
      }
      int best = 0;
      for (int r = 1; r < ranks; ++r) {
        const auto a = static_cast<std::size_t>(r), b = static_cast<std::size_t>(best);
        if (load[a] < load[b] || (load[a] == load[b] && chosen[a] < chosen[b])) best = r;
      }
      chosen[static_cast<std::size_t>(best)] = clock++;
      REQUIRE(index.take() == best);
      if (random.uniform() < 0.5) {  // as a router does: the chosen rank's load follows its choice
        load[static_cast<std::size_t>(best)] = std::floor(random.uniform() * 4);
        index.set(best, load[static_cast<std::size_t>(best)]);
      }
    }
  }
}
