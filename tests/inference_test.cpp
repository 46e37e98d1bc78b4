#include <catch2/catch.hpp>

#include <cmath>

#include "core/analytic_engine.hpp"
#include "hw/gpu.hpp"
#include "hw/low_latency_alltoall.hpp"
#include "hw/memory_kernel.hpp"
#include "workload/inference/inference.hpp"
#include "workload/inference/serving_step.hpp"

using namespace workload;

namespace {

const Model& v3() { return model_by_name("deepseek-v3"); }

Roofline h800() { return Roofline(hw::gpu_by_name("H800"), KernelEfficiency{}, true); }

ServingLinks ib() { return ServingLinks{160e9, 50e9, 3.33e-6, 3.7e-6, 64e9}; }

ServingStep decode(int sequences, int context, bool compute = true, int tokens_per_sequence = 1) {
  ServingRequest q;
  q.sequences = sequences;
  q.context_tokens = context;
  q.compute = compute;
  q.tokens_per_sequence = tokens_per_sequence;
  q.mtp_drafts = tokens_per_sequence - 1;
  return serving_step(v3(), h800(), ServingDeployment{}, ib(), q, nullptr);
}

}  // namespace

TEST_CASE("serving graph: micro-batches hide communication behind compute and back", "[inference]") {
  const MicroBatchCosts comm_bound{0, 1, 10, 1, 20};
  const MicroBatchCosts compute_bound{0, 10, 1, 20, 1};
  const std::vector<MicroBatchCosts> a(8, comm_bound), b(8, compute_bound);
  // Steady state: the busier stream runs without gaps, two micro-batches per layer.
  const double comm = core::evaluate_analytically(serving_graph(a, 2, 1.0)).makespan_s();
  CHECK(comm == Approx(8 * 2 * 30 + 1 + 1).margin(2));
  const double compute = core::evaluate_analytically(serving_graph(b, 2, 1.0)).makespan_s();
  CHECK(compute == Approx(8 * 2 * 30 + 1).margin(2));
  // SMs for communication slow only compute.
  CHECK(core::evaluate_analytically(serving_graph(b, 2, 1.2)).makespan_s() > compute * 1.15);
}

TEST_CASE("decode without compute is the all-to-all alone, four per MoE layer", "[inference]") {
  const auto step = decode(20480, 0, false);
  const auto& c = step.moe_layer;
  const int moe_layers = v3().layers - v3().dense_layers;
  CHECK(step.step_s == Approx(moe_layers * 2 * (c.dispatch_s + c.combine_s)).epsilon(1e-9));
  // The closed form's bytes per GPU (32 tokens x 9 copies, FP8 out and BF16 back) at the NIC's
  // full rate bound each all-to-all from below; at the low-latency kernels' measured rate, with
  // their fixed time, they are what a balanced routing takes: imbalance only adds to the busiest.
  const double bytes = 32.0 * 9 * (7168 + 2 * 7168);
  const auto& ll = hw::deepep_low_latency();
  const double balanced = bytes / (ll.nic.rate_fraction * 50e9) + 2 * ll.nic.latency_s;
  CHECK(c.dispatch_s + c.combine_s > bytes / 50e9);
  CHECK(c.dispatch_s + c.combine_s > balanced);
  CHECK(c.dispatch_s + c.combine_s < 1.5 * balanced);
}

TEST_CASE("decode TPOT grows with context and batch; throughput per GPU grows with batch", "[inference]") {
  double previous = 0;
  for (int context : {512, 4096, 32768}) {
    const double t = decode(2560, context).step_s;
    CHECK(t > previous);
    previous = t;
  }
  const double small = decode(640, 4096).step_s, large = decode(10240, 4096).step_s;
  CHECK(large > small);
  CHECK(10240 / large > 640 / small);
}

