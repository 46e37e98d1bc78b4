#include "workload/inference/serving_step.hpp"

#include <algorithm>
#include <string>

namespace workload {

namespace {

// Where a step's tasks go: a task graph, each task named by its kind, layer and micro-batch (for
// traces and breakdowns), or a clock that only times them as the graph's analytic evaluation
// would (core/analytic_engine: each stream in order, each task after its dependencies), without
// the names: a simulated hour computes its step shapes tens of thousands of times.
class GraphSink {
 public:
  core::TaskId add(const char* what, int mb, int l, bool comm, double seconds, std::vector<core::TaskId> deps) {
    return g_.add_compute(std::string(what) + " L" + std::to_string(l) + " mb" + std::to_string(mb), 0,
                          comm ? "comm" : "compute", seconds, std::move(deps));
  }
  core::TaskGraph result() { return std::move(g_); }

 private:
  core::TaskGraph g_;
};

class ClockSink {
 public:
  core::TaskId add(const char*, int, int, bool comm, double seconds, const std::vector<core::TaskId>& deps) {
    double ready = 0;
    for (core::TaskId d : deps) ready = std::max(ready, end_[static_cast<std::size_t>(d)]);
    double& free_s = free_s_[comm ? 1 : 0];
    const double start = std::max(ready, free_s);
    free_s = start + seconds;
    makespan_s_ = std::max(makespan_s_, free_s);
    end_.push_back(free_s);
    return static_cast<core::TaskId>(end_.size() - 1);
  }
  double result() const { return makespan_s_; }

 private:
  std::vector<double> end_;
  double free_s_[2] = {0, 0};
  double makespan_s_ = 0;
};

template <class Sink>
void two_streams(Sink& g, const std::vector<MicroBatchCosts>& layers, int micro_batches, double slowdown) {
  std::vector<std::vector<core::TaskId>> ready(static_cast<std::size_t>(micro_batches));  // per micro-batch
  std::vector<core::TaskId> dispatched(static_cast<std::size_t>(micro_batches));
  for (std::size_t l = 0; l < layers.size(); ++l) {
    const MicroBatchCosts& c = layers[l];
    const int layer = static_cast<int>(l);
    for (int mb = 0; mb < micro_batches; ++mb) {
      auto deps = ready[mb];
      if (c.kv_fetch_s > 0) deps.push_back(g.add("KV fetch", mb, layer, true, c.kv_fetch_s, ready[mb]));
      const auto attention = g.add("attention", mb, layer, false, c.attention_s * slowdown, deps);
      dispatched[mb] = g.add("dispatch", mb, layer, true, c.dispatch_s, {attention});
    }
    for (int mb = 0; mb < micro_batches; ++mb) {
      const auto experts = g.add("experts", mb, layer, false, c.expert_s * slowdown, {dispatched[mb]});
      ready[mb] = {g.add("combine", mb, layer, true, c.combine_s, {experts})};
    }
  }
}

// DeepSeek's stage order for two micro-batches, built stage by stage in the order the compute
// stream runs them; transfers go on the communication stream in the order they are issued.
template <class Sink>
class DeployedOrder {
 public:
  DeployedOrder(Sink& g, const std::vector<MicroBatchCosts>& layers, double slowdown)
      : g_(g), layers_(layers), slowdown_(slowdown) {}

  // Decode, per layer l (notes/serving.md): SHARED(0), ATTN-0(1), MLP(0), ATTN-1(1), SHARED(1),
  // ATTN-0(0) and ATTN-1(0) of layer l + 1 around MLP(1). Micro-batch 1 runs half a layer behind.
  // A dispatch leaves when its micro-batch's ATTN-1 (with the gate) ends and hides behind its own
  // SHARED and the other's ATTN-0; a combine leaves when its MLP ends and hides behind the other's
  // ATTN-1, the boundary before the next SHARED waiting for it.
  void decode() {
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
  }

