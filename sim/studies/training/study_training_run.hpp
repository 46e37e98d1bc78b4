#pragma once
// "training-run": the goodput of a long run on clusters of several sizes, multi-plane against
// multi-rail fat trees, from failure kinds by GPU generation (or per-component rates),
// checkpoints, recovery strategies, spares and fail-slow episodes (see workload/goodput):
// interruptions per day, job mean time to interruption, the best checkpoint interval, the
// effective training time ratio (ETTR), the loss by cause and the goodput in tokens a day, by a
// seeded Monte-Carlo with the closed form (a renewal of up-times and recoveries) beside it.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_training_run_study(core::JsonReader& root);
}