TEST_CASE("MTP: a second token is nearly free when decode is memory-bound", "[inference]") {
  const double acceptance = 0.85;
  for (int sequences : {640, 10240}) {
    const double plain = decode(sequences, 16384).step_s;
    const double mtp = decode(sequences, 16384, true, 2).step_s;
    const double speedup = (1 + acceptance) * plain / mtp;
    INFO(sequences << " sequences: speedup " << speedup);
    CHECK(speedup > 1.0);
    CHECK(speedup < 1 + acceptance);
  }
  const double small = (1 + acceptance) * decode(640, 16384).step_s / decode(640, 16384, true, 2).step_s;
  const double large = (1 + acceptance) * decode(10240, 1024).step_s / decode(10240, 1024, true, 2).step_s;
  CHECK(small > large);  // long contexts, small batches: the KV cache read dominates
}

TEST_CASE("flow-simulated all-to-all agrees with the busiest-port bound at small batches", "[inference]") {
  // DeepEP's normal kernels (IB once per node, then NVLink) at the links' rates: the bound is the
  // flow simulation's busiest port. (Decode's low-latency kernels take their measured model.)
  net::Cluster unit;
  unit.nodes = 32;
  unit.gpus_per_node = 8;
  unit.gpu_flops_per_s = 1e15;
  unit.scale_up_Bps = 160e9;
  unit.scale_out_Bps = 50e9;
  ServingRequest q;
  q.sequences = 640;
  q.context_tokens = 4096;
  auto links = ib();
  links.ib_latency_s = links.nvlink_latency_s = 0;
  ServingDeployment d;
  d.gpus = d.routed_gpus = 256;
  d.dedicated_shared = false;
  d.direct_comm = false;
  const auto flow = serving_step(v3(), h800(), d, links, q, &unit);
  const auto bound = serving_step(v3(), h800(), d, links, q, nullptr);
  REQUIRE(flow.flow_simulated);
  CHECK(flow.moe_layer.dispatch_s == Approx(bound.moe_layer.dispatch_s).epsilon(0.05));
  CHECK(flow.moe_layer.combine_s == Approx(bound.moe_layer.combine_s).epsilon(0.05));
}

TEST_CASE("prefill: time to first token grows faster than the prompt (attention is quadratic)", "[inference]") {
  ServingDeployment d;
  d.gpus = 32;
  d.routed_gpus = 32;
  d.dedicated_shared = false;
  d.direct_comm = false;
  d.comm_sms = 20;
  ServingRequest q;
  q.prefill = true;
  q.sequences = 16;
  q.tokens_per_sequence = 4096;
  const double t4k = serving_step(v3(), h800(), d, ib(), q, nullptr).step_s;
  q.tokens_per_sequence = 16384;
  const double t16k = serving_step(v3(), h800(), d, ib(), q, nullptr).step_s;
  CHECK(t16k > 4 * t4k);
  CHECK(t16k < 16 * t4k);
}

TEST_CASE("decode: the memory-bound kernels run between the GEMMs, each with its fixed cost", "[inference]") {
  // A few tokens per attention group: the kernels' bytes are negligible, their fixed starts and
  // ends are not. The MoE layer's attention runs 20 of them (norms, casts, RoPE, residual, the
  // router's nine), 2.2 us each, on top of what its GEMMs and FlashMLA take alone.
  const auto step = decode(160, 512);
  const auto& moe = step.moe_layer;
  const auto dense = step.layers.front();                     // DeepSeek-V3's first layers are dense
  CHECK(moe.attention_s - dense.attention_s >= 10 * 2.2e-6);  // the router's nine and the MoE input's norm
  CHECK(moe.attention_s > 20 * 2.2e-6);
}

