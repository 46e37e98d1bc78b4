#pragma once
// KV-cache bytes per token of context, summed over all layers.
#include "workload/model/model.hpp"

namespace workload {

double kv_cache_bytes_per_token(const Model& model, double bytes_per_element);

}  // namespace workload
