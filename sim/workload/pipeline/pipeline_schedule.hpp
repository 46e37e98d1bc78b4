#pragma once
// A pipeline schedule: for every rank, the ordered steps it runs. A step is one chunk (a
// forward, a backward, an input-only backward or a weight pass of one micro-batch on one stage)
// or two chunks run overlapped (DualPipe's F&B). Each chunk also records where it sits on its
// micro-batch's path through the stages, which is what the checker and the simulation need.
#include <string>
#include <vector>

namespace workload {

enum class Pass {
  kForward,        // F
  kBackward,       // B: input and weight gradients together
  kBackwardInput,  // B*: input gradient only; its weight pass is queued
  kWeight,         // W: a queued weight pass
};

struct Chunk {
  Pass pass = Pass::kForward;
  int lane = 0;         // DualPipe direction, DualPipeV or interleaved chunk; printed when the schedule has lanes
  int micro_batch = 0;  // as printed: the index within its lane (direction) or overall
  int flow = 0;         // global micro-batch id: indexes Schedule::paths
  int position = 0;     // stage index along the micro-batch's path
};

struct Step {
  std::vector<Chunk> chunks;  // one, or two run overlapped
};

struct Schedule {
  std::string kind;
  int ranks = 0;
  int micro_batches = 0;  // as requested (for DualPipe: both directions together)
  bool show_lane = false;
  int stages_per_rank = 1;               // parameter copies relative to one stage per rank
  std::vector<std::vector<Step>> steps;  // per rank
  std::vector<std::vector<int>> paths;   // per flow: the rank of each stage position
};

// "F0.3", "B1*.2", "W0.2", "F0.5&B1.1" (see `codesim schedule --help`).
std::string token(const Step& step, bool show_lane);
std::string render_rank(const Schedule& schedule, int rank);

}  // namespace workload