namespace {

// Llama-3.1-70B (64 query heads, 8 KV heads) decoding on one node at TP `tp` in BF16.
ServingStep llama_decode(int tp, int sequences, int context, ServingLinks links = ib()) {
  ServingDeployment d;
  d.gpus = d.routed_gpus = 16;
  d.attention_tp = tp;
  d.dedicated_shared = false;
  d.micro_batches = 1;
  ServingRequest q;
  q.sequences = sequences * d.attention_dp();
  q.context_tokens = context;
  q.kv_bytes_per_element = 2;
  return serving_step(model_by_name("llama-3.1-70b"), Roofline(hw::gpu_by_name("H800"), KernelEfficiency{}, false), d,
                      links, q, nullptr);
}

}  // namespace

TEST_CASE("decode attention: each GPU of a TP group reads its KV heads' share, copied past the KV heads",
          "[inference]") {
  // At a long context the KV reads dominate attention. Eight KV heads over TP8 leave one per GPU,
  // an eighth of TP1's reads (with an eighth of the weights and FLOPs); TP16 copies them, so a
  // GPU still reads one head's KV.
  const double tp1 = llama_decode(1, 64, 32768).moe_layer.attention_s;
  const double tp8 = llama_decode(8, 64, 32768).moe_layer.attention_s;
  const double tp16 = llama_decode(16, 64, 32768).moe_layer.attention_s;
  CHECK(tp8 < tp1 / 6);
  CHECK(tp16 > 0.85 * tp8);
}

TEST_CASE("decode: a dense model's TP FFN pays its all-gather and reduce-scatter on NVLink", "[inference]") {
  // Tokens over NVLink at a tenth of its rate: the FFN's two collectives take ten times as long.
  ServingLinks slow = ib();
  slow.nvlink_Bps /= 10;
  const int tp = 8, sequences = 256;
  const double fast_ffn = llama_decode(tp, sequences, 1024).moe_layer.expert_s;
  const double slow_ffn = llama_decode(tp, sequences, 1024, slow).moe_layer.expert_s;
  const double bytes = (tp - 1.0) / tp * sequences * 8192 * 2;  // one collective's share per GPU, BF16 tokens
  CHECK(slow_ffn - fast_ffn == Approx(2 * (bytes / slow.nvlink_Bps - bytes / ib().nvlink_Bps)).epsilon(1e-6));
  // One TP1 GPU has no collective to pay.
  CHECK(llama_decode(1, sequences, 1024).moe_layer.expert_s ==
        Approx(llama_decode(1, sequences, 1024, slow).moe_layer.expert_s));
}

TEST_CASE("decode all-to-all: DeepEP's low-latency kernels at their measured time, EP128 at 128 tokens per GPU",
          "[inference]") {
  // DeepEP's README: 192 us to dispatch and 369 us to combine 128 tokens per GPU at EP128 (H800,
  // CX7). Our gate's routing of the same tokens onto 128 GPUs, two experts each, timed by the
  // kernel model fitted to those rows: the busiest GPU's messages, a few percent above the mean.
  ServingDeployment d;
  d.gpus = d.routed_gpus = 128;
  d.dedicated_shared = false;
  d.redundant_experts = 0;
  ServingRequest q;
  q.sequences = 128 * 128 * d.micro_batches;
  q.context_tokens = 4096;
  q.compute = false;
  const auto step = serving_step(v3(), h800(), d, ib(), q, nullptr);
  CHECK(step.moe_layer.dispatch_s == Approx(192e-6).epsilon(0.15));
  CHECK(step.moe_layer.combine_s == Approx(369e-6).epsilon(0.15));
  CHECK(step.moe_layer.dispatch_s > 192e-6 * 0.97);  // never faster than measured: the busiest GPU gates
}

