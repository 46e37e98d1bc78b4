#pragma once
// A request as a serving simulation sees it: when it arrives, how long its prompt and answer
// are, and which of its prompt's blocks it may share with earlier requests (a prefix cache).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace requests {

// The most requests a run holds (serving_simulation.hpp's bytes_per_request() each).
inline constexpr long long kMaxRequests = 20'000'000;

// Thrown when a run's requests pass what it may hold (a bursty process's count varies around its mean).
struct TooManyRequests : std::length_error {
  using std::length_error::length_error;
};

struct Request {
  double arrival_s = 0;
  int input_tokens = 0;
  int output_tokens = 0;
  // Prompt tokens a prefix cache already holds, when the workload states them as a hit fraction
  // (-1: ask the prefix cache, from `block_hashes`).
  int cached_tokens = -1;
  int client = -1;     // the closed-loop client that sent it (-1: none)
  double sent_s = -1;  // when the client sent it, where an engine's front end delays its arrival (-1: at arrival_s)
  std::vector<std::uint64_t> block_hashes;  // one per block of the prompt; equal hashes are a shared prefix
  int source_line = 0;                      // a trace's line, for messages

  // A hit fraction of the prompt held by the prefix cache; the last token is always computed
  // (its logits give the first output token).
  void set_prefix_hit(double fraction) {
    cached_tokens = std::min(input_tokens - 1, static_cast<int>(std::floor(fraction * input_tokens)));
  }
};

}  // namespace requests
