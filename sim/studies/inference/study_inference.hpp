#pragma once
// "inference": DeepSeek-V3 served as deployed (V3 report §3.4): decode (TPOT, tokens/s per user
// and per GPU, against batch and context; MTP speculative decoding; the §2.3.2 bound as the
// limit of no compute) or prefill (time to first token, tokens/s); see workload/inference.hpp.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_inference_study(core::JsonReader& root);
}