TEST_CASE("step breakdown: compute, head and exposed communication add up to the step; the rest of the all-to-alls hid",
          "[inference]") {
  for (const int sequences : {640, 20480}) {
    for (const bool mtp : {false, true}) {
      INFO(sequences << " sequences, MTP " << mtp);
      const auto step = decode(sequences, 4096, true, mtp ? 2 : 1);
      const auto b = step_breakdown(step);
      const double compute = b.attention_s + b.routed_experts_s + b.shared_expert_s + b.gate_s + b.dense_ffn_s;
      CHECK(compute + b.head_s + b.exposed_comm_s == Approx(b.step_s).epsilon(1e-9));
      CHECK(b.exposed_comm_s <= b.dispatch_s + b.combine_s);
      CHECK(b.memory_kernels_s < compute);
      CHECK((b.mtp_s > 0) == mtp);
      CHECK(b.dispatch_s == Approx(2 * (v3().layers - v3().dense_layers + (mtp ? 1 : 0)) * step.moe_layer.dispatch_s));
    }
  }
  // Without compute every transfer is exposed.
  const auto b = step_breakdown(decode(20480, 0, false));
  CHECK(b.exposed_comm_s == Approx(b.dispatch_s + b.combine_s).epsilon(1e-9));
}

TEST_CASE("expert tensor parallelism: every GPU a slice of every expert, tokens gathered and scattered, no all-to-all",
          "[inference]") {
  const Model& mixtral = model_by_name("mixtral-8x7b");
  const Roofline h100(hw::gpu_by_name("H100"), KernelEfficiency{}, false);
  auto step = [&](int gpus) {
    ServingDeployment d;
    d.gpus = d.routed_gpus = gpus;
    d.gpus_per_node = 8;
    d.attention_tp = gpus;
    d.expert_tp = true;
    d.dedicated_shared = false;
    d.micro_batches = 1;
    ServingRequest q;
    q.sequences = 32;
    q.context_tokens = 1000;
    return serving_step(mixtral, h100, d, ib(), q, nullptr);
  };
  const ServingStep one = step(1), two = step(2), four = step(4);
  // Decode at 32 sequences reads the experts' weights: split over more GPUs, each reads less.
  CHECK(two.moe_layer.expert_s < 0.7 * one.moe_layer.expert_s);
  CHECK(four.moe_layer.expert_s < 0.7 * two.moe_layer.expert_s);
  // The gather before the experts and the reduce-scatter after: (t-1)/t of the tokens over NVLink.
  CHECK(one.moe_layer.dispatch_s == 0);
  CHECK(two.moe_layer.dispatch_s == Approx(0.5 * 32 * 4096 * 2 / 160e9 + 3.33e-6));
  CHECK(four.moe_layer.combine_s == Approx(0.75 * 32 * 4096 * 2 / 160e9 + 3.33e-6));
  CHECK(two.expert_imbalance == 1);
}

namespace {

// A dense model's decode on one TP8 node, in BF16, from its config.
ServingStep config_decode(const Model& m, int sequences, int context, bool prefill = false) {
  ServingDeployment d;
  d.gpus = d.routed_gpus = 8;
  d.attention_tp = 8;
  d.dedicated_shared = false;
  d.micro_batches = 1;
  ServingRequest q;
  q.sequences = sequences;
  q.context_tokens = context;
  q.tokens_per_sequence = prefill ? context : 1;
  q.prefill = prefill;
  q.kv_bytes_per_element = 2;
  return serving_step(m, Roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, false), d, ib(), q, nullptr);
}

}  // namespace

TEST_CASE("sliding-window layers read and attend over their window only", "[inference]") {
  // Gemma 2 9B: every other layer within 4,096 tokens. At 32K tokens of context those layers'
  // attention reads an eighth of the full layers' KV; below the window they are alike.
  Model windowed = model_by_name("gemma-2-9b");
  Model full = windowed;
  full.attention_window_tokens.clear();
  const auto long_w = config_decode(windowed, 64, 32768), long_f = config_decode(full, 64, 32768);
  CHECK(long_w.layers[0].attention_s < 0.3 * long_f.layers[0].attention_s);  // layer 0 slides
  CHECK(long_w.layers[1].attention_s == long_f.layers[1].attention_s);       // layer 1 sees it all
  CHECK(long_w.step_s < long_f.step_s);
  const auto short_w = config_decode(windowed, 64, 2048), short_f = config_decode(full, 64, 2048);
  CHECK(short_w.step_s == Approx(short_f.step_s));
  // Prefill of 16K-token prompts: the windowed layers attend over at most 4,096 keys each.
  CHECK(config_decode(windowed, 1, 16384, true).layers[0].attention_s <
        config_decode(full, 1, 16384, true).layers[0].attention_s);
}

