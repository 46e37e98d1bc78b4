#include <catch2/catch.hpp>
#include <numeric>
#include <random>
#include <set>

#include "core/analytic_engine.hpp"
#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "hw/gpu.hpp"
#include "net/platform.hpp"
#include "workload/model/layer_gemms.hpp"
#include "workload/moe/ep_comm.hpp"
#include "workload/pipeline/pipeline_simulation.hpp"
#include "workload/pipeline/schedule_generators.hpp"
#include "workload/training/data_parallel_sync.hpp"
#include "workload/training/stage_layout.hpp"
#include "workload/training/training_step.hpp"

using namespace workload;

namespace {

const Model& v3() { return model_by_name("deepseek-v3"); }

Roofline h800_roofline(bool fp8 = true) { return Roofline(hw::gpu_by_name("H800"), KernelEfficiency{}, fp8); }

EpCommTimes some_ep_comm() {
  EpCommTimes ep;
  ep.dispatch_forward_s = 2e-3;
  ep.combine_forward_s = ep.combine_backward_s = ep.dispatch_backward_s = 4e-3;
  return ep;
}

TrainingStep v3_step(const std::string& schedule, EpCommTimes ep, int comm_sms, int sequences = 15360, bool fp8 = true,
                     bool keep_kernels = false) {
  TrainingParallelism par;
  par.schedule = schedule;
  TrainingBatch batch;
  batch.global_sequences = sequences;
  return TrainingStep(v3(), h800_roofline(fp8), par, batch, balanced_stage_layout(v3(), par.pp, true, 4096, "/pp"), ep,
                      132, comm_sms, std::nullopt, {}, keep_kernels);
}

}  // namespace

TEST_CASE("the analytical engine serialises each stream and waits for dependencies", "[training]") {
  core::TaskGraph g;
  const auto a = g.add_compute("a", 0, "compute", 1.0, {});
  const auto b = g.add_compute("b", 0, "compute", 2.0, {});             // after a on its stream
  const auto c = g.add_compute("c", 1, "compute", 0.5, {a});            // waits for a
  const auto t = g.add_transfer("t", 1, "comm", {{1, 0, 100.0}}, {c});  // 100 B at 100 B/s
  const auto j = g.add_join("j", {b, t});
  const auto tl = core::evaluate_analytically(g, [](const core::Flow& f) { return f.bytes / 100.0; });
  CHECK(tl.span(b).start_s == Approx(1.0));
  CHECK(tl.span(c).start_s == Approx(1.0));
  CHECK(tl.span(t).end_s == Approx(2.5));
  CHECK(tl.span(j).end_s == Approx(3.0));
}

TEST_CASE("the analytical engine agrees with SimGrid when no flows share a link", "[training]") {
  const auto s = one_f_one_b(4, 8);
  const auto pg = pipeline_graph(s, PassTimes{1.0, 2.0, 0.5, 2.5}, 1e6);
  net::Cluster c = net::ideal_cluster(4);
  c.scale_out_Bps = 1e8;  // 10 ms per transfer: visible in the step
  const double flow = core::simulate(net::StarPlatform(c), pg.graph).makespan_s();
  const double analytic =
      core::evaluate_analytically(pg.graph, [&](const core::Flow& f) { return f.bytes / 1e8; }).makespan_s();
  CHECK(analytic == Approx(flow).epsilon(1e-9));
}

TEST_CASE("balanced_partition minimises the costliest run", "[training]") {
  CHECK(balanced_partition({1, 1, 1, 1}, 2) == std::vector<int>{2, 2});
  CHECK(balanced_partition({4, 1, 1, 1, 1}, 2) == std::vector<int>{1, 4});
  CHECK(balanced_partition({1, 1, 1, 1, 1, 1, 3}, 3) == std::vector<int>{3, 3, 1});
  std::mt19937 rng(3);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> w(30);
    for (auto& x : w) x = std::uniform_real_distribution<double>(0.5, 2.0)(rng);
    const auto sizes = balanced_partition(w, 7);
    CHECK(std::accumulate(sizes.begin(), sizes.end(), 0) == 30);
    // No run is heavier than the lower bound total / parts plus the heaviest item.
    double total = std::accumulate(w.begin(), w.end(), 0.0), worst = 0;
    for (std::size_t i = 0, p = 0; p < sizes.size(); ++p) {
      double run = 0;
      for (int k = 0; k < sizes[p]; ++k) run += w[i++];
      worst = std::max(worst, run);
    }
    CHECK(worst <= total / 7 + 2.0);
  }
}

