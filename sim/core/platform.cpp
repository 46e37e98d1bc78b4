#include "core/platform.hpp"

#include <stdexcept>
#include <string>

namespace core {

std::size_t Network::route_of(int src, int dst) const {
  const auto it = std::lower_bound(pairs_.begin(), pairs_.end(), std::make_pair(src, dst));
  if (it == pairs_.end() || *it != std::make_pair(src, dst))
    throw std::out_of_range("no route from GPU " + std::to_string(src) + " to GPU " + std::to_string(dst));
  return static_cast<std::size_t>(it - pairs_.begin());
}

}  // namespace core