TEST_CASE("FP4 linear layers on B200: twice FP8's rate, half its weight bytes", "[inference]") {
  const auto& b200 = hw::gpu_by_name("B200");
  const Roofline fp4(b200, KernelEfficiency{}, hw::GemmPrecision::kFp4),
      fp8(b200, KernelEfficiency{}, hw::GemmPrecision::kFp8);
  CHECK(fp4.linear_s(1e12) == Approx(fp8.linear_s(1e12) / 2));
  CHECK(fp4.weight_bytes() == 0.5);
  CHECK(fp4.fp8_gemms());  // the quantised recipe's casts
  // Decode of Llama 3.1 70B at TP8: the expert (FFN) time falls with the weights' bytes.
  ServingDeployment d;
  d.gpus = d.routed_gpus = 8;
  d.attention_tp = 8;
  d.dedicated_shared = false;
  d.micro_batches = 1;
  ServingRequest q;
  q.sequences = 8;
  q.context_tokens = 1024;
  const auto& m = model_by_name("llama-3.1-70b");
  CHECK(serving_step(m, fp4, d, ib(), q, nullptr).step_s < serving_step(m, fp8, d, ib(), q, nullptr).step_s);
}

TEST_CASE("decode with pipeline stages: the layers' time once, plus each boundary's hand-off of the batch",
          "[inference]") {
  // Llama-3.1-70B (80 layers) at TP8 in stages of 8 GPUs: a batch runs the stages one after
  // another, so its step is the whole model's on one stage's GPUs and the hand-offs: each TP rank
  // its eighth of 256 tokens' hidden states and residual in BF16, on the NICs between nodes.
  ServingDeployment d;
  d.gpus = d.routed_gpus = 8;
  d.gpus_per_node = 8;
  d.attention_tp = 8;
  d.micro_batches = 1;
  d.dedicated_shared = false;
  ServingRequest q;
  q.sequences = 256;
  q.context_tokens = 1024;
  const auto& llama = model_by_name("llama-3.1-70b");
  const Roofline roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, true);
  const auto one = serving_step(llama, roofline, d, ib(), q, nullptr);
  d.pipeline_stages = 2;
  d.pipeline_node_crossings = 1;
  const auto two = serving_step(llama, roofline, d, ib(), q, nullptr);
  const double bytes = 256 * 2 * 8192 * 2 / 8.0;
  CHECK(two.pipeline_s == Approx(ib().ib_latency_s + bytes / ib().ib_Bps));
  CHECK(two.step_s == Approx(one.step_s + two.pipeline_s));
  CHECK(step_breakdown(two).pipeline_s == Approx(two.pipeline_s));
  // Three stages over 80 layers: the largest holds 27, and each batch waits for it at every stage.
  d.pipeline_stages = 3;
  d.pipeline_node_crossings = 0;
  const auto three = serving_step(llama, roofline, d, ib(), q, nullptr);
  CHECK(three.stage_balance == Approx(81.0 / 80));
  CHECK(three.step_s == Approx((one.step_s - one.head_s) * 81 / 80 + one.head_s + three.pipeline_s));
}

