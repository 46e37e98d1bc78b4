#pragma once
// Fail-slow episodes (goodput_run.hpp's FailSlow): what an episode costs on average, for the
// closed form, and how one is drawn, for the Monte-Carlo.
#include "workload/goodput/goodput_run.hpp"

namespace workload {

// The share of episodes that outlast exclude_after_s and end in the slow node's exclusion.
double fail_slow_excluded_share(const FailSlow& f);
// An episode's mean slowed time: its duration, cut at the exclusion.
double fail_slow_mean_slowed_s(const FailSlow& f);
// The share of training a slowed step loses on average: 1 - E[1 / slowdown].
double fail_slow_mean_loss_share(const FailSlow& f);

// From uniforms in (0, 1).
double fail_slow_duration_s(const FailSlow& f, double u);
double fail_slow_slowdown(const FailSlow& f, double u);

}  // namespace workload
