#pragma once
// "training-step": one training step of an MoE model on a fabric (ISCA'25 Table 4): layout,
// costs, DualPipe (or 1F1B, ZB1P), EP all-to-all from routing, ZeRO-1; see training_step.hpp.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_training_step_study(core::JsonReader& root);
}
