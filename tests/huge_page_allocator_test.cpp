#include <catch2/catch.hpp>

#include <cstdint>
#include <numeric>

#include "core/huge_page_allocator.hpp"

namespace {

constexpr std::size_t kLarge = (std::size_t{3} << 20) / sizeof(std::uint64_t);  // 3 MiB: on huge pages

}  // namespace

TEST_CASE("a huge-page vector holds its values, small and large, through growth", "[allocator]") {
  core::HugeVector<std::uint64_t> v;
  for (std::uint64_t i = 0; i < kLarge; ++i) v.push_back(i);  // grows from the small path to the large one
  REQUIRE(v.size() == kLarge);
  CHECK(reinterpret_cast<std::uintptr_t>(v.data()) % core::HugePageAllocator<std::uint64_t>::kHugePage_bytes == 0);
  CHECK(std::accumulate(v.begin(), v.end(), std::uint64_t{0}) == kLarge * (kLarge - 1) / 2);
}
