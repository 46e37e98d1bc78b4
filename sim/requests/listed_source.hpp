#pragma once
// Requests known before the run (a trace as read, a test's few), given in order of arrival; those
// arriving together keep their order in the list.
#include <algorithm>
#include <vector>

#include "requests/request_source.hpp"

namespace requests {

class ListedSource : public RequestSource {
 public:
  explicit ListedSource(const std::vector<Request>& requests) : requests_(requests) {
    const auto earlier = [&](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; };
    if (std::is_sorted(requests.begin(), requests.end(), earlier)) return;  // a trace is: no order to keep
    order_.resize(requests.size());
    for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<int>(i);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](int a, int b) { return earlier(requests[std::size_t(a)], requests[std::size_t(b)]); });
  }

  std::optional<Request> next() override {
    if (at_ >= requests_.size()) return std::nullopt;
    const std::size_t i = at_++;
    return requests_[order_.empty() ? i : static_cast<std::size_t>(order_[i])];
  }
  long long expected_requests() const override { return static_cast<long long>(requests_.size()); }

 private:
  const std::vector<Request>& requests_;
  std::vector<int> order_;  // empty where the list is in order already
  std::size_t at_ = 0;
};

}  // namespace requests