TEST_CASE("DeepSeek-V3 over 16 stages: every layer placed once, head and MTP on the last", "[training]") {
  const auto layout = balanced_stage_layout(v3(), 16, true, 4096, "/pp");
  REQUIRE(layout.layers.size() == 16);
  CHECK(std::accumulate(layout.layers.begin(), layout.layers.end(), 0) == 61);
  for (std::size_t s = 1; s < 16; ++s) CHECK(layout.first_layer[s] == layout.first_layer[s - 1] + layout.layers[s - 1]);
  // The head and the MTP module weigh on the last stage: it holds fewer layers than the middle.
  CHECK(layout.layers.back() < layout.layers[8]);
  CHECK_THROWS_AS(explicit_stage_layout(v3(), std::vector<int>(16, 4), true, "/x"), core::InputError);
  CHECK_THROWS_AS(balanced_stage_layout(v3(), 62, true, 4096, "/pp"), core::InputError);
}

TEST_CASE("without communication an overlapped pair costs its two chunks", "[training]") {
  const auto step = v3_step("dualpipe", EpCommTimes{}, 0);
  for (int f : {0, 7, 15})
    for (int b : {0, 8, 15}) {
      const Step pair{{{Pass::kForward, 0, 0, 0, f}, {Pass::kBackward, 1, 0, 0, b}}};
      const auto& sf = step.stages()[f];
      const auto& sb = step.stages()[b];
      // Only the casts before combine(B) sends run on the communication stream, each beside the
      // paired forward layer's attention; a backward layer left unpaired runs its own alone.
      double beside_s = 0;
      for (std::size_t i = 0; i < std::min(sf.layers.size(), sb.layers.size()); ++i)
        beside_s += sb.layers[sb.layers.size() - 1 - i].backward.combine_cast_s;
      if (b == 8) CHECK(beside_s > 0);
      CHECK(step.step_seconds(pair) == Approx(sf.forward_s() + sb.input_backward_s() + sb.weight_s() - beside_s));
    }
}

TEST_CASE("overlap hides communication; SMs taken by it cost compute", "[training]") {
  const auto with_sms = v3_step("dualpipe", some_ep_comm(), 20);
  const auto coprocessor = v3_step("dualpipe", some_ep_comm(), 0);
  const Step pair{{{Pass::kForward, 0, 0, 0, 8}, {Pass::kBackward, 1, 0, 0, 8}}};
  const auto& st = with_sms.stages()[8];
  const double serial = st.forward_s() + st.input_backward_s() + st.weight_s();
  CHECK(with_sms.step_seconds(pair) < serial);
  CHECK(coprocessor.step_seconds(pair) < with_sms.step_seconds(pair));
  // BF16 GEMMs run at half the FP8 rate: slower chunks.
  const auto bf16 = v3_step("dualpipe", some_ep_comm(), 20, 15360, false);
  CHECK(bf16.stages()[8].forward_s() > st.forward_s());
}

