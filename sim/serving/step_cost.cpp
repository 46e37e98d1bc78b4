#include "serving/step_cost.hpp"

#include <cmath>
#include <cstring>

#include "workload/model/layer_cost.hpp"

namespace serving {

StepCost::StepCost(const workload::Model& model, const workload::Roofline& roofline,
                   const workload::ServingDeployment& unit, const workload::ServingLinks& links,
                   const workload::ServingRequest& base, const net::Cluster* flow_on)
    : model_(model), roofline_(roofline), unit_(unit), links_(links), base_(base), flow_on_(flow_on) {
  const auto layer = workload::layer_costs(model).back();
  const double tp = unit.attention_tp;
  const double token_s = roofline.linear_s(2 * workload::layer_parameters(model, false).attention / tp);
  kv_token_weight_ = roofline.memory_s(layer.kv_cache_elements_per_token * base.kv_bytes_per_element) / token_s;
  pair_weight_ = roofline.attention_forward_s(layer.attention_flops_per_token(1.0) / tp) / token_s;
}

double StepCost::on_grid(double x) {
  if (x <= 32) return std::round(x);
  const double steps_per_doubling = 32;
  return std::round(std::exp2(std::round(std::log2(x) * steps_per_doubling) / steps_per_doubling));
}

std::size_t StepCost::KeyHash::operator()(const std::array<double, 8>& k) const {
  std::size_t h = 1469598103934665603ull;
  for (double x : k) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &x, sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
  }
  return h;
}

workload::ServingStep StepCost::step(const StepLoad& load, bool keep_graph) {
  workload::ServingRequest q = base_;
  q.keep_graph = keep_graph;
  q.prefill = load.prefill;
  q.busiest_group = load.busiest;
  q.unit_tokens = std::max(1LL, load.unit_tokens);
  q.tokens_per_sequence = 1 + load.mtp_drafts;
  q.mtp_drafts = load.mtp_drafts;
  return workload::serving_step(model_, roofline_, unit_, links_, q, flow_on_, &alltoall_);
}

double StepCost::direct_seconds(const StepLoad& load) {
  ++computed_;
  return step(load, false).step_s;
}

double StepCost::seconds(const StepLoad& load) {
  ++looked_up_;
  StepLoad g = load;
  auto& b = g.busiest;
  b.decode_sequences = on_grid(b.decode_sequences);
  b.decode_context_tokens = on_grid(b.decode_context_tokens);
  b.prefill_sequences = on_grid(b.prefill_sequences);
  b.prefill_tokens = on_grid(b.prefill_tokens);
  b.prefill_context_tokens = on_grid(b.prefill_context_tokens);
  g.unit_tokens = static_cast<long long>(on_grid(double(g.unit_tokens)));
  const std::array<double, 8> key{b.decode_sequences,    b.decode_context_tokens,  b.prefill_sequences,
                                  b.prefill_tokens,      b.prefill_context_tokens, double(g.unit_tokens),
                                  g.prefill ? 1.0 : 0.0, double(g.mtp_drafts)};
  auto it = kept_.find(key);
  if (it == kept_.end()) {
    ++computed_;
    const workload::ServingStep s = step(g, false);
    it = kept_.emplace(key, Kept{s.step_s, workload::step_breakdown(s)}).first;
  }
  last_parts_ = &it->second.parts;
  return it->second.seconds;
}

}  // namespace serving
