#include "workload/inference/serving_step.hpp"

#include <string>

namespace workload {

namespace {

core::TaskGraph two_streams(const std::vector<MicroBatchCosts>& layers, int micro_batches, double slowdown) {
  core::TaskGraph g;
  std::vector<std::vector<core::TaskId>> ready(static_cast<std::size_t>(micro_batches));  // per micro-batch
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const MicroBatchCosts& c = layers[l];
    const std::string layer = "L" + std::to_string(l) + " mb";
    std::vector<core::TaskId> dispatched(static_cast<std::size_t>(micro_batches));
    for (int mb = 0; mb < micro_batches; ++mb) {
      const std::string tag = layer + std::to_string(mb);
      auto deps = ready[mb];
      if (c.kv_fetch_s > 0) deps.push_back(g.add_compute("KV fetch " + tag, 0, "comm", c.kv_fetch_s, ready[mb]));
      const auto attention = g.add_compute("attention " + tag, 0, "compute", c.attention_s * slowdown, deps);
      dispatched[mb] = g.add_compute("dispatch " + tag, 0, "comm", c.dispatch_s, {attention});
    }
    for (int mb = 0; mb < micro_batches; ++mb) {
      const std::string tag = layer + std::to_string(mb);
      const auto experts = g.add_compute("experts " + tag, 0, "compute", c.expert_s * slowdown, {dispatched[mb]});
      ready[mb] = {g.add_compute("combine " + tag, 0, "comm", c.combine_s, {experts})};
    }
  }
  return g;
}

// DeepSeek's stage order for two micro-batches, built stage by stage in the order the compute
// stream runs them; transfers go on the communication stream in the order they are issued.
class DeployedOrder {
 public:
  DeployedOrder(const std::vector<MicroBatchCosts>& layers, double slowdown) : layers_(layers), slowdown_(slowdown) {}

  // Decode, per layer l (notes/serving.md): SHARED(0), ATTN-0(1), MLP(0), ATTN-1(1), SHARED(1),
  // ATTN-0(0) and ATTN-1(0) of layer l + 1 around MLP(1). Micro-batch 1 runs half a layer behind.
  // A dispatch leaves when its micro-batch's ATTN-1 (with the gate) ends and hides behind its own
  // SHARED and the other's ATTN-0; a combine leaves when its MLP ends and hides behind the other's
  // ATTN-1, the boundary before the next SHARED waiting for it.
  core::TaskGraph decode() {
    const int n = static_cast<int>(layers_.size());
    attention_early(0, 0);
    attention_late(0, 0);
    for (int l = 0; l < n; ++l) {
      shared(0, l, combined_[1]);  // the other's combine of the layer before
      attention_early(1, l);
      experts(0, l);
      attention_late(1, l);
      shared(1, l, combined_[0]);
      if (l + 1 < n) attention_early(0, l + 1);
      experts(1, l);
      if (l + 1 < n) attention_late(0, l + 1);
    }
    return std::move(g_);
  }

  // Prefill, per layer l: ATTN(1), SHARED(0) of layer l - 1, ATTN(0), MLP(1), MLP(0), SHARED(1).
  // Each dispatch leaves when its ATTN ends and its MLP waits for it; each combine leaves when its
  // MLP ends and the micro-batch's next ATTN waits for it (and for its shared expert).
  core::TaskGraph prefill() {
    const int n = static_cast<int>(layers_.size());
    for (int l = 0; l < n; ++l) {
      attention(1, l);
      if (l > 0) shared(0, l - 1, {});
      attention(0, l);
      experts(1, l);
      experts(0, l);
      shared(1, l, {});
    }
    shared(0, n - 1, {});
    return std::move(g_);
  }

 private:
  std::string tag(const char* what, int mb, int l) const { return std::string(what) + " L" + std::to_string(l) + " mb" + std::to_string(mb); }
  core::TaskId compute(const std::string& name, double seconds, std::vector<core::TaskId> deps) {
    return g_.add_compute(name, 0, "compute", seconds * slowdown_, std::move(deps));
  }
  core::TaskId transfer(const std::string& name, double seconds, std::vector<core::TaskId> deps) {
    return g_.add_compute(name, 0, "comm", seconds, std::move(deps));
  }
  // Before a micro-batch's attention: its previous layer's combine and shared expert, and its
  // offloaded KV cache.
  std::vector<core::TaskId> before_attention(int mb, int l) {
    std::vector<core::TaskId> deps = combined_[mb];
    deps.insert(deps.end(), shared_done_[mb].begin(), shared_done_[mb].end());
    if (layers_[l].kv_fetch_s > 0) deps.push_back(transfer(tag("KV fetch", mb, l), layers_[l].kv_fetch_s, deps));
    return deps;
  }
  void dispatch_after(int mb, int l, core::TaskId gated) {
    gated_[mb] = gated;
    dispatched_[mb] = transfer(tag("dispatch", mb, l), layers_[l].dispatch_s, {gated});
  }
  void attention(int mb, int l) {  // prefill: the whole attention with the gate
    const MicroBatchCosts& c = layers_[l];
    dispatch_after(mb, l, compute(tag("attention", mb, l), c.attention_s + c.gate_s, before_attention(mb, l)));
  }
  void attention_early(int mb, int l) {
    const MicroBatchCosts& c = layers_[l];
    early_[mb] = compute(tag("attention-0", mb, l), c.attention_s - c.attention_late_s, before_attention(mb, l));
  }
  void attention_late(int mb, int l) {
    const MicroBatchCosts& c = layers_[l];
    dispatch_after(mb, l, compute(tag("attention-1", mb, l), c.attention_late_s + c.gate_s, {early_[mb]}));
  }
  void shared(int mb, int l, std::vector<core::TaskId> boundary) {
    boundary.push_back(gated_[mb]);
    shared_done_[mb] = {compute(tag("shared expert", mb, l), layers_[l].shared_s, boundary)};
  }
  void experts(int mb, int l) {
    const MicroBatchCosts& c = layers_[l];
    const auto done = compute(tag("experts", mb, l), c.expert_s - c.shared_s - c.gate_s, {dispatched_[mb]});
    combined_[mb] = {transfer(tag("combine", mb, l), c.combine_s, {done})};
  }

  const std::vector<MicroBatchCosts>& layers_;
  double slowdown_;
  core::TaskGraph g_;
  core::TaskId early_[2]{}, gated_[2]{}, dispatched_[2]{};
  std::vector<core::TaskId> combined_[2], shared_done_[2];  // a micro-batch's latest (none yet: empty)
};

}  // namespace

core::TaskGraph serving_graph(const std::vector<MicroBatchCosts>& layers, int micro_batches, double slowdown, Overlap overlap,
                              bool prefill) {
  if (overlap == Overlap::kTwoStreams || micro_batches != 2 || layers.empty()) return two_streams(layers, micro_batches, slowdown);
  DeployedOrder order(layers, slowdown);
  return prefill ? order.prefill() : order.decode();
}

}  // namespace workload
