#pragma once
// "decode-bound": the communication-bound TPOT limit of ISCA'25 §2.3.2, in closed form from the
// scenario's model and hardware, and the same decode step run through the SimGrid engine.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_decode_bound_study(core::JsonReader& root);
}