TEST_CASE("an overlapped pair's layers follow each other as their data does, not layer after layer", "[training]") {
  // All-to-alls long enough that a layer's combine(B) outlasts the compute beside it.
  EpCommTimes ep = some_ep_comm();
  ep.combine_backward_s = 6e-3;
  const auto step = v3_step("dualpipe", ep, 20);
  const Step pair{{{Pass::kForward, 0, 0, 0, 8}, {Pass::kBackward, 1, 0, 0, 8}}};
  const auto ops = step.step_ops(pair);
  // The i-th op of a name, in the order the pair runs them: forward layers first to last, backward last to first.
  auto nth = [&](const std::string& name, std::size_t i) {
    std::vector<OpSpan> found;
    for (const auto& o : ops)
      if (o.name == name) found.push_back(o);
    REQUIRE(i < found.size());
    return found[i];
  };
  const std::size_t layers = step.stages()[8].layers.size();
  REQUIRE(layers >= 2);
  for (std::size_t i = 1; i < layers; ++i) {
    // A layer's combine(B) sends the gradient the layer after it computed in attn(B), beside that
    // layer's attn(W) (DeepSeek's profile runs them so), not once the whole layer has ended.
    const auto combine_b = nth("combine(B)", i), attn_b = nth("attn(B)", i - 1), attn_w = nth("attn(W)", i - 1);
    CHECK(combine_b.layer == attn_b.layer - 1);
    CHECK(combine_b.start_s == Approx(attn_b.end_s));
    CHECK(combine_b.start_s < attn_w.end_s);
    // Its attn(F) takes the layer before's output once combine(F) has brought it back, and the compute stream.
    const auto attn_f = nth("attn(F)", i), combine_f = nth("combine(F)", i - 1);
    CHECK(attn_f.layer == combine_f.layer + 1);
    CHECK(attn_f.start_s == Approx(std::max(combine_f.end_s, attn_w.end_s)));
  }
  // Ends as the layers' ops chain, no later than layer after layer.
  const auto& st = step.stages()[8];
  double barriers_s = 0;
  for (std::size_t i = 0; i < layers; ++i) {
    ChunkPair one{st.layers[i].forward, st.layers[layers - 1 - i].backward, 132, 0};
    barriers_s += core::simulate(net::StarPlatform(net::ideal_cluster(1)), overlapped_chunk_pair(one)).makespan_s();
  }
  CHECK(step.step_seconds(pair) < barriers_s);
}

TEST_CASE("the step breakdown classifies the critical rank's steps and picks the most idle rank", "[training]") {
  for (const char* kind : {"dualpipe", "1f1b", "zb1p"}) {
    INFO(kind);
    const auto step = v3_step(kind, some_ep_comm(), 20, 4096);  // 32 micro-batches per replica
    const auto pg = step.pipeline_graph();
    const auto tl = core::evaluate_analytically(pg.graph, [](const core::Flow& f) { return f.bytes / 50e9; });
    const auto b = step.breakdown(pg, tl);
    // Each row from the model's own step costs, summed over the rank's schedule: not from the timeline.
    double forward = 0, backward = 0, weight = 0, overlapped = 0;
    for (const auto& s : step.schedule().steps[static_cast<std::size_t>(b.rank)]) {
      const double t = step.step_seconds(s);
      if (s.chunks.size() == 2)
        overlapped += t;
      else if (s.chunks[0].pass == Pass::kForward)
        forward += t;
      else if (s.chunks[0].pass == Pass::kWeight)
        weight += t;
      else
        backward += t;
    }
    CHECK(b.forward_s == Approx(forward));
    CHECK(b.backward_s == Approx(backward));
    CHECK(b.weight_s == Approx(weight));
    CHECK(b.overlapped_s == Approx(overlapped));
    if (std::string(kind) != "dualpipe") CHECK(overlapped == 0);
    // The bubble is the idle time of the most idle rank: no rank idles longer.
    for (std::size_t r = 0; r < pg.step_tasks.size(); ++r) {
      double busy = 0;
      for (const auto id : pg.step_tasks[r]) busy += tl.span(id).end_s - tl.span(id).start_s;
      CHECK(tl.makespan_s() - busy <= b.bubble_s * (1 + 1e-12));
    }
    CHECK(b.bubble_s > 0);
  }
}

