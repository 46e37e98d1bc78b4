#pragma once
// KV-cache bytes per token of context, summed over all layers, as layers over the whole context
// keep it; and of one sequence of `context_tokens`, where windowed layers keep their window only.
#include "workload/model/model.hpp"

namespace workload {

double kv_cache_bytes_per_token(const Model& model, double bytes_per_element);
double kv_cache_bytes_per_sequence(const Model& model, double context_tokens, double bytes_per_element);

}  // namespace workload
