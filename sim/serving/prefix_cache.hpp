#pragma once
// A prefix cache of KV blocks keyed by the hash of each block of a prompt (as the Mooncake traces
// give them): a request hits the longest run of its first blocks that the cache holds; its
// blocks are then kept, the least recently used evicted beyond the capacity.
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace serving {

class PrefixCache {
 public:
  explicit PrefixCache(long long capacity_blocks) : capacity_(capacity_blocks) {}

  // Blocks of `hashes` found in order from the first; all of them are then held (most recent).
  int lookup_and_insert(const std::vector<std::uint64_t>& hashes);

  long long size() const { return static_cast<long long>(order_.size()); }

 private:
  long long capacity_;
  std::list<std::uint64_t> order_;  // most recent first
  std::unordered_map<std::uint64_t, std::list<std::uint64_t>::iterator> where_;
};

}  // namespace serving
