#include "workload/pipeline/dualpipe_phases.hpp"

#include <deque>

namespace workload {

void dualpipe_phases(const DualPipeRank& k, const std::function<void(Step)>& emit) {
  const int H = k.half_ranks;
  const int h = k.half_rank;
  int next_forward[2] = {0, 0};
  int next_backward[2] = {0, 0};
  std::deque<Chunk> weights;  // FIFO of deferred weight passes

  auto forward = [&](int lane) { return Chunk{Pass::kForward, lane, next_forward[lane]++, 0, 0}; };
  auto backward = [&](int lane, bool zero_bubble) {
    Chunk c{zero_bubble ? Pass::kBackwardInput : Pass::kBackward, lane, next_backward[lane]++, 0, 0};
    if (zero_bubble) weights.push_back(Chunk{Pass::kWeight, lane, c.micro_batch, 0, 0});
    return c;
  };
  auto weight = [&] {
    Chunk c = weights.front();
    weights.pop_front();
    return c;
  };
  auto one = [&](Chunk c) { emit(Step{{c}}); };
  auto pair = [&](Chunk a, Chunk b) { emit(Step{{a, b}}); };

  for (int i = 0; i < 2 * (H - h - 1); ++i) one(forward(0));  // 1: F0
  for (int i = 0; i < h + 1; ++i) {                           // 2: F0 F1
    one(forward(0));
    one(forward(1));
  }
  for (int i = 0; i < H - h - 1; ++i) {  // 3: B1* W F1
    one(backward(1, true));
    one(weight());
    one(forward(1));
  }
  for (int i = 0; i < k.per_lane - 2 * H + h + 1; ++i) {  // 4: F0&B1 F1&B0
    if (i == 0 && k.middle) {
      one(forward(0));  // not overlapped, to shorten the bubble (as the reference does)
      one(backward(1, false));
    } else {
      auto f = forward(0);
      pair(f, backward(1, false));
    }
    auto f = forward(1);
    pair(f, backward(0, false));
  }
  for (int i = 0; i < H - h - 1; ++i) {  // 5: B1 F1&B0
    one(backward(1, false));
    auto f = forward(1);
    pair(f, backward(0, false));
  }
  bool zero_bubble = false;  // 6: B1 B0, the second half of them input-only
  for (int i = 0; i < h + 1; ++i) {
    if (i == (h + 1) / 2 && h % 2 == 1) zero_bubble = true;
    one(backward(1, zero_bubble));
    if (i == (h + 1) / 2 && h % 2 == 0) zero_bubble = true;
    one(backward(0, zero_bubble));
  }
  for (int i = 0; i < H - h - 1; ++i) {  // 7: W B0*
    one(weight());
    one(backward(0, true));
  }
  for (int i = 0; i < h + 1; ++i) one(weight());  // 8: W
}

}  // namespace workload
