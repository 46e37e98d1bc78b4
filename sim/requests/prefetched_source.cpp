#include "requests/prefetched_source.hpp"

#include <utility>

namespace requests {

PrefetchedSource::PrefetchedSource(RequestSource& open_loop)
    : source_(open_loop), expected_(open_loop.expected_requests()), channel_(4) {
  thread_ = std::thread([this] { draw(); });
}

PrefetchedSource::~PrefetchedSource() {
  channel_.close();  // a drawing thread waiting for room stops
  thread_.join();
}

void PrefetchedSource::draw() {
  for (bool out = false; !out;) {
    std::vector<Request> batch;
    batch.reserve(kBatch);
    try {
      while (batch.size() < kBatch && !out)
        if (std::optional<Request> q = source_.next())
          batch.push_back(std::move(*q));
        else
          out = true;
    } catch (...) {  // the requests before it are given first
      error_ = std::current_exception();
      out = true;
    }
    if (!batch.empty() && !channel_.push(std::move(batch))) return;  // stopped
  }
  channel_.close();
}

std::optional<Request> PrefetchedSource::next() {
  if (at_ == batch_.size()) {
    if (ended_ || !channel_.pop(batch_)) {
      ended_ = true;
      if (error_) std::rethrow_exception(error_);  // (the channel's lock ordered its write before this)
      return std::nullopt;
    }
    at_ = 0;
  }
  return std::move(batch_[at_++]);
}

}  // namespace requests
