#pragma once
// "train-flops": training FLOPs per token at a sequence length, with parameter counts
// (ISCA'25 Table 2).
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_train_flops_study(core::JsonReader& root);
}