TEST_CASE("DualPipe beats 1F1B and ZB1P on the V3 step", "[training]") {
  auto makespan = [](const TrainingStep& s) {
    const auto pg = s.pipeline_graph();
    return core::evaluate_analytically(pg.graph, [](const core::Flow& f) { return f.bytes / 50e9; }).makespan_s();
  };
  const double dual = makespan(v3_step("dualpipe", some_ep_comm(), 20));
  CHECK(dual < makespan(v3_step("zb1p", some_ep_comm(), 20)));
  CHECK(makespan(v3_step("zb1p", some_ep_comm(), 20)) < makespan(v3_step("1f1b", some_ep_comm(), 20)));
}

namespace {

// One EP group of 16 GPUs (2 nodes) on an MPFT of its own, 64 tokens routed per GPU.
EpCommSetup ep16_on_mpft() {
  EpCommSetup s;
  s.model = &v3();
  s.ep = 16;
  s.simulated_tokens_per_gpu = 64;
  s.fabric.kind = net::FabricKind::kMultiPlane;
  return s;
}

}  // namespace

TEST_CASE("EP all-to-all: the analytical bound equals the flow simulation on an MPFT", "[training]") {
  EpCommSetup s = ep16_on_mpft();
  s.flow = true;
  const auto flow = expert_parallel_comm(s);
  s.flow = false;
  const auto bound = expert_parallel_comm(s);
  CHECK(flow.dispatch_forward_s == Approx(bound.dispatch_forward_s).epsilon(0.02));
  CHECK(flow.combine_forward_s == Approx(bound.combine_forward_s).epsilon(0.02));
  CHECK(flow.expert_imbalance >= 1.0);
}

TEST_CASE("EP all-to-all: the backward retraces the forward, combine's gradient in the dispatch's precision",
          "[training]") {
  EpCommSetup s = ep16_on_mpft();
  for (const bool fp8 : {true, false}) {
    s.fp8_dispatch = fp8;
    const auto traffic = expert_parallel_traffic(s);
    const auto t = expert_parallel_comm(s, traffic);
    CHECK(t.combine_backward_s == t.dispatch_forward_s);
    CHECK(t.dispatch_backward_s == t.combine_forward_s);
    // FP8 tokens and gradients out, BF16 back: the dispatch's bytes per token are 7168 + 224 or 2 x 7168.
    CHECK(t.combine_forward_s / t.dispatch_forward_s ==
          Approx(fp8 ? 2 * 7168 / (7168 + 7168 / 128.0 * 4) : 1.0).epsilon(0.02));
    for (int local : {0, 5}) {
      auto bytes = [&](EpOp op) {
        const auto f = ep_op_flows(traffic, 0, local, op, false);
        double sum = 0;
        for (const auto* stage : {&f.ib, &f.nvlink})
          for (const auto& flow : *stage) sum += flow.bytes;
        return sum;
      };
      CHECK(bytes(EpOp::kCombineBackward) == bytes(EpOp::kDispatchForward));
      CHECK(bytes(EpOp::kDispatchBackward) == bytes(EpOp::kCombineForward));
    }
  }
}

