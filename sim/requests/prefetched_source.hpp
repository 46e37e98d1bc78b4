#pragma once
// An open-loop source (one whose requests do not wait on finishes: generated, or listed) drawn
// ahead on a thread of its own, batch by batch, and given in the same order. A day of a fleet's
// requests is hundreds of millions of draws of arrivals and lengths; here they take the second
// core while the first simulates.
#include <exception>
#include <thread>
#include <vector>

#include "core/batch_channel.hpp"
#include "requests/request_source.hpp"

namespace requests {

class PrefetchedSource : public RequestSource {
 public:
  static constexpr std::size_t kBatch = 4096;

  // Starts drawing from `open_loop`, which is read on the drawing thread alone from now on and
  // outlives this source.
  explicit PrefetchedSource(RequestSource& open_loop);
  PrefetchedSource(const PrefetchedSource&) = delete;
  PrefetchedSource& operator=(const PrefetchedSource&) = delete;
  ~PrefetchedSource() override;  // stops the drawing

  // An error the source threw while drawing is thrown here, where its request would have come.
  std::optional<Request> next() override;
  long long expected_requests() const override { return expected_; }

 private:
  void draw();

  RequestSource& source_;
  long long expected_;
  core::BatchChannel<Request> channel_;
  std::vector<Request> batch_;
  std::size_t at_ = 0;
  bool ended_ = false;
  std::exception_ptr error_;  // written by the drawing thread before it closes the channel
  std::thread thread_;
};

}  // namespace requests
