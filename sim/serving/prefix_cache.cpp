#include "serving/prefix_cache.hpp"

namespace serving {

int PrefixCache::lookup_and_insert(const std::vector<std::uint64_t>& hashes) {
  int hits = 0;
  while (hits < static_cast<int>(hashes.size()) && where_.count(hashes[static_cast<std::size_t>(hits)])) ++hits;
  for (std::uint64_t h : hashes) {
    auto it = where_.find(h);
    if (it != where_.end()) order_.erase(it->second);
    order_.push_front(h);
    where_[h] = order_.begin();
  }
  while (static_cast<long long>(order_.size()) > capacity_) {
    where_.erase(order_.back());
    order_.pop_back();
  }
  return hits;
}

}  // namespace serving
