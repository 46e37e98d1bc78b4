#include <catch2/catch.hpp>

#include <stdexcept>
#include <vector>

#include "core/batch_channel.hpp"
#include "requests/generated_source.hpp"
#include "requests/listed_source.hpp"
#include "requests/prefetched_source.hpp"
#include "requests/request_generator.hpp"

using namespace requests;

TEST_CASE("a background sink consumes every item, in order, across batches", "[background]") {
  const int n = 3 * static_cast<int>(core::BackgroundSink<int>::kBatch) + 17;  // full batches and a part
  std::vector<int> seen;
  {
    core::BackgroundSink<int> sink([&](const int& x) { seen.push_back(x); });
    for (int i = 0; i < n; ++i) sink.push(i);
    sink.close();
    REQUIRE(seen.size() == static_cast<std::size_t>(n));
    sink.close();  // again: nothing more
  }
  for (int i = 0; i < n; ++i) REQUIRE(seen[static_cast<std::size_t>(i)] == i);

  // Not closed (the producer stopped on an error): what was pushed is still consumed.
  long long sum = 0;
  {
    core::BackgroundSink<int> sink([&](const int& x) { sum += x; });
    for (int i = 1; i <= 100; ++i) sink.push(i);
  }
  CHECK(sum == 5050);

  // The consumer's error comes out of close(); the producer is not held up by it.
  core::BackgroundSink<int> failing([](const int& x) {
    if (x == 5) throw std::runtime_error("bad item");
  });
  for (int i = 0; i < 20 * static_cast<int>(core::BackgroundSink<int>::kBatch); ++i) failing.push(i);
  CHECK_THROWS_WITH(failing.close(), "bad item");
}

namespace {
// Gives `good` requests, then throws.
struct FailingSource : RequestSource {
  int good;
  int given = 0;
  explicit FailingSource(int g) : good(g) {}
  std::optional<Request> next() override {
    if (given == good) throw std::runtime_error("trace line 7: bad length");
    Request q;
    q.arrival_s = given++;
    return q;
  }
};
}  // namespace

TEST_CASE("a prefetched source gives its source's requests in order, and its errors where they come", "[background]") {
  GeneratedWorkload w;
  w.arrivals.rate_per_s = 500;
  w.duration_s = 40;  // about 20,000 requests: several batches
  w.input = {LengthKind::kLognormal, 2000, 1.0, 1, 100000};
  w.output = {LengthKind::kExponential, 300, 0, 1, 4000};
  w.prefix_hit_fraction = 0.25;
  GeneratedSource direct(w), drawn(w);
  PrefetchedSource ahead(drawn);
  CHECK(ahead.expected_requests() == direct.expected_requests());
  std::size_t n = 0;
  while (auto want = direct.next()) {
    const auto got = ahead.next();
    REQUIRE(got);
    REQUIRE(got->arrival_s == want->arrival_s);
    REQUIRE(got->input_tokens == want->input_tokens);
    REQUIRE(got->output_tokens == want->output_tokens);
    REQUIRE(got->cached_tokens == want->cached_tokens);
    ++n;
  }
  CHECK(n > 2 * PrefetchedSource::kBatch);
  CHECK_FALSE(ahead.next());
  CHECK_FALSE(ahead.next());  // and stays out

  // An error while drawing comes out of next() after the requests before it.
  FailingSource failing(static_cast<int>(PrefetchedSource::kBatch) + 5);
  PrefetchedSource failing_ahead(failing);
  for (int i = 0; i < failing.good; ++i) REQUIRE(failing_ahead.next()->arrival_s == i);
  CHECK_THROWS_WITH(failing_ahead.next(), "trace line 7: bad length");

  // Left before its end, with the drawing thread waiting for room: it stops.
  std::vector<Request> many(20 * PrefetchedSource::kBatch);
  ListedSource listed(many);
  {
    PrefetchedSource left(listed);
    CHECK(left.next());
  }
  SUCCEED("the drawing thread stopped");
}
