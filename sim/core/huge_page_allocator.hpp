#pragma once
// An allocator for the large arrays that a simulation reads in scattered order (the fluid
// engine's bundles, their order, a solve's copies): storage of 2 MiB or more is aligned to 2 MiB
// and the kernel asked to back it with huge pages (Linux, where transparent huge pages are on
// "madvise" or "always"). A scattered read then misses the TLB far less often, and a fresh array
// faults once per 2 MiB instead of once per 4 KiB: a 16,320-GPU all-to-all under ECMP faulted 4.2
// million pages (16.6 s in the kernel) before. Elsewhere, or below 2 MiB, it is std::allocator.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace core {

// Runs of like simulations on one thread (an all-to-all's planes, one after another) allocate
// what the last one freed. While a Scope lives on a thread, the huge-page blocks freed on it are
// kept for its next allocations of the same size instead of going back to the kernel, which
// would zero fresh ones (7% of a 16,320-GPU ECMP all-to-all's time); they are freed when the
// outermost Scope ends.
class HugeBlockCache {
 public:
  class Scope {
   public:
    Scope() { ++state().scopes; }
    ~Scope() {
      State& s = state();
      if (--s.scopes > 0) return;
      for (const auto& block : s.blocks) std::free(block.second);
      s.blocks.clear();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };

  // A kept block of exactly these bytes, or nullptr.
  static void* take(std::size_t bytes) {
    auto& blocks = state().blocks;
    for (std::size_t i = blocks.size(); i-- > 0;)
      if (blocks[i].first == bytes) {
        void* p = blocks[i].second;
        blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(i));
        return p;
      }
    return nullptr;
  }
  // Keeps the block if a Scope lives on this thread; false if not (the caller frees it).
  static bool keep(void* p, std::size_t bytes) {
    State& s = state();
    if (s.scopes == 0) return false;
    s.blocks.emplace_back(bytes, p);
    return true;
  }

 private:
  struct State {
    int scopes = 0;
    std::vector<std::pair<std::size_t, void*>> blocks;  // (bytes, block)
  };
  static State& state() {
    thread_local State s;
    return s;
  }
};

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHugePage_bytes = std::size_t{2} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage_bytes) return std::allocator<T>().allocate(n);
    const std::size_t rounded = rounded_bytes(bytes);
    if (void* kept = HugeBlockCache::take(rounded)) return static_cast<T*>(kept);
    void* p = std::aligned_alloc(kHugePage_bytes, rounded);
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE);  // advice: where the kernel declines, pages stay small
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHugePage_bytes) {
      std::allocator<T>().deallocate(p, n);
    } else if (!HugeBlockCache::keep(p, rounded_bytes(n * sizeof(T)))) {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }

 private:
  static std::size_t rounded_bytes(std::size_t bytes) { return (bytes + kHugePage_bytes - 1) / kHugePage_bytes * kHugePage_bytes; }
};

// A vector whose large storage is on huge pages.
template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace core
