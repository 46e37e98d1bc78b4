#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/fast_random.hpp"
#include "serving/containers/decode_batch.hpp"

using serving::DecodeBatch;
using serving::DecodeSeq;
using serving::DecodeSteps;
using serving::PageBoundary;
using serving::PageCalendar;

namespace {

constexpr int kPage = 16;
int room_for(long long tokens) { return static_cast<int>((tokens + kPage - 1) / kPage * kPage); }
int pages_for(long long tokens) { return static_cast<int>((tokens + kPage - 1) / kPage); }

// A walk's sequence: the decode batch's record, with the pages it holds now.
struct WalkSeq : DecodeSeq {
  int pages = 0;
};

// The batch as a walk over its sequences, each step, one token each: what DecodeBatch replaces.
struct Walk {
  std::vector<WalkSeq> seqs;
  int in_step = 0;
};

WalkSeq a_seq(int id, int in_kv, int generated, int output) {
  WalkSeq s;
  s.id = id;
  s.in_kv = in_kv;
  s.generated = generated;
  s.output = output;
  s.pages = pages_for(in_kv + 1);
  s.room = room_for(in_kv + 1);
  return s;
}

// A sequence joins the batch, its first page boundary on the calendar, as a unit's rank 0.
void join(DecodeBatch& batch, PageCalendar& calendar, long long unit_step, const WalkSeq& s, int steps) {
  PageBoundary b = batch.join(s, steps);
  b.pages = s.pages;
  calendar.schedule(b, batch.next_step(), unit_step);
}

// The boundaries of the step `unit_step`: each takes the pages its tokens and `lookahead` need,
// and its next is placed. Returns their requests.
std::vector<int> pass_boundaries(DecodeBatch& batch, PageCalendar& calendar, long long unit_step, int lookahead) {
  std::vector<PageBoundary> due;
  calendar.take(unit_step, due);
  std::vector<int> ids;
  for (PageBoundary& b : due) {
    ids.push_back(b.id);
    const long long tokens = calendar.tokens(b, batch.next_step()) + lookahead;
    b.room = room_for(tokens);
    b.pages = pages_for(tokens);
    calendar.schedule(b, batch.next_step(), unit_step);
  }
  return ids;
}

}  // namespace