TEST_CASE("EP all-to-all on the whole fabric: groups contend only where they share links", "[training]") {
  EpCommSetup s;
  s.model = &v3();
  s.ep = 16;  // 2 nodes a group
  s.simulated_tokens_per_gpu = 64;
  s.fabric.kind = net::FabricKind::kMultiPlane;
  s.fabric.nodes = 8;                        // 4 groups
  s.fabric.radix = 8;                        // 4 nodes a leaf: a group's two nodes under one leaf, or across two
  const auto one = expert_parallel_comm(s);  // one group on a fabric of its own
  // Groups of consecutive nodes stay under their leaves: nothing is shared, the slowest of the
  // four routings sets the time, and the first group's routing is the single group's.
  for (int g = 0; g < 4; ++g) {
    s.groups.emplace_back();
    for (int r = 0; r < 16; ++r) s.groups.back().push_back(g * 16 + r);
  }
  const auto apart = expert_parallel_comm(s);
  CHECK(apart.groups_simulated == 4);
  CHECK(apart.dispatch_forward_s >= one.dispatch_forward_s * (1 - 1e-6));
  CHECK(apart.dispatch_forward_s <= one.dispatch_forward_s * 1.2);
  s.groups.resize(1);
  CHECK(expert_parallel_comm(s).dispatch_forward_s == Approx(one.dispatch_forward_s).epsilon(1e-3));
  // Groups of nodes 0 and 4, 1 and 5, ...: every group crosses the spines, which two leaves of
  // 4 NICs per plane reach through 4 spines; d-mod-k takes node n's traffic down spine n mod 4.
  s.groups.clear();
  for (int g = 0; g < 4; ++g) {
    s.groups.emplace_back();
    for (int node : {g, g + 4})
      for (int r = 0; r < 8; ++r) s.groups.back().push_back(node * 8 + r);
  }
  const auto across = expert_parallel_comm(s);
  CHECK(across.dispatch_forward_s >= apart.dispatch_forward_s * (1 - 1e-3));
  // Halve the leaf-spine links (2:1 oversubscription): groups across leaves now contend, on
  // IB's share of the time (NVLink forwarding is the rest).
  s.fabric.switch_link_Bps /= 2;
  CHECK(expert_parallel_comm(s).dispatch_forward_s > 1.1 * across.dispatch_forward_s);
  s.flow = false;  // analytically there is no whole fabric: one group
  s.fabric.nodes = 2;
  CHECK(expert_parallel_comm(s).groups_simulated == 1);
}

TEST_CASE("ZeRO-1 synchronisation: the ring closed form equals the flow simulation", "[training]") {
  TrainingParallelism par;
  par.gpus = 64;  // 8 nodes: 4 stages of 2 nodes, EP 8
  par.pp = 4;
  par.dp = 16;
  par.ep = 8;
  par.order = {"tp", "cp", "ep", "dp", "pp"};
  DataParallelSetup s{{1e9, 4e8}, par, OptimizerSetup{}, net::FabricSpec{}, true};
  s.fabric.kind = net::FabricKind::kMultiRail;
  const auto flow = data_parallel_times(s, h800_roofline());
  s.flow = false;
  const auto closed = data_parallel_times(s, h800_roofline());
  CHECK(flow.reduce_scatter_s == Approx(closed.reduce_scatter_s).epsilon(0.02));
  CHECK(flow.all_gather_s == Approx(closed.all_gather_s).epsilon(0.02));
  CHECK(flow.all_gather_s == Approx(flow.reduce_scatter_s / 2).epsilon(0.02));  // BF16 weights, FP32 gradients
  // 4 GB of gradients over 8 GPUs of NVLink (7/8 at 160 GB/s), a 2-node ring, and 1.6 GB of experts on 2 nodes.
  CHECK(closed.reduce_scatter_s == Approx(7.0 / 8 * 4e9 / 160e9 + 0.5 * 0.5e9 / 50e9 + 0.5 * 1.6e9 / 50e9));
}

TEST_CASE("every stage holds a layer however many stages", "[training]") {
  for (int stages : {2, 8, 16, 30, 32, 48, 61}) {
    const auto layout = balanced_stage_layout(v3(), stages, true, 4096, "/pp");
    INFO(stages << " stages");
    CHECK(std::accumulate(layout.layers.begin(), layout.layers.end(), 0) == 61);
    CHECK(*std::min_element(layout.layers.begin(), layout.layers.end()) >= 1);
  }
  CHECK(balanced_partition({1, 1, 10}, 3) == std::vector<int>{1, 1, 1});
}

TEST_CASE("skewed routing without balancing loads the busiest expert GPU far past the mean", "[training]") {
  EpCommSetup s;
  s.model = &v3();
  s.ep = 64;
  s.simulated_tokens_per_gpu = 64;
  s.flow = false;
  const double uniform = expert_parallel_comm(s).expert_imbalance;
  s.affinity = {AffinitySkew::kZipf, 1.0};
  const auto skewed = expert_parallel_comm(s);
  CHECK(skewed.expert_imbalance > 2 * uniform);
}

