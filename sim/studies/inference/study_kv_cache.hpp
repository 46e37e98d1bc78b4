#pragma once
// "kv-cache": KV-cache bytes per token of several models, and each one's multiple of a
// baseline (ISCA'25 Table 1).
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_kv_cache_study(core::JsonReader& root);
}