TEST_CASE("decode batch: without MTP its events are the walk over every sequence, step by step", "[serving]") {
  const int lookahead = 1;
  DecodeBatch batch(1.0, lookahead, kPage);
  PageCalendar calendar(1.0, lookahead, kPage);
  long long unit_step = 0;  // steps started
  Walk walk;
  core::FastNormal random(7);
  int next_id = 0;
  std::vector<int> first_tokens, finished;
  for (int step = 0; step < 3000; ++step) {
    // Sequences join (some fresh, some that have generated), and now and then the latest leaves.
    const int joins = static_cast<int>(random.uniform() * 3);
    for (int j = 0; j < joins; ++j) {
      const int generated = random.uniform() < 0.5 ? 0 : 1 + static_cast<int>(random.uniform() * 5);
      const WalkSeq s = a_seq(next_id++, 10 + static_cast<int>(random.uniform() * 100), generated,
                              generated + 1 + static_cast<int>(random.uniform() * 60));
      join(batch, calendar, unit_step, s, s.output - s.generated);
      walk.seqs.push_back(s);
    }
    if (!walk.seqs.empty() && random.uniform() < 0.05) {
      const DecodeSeq left = batch.leave_latest();
      calendar.cancel(0, left.id);
      const WalkSeq& expected = walk.seqs.back();
      CHECK(left.id == expected.id);
      CHECK(left.in_kv == expected.in_kv);
      CHECK(left.generated == expected.generated);
      CHECK(left.room == expected.room);
      walk.seqs.pop_back();
    }
    REQUIRE(batch.size() == static_cast<int>(walk.seqs.size()));
    if (walk.seqs.empty()) continue;
    // Before the step: who is short of room, the context, the fresh.
    std::vector<int> short_ids = pass_boundaries(batch, calendar, unit_step, lookahead), walk_short_ids;
    long long context = 0;
    int fresh = 0;
    for (WalkSeq& s : walk.seqs) {
      if (s.in_kv + lookahead > s.room) {
        walk_short_ids.push_back(s.id);
        s.pages = pages_for(s.in_kv + lookahead);
        s.room = room_for(s.in_kv + lookahead);
      }
      context += s.in_kv;
      fresh += s.generated == 0;
    }
    std::sort(short_ids.begin(), short_ids.end());
    CHECK(short_ids == walk_short_ids);
    CHECK(batch.context() == double(context));
    CHECK(batch.fresh() == fresh);
    CHECK(batch.start_step() == static_cast<int>(walk.seqs.size()));
    ++unit_step;
    walk.in_step = static_cast<int>(walk.seqs.size());
    // A sequence joins during the step: it is not in it.
    if (random.uniform() < 0.3) {
      const WalkSeq s = a_seq(next_id++, 50, 0, 20);
      join(batch, calendar, unit_step, s, s.output);
      walk.seqs.push_back(s);
    }
    // The step ends.
    const double produced = batch.end_step(first_tokens, finished);
    std::vector<int> walk_first, walk_finished, got_first, got_finished;
    std::vector<WalkSeq> kept;
    std::vector<int> walk_finished_room;
    for (int i = 0; i < static_cast<int>(walk.seqs.size()); ++i) {
      WalkSeq s = walk.seqs[static_cast<std::size_t>(i)];
      if (i < walk.in_step) {
        if (s.generated == 0) walk_first.push_back(s.id);
        ++s.generated;
        ++s.in_kv;
        if (s.generated >= s.output) {
          walk_finished.push_back(s.id);
          walk_finished_room.push_back(s.room);
          continue;
        }
      }
      kept.push_back(s);
    }
    walk.seqs = kept;
    for (int slot : first_tokens) got_first.push_back(batch.at(slot).id);
    std::vector<int> got_finished_room;
    for (int slot : finished) {
      got_finished.push_back(batch.at(slot).id);
      got_finished_room.push_back(static_cast<int>(batch.room_tokens(batch.at(slot))));
    }
    CHECK(got_finished_room == walk_finished_room);  // the pages it gives back
    CHECK(produced == double(walk.in_step));
    CHECK(got_first == walk_first);        // in the order they joined
    CHECK(got_finished == walk_finished);  // likewise
  }
  CHECK(next_id > 2000);
}

TEST_CASE("decode steps: without MTP a sequence takes a step a token", "[serving]") {
  const DecodeSteps steps({});
  core::FastNormal random(1);
  CHECK(steps.mean_tokens() == 1.0);
  CHECK(steps.draw(1, random) == 1);
  CHECK(steps.draw(517, random) == 517);
}

TEST_CASE("decode steps: with MTP the drawn steps have the step-by-step walk's mean and spread, short or long",
          "[serving]") {
  for (const std::vector<double>& acceptance : {std::vector<double>{0.85}, std::vector<double>{0.8, 0.6}}) {
    const DecodeSteps steps(acceptance);
    core::FastNormal drawn(3), walked(4);
    for (int tokens : {9, 40, 300, 2000}) {
      const int n = 20000;
      double sum = 0, square = 0, walk_sum = 0, walk_square = 0;
      for (int i = 0; i < n; ++i) {
        const double s = steps.draw(tokens, drawn);
        sum += s;
        square += s * s;
        int made = 0, w = 0;
        for (; made < tokens; ++w) {  // each step: a token, and the drafts accepted in a row
          int produced = 1;
          while (produced <= static_cast<int>(acceptance.size()) &&
                 walked.uniform() < acceptance[static_cast<std::size_t>(produced - 1)])
            ++produced;
          made += produced;
        }
        walk_sum += w;
        walk_square += double(w) * w;
      }
      const double mean = sum / n, walk_mean = walk_sum / n;
      const double sd = std::sqrt(square / n - mean * mean),
                   walk_sd = std::sqrt(walk_square / n - walk_mean * walk_mean);
      INFO("acceptance " << acceptance[0] << " tokens " << tokens << ": mean " << mean << " vs " << walk_mean << ", sd "
                         << sd << " vs " << walk_sd);
      CHECK(std::abs(mean - walk_mean) < 4 * walk_sd / std::sqrt(double(n)) + 0.02);
      CHECK(sd == Approx(walk_sd).epsilon(0.05));
    }
  }
}

