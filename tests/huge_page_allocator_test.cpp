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

TEST_CASE("within a scope a freed large block serves the next allocation of its size; past it, none is kept", "[allocator]") {
  core::HugePageAllocator<std::uint64_t> allocator;
  {
    const core::HugeBlockCache::Scope reuse;
    std::uint64_t* a = allocator.allocate(kLarge);
    a[0] = 42;
    allocator.deallocate(a, kLarge);
    std::uint64_t* b = allocator.allocate(kLarge);
    CHECK(b == a);
    CHECK(b[0] == 42);  // the block itself, not fresh (zeroed) pages from the kernel
    std::uint64_t* c = allocator.allocate(2 * kLarge);  // another size: a block of its own
    CHECK(c != a);
    allocator.deallocate(b, kLarge);
    allocator.deallocate(c, 2 * kLarge);
  }
  // The scope ended: its blocks went back, and none is kept without one.
  CHECK(core::HugeBlockCache::take(core::HugePageAllocator<std::uint64_t>::kHugePage_bytes * 2) == nullptr);
  int block = 0;
  CHECK_FALSE(core::HugeBlockCache::keep(&block, sizeof block));  // the caller frees
}
