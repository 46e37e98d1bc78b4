#include <catch2/catch.hpp>

#include <vector>

#include "serving/containers/page_calendar.hpp"

using namespace serving;

namespace {

// A sequence on rank 0 that joined at its rank's step `first` with `in_kv` tokens, its pages
// holding `room`, its last step `last`.
PageBoundary a_sequence(int id, int in_kv, int room, int first, int last) {
  PageBoundary b;
  b.id = id;
  b.in_kv = in_kv;
  b.room = room;
  b.first = first;
  b.last = last;
  return b;
}

// The unit steps at which `calendar` gives a boundary, taken at each step from 0 to `steps`.
std::vector<std::pair<long long, PageBoundary>> taken(PageCalendar& calendar, long long steps) {
  std::vector<std::pair<long long, PageBoundary>> out;
  std::vector<PageBoundary> into;
  for (long long s = 0; s <= steps; ++s) {
    into.clear();
    calendar.take(s, into);
    for (const PageBoundary& b : into) out.push_back({s, b});
  }
  return out;
}

}  // namespace

TEST_CASE("page calendar: a boundary falls at the first step whose tokens and lookahead pass the room", "[serving]") {
  // Without MTP: 100 tokens, pages of 64 (room 128), one token a step and one ahead.
  PageCalendar calendar(1.0, 1, 64);
  const PageBoundary b = a_sequence(7, 100, static_cast<int>(page_room(101, 64)), 0, 1000);
  REQUIRE(b.room == 128);
  calendar.schedule(b, 0, 0);
  const auto got = taken(calendar, 100);
  REQUIRE(got.size() == 1);
  CHECK(got[0].first == 28);  // 100 + 28 tokens, and the step's one: 129 > 128
  CHECK(got[0].second.step == 28);
  CHECK(calendar.tokens(got[0].second, 27) + 1 <= 128);
  CHECK(calendar.tokens(got[0].second, 28) + 1 > 128);
}

TEST_CASE("page calendar: with MTP the boundary is the first step past the room, at any join and room", "[serving]") {
  const double mean = 1.85;
  const int lookahead = 2;
  for (int in_kv : {1, 63, 64, 200, 1000})
    for (int page : {16, 64, 512}) {
      PageCalendar calendar(mean, lookahead, page);
      const int room = static_cast<int>(page_room(in_kv + lookahead, page));
      const PageBoundary b = a_sequence(1, in_kv, room, 5, 100000);
      calendar.schedule(b, 5, 40);  // the rank's step 5 is its unit's step 40
      const auto got = taken(calendar, 40 + 5000);
      REQUIRE(got.size() == 1);
      const PageBoundary& at = got[0].second;
      // A brute-force walk: the first of the rank's steps whose tokens and lookahead pass the room.
      long long expected = 5;
      while (calendar.tokens(b, expected) + lookahead <= room) ++expected;
      CHECK(at.step == expected);
      CHECK(got[0].first == 40 + (expected - 5));
    }
}

TEST_CASE("page calendar: a sequence that finishes first has no boundary; a cancelled one leaves", "[serving]") {
  PageCalendar calendar(1.0, 1, 64);
  calendar.schedule(a_sequence(1, 100, 128, 0, 20), 0, 0);  // its boundary would be step 28
  calendar.schedule(a_sequence(2, 100, 128, 0, 1000), 0, 0);
  calendar.schedule(a_sequence(3, 10, 64, 0, 1000), 0, 0);  // step 54
  calendar.cancel(0, 2);
  const auto got = taken(calendar, 100);
  REQUIRE(got.size() == 1);
  CHECK(got[0].second.id == 3);
  CHECK(got[0].first == 54);
}

TEST_CASE("page calendar: pages longer than the ring wait among the far, and are taken at their step", "[serving]") {
  // Pages of 4,096 tokens at a token a step: the ring stops at 1,024 buckets.
  PageCalendar calendar(1.0, 1, 4096);
  calendar.schedule(a_sequence(1, 100, 4096, 0, 100000), 0, 0);   // step 3,996
  calendar.schedule(a_sequence(2, 4000, 4096, 0, 100000), 0, 0);  // step 96, in the ring
  calendar.schedule(a_sequence(3, 50, 4096, 0, 100000), 0, 0);    // step 4,046
  calendar.cancel(0, 3);
  const auto got = taken(calendar, 5000);
  REQUIRE(got.size() == 2);
  CHECK(got[0].second.id == 2);
  CHECK(got[0].first == 96);
  CHECK(got[1].second.id == 1);
  CHECK(got[1].first == 3996);
}
