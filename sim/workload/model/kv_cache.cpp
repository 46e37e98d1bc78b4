#include "workload/model/kv_cache.hpp"

#include "workload/model/layer_cost.hpp"

namespace workload {

double kv_cache_bytes_per_token(const Model& model, double bytes_per_element) {
  double elements = 0;
  for (const auto& layer : layer_costs(model)) elements += layer.kv_cache_elements_per_token;
  return elements * bytes_per_element;
}

double kv_cache_bytes_per_sequence(const Model& model, double context_tokens, double bytes_per_element) {
  double elements = 0;
  for (const auto& layer : layer_costs(model)) elements += layer.kv_cache_elements(context_tokens);
  return elements * bytes_per_element;
}

}  // namespace workload
