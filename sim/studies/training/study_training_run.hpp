#pragma once
// "training-run": the goodput of a long run on clusters of several sizes, multi-plane against
// multi-rail fat trees, from per-component failure rates, checkpointing and restart (see
// workload/goodput): interruptions per day, the best checkpoint interval and the effective
// training time, in closed form and by a seeded Monte-Carlo.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_training_run_study(core::JsonReader& root);
}
