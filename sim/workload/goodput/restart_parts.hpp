#pragma once
// The restart's loss by its parts: the path (a relaunch in place, a spare's swap, a re-queue's
// path), the image and dependencies, communicator initialisation, the checkpoint's read, warm-up
// and operators. A method reports the restart whole; its parts share it as their mean seconds
// per recovery, weighted by how often each recovery comes and how much of the job it holds.
#include "workload/goodput/goodput_run.hpp"

namespace workload {

struct RestartByPart {
  double path = 0, image = 0, comm_init = 0, checkpoint_read = 0, warmup = 0, operators = 0;
  double whole = 0;  // a restart_s given whole, not by part
  double total() const { return path + image + comm_init + checkpoint_read + warmup + operators + whole; }
};

// `restart_loss`: a method's restart loss (seconds a day, or any unit): split by part.
RestartByPart restart_by_part(const RunReliability& r, double restart_loss);

}  // namespace workload