TEST_CASE("a step's length timed without its graph is the graph's makespan, for every overlap", "[inference]") {
  // Layers with every part, KV fetched over PCIe in some, all-to-alls that outlast their stages
  // in others: the clock must order each stream and each dependency as the analytic engine does.
  std::vector<MicroBatchCosts> layers;
  for (int l = 0; l < 7; ++l) {
    MicroBatchCosts c;
    c.kv_fetch_s = l % 3 == 0 ? 2e-5 * (l + 1) : 0;
    c.attention_s = 1e-4 * (1 + l % 4);
    c.attention_late_s = 0.4 * c.attention_s;
    c.dispatch_s = 3e-5 * (1 + l % 5);
    c.gate_s = 1e-5;
    c.shared_s = 2e-5 * (l % 2);
    c.expert_s = c.gate_s + c.shared_s + 1.5e-4 * (1 + l % 3);
    c.combine_s = l == 4 ? 5e-4 : 4e-5;
    layers.push_back(c);
  }
  for (const Overlap overlap : {Overlap::kTwoStreams, Overlap::kDeployed})
    for (const int micro_batches : {1, 2, 3})
      for (const bool prefill : {false, true})
        for (const double slowdown : {1.0, 1.2}) {
          INFO("overlap " << int(overlap) << ", " << micro_batches << " micro-batches, prefill " << prefill
                          << ", slowdown " << slowdown);
          const double graph =
              core::evaluate_analytically(serving_graph(layers, micro_batches, slowdown, overlap, prefill))
                  .makespan_s();
          CHECK(serving_makespan_s(layers, micro_batches, slowdown, overlap, prefill) == graph);
        }
}

namespace {

// DeepSeek-V3 on one node of 8 H100s, its 256 routed experts EP8 (32 a GPU), attention DP8, one
// micro-batch.
ServingDeployment ep8_unit() {
  ServingDeployment d;
  d.gpus = d.routed_gpus = 8;
  d.gpus_per_node = 8;
  d.attention_tp = 1;
  d.dedicated_shared = false;
  d.micro_batches = 1;
  return d;
}

// Decoding `sequences` on it.
ServingStep ep8_decode(int sequences, bool expert_tp = false) {
  ServingDeployment d = ep8_unit();
  d.expert_tp = expert_tp;
  ServingRequest q;
  q.sequences = sequences;
  q.context_tokens = 1000;
  return serving_step(v3(), Roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, true), d, ib(), q, nullptr);
}

}  // namespace

TEST_CASE("a MoE step reads the weights of the experts its tokens chose, not every local expert's", "[inference]") {
  // One token chooses 8 of 256 experts: about one on each GPU, a few on the busiest; 16 tokens
  // touch about 32 (1 - (31/32)^16) = 12.7 of a GPU's 32, more on the busiest.
  const ServingStep one = ep8_decode(1), sixteen = ep8_decode(16), many = ep8_decode(1024);
  CHECK(one.experts_touched >= 1);
  CHECK(one.experts_touched < 4);
  CHECK(sixteen.experts_touched > 12);
  CHECK(sixteen.experts_touched < 24);
  CHECK(many.experts_touched == Approx(32).epsilon(1e-3));
  // Decode reads weights: the routed experts' time grows with the experts touched.
  const double t1 = one.moe_layer.expert_s, t16 = sixteen.moe_layer.expert_s;
  CHECK(t1 < 0.4 * t16);
  // Tensor-parallel experts: each GPU reads its slice of the experts any token chose.
  const ServingStep tp_one = ep8_decode(1, true), tp_sixteen = ep8_decode(16, true);
  CHECK(tp_one.experts_touched == Approx(8).epsilon(1e-9));
  CHECK(tp_sixteen.experts_touched == Approx(256 * (1 - std::pow(1 - 8.0 / 256, 16))).epsilon(1e-9));
  CHECK(tp_one.moe_layer.expert_s < 0.5 * tp_sixteen.moe_layer.expert_s);
}