TEST_CASE("a calibration replaces each op by its measured time, scaled by the model", "[training][calibrate]") {
  TrainingParallelism par;
  TrainingBatch batch;
  const auto layout = balanced_stage_layout(v3(), par.pp, true, 4096, "/pp");
  const TrainingStep model(v3(), h800_roofline(true), par, batch, layout, some_ep_comm(), 132, 20);
  // An MoE layer of a middle stage, as the model times its ops.
  const auto& layer = model.stages()[8].layers.back();
  const double attn_f = layer.forward.attention_s, mlp_w = layer.backward.mlp_weight_s;
  OpCalibration cal;
  cal.micro_batch_tokens = batch.micro_batch_tokens();
  cal.communication_sms = 20;
  cal.op_s = {{"attn(F)", 2 * attn_f},
              {"mlp(F)", layer.forward.mlp_s},
              {"attn(B)", layer.backward.attention_input_s},
              {"attn(W)", layer.backward.attention_weight_s},
              {"mlp(B)", layer.backward.mlp_input_s},
              {"mlp(W)", 3 * mlp_w}};
  // Same shape: the measured times themselves.
  const TrainingStep same(v3(), h800_roofline(true), par, batch, layout, some_ep_comm(), 132, 20, cal);
  const auto& c = same.stages()[8].layers.back();
  CHECK(c.forward.attention_s == Approx(2 * attn_f));
  CHECK(c.backward.mlp_weight_s == Approx(3 * mlp_w));
  CHECK(c.forward.mlp_s == Approx(layer.forward.mlp_s));
  // The dense layers keep the model's FFN but take the measured attention's factor, against the
  // profiled MoE layer's attention (which holds the router) as the model times it.
  const auto& dense = same.stages()[0].layers.front();
  const auto& dense_model = model.stages()[0].layers.front();
  CHECK(dense.forward.mlp_s == Approx(dense_model.forward.mlp_s));
  CHECK(dense_model.forward.attention_s < attn_f);
  CHECK(dense.forward.attention_s == Approx(2 * dense_model.forward.attention_s));
  // Profiled at half the micro-batch: the measured factor carries over to the model's time here.
  OpCalibration half = cal;
  half.micro_batch_tokens = batch.micro_batch_tokens() / 2;
  TrainingBatch small = batch;
  small.sequence_tokens /= 2;
  const TrainingStep at_half(v3(), h800_roofline(true), par, small, layout, some_ep_comm(), 132, 20);
  const double model_half = at_half.stages()[8].layers.back().backward.mlp_weight_s;
  const TrainingStep scaled(v3(), h800_roofline(true), par, batch, layout, some_ep_comm(), 132, 20, half);
  CHECK(scaled.stages()[8].layers.back().backward.mlp_weight_s == Approx(mlp_w * 3 * mlp_w / model_half));

  // The all-to-alls too: their measured spans, in proportion to the tokens; none in a dense layer.
  OpCalibration all = half;
  all.communication = true;
  all.op_s.insert({{"dispatch(F)", 7e-3}, {"combine(F)", 9e-3}, {"combine(B)", 6e-3}, {"dispatch(B)", 8e-3}});
  const TrainingStep measured(v3(), h800_roofline(true), par, batch, layout, some_ep_comm(), 132, 20, all);
  const auto& moe = measured.stages()[8].layers.back();
  CHECK(moe.forward.dispatch_s == Approx(14e-3));
  CHECK(moe.forward.combine_s == Approx(18e-3));
  CHECK(moe.backward.combine_s == Approx(12e-3));
  CHECK(moe.backward.combine_cast_s == 0);  // inside the measured op
  CHECK(moe.backward.dispatch_s == Approx(16e-3));
  CHECK(measured.stages()[0].layers.front().forward.dispatch_s == 0);
  CHECK(scaled.stages()[8].layers.back().forward.dispatch_s ==
        some_ep_comm().dispatch_forward_s);  // compute only: the model's
}

