#include <catch2/catch.hpp>

#include "serving/prefix_cache.hpp"

using namespace serving;

TEST_CASE("prefix cache: the longest run of leading blocks hits; LRU evicts", "[serving]") {
  PrefixCache cache(4);
  CHECK(cache.lookup_and_insert({1, 2, 3}) == 0);
  CHECK(cache.lookup_and_insert({1, 2, 9}) == 2);
  CHECK(cache.lookup_and_insert({2, 1}) == 2);
  CHECK(cache.lookup_and_insert({7, 1}) == 0);  // a shared block after a miss is not a prefix
  CHECK(cache.size() == 4);
  CHECK(cache.lookup_and_insert({3}) == 0);  // 3 was the least recently used
}