TEST_CASE("tensor-parallel experts: the step breakdown's parts add up to the step, the routed experts within it",
          "[inference]") {
  for (const bool prefill : {false, true})
    for (const int micro_batches : {1, 2})
      for (const Overlap overlap : {Overlap::kTwoStreams, Overlap::kDeployed})
        for (const int ep : {1, 4}) {
          INFO("prefill " << prefill << ", " << micro_batches << " micro-batches, overlap " << int(overlap) << ", EP"
                          << ep);
          ServingDeployment d;
          d.gpus = d.routed_gpus = 8;
          d.gpus_per_node = 8;
          d.attention_tp = 8;
          d.dedicated_shared = false;
          d.expert_tp = true;
          d.expert_ep = ep;
          d.micro_batches = micro_batches;
          d.overlap = overlap;
          ServingRequest q;
          q.prefill = prefill;
          q.sequences = prefill ? 4 : 64;
          q.tokens_per_sequence = prefill ? 2000 : 1;
          q.context_tokens = prefill ? 0 : 2000;
          const ServingStep step =
              serving_step(v3(), Roofline(hw::gpu_by_name("H200"), KernelEfficiency{}, true), d, ib(), q, nullptr);
          const ServingStepBreakdown b = step_breakdown(step);
          CHECK(b.routed_experts_s < b.step_s);
          const double compute = b.attention_s + b.routed_experts_s + b.shared_expert_s + b.gate_s + b.dense_ffn_s;
          CHECK(compute + b.head_s + b.exposed_comm_s == Approx(b.step_s).epsilon(1e-9));
        }
}

TEST_CASE("expert TP x EP: each GPU a slice of its EP group's experts, the busiest group's tokens set the pace",
          "[inference]") {
  // DeepSeek-V3 on a TP8 unit of H200s: experts TP8 (each GPU 1/8 of all 256) and TP2 x EP4 (each
  // GPU 1/2 of its group's 64).
  auto step = [&](int ep, int sequences) {
    ServingDeployment d;
    d.gpus = d.routed_gpus = 8;
    d.gpus_per_node = 8;
    d.attention_tp = 8;
    d.dedicated_shared = false;
    d.expert_tp = true;
    d.expert_ep = ep;
    d.micro_batches = 1;
    ServingRequest q;
    q.sequences = sequences;
    q.context_tokens = 1000;
    return serving_step(v3(), Roofline(hw::gpu_by_name("H200"), KernelEfficiency{}, true), d, ib(), q, nullptr);
  };
  const ServingStep tp8 = step(1, 256), tp2ep4 = step(4, 256);
  // At 256 tokens every expert is touched: TP8 reads 1/8 of all 256 experts, TP2 x EP4 half of
  // the busiest group's 64, the same bytes; the busiest group holds more than a quarter of the
  // tokens' copies, so it takes longer, but within the imbalance.
  CHECK(tp8.experts_touched == Approx(256).epsilon(1e-3));
  CHECK(tp2ep4.experts_touched == Approx(64).epsilon(0.01));
  CHECK(tp2ep4.expert_imbalance > 1);
  CHECK(tp8.expert_imbalance == 1);
  CHECK(tp2ep4.moe_layer.expert_s > 0.9 * tp8.moe_layer.expert_s);
  CHECK(tp2ep4.moe_layer.expert_s < tp2ep4.expert_imbalance * 1.2 * tp8.moe_layer.expert_s);
  // The same gather and reduce-scatter around the experts.
  CHECK(tp2ep4.moe_layer.dispatch_s == tp8.moe_layer.dispatch_s);
  // A single token: TP8 reads 1/8 of its 8 experts on each GPU; TP2 x EP4, half of the busiest
  // group's few.
  const ServingStep one_tp8 = step(1, 1), one_ep4 = step(4, 1);
  CHECK(one_tp8.experts_touched == Approx(8));
  CHECK(one_ep4.experts_touched < 8);
  // EP8 with every token gathered (vLLM's all-gather / reduce-scatter): each GPU its 32 whole
  // experts, the same gather and reduce-scatter; the busiest GPU's experts set the pace.
  const ServingStep ep8 = step(8, 256);
  CHECK(ep8.experts_touched == Approx(32).epsilon(0.01));
  CHECK(ep8.expert_imbalance >= tp2ep4.expert_imbalance);
  CHECK(ep8.moe_layer.dispatch_s == tp8.moe_layer.dispatch_s);
  CHECK(ep8.moe_layer.combine_s == tp8.moe_layer.combine_s);
  CHECK(ep8.moe_layer.expert_s > 0.9 * tp8.moe_layer.expert_s);
  CHECK(ep8.moe_layer.expert_s < ep8.expert_imbalance * 1.2 * tp8.moe_layer.expert_s);
}