TEST_CASE("a step's ops carry DeepSeek's names and fill the step", "[training]") {
  const auto step = v3_step("dualpipe", some_ep_comm(), 20);
  const Step pair{{{Pass::kForward, 0, 0, 0, 8}, {Pass::kBackward, 1, 0, 0, 8}}};
  const auto ops = step.step_ops(pair);
  std::set<std::string> names;
  double end = 0, compute_busy = 0;
  for (const auto& op : ops) {
    names.insert(op.name);
    end = std::max(end, op.end_s);
    if (op.stream != "communication") compute_busy += op.end_s - op.start_s;
  }
  CHECK(names == std::set<std::string>{"attn(F)", "mlp(F)", "dispatch(F)", "combine(F)", "attn(B)", "attn(W)", "mlp(B)",
                                       "mlp(W)", "dispatch(B)", "combine(B)"});
  CHECK(end == Approx(step.step_seconds(pair)));
  // Compute and weight-gradient ops share the GPU's compute stream: they never overlap, so
  // their busy time is at most the step.
  CHECK(compute_busy <= end * (1 + 1e-12));
  // A forward chunk alone: its layers' four ops each, end to end.
  const Step alone{{{Pass::kForward, 0, 0, 0, 8}}};
  const auto f = step.step_ops(alone);
  CHECK(f.size() == 4 * step.stages()[8].layers.size());
  CHECK(f.back().end_s == Approx(step.step_seconds(alone)));
}

namespace {

// Every compute op of every layer lists the kernels the model times inside it, and they add up
// to the op; communication ops list none.
void check_kernels_add_up(const TrainingStep& step) {
  for (const auto& stage : step.stages())
    for (const auto& l : stage.layers) {
      const std::map<std::string, double> ops = {
          {"attn(F)", l.forward.attention_s},        {"mlp(F)", l.forward.mlp_s},
          {"attn(B)", l.backward.attention_input_s}, {"attn(W)", l.backward.attention_weight_s},
          {"mlp(B)", l.backward.mlp_input_s},        {"mlp(W)", l.backward.mlp_weight_s}};
      for (const auto& [name, seconds] : ops) {
        INFO(name);
        REQUIRE(l.kernels.count(name) == 1);
        double sum = 0;
        for (const auto& k : l.kernels.at(name)) {
          CHECK(k.seconds > 0);
          sum += k.seconds;
        }
        CHECK(sum == Approx(seconds).epsilon(1e-12));
      }
      CHECK(l.kernels.size() == ops.size());
    }
}

}  // namespace