TEST_CASE(
    "decode batch: with MTP the context grows by a step's mean tokens, and a finished sequence counts what it had left",
    "[serving]") {
  const double mean = 1.85;
  DecodeBatch batch(mean, 2, kPage);
  PageCalendar calendar(mean, 2, kPage);
  join(batch, calendar, 0, a_seq(0, 100, 0, 50), 30);
  join(batch, calendar, 0, a_seq(1, 200, 3, 10), 4);
  std::vector<int> first_tokens, finished;
  double produced = 0;
  for (int step = 0; step < 4; ++step) {
    CHECK(batch.context() == Approx(300 + 2 * mean * step));
    pass_boundaries(batch, calendar, step, 2);
    batch.start_step();
    produced += batch.end_step(first_tokens, finished);
    CHECK(first_tokens.size() == (step == 0 ? 1u : 0u));
  }
  REQUIRE(finished.size() == 1);
  CHECK(batch.at(finished[0]).id == 1);
  CHECK(produced == Approx(4 * mean + 7));  // the mean for the one going on, its 7 for the one done
  CHECK(batch.size() == 1);
  const DecodeSeq left = batch.leave_latest();
  CHECK(left.generated == static_cast<int>(4 * mean));
  CHECK(left.in_kv == 100 + left.generated);
  CHECK(left.room == room_for(100 + static_cast<int>(3 * mean) + 2));  // as of its last step's start
  CHECK(batch.empty());
}

TEST_CASE(
    "page calendar: a boundary comes at the step its tokens pass its room, a lap ahead waits, a cancelled one goes",
    "[serving]") {
  PageCalendar calendar(1.0, 1);
  PageBoundary b;
  b.id = 7;
  b.in_kv = 10;
  b.room = 16;  // passed when 10 + produced + 1 > 16: 6 tokens produced, at step 6
  b.last = 1000;
  calendar.schedule(b, 0, 100);  // the rank's step 0 is the unit's 100
  std::vector<PageBoundary> due;
  for (long long t = 100; t < 106; ++t) calendar.take(t, due);
  CHECK(due.empty());
  calendar.take(106, due);
  REQUIRE(due.size() == 1);
  CHECK(due[0].step == 6);
  CHECK(calendar.tokens(due[0], 6) == 16);
  // A room 300 tokens ahead (past the ring of 66 steps kept for pages of 64 tokens) comes after
  // laps, on time.
  b.room = 310;
  calendar.schedule(b, 6, 106);  // 300 tokens from step 6: at step 300, the unit's 400
  due.clear();
  for (long long t = 107; t < 400; ++t) calendar.take(t, due);
  CHECK(due.empty());
  calendar.take(400, due);
  REQUIRE(due.size() == 1);
  CHECK(due[0].step == 300);
  // Cancelled, it never comes, near or far; one past the sequence's last step is never placed.
  b.room = 1000;
  calendar.schedule(b, 300, 400);  // 690 tokens ahead: at step 990, past the ring
  calendar.cancel(0, 7);
  calendar.schedule(due[0], 300, 400);
  calendar.cancel(0, 7);
  b.room = 2000;
  calendar.schedule(b, 300, 400);
  due.clear();
  for (long long t = 401; t < 1600; ++t) calendar.take(t, due);
  CHECK(due.empty());
}