TEST_CASE("a layer's profiler parts lie inside its costs; balanced routing loads every expert GPU alike",
          "[inference]") {
  for (const bool prefill : {false, true}) {
    ServingDeployment d;
    d.gpus = d.routed_gpus = prefill ? 32 : 128;
    d.attention_tp = 1;
    d.dedicated_shared = false;
    d.direct_comm = !prefill;
    ServingRequest q;
    q.prefill = prefill;
    q.sequences = prefill ? 128 : 16384;
    if (prefill)
      q.tokens_per_sequence = 4096;
    else
      q.context_tokens = 4096;
    q.affinity.skew = AffinitySkew::kBalanced;
    const ServingStep step = serving_step(v3(), h800(), d, ib(), q, nullptr);
    CHECK(step.expert_imbalance == Approx(1.0));
    const MicroBatchCosts& c = step.moe_layer;
    CHECK(c.core_attention_s > 0);
    CHECK(c.core_attention_s < c.attention_s);
    CHECK(c.swiglu_s > 0);
    CHECK(c.swiglu_s < c.expert_memory_s);
    CHECK(c.expert_memory_s < c.memory_kernels_s);
    CHECK(c.expert_memory_s + c.shared_s + c.gate_s < c.expert_s);  // the routed GEMMs are what is left
  }
}

TEST_CASE("a step replayed as a CUDA graph: each kernel's launch cheaper, its GPU time the same", "[inference]") {
  // DeepSeek-V3 decoding 64 sequences a GPU on 8 H100s (EP8, DP8): eager, in a graph, and past the
  // graph's captured size (eager again).
  auto step = [&](int max_batch, bool prefill, bool graph_prefill) {
    ServingDeployment d = ep8_unit();
    d.cuda_graph_max_batch = max_batch;
    d.cuda_graph_prefill = graph_prefill;
    ServingRequest q;
    q.prefill = prefill;
    q.sequences = prefill ? 8 : 512;
    q.tokens_per_sequence = prefill ? 32 : 1;
    q.context_tokens = prefill ? 0 : 1000;
    return serving_step(v3(), Roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, true), d, ib(), q, nullptr);
  };
  const double saving_s = hw::memory_kernels_for(hw::gpu_by_name("H100")).graph_launch_saving_s;
  REQUIRE(saving_s > 0);
  const ServingStep eager = step(0, false, false), graph = step(512, false, false), past = step(32, false, false);
  CHECK(graph.step_s < eager.step_s);
  CHECK(past.step_s == eager.step_s);
  // The memory-bound kernels: each launch's floor less the saving, their streaming the same.
  const double saved_memory = eager.moe_layer.memory_kernels_s - graph.moe_layer.memory_kernels_s;
  CHECK(saved_memory > 0);
  const double launches = saved_memory / saving_s;
  CHECK(launches == Approx(std::round(launches)).margin(1e-6));  // whole launches
  // The experts' GEMMs: each kernel's launch term less the saving.
  CHECK(graph.moe_layer.expert_s < eager.moe_layer.expert_s);
  // Steps with prompt tokens replay a graph only where the engine captures them (vLLM's piecewise).
  CHECK(step(512, true, false).step_s == step(0, true, false).step_s);
  CHECK(step(512, true, true).step_s < step(0, true, false).step_s);
}