TEST_CASE("each op's kernels add up to it: kernel model, roofline, full recompute, TP, calibrated", "[training]") {
  SECTION("DeepSeek-V3, FP8 kernel model") {
    check_kernels_add_up(v3_step("dualpipe", some_ep_comm(), 20, 15360, true, true));
  }
  SECTION("DeepSeek-V3 in BF16") { check_kernels_add_up(v3_step("dualpipe", some_ep_comm(), 20, 15360, false, true)); }
  SECTION("full recomputation, TP 2 with CP 2") {
    TrainingParallelism par;
    par.tp = 2;
    par.cp = 2;
    par.dp = 32;
    par.ep = 32;
    par.recompute = Recompute::kFull;
    const TrainingStep step(v3(), h800_roofline(), par, TrainingBatch{},
                            balanced_stage_layout(v3(), par.pp, true, 4096, "/pp"), some_ep_comm(), 132, 20,
                            std::nullopt, {}, true);
    check_kernels_add_up(step);
    const auto& attn_b = step.stages()[8].layers.back().kernels.at("attn(B)");
    CHECK(attn_b.front().name.rfind("recompute: ", 0) == 0);
  }
  SECTION("a GPU without a kernel model (roofline)") {
    TrainingParallelism par;
    const TrainingStep step(v3(), Roofline(hw::gpu_by_name("A100"), KernelEfficiency{}, false), par, TrainingBatch{},
                            balanced_stage_layout(v3(), par.pp, true, 4096, "/pp"), some_ep_comm(), 108, 20,
                            std::nullopt, {}, true);
    check_kernels_add_up(step);
  }
  SECTION("calibrated: the model's split of each measured op") {
    TrainingParallelism par;
    OpCalibration cal;
    cal.micro_batch_tokens = 4096;
    cal.communication_sms = 20;
    for (const auto& op : OpCalibration::op_names()) cal.op_s[op] = 5e-3;
    const TrainingStep step(v3(), h800_roofline(), par, TrainingBatch{},
                            balanced_stage_layout(v3(), par.pp, true, 4096, "/pp"), some_ep_comm(), 132, 20, cal, {},
                            true);
    check_kernels_add_up(step);
  }
  // The ops of a step point at them; a step that keeps none lists none, with the same times.
  const auto step = v3_step("dualpipe", some_ep_comm(), 20, 15360, true, true);
  const auto plain = v3_step("dualpipe", some_ep_comm(), 20);
  const Step pair{{{Pass::kForward, 0, 0, 0, 8}, {Pass::kBackward, 1, 0, 0, 8}}};
  for (const auto& op : step.step_ops(pair)) {
    INFO(op.name);
    CHECK((op.kernels != nullptr) == (op.stream != "communication"));
  }
  for (const auto& op : plain.step_ops(pair)) CHECK(op.kernels == nullptr);
  CHECK(plain.step_seconds(pair) == step.step_seconds(pair));
  CHECK(plain.stages()[8].layers.back().kernels.empty());
}

TEST_CASE("each kernel a step lists says what it does: GEMM, attention, memory-bound, communication", "[training]") {
  TrainingParallelism par;
  const TrainingStep step(v3(), h800_roofline(), par, TrainingBatch{},
                          balanced_stage_layout(v3(), par.pp, true, 4096, "/pp"), some_ep_comm(), 132, 20, std::nullopt,
                          {}, true);
  std::map<KernelClass, int> seen;
  for (const auto& [op, list] : step.stages()[8].layers.back().kernels)
    for (const auto& k : list) {
      INFO(op << ": " << k.name);
      ++seen[k.kind];
      const bool gemm = k.name.find("GEMM") != std::string::npos || k.name.find("up-projections") != std::string::npos;
      const bool exposed = k.name.rfind("TP ", 0) == 0 || k.name.rfind("CP ", 0) == 0;
      CHECK((k.kind == KernelClass::kGemm) == gemm);
      CHECK((k.kind == KernelClass::kAttention) == (k.name.find("FlashAttention") != std::string::npos));
      CHECK((k.kind == KernelClass::kCommunication) == exposed);
    }
  CHECK(seen[KernelClass::kGemm] > 10);
  CHECK(seen[KernelClass::kAttention] == 2);
  CHECK(seen[KernelClass::kOther] > 20);
}

TEST_CASE("MLA's projections as DeepSeek's profile runs them: q_a and kv_a two GEMMs, whole on every TP rank",
          "[training]") {
  const auto w = attention_weights(v3());
  REQUIRE(w.size() == 5);  // q_a, kv_a, q_b, kv_b, o
  CHECK(w[0].out == 1536);
  CHECK(w[1].out == 512 + 64);
  CHECK(w[0].in == 7168);
  CHECK(w[1].in == 7168);
  REQUIRE(attention_replicated_weights(v3()) == 2);
  const auto shard = tensor_parallel_shard(w, 4, attention_replicated_weights(v3()));
  CHECK(shard[0].out == w[0].out);
  CHECK(shard[1].out == w[1].out);
  CHECK(shard[2].out == w[2].out / 4);  // q_b and kv_b by heads
  CHECK(shard[3].out == w[3].out / 4);
  CHECK(shard[4].in == w[4].in / 4);  // o along its input
  CHECK(attention_replicated_weights(model_by_name("llama-3.1-405b")) == 0);
}