  // Prefill, per layer l: ATTN(1), SHARED(0) of layer l - 1, ATTN(0), MLP(1), MLP(0), SHARED(1).
  // Each dispatch leaves when its ATTN ends and its MLP waits for it; each combine leaves when its
  // MLP ends and the micro-batch's next ATTN waits for it (and for its shared expert).
  void prefill() {
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
  }

 private:
  core::TaskId compute(const char* what, int mb, int l, double seconds, std::vector<core::TaskId> deps) {
    return g_.add(what, mb, l, false, seconds * slowdown_, std::move(deps));
  }
  core::TaskId transfer(const char* what, int mb, int l, double seconds, std::vector<core::TaskId> deps) {
    return g_.add(what, mb, l, true, seconds, std::move(deps));
  }
  // Before a micro-batch's attention: its previous layer's combine and shared expert, and its
  // offloaded KV cache.
  std::vector<core::TaskId> before_attention(int mb, int l) {
    std::vector<core::TaskId> deps = combined_[mb];
    deps.insert(deps.end(), shared_done_[mb].begin(), shared_done_[mb].end());
    if (layers_[l].kv_fetch_s > 0) deps.push_back(transfer("KV fetch", mb, l, layers_[l].kv_fetch_s, deps));
    return deps;
  }
  void dispatch_after(int mb, int l, core::TaskId gated) {
    gated_[mb] = gated;
    dispatched_[mb] = transfer("dispatch", mb, l, layers_[l].dispatch_s, {gated});
  }
  void attention(int mb, int l) {  // prefill: the whole attention with the gate
    const MicroBatchCosts& c = layers_[l];
    dispatch_after(mb, l, compute("attention", mb, l, c.attention_s + c.gate_s, before_attention(mb, l)));
  }
  void attention_early(int mb, int l) {
    const MicroBatchCosts& c = layers_[l];
    early_[mb] = compute("attention-0", mb, l, c.attention_s - c.attention_late_s, before_attention(mb, l));
  }
  void attention_late(int mb, int l) {
    const MicroBatchCosts& c = layers_[l];
    dispatch_after(mb, l, compute("attention-1", mb, l, c.attention_late_s + c.gate_s, {early_[mb]}));
  }
  void shared(int mb, int l, std::vector<core::TaskId> boundary) {
    boundary.push_back(gated_[mb]);
    shared_done_[mb] = {compute("shared expert", mb, l, layers_[l].shared_s, boundary)};
  }
  void experts(int mb, int l) {
    const MicroBatchCosts& c = layers_[l];
    const auto done = compute("experts", mb, l, c.expert_s - c.shared_s - c.gate_s, {dispatched_[mb]});
    combined_[mb] = {transfer("combine", mb, l, c.combine_s, {done})};
  }

  Sink& g_;
  const std::vector<MicroBatchCosts>& layers_;
  double slowdown_;
  core::TaskId early_[2]{}, gated_[2]{}, dispatched_[2]{};
  std::vector<core::TaskId> combined_[2], shared_done_[2];  // a micro-batch's latest (none yet: empty)
};

template <class Sink>
auto build(const std::vector<MicroBatchCosts>& layers, int micro_batches, double slowdown, Overlap overlap,
           bool prefill) {
  Sink g;
  if (overlap == Overlap::kTwoStreams || micro_batches != 2 || layers.empty()) {
    two_streams(g, layers, micro_batches, slowdown);
  } else {
    DeployedOrder<Sink> order(g, layers, slowdown);
    if (prefill)
      order.prefill();
    else
      order.decode();
  }
  return g.result();
}

}  // namespace

core::TaskGraph serving_graph(const std::vector<MicroBatchCosts>& layers, int micro_batches, double slowdown,
                              Overlap overlap, bool prefill) {
  return build<GraphSink>(layers, micro_batches, slowdown, overlap, prefill);
}

double serving_makespan_s(const std::vector<MicroBatchCosts>& layers, int micro_batches, double slowdown,
                          Overlap overlap, bool prefill) {
  return build<ClockSink>(layers, micro_batches, slowdown, overlap, prefill);
}

}  // namespace workload
