#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>

#include "core/fast_random.hpp"
#include "core/input_error.hpp"
#include "hw/gpu.hpp"
#include "serving/autoscaling.hpp"
#include "requests/capped_source.hpp"
#include "requests/closed_loop_source.hpp"
#include "requests/generated_source.hpp"
#include "serving/engine_front_end.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/least_loaded.hpp"
#include "requests/listed_source.hpp"
#include "serving/prefix_cache.hpp"
#include "serving/percentile_sketch.hpp"
#include "requests/request_generator.hpp"
#include "serving/request_series.hpp"
#include "serving/request_trace.hpp"
#include "serving/serving_metrics.hpp"
#include "serving/serving_simulation.hpp"
#include "serving/step_cost.hpp"
#include "workload/moe/expert_placement.hpp"

using namespace serving;

namespace {

const workload::Model& v3() { return workload::model_by_name("deepseek-v3"); }
const hw::Gpu& h800() { return hw::gpu_by_name("H800"); }
workload::Roofline roofline() { return workload::Roofline(h800(), workload::KernelEfficiency{}, true); }
workload::ServingLinks ib() { return workload::ServingLinks{160e9, 50e9, 3.33e-6, 3.7e-6, 64e9}; }

// DeepSeek's decode unit: 144 GPUs, DP attention, EP144 with 32 redundant experts.
workload::ServingDeployment decode_unit() {
  workload::ServingDeployment d;
  d.gpus = 144;
  d.attention_tp = 1;
  d.routed_gpus = 144;
  d.redundant_experts = 32;
  d.dedicated_shared = false;
  return d;
}

// One request: when it arrives and how long its prompt and answer are.
Request a_request(double arrival_s, int input_tokens, int output_tokens) {
  Request q;
  q.arrival_s = arrival_s;
  q.input_tokens = input_tokens;
  q.output_tokens = output_tokens;
  return q;
}

UnitConfig unit_config(const workload::ServingDeployment& d, StepCost& cost, int max_running, int max_batch_tokens) {
  UnitConfig u;
  u.deployment = d;
  u.max_running = max_running;
  u.max_batch_tokens = max_batch_tokens;
  MemoryInput in;
  in.max_step_tokens = max_batch_tokens;
  in.runtime_reserve_bytes = 8e9;
  u.memory = plan_memory(v3(), h800(), d, in);
  u.cost = &cost;
  return u;
}

// DeepSeek's prefill unit: 32 GPUs, EP32, the all-to-all forwarded.
workload::ServingDeployment prefill_unit() {
  workload::ServingDeployment p = decode_unit();
  p.gpus = p.routed_gpus = 32;
  p.direct_comm = false;
  return p;
}

// A colocated unit of 32 GPUs: the decode unit cut to DP32 and EP32.
workload::ServingDeployment colocated_unit() {
  workload::ServingDeployment d = decode_unit();
  d.gpus = d.routed_gpus = 32;
  return d;
}

// One colocated unit of those on this step cost, 4,096 new tokens a DP rank and step.
ServingConfig colocated(StepCost& cost, int max_running) {
  ServingConfig c;
  c.disaggregated = false;
  c.decode = unit_config(colocated_unit(), cost, max_running, 4096);
  return c;
}

// One prefill and one decode unit of those, on these step costs.
ServingConfig prefill_and_decode(StepCost& prefill_cost, StepCost& decode_cost) {
  ServingConfig c;
  c.prefill = unit_config(prefill_unit(), prefill_cost, 16, 16384);
  c.decode = unit_config(decode_unit(), decode_cost, 128, 256);
  return c;
}

}  // namespace

TEST_CASE("request generator: Poisson arrivals at the rate, same seed same stream", "[serving]") {
  GeneratedWorkload w;
  w.arrivals.rate_per_s = 50;
  w.duration_s = 200;
  w.input = {LengthKind::kLognormal, 2000, 1.0, 1, 100000};
  w.output = {LengthKind::kFixed, 300, 0, 300, 300};
  const auto a = generate_requests(w), b = generate_requests(w);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) REQUIRE((a[i].arrival_s == b[i].arrival_s && a[i].input_tokens == b[i].input_tokens));
  CHECK(double(a.size()) == Approx(50 * 200).epsilon(0.03));
  double input = 0;
  for (const auto& r : a) {
    input += r.input_tokens;
    CHECK(r.output_tokens == 300);
  }
  CHECK(input / double(a.size()) == Approx(2000).epsilon(0.05));
}

TEST_CASE("request generator: gamma burstiness below 1 spreads the gaps, above 1 evens them", "[serving]") {
  auto gap_cv = [](double burstiness) {
    GeneratedWorkload w;
    w.arrivals.rate_per_s = 100;
    w.arrivals.burstiness = burstiness;
    w.duration_s = 300;
    const auto r = generate_requests(w);
    std::vector<double> gaps;
    for (std::size_t i = 1; i < r.size(); ++i) gaps.push_back(r[i].arrival_s - r[i - 1].arrival_s);
    const double mean = std::accumulate(gaps.begin(), gaps.end(), 0.0) / double(gaps.size());
    double var = 0;
    for (double g : gaps) var += (g - mean) * (g - mean);
    CHECK(mean == Approx(0.01).epsilon(0.05));
    return std::sqrt(var / double(gaps.size())) / mean;
  };
  // The gaps of a gamma process with shape k have a CV of 1 / sqrt(k).
  CHECK(gap_cv(1) == Approx(1).epsilon(0.05));
  CHECK(gap_cv(0.25) == Approx(2).epsilon(0.08));
  CHECK(gap_cv(4) == Approx(0.5).epsilon(0.05));
}

TEST_CASE("traces: Azure CSV and Mooncake JSON Lines as published; bad lines named", "[serving]") {
  const auto azure = parse_trace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,374,44\n2023-11-16 18:15:50.9951690,396,109\n", TraceFormat::kAzureCsv,
      "azure.csv");
  REQUIRE(azure.size() == 2);
  CHECK(azure[0].arrival_s == 0);
  CHECK(azure[1].arrival_s == Approx(4.314579));
  CHECK(azure[1].input_tokens == 396);
  CHECK(azure[1].output_tokens == 109);
  const auto mooncake = parse_trace(
      "{\"timestamp\": 27482, \"input_length\": 6955, \"output_length\": 52, \"hash_ids\": [46, 47, 48]}\n"
      "{\"timestamp\": 30535, \"input_length\": 1000, \"output_length\": 12, \"hash_ids\": [46, 49]}\n",
      TraceFormat::kMooncakeJsonl, "mooncake.jsonl");
  REQUIRE(mooncake.size() == 2);
  CHECK(mooncake[1].arrival_s == Approx(3.053));
  CHECK(mooncake[0].block_hashes == std::vector<std::uint64_t>{46, 47, 48});
  CHECK_THROWS_WITH(parse_trace("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,abc,4\n", TraceFormat::kAzureCsv, "a.csv"),
                    Catch::Contains("a.csv: line 2: ") && Catch::Contains("must be numbers"));
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 1, \"input_length\": 0, \"output_length\": 3}\n", TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::Contains("m.jsonl: line 1: /input_length: 0 is not allowed"));
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 1, \n", TraceFormat::kMooncakeJsonl, "m.jsonl"), Catch::Contains("m.jsonl: line 1: malformed JSON"));
  // Found by fuzzing: a number past a double's range, and deep nesting, are malformed lines too.
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 21e308, \"input_length\": 3, \"output_length\": 3}\n", TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::Contains("m.jsonl: line 1: malformed JSON: number overflow"));
  CHECK_THROWS_WITH(parse_trace(std::string(100, '[') + std::string(100, ']') + "\n", TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::Contains("m.jsonl: line 1: JSON nested deeper than 64 levels is not allowed"));
  CHECK_THROWS_WITH(parse_trace("time,in,out\n", TraceFormat::kAzureCsv, "b.csv"), Catch::Contains("b.csv: line 1: ") && Catch::Contains("expected the header"));
}

TEST_CASE("traces: read up to the window a run uses, at most so many requests, lines of bounded length", "[serving]") {
  const std::string lines =
      "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n"
      "{\"timestamp\": 500, \"input_length\": 10, \"output_length\": 2}\n"
      "{\"timestamp\": 1500, \"input_length\": 10, \"output_length\": 2}\n"
      "not JSON: past the window, never read\n";
  TraceWindow window;
  window.until_s = 1;
  CHECK(parse_trace(lines, TraceFormat::kMooncakeJsonl, "m.jsonl", window).size() == 2);
  window.max_requests = 1;
  CHECK_THROWS_WITH(parse_trace(lines, TraceFormat::kMooncakeJsonl, "m.jsonl", window),
                    Catch::StartsWith("m.jsonl: line 2: more than 1 requests within the 1 s a run reads"));
  TraceWindow narrow;
  narrow.max_line_bytes = 16;
  CHECK_THROWS_WITH(parse_trace(lines, TraceFormat::kMooncakeJsonl, "m.jsonl", narrow),
                    Catch::Equals("m.jsonl: line 1: a line longer than 16 bytes is not allowed"));
  // Every line is checked for time order, not only against the first.
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2}\n"
                                "{\"timestamp\": 900, \"input_length\": 10, \"output_length\": 2}\n"
                                "{\"timestamp\": 800, \"input_length\": 10, \"output_length\": 2}\n",
                                TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::StartsWith("m.jsonl: line 3: /timestamp: 800 is before the previous request's"));
}

TEST_CASE("traces: CSV quoting honoured; hex, impossible dates and extra fields refused", "[serving]") {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\n";
  auto azure = [&](const std::string& rows) { return parse_trace(header + rows, TraceFormat::kAzureCsv, "a.csv"); };
  // A quoted field is one field: "1,000" is not a count of 1 with a stray field.
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:46,\"1,000\",4\n"), Catch::Contains("a.csv: line 2: ContextTokens '1,000'"));
  const auto quoted = azure("\"2023-11-16 18:15:46\",\"374\",\"44\"\n");
  REQUIRE(quoted.size() == 1);
  CHECK(quoted[0].input_tokens == 374);
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:46,0x10,4\n"), Catch::Contains("a.csv: line 2: ContextTokens '0x10'"));
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:46,1e3,4\n"), Catch::Contains("a.csv: line 2: ContextTokens '1e3'"));
  CHECK_THROWS_WITH(azure("2023-02-31 18:15:46,10,4\n"), Catch::Contains("a.csv: line 2: TIMESTAMP '2023-02-31 18:15:46' is not allowed"));
  CHECK(azure("2024-02-29 18:15:46,10,4\n").size() == 1);  // a leap day
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:0x1p3,10,4\n"), Catch::Contains("TIMESTAMP '2023-11-16 18:15:0x1p3' is not allowed"));
  CHECK_THROWS_WITH(azure("2023-11-16 18:15:46,10,4,extra\n"), Catch::Contains("a.csv: line 2: ") && Catch::Contains("has 4 fields; expected the header's 3"));
  CHECK_THROWS_WITH(parse_trace("{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 2, \"input_lenght\": 5}\n", TraceFormat::kMooncakeJsonl, "m.jsonl"),
                    Catch::Contains("m.jsonl: line 1: /input_lenght: unknown"));
}

TEST_CASE("request generator: a draw past its bound stops there", "[serving]") {
  GeneratedWorkload w;
  w.arrivals.rate_per_s = 1000;
  w.duration_s = 10;
  CHECK_THROWS_AS(generate_requests(w, 100), TooManyRequests);
}

TEST_CASE("prefix cache: the longest run of leading blocks hits; LRU evicts", "[serving]") {
  PrefixCache cache(4);
  CHECK(cache.lookup_and_insert({1, 2, 3}) == 0);
  CHECK(cache.lookup_and_insert({1, 2, 9}) == 2);
  CHECK(cache.lookup_and_insert({2, 1}) == 2);
  CHECK(cache.lookup_and_insert({7, 1}) == 0);  // a shared block after a miss is not a prefix
  CHECK(cache.size() == 4);
  CHECK(cache.lookup_and_insert({3}) == 0);  // 3 was the least recently used
}

TEST_CASE("EPLB placement: replicas of the heaviest experts, every GPU the same count, load evened", "[serving]") {
  std::vector<double> load(256, 1.0);
  for (int e = 0; e < 16; ++e) load[static_cast<std::size_t>(e)] = 4.0;  // 16 hot experts
  const auto p = workload::balance_experts(load, 32, 144);
  CHECK(p.slots_per_gpu == 2);
  int slots = 0;
  for (int e = 0; e < 256; ++e) slots += p.replicas(e);
  CHECK(slots == 288);
  CHECK(p.replicas(0) == 3);  // a hot expert's load 4 split thrice (4/3) beats any other's single replica
  CHECK(p.replicas(200) == 1);
  const double total = std::accumulate(load.begin(), load.end(), 0.0);
  const double busiest = *std::max_element(p.gpu_load.begin(), p.gpu_load.end());
  CHECK(busiest / (total / 144) < 1.35);
  // Without replicas a GPU holding a hot expert carries 5 against a mean of 2.2.
  std::vector<int> on_gpu(144, 0);
  for (const auto& s : p.expert_slots)
    for (int slot : s) ++on_gpu[static_cast<std::size_t>(slot / p.slots_per_gpu)];
  for (int n : on_gpu) CHECK(n == 2);
}

TEST_CASE("EPLB hierarchical placement: whole groups per node, nodes evened, replicas stay on their group's node", "[serving]") {
  std::vector<double> load(256, 1.0);
  for (int e = 0; e < 32; ++e) load[static_cast<std::size_t>(e)] = 3.0;  // group 0 hot
  CHECK(workload::eplb_hierarchical(8, 32, 8));  // DeepSeek's prefill unit: EP32 over 4 nodes
  CHECK_FALSE(workload::eplb_hierarchical(8, 144, 8));  // its decode unit: 18 nodes do not divide 8 groups
  const auto p = workload::balance_experts_hierarchical(load, 32, 32, 8, 4);
  CHECK(p.slots_per_gpu == 9);
  std::vector<int> on_gpu(32, 0);
  std::vector<double> node_load(4, 0.0);
  for (int e = 0; e < 256; ++e) {
    const int node = p.expert_slots[static_cast<std::size_t>(e)][0] / (9 * 8);
    for (int slot : p.expert_slots[static_cast<std::size_t>(e)]) {
      ++on_gpu[static_cast<std::size_t>(slot / 9)];
      CHECK(slot / (9 * 8) == node);
    }
    // The experts of a group share a node.
    CHECK(node == p.expert_slots[static_cast<std::size_t>(e / 32 * 32)][0] / (9 * 8));
    node_load[static_cast<std::size_t>(node)] += load[static_cast<std::size_t>(e)];
  }
  for (int n : on_gpu) CHECK(n == 9);
  // The hot group (96) shares its node with another (32): 128 against 64 for the others' two
  // groups, the best that whole groups allow.
  CHECK(*std::max_element(node_load.begin(), node_load.end()) == 128);
  CHECK(p.replicas(0) > 1);
  CHECK(p.gpu_load.size() == 32);
}

TEST_CASE("memory: DeepSeek-V3 on a decode GPU of EP144, counted from the shapes", "[serving]") {
  MemoryInput in;
  in.max_step_tokens = 256;
  in.runtime_reserve_bytes = 8e9;
  const auto p = plan_memory(v3(), h800(), decode_unit(), in);
  // MLA's latent: 576 BF16 elements per token and layer, 61 layers.
  CHECK(p.kv_bytes_per_token == Approx(576.0 * 2 * 61));
  CHECK(p.weight_bytes > 20e9);
  CHECK(p.weight_bytes < 30e9);
  CHECK(p.kv_bytes == Approx(p.hbm_bytes - p.weight_bytes - p.activation_bytes - p.reserve_bytes));
  // One GPU cannot hold the whole model: no room for KV, and the plan says so.
  workload::ServingDeployment one = decode_unit();
  one.gpus = one.routed_gpus = 8;
  one.redundant_experts = 0;
  CHECK_FALSE(plan_memory(v3(), h800(), one, in).fits());
}

TEST_CASE("memory: linear weights take their precision's bytes (NVFP4: half a byte and an FP8 scale per 16)", "[serving]") {
  MemoryInput in;
  in.max_step_tokens = 256;
  const auto with = [&](hw::GemmPrecision weights) {
    in.weights = weights;
    return plan_memory(v3(), h800(), decode_unit(), in).weight_bytes;
  };
  const double fp8 = with(hw::GemmPrecision::kFp8), bf16 = with(hw::GemmPrecision::kBf16), fp4 = with(hw::GemmPrecision::kFp4);
  // The parts kept in BF16 (norms, gate, embedding, LM head) are the same in each: the linear
  // weights are bf16 - fp8 bytes at FP8, and 0.5625 of those at FP4.
  const double linear_fp8 = bf16 - fp8;
  CHECK(fp8 - fp4 == Approx(linear_fp8 * (1 - 0.5625)));
  CHECK(fp4 < 0.7 * fp8);
}

TEST_CASE("step cost: a grid point equals the direct figure; nearby loads stay within 2% of theirs", "[serving]") {
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  for (double seqs : {1.0, 37.0, 93.0})
    for (double ctx : {517.0, 3000.0, 11111.0}) {
      StepLoad load;
      load.busiest.decode_sequences = seqs;
      load.busiest.decode_context_tokens = ctx;
      load.unit_tokens = static_cast<long long>(seqs * 144 * 0.9);
      const double kept = cost.seconds(load), direct = cost.direct_seconds(load);
      CHECK(kept == Approx(direct).epsilon(0.02));
    }
  StepLoad load;
  load.busiest.decode_sequences = 64;
  load.busiest.decode_context_tokens = 4096;
  load.unit_tokens = 64 * 144;
  const double a = cost.seconds(load);
  const long long computed = cost.computed();
  CHECK(cost.seconds(load) == a);
  CHECK(cost.computed() == computed);  // kept, not recomputed
  // More context, longer steps; an MTP step verifying two tokens costs more than a plain one.
  load.busiest.decode_context_tokens = 16384;
  CHECK(cost.seconds(load) > a);
  load.mtp_drafts = 1;
  CHECK(cost.seconds(load) > a);
}

TEST_CASE("step cost: fewer tokens' routing is the start of more tokens' (the cache takes it, the figure is the same)", "[serving]") {
  workload::ServingRequest q;
  q.busiest_group = workload::GroupLoad{20, 3000, 0, 0, 0};
  auto step = [&](long long tokens, workload::AllToAllCache* cache) {
    q.unit_tokens = tokens;
    return workload::serving_step(v3(), roofline(), decode_unit(), ib(), q, nullptr, cache).step_s;
  };
  workload::AllToAllCache warm;
  step(20000, &warm);
  for (long long tokens : {7LL, 2880LL, 19999LL}) {
    workload::AllToAllCache cold;
    CHECK(step(tokens, &warm) == step(tokens, &cold));
    CHECK(step(tokens, &warm) == step(tokens, nullptr));
  }
}

TEST_CASE("router index: the least loaded rank; ties go to the one chosen longest ago", "[serving]") {
  LeastLoaded index(5);
  std::vector<int> order;
  for (int i = 0; i < 7; ++i) order.push_back(index.take());
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4, 0, 1});
  index.set(3, -1);
  CHECK(index.take() == 3);
  CHECK(index.take() == 3);  // still the least loaded
  index.set(3, 5);
  index.set(2, 5);
  CHECK(index.take() == 4);  // 2 and 3 now loaded; 4 was chosen before 0 and 1
  CHECK(index.take() == 0);
  CHECK(index.load(2) == 5);
  LeastLoaded one(1);
  CHECK(one.take() == 0);
  CHECK(one.take() == 0);
}

TEST_CASE("router index: any run of loads and choices picks what a scan of every rank picks", "[serving]") {
  // (Changes come one or two at a time between choices, or in runs of dozens, as a unit's step
  // changes most of its ranks' loads.)
  const int sizes[] = {1, 2, 7, 64, 1296};
  for (int run = 0; run < 10; ++run) {
    const int ranks = sizes[run % 5];
    const double changes = run < 5 ? 0.6 : 0.97;
    LeastLoaded index(ranks);
    std::vector<double> load(static_cast<std::size_t>(ranks), 0.0);
    std::vector<long long> chosen(static_cast<std::size_t>(ranks));
    for (int i = 0; i < ranks; ++i) chosen[static_cast<std::size_t>(i)] = i - ranks;
    core::FastNormal random(static_cast<std::uint64_t>(1000 * run + ranks));
    long long clock = 0;
    for (int op = 0; op < 20000; ++op) {
      if (random.uniform() < changes) {  // a few load levels, some below zero, so that ties are common
        const int r = static_cast<int>(random.uniform() * ranks);
        load[static_cast<std::size_t>(r)] = std::floor(random.uniform() * 8) / 2 - 1;
        index.set(r, load[static_cast<std::size_t>(r)]);
        REQUIRE(index.load(r) == load[static_cast<std::size_t>(r)]);
        continue;
      }
      int best = 0;
      for (int r = 1; r < ranks; ++r) {
        const auto a = static_cast<std::size_t>(r), b = static_cast<std::size_t>(best);
        if (load[a] < load[b] || (load[a] == load[b] && chosen[a] < chosen[b])) best = r;
      }
      chosen[static_cast<std::size_t>(best)] = clock++;
      REQUIRE(index.take() == best);
      if (random.uniform() < 0.5) {  // as a router does: the chosen rank's load follows its choice
        load[static_cast<std::size_t>(best)] = std::floor(random.uniform() * 4);
        index.set(best, load[static_cast<std::size_t>(best)]);
      }
    }
  }
}

TEST_CASE("simulation: one request alone takes queue 0, prefill, transfer, and a step per token", "[serving]") {
  workload::ServingRequest base;
  workload::ServingDeployment p = decode_unit();
  p.gpus = p.routed_gpus = 32;
  p.direct_comm = false;
  p.redundant_experts = 32;
  StepCost prefill_cost(v3(), roofline(), p, ib(), base, nullptr), decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c;
  c.prefill = unit_config(p, prefill_cost, 16, 16384);
  c.decode = unit_config(decode_unit(), decode_cost, 128, 256);
  c.duration_s = 10;
  const Request q = a_request(1, 4000, 100);
  const auto r = simulate_serving({q}, c);
  const auto& rec = r.requests[0];
  REQUIRE(rec.finish_s > 0);
  CHECK(rec.prefill_start_s == 1);
  StepLoad prefill;
  prefill.busiest.prefill_sequences = 1;
  prefill.busiest.prefill_tokens = 4000;
  prefill.unit_tokens = 4000;
  prefill.prefill = true;
  CHECK(rec.prefill_end_s - 1 == Approx(prefill_cost.seconds(prefill)));
  const double transfer = 4000 * c.prefill.memory.kv_bytes_per_token / c.kv_transfer_Bps;
  CHECK(rec.transfer_end_s - rec.prefill_end_s == Approx(transfer));
  // 100 decode steps, the first delivering the first token.
  StepLoad step;
  step.busiest.decode_sequences = 1;
  step.busiest.decode_context_tokens = 4000;
  step.unit_tokens = 1;
  const double one = decode_cost.seconds(step);
  CHECK(rec.first_token_s - rec.transfer_end_s == Approx(one));
  CHECK((rec.finish_s - rec.first_token_s) / 99 == Approx(one).epsilon(0.02));
  CHECK(r.unfinished == 0);

  // MTP with two drafts, both always accepted: three tokens a step, each step verifying two.
  ServingConfig mtp = c;
  mtp.mtp_drafts = 2;
  mtp.mtp_acceptance = {1.0, 1.0};
  const auto fast_run = simulate_serving({q}, mtp);
  const auto& fast = fast_run.requests[0];
  StepLoad verify = step;
  verify.mtp_drafts = 2;
  verify.unit_tokens = 3;
  const double three = decode_cost.seconds(verify);
  CHECK(three > one);
  CHECK((fast.finish_s - fast.first_token_s) / 33 == Approx(three).epsilon(0.02));  // 100 tokens: 34 steps
  // A draft never accepted: one token a step, each step paying the verification.
  mtp.mtp_acceptance = {0.0, 1.0};
  const auto slow_run = simulate_serving({q}, mtp);
  CHECK((slow_run.requests[0].finish_s - slow_run.requests[0].first_token_s) / 99 == Approx(three).epsilon(0.02));

  // Either phase given unlimited capacity (serve-plan measures the other alone): without decode
  // units a request is done when its KV cache has left; without prefill units its prompt is
  // ready at once and decode runs as before.
  ServingConfig no_decode = c;
  no_decode.decode_units = 0;
  no_decode.decode_unbounded = true;
  const auto alone_run = simulate_serving({q}, no_decode);
  const auto& alone = alone_run.requests[0];
  CHECK(alone.prefill_end_s == rec.prefill_end_s);
  CHECK(alone.finish_s == Approx(rec.transfer_end_s));
  CHECK(alone.first_token_s == alone.finish_s);
  ServingConfig no_prefill = c;
  no_prefill.prefill_units = 0;
  no_prefill.prefill_unbounded = true;
  const auto quick_run = simulate_serving({q}, no_prefill);
  const auto& quick = quick_run.requests[0];
  CHECK(quick.prefill_end_s == 1);
  CHECK(quick.transfer_end_s - 1 == Approx(transfer));
  CHECK(quick.finish_s - quick.transfer_end_s == Approx(rec.finish_s - rec.transfer_end_s));
}

TEST_CASE("simulation: KV caches to one decode rank queue on its NICs", "[serving]") {
  workload::ServingRequest base;
  workload::ServingDeployment d = decode_unit();
  d.gpus = d.routed_gpus = 128;
  d.redundant_experts = 0;
  d.attention_tp = 128;  // one DP rank takes every request
  StepCost cost(v3(), roofline(), d, ib(), base, nullptr);
  ServingConfig c;
  c.decode = unit_config(d, cost, 128, 256);
  c.prefill = c.decode;
  c.prefill_units = 0;
  c.prefill_unbounded = true;
  c.duration_s = 10;
  c.kv_transfer_latency_s = 1e-5;
  const Request q = a_request(1, 3000, 10);
  const auto r = simulate_serving({q, q, q}, c);
  const double transfer = 1e-5 + 3000 * c.prefill.memory.kv_bytes_per_token / c.kv_transfer_Bps;
  CHECK(r.requests[0].transfer_end_s - 1 == Approx(transfer));
  CHECK(r.requests[1].transfer_end_s - r.requests[0].transfer_end_s == Approx(transfer));
  CHECK(r.requests[2].transfer_end_s - r.requests[1].transfer_end_s == Approx(transfer));
}

TEST_CASE("simulation: tokens are conserved, load raises latency, deterministic, KV pressure preempts", "[serving]") {
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  auto run = [&](double rate, int max_running, long long kv_tokens, Preemption preemption) {
    ServingConfig c = colocated(cost, max_running);
    if (kv_tokens > 0) c.decode.memory.kv_group_tokens = c.decode.memory.kv_tokens = kv_tokens;
    c.preemption = preemption;
    // Requests live about 12 s: the warm-up outlasts one, so the window sees the steady state.
    c.duration_s = 60;
    c.warmup_s = 20;
    GeneratedWorkload w;
    w.arrivals.rate_per_s = rate;
    w.duration_s = 60;
    w.input = {LengthKind::kUniform, 0, 0, 500, 3000};
    w.output = {LengthKind::kUniform, 0, 0, 50, 400};
    const auto requests = generate_requests(w);
    auto result = simulate_serving(requests, c);
    long long asked = 0, made = 0;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      asked += requests[i].output_tokens;
      if (result.requests[i].finish_s >= 0) made += requests[i].output_tokens;
    }
    INFO("rate " << rate << " kv " << kv_tokens << " preemptions " << result.preemptions << " end " << result.end_s);
    CHECK(result.unfinished == 0);
    CHECK(made == asked);
    return std::pair{result, serving_metrics(result, c, {})};
  };
  const auto [light_r, light] = run(10, 64, 0, Preemption::kRecompute);
  const auto [heavy_r, heavy] = run(80, 64, 0, Preemption::kRecompute);
  CHECK(heavy.ttft_s.p90 > light.ttft_s.p90);
  CHECK(heavy.tpot_s.p50 > light.tpot_s.p50);
  CHECK(heavy_r.decode.mean_batch > light_r.decode.mean_batch);
  CHECK(light.output_tokens_per_s == Approx(light.request_rate_per_s * 225).epsilon(0.1));
  const auto again = run(80, 64, 0, Preemption::kRecompute).second;
  CHECK(again.ttft_s.p99 == heavy.ttft_s.p99);
  // A KV cache of 12,000 tokens per rank cannot hold every sequence it admits as they grow to
  // 3,400 tokens: the latest admitted are preempted, and all still finish.
  const auto [roomy_r, roomy] = run(20, 64, 0, Preemption::kRecompute);
  const auto [tight_r, tight] = run(20, 64, 12000, Preemption::kRecompute);
  CHECK(roomy_r.preemptions == 0);
  CHECK(tight_r.preemptions > 0);
  CHECK(tight.e2e_s.p99 > roomy.e2e_s.p99);
  const auto [swap_r, swap] = run(20, 64, 12000, Preemption::kSwap);
  CHECK(swap_r.preemptions > 0);
}

TEST_CASE("metrics: percentiles interpolate", "[serving]") {
  CHECK(percentile({1, 2, 3, 4, 5}, 50) == 3);
  CHECK(percentile({1, 2, 3, 4, 5}, 90) == Approx(4.6));
  CHECK(std::isnan(percentile({}, 90)));  // not defined, never 0
}

TEST_CASE("metrics: an overload is named, and unfinished requests count by their age when the run stopped", "[serving]") {
  ServingConfig c;
  c.warmup_s = 0;
  c.duration_s = 10;
  auto record = [](double arrival_s, double first_s, double finish_s) {
    RequestRecord r;
    r.arrival_s = arrival_s;
    r.input_tokens = 100;
    r.output_tokens = 11;
    r.first_token_s = first_s;
    r.finish_s = finish_s;
    r.in_window = true;
    return r;
  };
  ServingResult served, overloaded;
  for (int i = 0; i < 10; ++i) {
    served.requests.push_back(record(i, i + 0.5, i + 1.5));
    // Two requests served; the rest never reach their first token before the run stops at 100 s.
    overloaded.requests.push_back(i < 2 ? record(i, i + 0.5, i + 1.5) : record(i, -1, -1));
  }
  served.end_s = 10.5;
  overloaded.end_s = 100;
  const auto ok = serving_metrics(served, c, {});
  CHECK_FALSE(ok.overloaded);
  CHECK(ok.ttft_s.p90 == Approx(0.5));
  const auto m = serving_metrics(overloaded, c, {});
  CHECK(m.overloaded);
  CHECK(m.unfinished == 8);
  CHECK(m.offered_per_s == Approx(0.8));  // 4 arrivals in the second half, (5 s, 10 s]

  CHECK(m.served_per_s == Approx(0));
  CHECK(m.ttft_s.p50 == Approx(93.5));  // two of 0.5 s, then the ages 91 to 98 s
  CHECK(m.e2e_s.p99 > 97);
  CHECK(m.tpot_s.p90 == Approx(0.1));  // the two finished requests
}

TEST_CASE("metrics: the phase that binds is where requests wait longest, or decode where TPOT misses", "[serving]") {
  auto record = [](double prefill_wait_s, double decode_wait_s) {
    RequestRecord r;
    r.output_tokens = 11;
    r.prefill_start_s = prefill_wait_s;
    r.prefill_end_s = prefill_wait_s + 0.2;
    r.transfer_end_s = r.prefill_end_s + decode_wait_s;  // admitted, then its KV sent
    r.first_token_s = r.transfer_end_s + 0.05;
    r.finish_s = r.first_token_s + 0.5;                  // TPOT 50 ms
    r.in_window = true;
    return r;
  };
  ServingResult saturated_decode, saturated_prefill;
  for (int i = 0; i < 10; ++i) {
    saturated_decode.requests.push_back(record(0.1, 1.5));
    saturated_prefill.requests.push_back(record(1.5, 0.1));
  }
  ServingConfig c;
  c.duration_s = 10;
  const Slo slo{2.0, 0.06};
  CHECK(decode_binds(saturated_decode, serving_metrics(saturated_decode, c, slo), slo));  // TPOT within the SLO, decode saturated
  CHECK_FALSE(decode_binds(saturated_prefill, serving_metrics(saturated_prefill, c, slo), slo));
  const Slo tight{2.0, 0.04};
  CHECK(decode_binds(saturated_prefill, serving_metrics(saturated_prefill, c, tight), tight));
}

TEST_CASE("simulation: a dense model's DP ranks step on their own clocks; EP-joined ranks wait for the busiest", "[serving]") {
  // Llama-3.1-70B on one 8-GPU node at TP4: two replicas. A long prompt reaches the first, a
  // short one the second just after. No collective joins the replicas, so the short prompt's
  // first token does not wait for the long prompt's prefill; ranks joined by an all-to-all would.
  const workload::Model& llama = workload::model_by_name("llama-3.1-70b");
  workload::ServingDeployment d;
  d.gpus = d.routed_gpus = 8;
  d.attention_tp = 4;
  d.dedicated_shared = false;
  d.micro_batches = 1;
  StepCost cost(llama, roofline(), d, ib(), workload::ServingRequest{}, nullptr);
  ServingConfig c;
  c.disaggregated = false;
  c.decode.deployment = d;
  c.decode.max_running = 64;
  c.decode.max_batch_tokens = 16384;
  MemoryInput in;
  in.max_step_tokens = 16384;
  in.runtime_reserve_bytes = 8e9;
  in.weights = hw::GemmPrecision::kFp8;
  c.decode.memory = plan_memory(llama, h800(), d, in);
  c.decode.cost = &cost;
  c.duration_s = 10;
  Request long_prompt, short_prompt;
  long_prompt.arrival_s = 1;
  long_prompt.input_tokens = 16000;
  long_prompt.output_tokens = 2;
  short_prompt.arrival_s = 1.001;
  short_prompt.input_tokens = 100;
  short_prompt.output_tokens = 2;
  c.decode.ranks_step_together = false;
  const auto apart = simulate_serving({long_prompt, short_prompt}, c);
  c.decode.ranks_step_together = true;
  const auto together = simulate_serving({long_prompt, short_prompt}, c);
  const double long_prefill_s = apart.requests[0].first_token_s - 1;
  const double short_ttft_apart = apart.requests[1].first_token_s - 1.001;
  CHECK(apart.requests[0].first_token_s == Approx(together.requests[0].first_token_s));
  CHECK(short_ttft_apart < 0.1 * long_prefill_s);
  CHECK(together.requests[1].first_token_s - 1.001 > long_prefill_s);
}

TEST_CASE("engine profile: CPU work between steps or beside them; the request's way in and out", "[serving]") {
  EngineProfile e;
  e.step_cpu_s = 1e-3;
  e.step_cpu_per_sequence_s = 1e-5;
  CHECK(e.step_s(5e-3, 100) == Approx(7e-3));  // between steps: added
  e.overlap_scheduling = true;
  CHECK(e.step_s(5e-3, 100) == Approx(5e-3));  // beside the GPU's step: hidden
  CHECK(e.step_s(1e-3, 100) == Approx(2e-3));  // ... unless it is the longer
  e.frontend_s = 2e-3;
  e.tokenize_s_per_token = 1e-6;
  CHECK(e.frontend_delay_s(1000) == Approx(3e-3));

  // One request alone: each decode step waits for the CPU work, and the first token comes the
  // front end and one emission later than the bare engine's.
  workload::ServingRequest base;
  const workload::ServingDeployment p = prefill_unit();
  StepCost prefill_cost(v3(), roofline(), p, ib(), base, nullptr), decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.duration_s = 10;
  const Request q = a_request(1, 4000, 100);
  const auto bare = simulate_serving({q}, c).requests[0];
  ServingConfig with = c;
  with.engine.step_cpu_s = 1e-3;
  with.engine.emit_s = 5e-4;
  with.engine.frontend_s = 2e-3;
  const std::vector<Request> one{q};
  ListedSource listed(one);
  EngineFrontEnd front(listed, with.engine);
  auto run = simulate_serving(front, with);
  apply_token_path(run, with.engine);
  const auto& r = run.requests[0];
  CHECK(r.arrival_s == Approx(1));
  // Prefill and first decode step each wait 1 ms of CPU work.
  CHECK(r.first_token_s - r.arrival_s == Approx(bare.first_token_s - 1 + 2e-3 + 2 * 1e-3 + 5e-4));
  CHECK((r.finish_s - r.first_token_s) / 99 == Approx((bare.finish_s - bare.first_token_s) / 99 + 1e-3).epsilon(1e-6));
  CHECK(run.decode.engine_s == Approx(1e-3));
}

TEST_CASE("simulation: KV caches come in ahead of a full batch and join it as places free", "[serving]") {
  workload::ServingRequest base;
  workload::ServingDeployment d = decode_unit();
  d.gpus = d.routed_gpus = 128;
  d.redundant_experts = 0;
  d.attention_tp = 128;
  StepCost cost(v3(), roofline(), d, ib(), base, nullptr);
  ServingConfig c;
  c.decode = unit_config(d, cost, 1, 256);  // one sequence a step
  c.prefill = c.decode;
  c.prefill_units = 0;
  c.prefill_unbounded = true;
  c.duration_s = 10;
  const Request q = a_request(1, 3000, 20);
  const auto r = simulate_serving({q, q}, c);
  const auto &a = r.requests[0], &b = r.requests[1];
  // The second's cache arrives while the first decodes, and it decodes from the step after.
  CHECK(b.transfer_end_s < a.finish_s);
  CHECK(b.first_token_s > a.finish_s);
  StepLoad step;
  step.busiest.decode_sequences = 1;
  step.busiest.decode_context_tokens = 3000;
  step.unit_tokens = 1;
  CHECK(b.first_token_s - a.finish_s == Approx(cost.seconds(step)).epsilon(0.02));
}

TEST_CASE("simulation: a step across the window's end counts its tokens by its share inside", "[serving]") {
  workload::ServingRequest base;
  const workload::ServingDeployment p = prefill_unit();
  StepCost prefill_cost(v3(), roofline(), p, ib(), base, nullptr), decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.decode_units = 0;
  c.decode_unbounded = true;
  const Request q = a_request(1, 16000, 1);
  StepLoad prefill;
  prefill.busiest.prefill_sequences = 1;
  prefill.busiest.prefill_tokens = 16000;
  prefill.unit_tokens = 16000;
  prefill.prefill = true;
  const double step_s = prefill_cost.seconds(prefill);
  c.duration_s = 1 + 0.25 * step_s;  // a quarter of the prefill step inside the window
  const auto r = simulate_serving({q}, c);
  CHECK(r.input_tokens_in_window == Approx(0.25 * 16000).epsilon(1e-6));
}

TEST_CASE("schedulers: prefill first pauses decoding for whole prompts; static batches wait for the last to finish", "[serving]") {
  const workload::Model& llama = workload::model_by_name("llama-3.1-70b");
  const hw::Gpu& h100 = hw::gpu_by_name("H100");
  workload::ServingDeployment d;
  d.gpus = d.routed_gpus = 8;
  d.attention_tp = 8;
  d.micro_batches = 1;
  d.dedicated_shared = false;
  workload::ServingRequest base;
  StepCost cost(llama, workload::Roofline(h100, workload::KernelEfficiency{}, true), d, ib(), base, nullptr);
  ServingConfig c;
  c.disaggregated = false;
  c.decode.deployment = d;
  c.decode.max_running = 64;
  c.decode.max_batch_tokens = 2048;
  c.decode.ranks_step_together = false;
  MemoryInput in;
  in.max_step_tokens = 8192;
  in.runtime_reserve_bytes = 8e9;
  in.weights = hw::GemmPrecision::kFp8;
  c.decode.memory = plan_memory(llama, h100, d, in);
  c.decode.cost = &cost;
  c.prefill = c.decode;
  c.duration_s = 30;
  // One long answer decoding, then three long prompts at once.
  const Request first = a_request(0, 100, 200);
  std::vector<Request> requests{first};
  for (int i = 0; i < 3; ++i) {
    requests.push_back(a_request(0.2, 6000, 5));
  }
  const double alone_s = simulate_serving({first}, c).requests[0].finish_s;
  const auto chunked = simulate_serving(requests, c);
  ServingConfig first_c = c;
  first_c.scheduler = Scheduler::kPrefillFirst;
  const auto prefill_first = simulate_serving(requests, first_c);
  // Prefill first: each prompt whole in a step of its own, the long answer paused through them
  // all; chunked: the answer gains a token in every chunk's step.
  double prompt_steps_s = 0;
  for (int i = 1; i <= 3; ++i) {
    const auto& r = prefill_first.requests[static_cast<std::size_t>(i)];
    CHECK(r.prefill_end_s - r.prefill_start_s == Approx(prefill_first.requests[1].prefill_end_s - prefill_first.requests[1].prefill_start_s));
    prompt_steps_s += r.prefill_end_s - r.prefill_start_s;
  }
  CHECK(prefill_first.requests[0].finish_s - alone_s >= 0.99 * prompt_steps_s);
  CHECK(chunked.requests[0].finish_s - alone_s < 0.98 * (prefill_first.requests[0].finish_s - alone_s));
  // The first prompt's first token comes sooner when nothing shares its step.
  CHECK(prefill_first.requests[1].first_token_s < chunked.requests[1].first_token_s);

  ServingConfig static_c = c;
  static_c.scheduler = Scheduler::kStatic;
  const auto batched = simulate_serving(requests, static_c);
  // The prompts arriving while the first request decodes wait for it to finish.
  CHECK(batched.requests[1].prefill_start_s >= batched.requests[0].finish_s);
  CHECK(chunked.requests[1].prefill_start_s < chunked.requests[0].finish_s);
  for (const auto* run : {&chunked, &prefill_first, &batched}) CHECK(run->unfinished == 0);
}

TEST_CASE("request sources: a drawn workload streams the generator's requests; a profile's hours get their rates", "[serving]") {
  GeneratedWorkload w;
  w.arrivals.rate_per_s = 40;
  w.arrivals.burstiness = 0.5;
  w.duration_s = 100;
  w.input = {LengthKind::kLognormal, 2000, 1.0, 1, 100000};
  w.output = {LengthKind::kExponential, 300, 0, 1, 4000};
  w.prefix_hit_fraction = 0.25;
  const auto listed = generate_requests(w);
  GeneratedSource source(w);
  std::size_t n = 0;
  while (auto q = source.next()) {
    REQUIRE(n < listed.size());
    CHECK(q->arrival_s == listed[n].arrival_s);
    CHECK(q->input_tokens == listed[n].input_tokens);
    CHECK(q->cached_tokens == listed[n].cached_tokens);
    ++n;
  }
  CHECK(n == listed.size());
  CHECK_FALSE(source.next());

  // Hourly rates of 100, 0 and 300 requests/s over three hours: each hour's count near its rate.
  GeneratedWorkload day = w;
  day.arrivals.burstiness = 1;
  day.arrivals.profile = LoadProfile({100, 0, 300}, 3600);
  day.duration_s = 3 * 3600;
  day.hours = {{1, 1, -1}, {1, 1, -1}, {2, 0.5, 0.9}};
  std::vector<long long> per_hour(3);
  double last = 0, third_input = 0;
  GeneratedSource hours(day);
  while (auto q = hours.next()) {
    CHECK(q->arrival_s >= last);
    last = q->arrival_s;
    const auto h = static_cast<std::size_t>(q->arrival_s / 3600);
    ++per_hour[h];
    if (h == 2) {
      third_input += q->input_tokens;
      CHECK(q->cached_tokens == std::min(q->input_tokens - 1, static_cast<int>(std::floor(0.9 * q->input_tokens))));
    }
  }
  CHECK(per_hour[0] == Approx(360000).epsilon(0.01));
  CHECK(per_hour[1] == 0);
  CHECK(per_hour[2] == Approx(1080000).epsilon(0.01));
  CHECK(third_input / double(per_hour[2]) == Approx(4000).epsilon(0.03));  // the hour's prompts twice as long

  // A fixed length scales as a drawn one does: its bounds are the length, and they scale with it.
  GeneratedWorkload fixed = day;
  fixed.input = {LengthKind::kFixed, 1000, 0, 1000, 1000};
  fixed.output = {LengthKind::kFixed, 200, 0, 200, 200};
  fixed.duration_s = 3 * 3600;
  fixed.arrivals.profile = LoadProfile({10, 0, 30}, 3600);
  GeneratedSource fixed_hours(fixed);
  long long unscaled = 0, scaled = 0, other = 0;
  while (auto q = fixed_hours.next()) {
    const bool third = q->arrival_s >= 2 * 3600;
    if (!third && q->input_tokens == 1000 && q->output_tokens == 200) ++unscaled;
    else if (third && q->input_tokens == 2000 && q->output_tokens == 100) ++scaled;
    else ++other;
  }
  CHECK(unscaled > 0);
  CHECK(scaled > 0);
  CHECK(other == 0);
  CHECK(scaled_bounds(fixed.input, 2.0) == std::pair<long long, long long>{2000, 2000});
  CHECK(scaled_bounds(fixed.output, 1e-9) == std::pair<long long, long long>{1, 1});  // never below a token

  const LoadProfile curve = LoadProfile::diurnal(300, 100, 14, 86400);
  CHECK(curve.rate_at(14 * 3600) == Approx(300).epsilon(1e-3));
  CHECK(curve.rate_at(2 * 3600) == Approx(100).epsilon(1e-3));
  CHECK(curve.expected(0, 86400) == Approx(200 * 86400).epsilon(1e-6));

  // An infinite rate: the count, all at 0 s.
  GeneratedWorkload burst = w;
  burst.arrivals.rate_per_s = INFINITY;
  burst.arrivals.count = 7;
  const auto all = generate_requests(burst);
  REQUIRE(all.size() == 7);
  for (const auto& q : all) CHECK(q.arrival_s == 0);
}

namespace {

// A minute of prompts of 200 to 2,000 tokens and answers of 20 to 200, uniform.
GeneratedWorkload a_minute_of_requests() {
  GeneratedWorkload w;
  w.duration_s = 60;
  w.input = {LengthKind::kUniform, 0, 0, 200, 2000};
  w.output = {LengthKind::kUniform, 0, 0, 20, 200};
  return w;
}

}  // namespace

TEST_CASE("request sources: N closed-loop clients keep exactly N requests in flight", "[serving]") {
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  ServingConfig c = colocated(cost, 64);
  c.duration_s = 60;
  const GeneratedWorkload w = a_minute_of_requests();
  for (const double think_s : {0.0, 2.0}) {
    ClientLoop loop;
    loop.clients = 48;
    loop.think_s = think_s;
    loop.exponential_think = true;
    ClosedLoopSource clients(w, loop);
    const auto r = simulate_serving(clients, c);
    INFO("think " << think_s << " s, " << r.requests.size() << " requests");
    REQUIRE(r.requests.size() > 5 * 48);  // each client sent several
    CHECK(r.unfinished == 0);
    long long sent_late = 0;
    for (const auto& q : r.requests) sent_late += q.arrival_s >= c.duration_s;
    CHECK(sent_late == 0);
    // In flight at sample instants: N where no client thinks; between 0 and N where they do.
    long long min_flight = 1 << 30, max_flight = 0;
    for (double t = 0.5; t < 50; t += 0.37) {
      long long n = 0;
      for (const auto& q : r.requests) n += q.arrival_s <= t && q.finish_s > t;
      min_flight = std::min(min_flight, n);
      max_flight = std::max(max_flight, n);
    }
    if (think_s == 0) {
      CHECK(min_flight == 48);
      CHECK(max_flight == 48);
    } else {
      CHECK(max_flight <= 48);
      CHECK(min_flight < 48);
      CHECK(min_flight > 0);
    }
  }
}

TEST_CASE("capped arrivals: each sent at its time or when a place frees, in order, never more in flight than the cap", "[serving]") {
  // Requests at 0, 1, 2 and 3 s through 2 places: the third waits for the first to finish (at
  // 2.5 s), the fourth for the next finish (4 s); none is sent at or after 10 s.
  std::vector<Request> list(5);
  for (int i = 0; i < 5; ++i) list[static_cast<std::size_t>(i)].arrival_s = i < 4 ? i : 12;
  ListedSource listed(list);
  CappedSource capped(listed, 2, 10);
  CHECK(capped.next()->arrival_s == 0);
  CHECK(capped.next()->arrival_s == 1);
  CHECK_FALSE(capped.next());               // two in flight: the third waits
  CHECK(capped.finished(list[1], 0.5));    // a place frees: the waiting one may go
  CHECK(capped.next()->arrival_s == 2);     // at its own time, the place free since 0.5 s
  CHECK_FALSE(capped.next());
  CHECK(capped.finished(list[0], 4.0));
  CHECK(capped.next()->arrival_s == 4.0);   // sent when the place freed, after its 3 s
  CHECK_FALSE(capped.finished(list[2], 5.0));  // none waits
  CHECK_FALSE(capped.next());               // the last would be sent after until_s
}

TEST_CASE("capped arrivals through a unit: the arrival rate below the cap, the cap's in flight above it", "[serving]") {
  workload::ServingRequest base;
  base.kv_bytes_per_element = 1;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  ServingConfig c = colocated(cost, 64);
  c.duration_s = 60;
  GeneratedWorkload w = a_minute_of_requests();
  for (const double rate : {2.0, 400.0}) {
    w.arrivals.rate_per_s = rate;
    GeneratedSource arrivals(w);
    CappedSource capped(arrivals, 16, c.duration_s);
    const auto r = simulate_serving(capped, c);
    INFO("rate " << rate << ", " << r.requests.size() << " requests");
    long long most = 0, sent_late = 0;
    for (const auto& q : r.requests) {
      sent_late += q.arrival_s >= c.duration_s;
      long long n = 0;
      for (const auto& o : r.requests) n += o.arrival_s <= q.arrival_s && o.finish_s > q.arrival_s;
      most = std::max(most, n);
    }
    CHECK(sent_late == 0);
    CHECK(most <= 16);
    if (rate < 10) CHECK(double(r.requests.size()) == Approx(rate * c.duration_s).epsilon(0.2));  // every arrival sent
    else CHECK(most == 16);  // the cap binds
  }
}

TEST_CASE("percentile sketch: within its accuracy of the exact percentile, and two merge into one", "[serving]") {
  core::FastNormal random(7);
  std::vector<double> all;
  PercentileSketch whole, first, second;
  for (int i = 0; i < 200000; ++i) {
    const double x = std::exp(0.3 + 1.2 * random.normal());
    all.push_back(x);
    whole.add(x);
    (i % 3 ? first : second).add(x);
  }
  first.merge(second);
  for (const double p : {1.0, 50.0, 90.0, 99.0, 99.9}) {
    INFO("p" << p);
    const double exact = percentile(all, p);
    CHECK(whole.percentile(p) == Approx(exact).epsilon(0.011));
    CHECK(first.percentile(p) == whole.percentile(p));
  }
  CHECK(whole.count() == 200000);
  CHECK(whole.mean() == Approx(std::accumulate(all.begin(), all.end(), 0.0) / double(all.size())));
  PercentileSketch none;
  CHECK(std::isnan(none.percentile(50)));
  none.add(0);
  CHECK(none.percentile(50) == 0);
}

TEST_CASE("percentile sketch: a value's bucket from the table is the log's, at every bucket's edge and between", "[serving]") {
  const PercentileSketch sketch;
  const double gamma = (1 + PercentileSketch::kUsualAccuracy) / (1 - PercentileSketch::kUsualAccuracy);
  int edges = 0;
  // Each bucket's edge, found where the log's bucket changes, and the doubles beside it.
  for (double x = PercentileSketch::kUsualMin * 1.0000001; x < PercentileSketch::kUsualMax * 2; x *= gamma) {
    double below = x, above = x * gamma;
    if (sketch.bucket_by_log(below) == sketch.bucket_by_log(above)) continue;
    while (std::nextafter(below, above) < above) {
      const double mid = std::midpoint(below, above) > below ? std::midpoint(below, above) : std::nextafter(below, above);
      (sketch.bucket_by_log(mid) == sketch.bucket_by_log(below) ? below : above) = mid;
    }
    ++edges;
    for (const double v : {std::nextafter(below, 0.0), below, above, std::nextafter(above, 1e300)}) {
      INFO(v);
      REQUIRE(sketch.bucket(v) == sketch.bucket_by_log(v));
    }
  }
  CHECK(edges > 2900);
  core::FastNormal random(11);
  for (int i = 0; i < 1000000; ++i) {  // and anywhere, from below the least to past the most
    const double v = std::exp(-16.5 + 34 * random.uniform());
    REQUIRE(sketch.bucket(v) == sketch.bucket_by_log(v));
  }
  const PercentileSketch other(0.01, 1e-3, 1e3);  // (no table: the log)
  CHECK(other.bucket(2.0) == other.bucket_by_log(2.0));
}

TEST_CASE("autoscaling policy: up above the threshold to the target, down below it, within min and max", "[serving]") {
  PhaseScaling p;
  p.min_units = 2;
  p.max_units = 40;
  p.target_utilisation = 0.7;
  p.scale_up_above = 0.85;
  p.scale_down_below = 0.5;
  CHECK(desired_units(p, {4, 0.95, 0, 0}) == 6);   // ceil(4 x 0.95 / 0.7)
  CHECK(desired_units(p, {4, 0.86, 0, 0}) == 5);   // at least one more
  CHECK(desired_units(p, {4, 0.6, 0, 0}) == 4);    // between the thresholds: as is
  CHECK(desired_units(p, {8, 0.2, 0, 0}) == 7);    // towards ceil(8 x 0.2 / 0.7) = 3, one a look
  CHECK(desired_units(p, {30, 0.2, 0, 0}) == 27);  // a tenth a look
  CHECK(desired_units(p, {10, 0.6, 0, 0}) == 10);
  CHECK(desired_units(p, {2, 0.0, 0, 0}) == 2);    // not below min
  CHECK(desired_units(p, {39, 1.0, 0, 0}) == 40);  // not above max
  p.max_queue_per_unit = 5;
  CHECK(desired_units(p, {4, 0.6, 8, 0}) == 5);    // the queue adds one
  PhaseScaling l = p;
  l.on_latency = true;
  l.max_latency_p90_s = 2;
  l.latency_down_below = 0.5;
  CHECK(desired_units(l, {4, 1.0, 0, 2.5}) == 5);
  CHECK(desired_units(l, {10 - 1, 1.0, 0, 2.5}) == 10);
  CHECK(desired_units(l, {4, 1.0, 0, 1.5}) == 4);
  CHECK(desired_units(l, {4, 1.0, 0, 0.5}) == 3);
  CHECK(desired_units(l, {4, 0.0, 0, std::nan("")}) == 3);  // no request: down
}

TEST_CASE("a fleet over time: streamed records tally as kept ones do; autoscaling follows the load", "[serving]") {
  workload::ServingRequest base;
  StepCost cost(v3(), roofline(), colocated_unit(), ib(), base, nullptr);
  ServingConfig c = colocated(cost, 64);
  c.decode_units = 4;
  c.duration_s = 180;
  c.warmup_s = 0;
  c.interval_s = 30;
  GeneratedWorkload w;
  w.duration_s = 180;
  w.input = {LengthKind::kUniform, 0, 0, 200, 2000};
  w.output = {LengthKind::kUniform, 0, 0, 20, 300};
  w.arrivals.profile = LoadProfile({4, 60, 4}, 60);
  w.arrivals.rate_per_s = 1;
  const Slo slo{2.0, 0.05};

  // The same run, its records kept and streamed.
  GeneratedSource kept_source(w), streamed_source(w);
  const auto kept = simulate_serving(kept_source, c);
  RequestSeries series(c.interval_s, slo);
  const auto streamed = simulate_serving(streamed_source, c, {}, [&](const RequestRecord& r) { series.add(r); });
  series.finish(streamed.end_s);
  CHECK(streamed.requests.empty());
  CHECK(streamed.arrived == static_cast<long long>(kept.requests.size()));
  CHECK(streamed.end_s == kept.end_s);
  const auto m = serving_metrics(kept, c, slo), s = streamed_metrics(series, streamed, c);
  CHECK(s.measured == m.measured);
  CHECK(s.finished == m.finished);
  CHECK(s.goodput_requests_per_s == Approx(m.goodput_requests_per_s));
  CHECK(s.ttft_s.p90 == Approx(m.ttft_s.p90).epsilon(0.011));
  CHECK(s.tpot_s.p50 == Approx(m.tpot_s.p50).epsilon(0.011));
  double output = 0, arrivals = 0, asked = 0;
  for (std::size_t i = 0; i < streamed.intervals.size(); ++i) {
    const auto& f = streamed.intervals[i];
    output += f.output_tokens;
    arrivals += double(f.arrivals);
    if (double(i + 1) * c.interval_s <= streamed.end_s) CHECK(f.decode_unit_s == Approx(4 * c.interval_s));  // no autoscaling: all four units throughout
  }
  for (const auto& q : kept.requests) asked += q.output_tokens;
  REQUIRE(kept.unfinished == 0);
  CHECK(output == asked);  // every token of every request, the drain included
  CHECK(arrivals == double(streamed.arrived));
  CHECK(streamed.intervals.at(2).arrivals > 5 * streamed.intervals.at(0).arrivals);  // the profile's second minute

  // Autoscaled from one unit: more while the load is high, fewer again after; never above max.
  ServingConfig scaled = c;
  scaled.decode = colocated(cost, 8).decode;  // 8 sequences per DP rank: the high load fills one unit
  scaled.autoscaling.interval_s = 5;
  scaled.autoscaling.cooldown_s = 10;
  PhaseScaling& p = scaled.autoscaling.decode;
  p.enabled = true;
  p.min_units = 1;
  p.max_units = 4;
  p.initial_units = 1;
  p.scale_down_below = 0.3;
  p.startup_s = 5;
  scaled.drain_limit_s = 600;
  GeneratedSource source(w);
  const auto run = simulate_serving(source, scaled);
  INFO("ups " << run.scale_ups << ", downs " << run.scale_downs);
  REQUIRE(run.intervals.size() >= 6);
  const auto units = [&](int i) { return run.intervals[std::size_t(i)].decode_unit_s / scaled.interval_s; };
  CHECK(units(0) < 1.5);
  CHECK(units(3) > units(0) + 0.5);
  CHECK(units(5) < units(3));
  int peak = 0;
  for (const auto& f : run.intervals) peak = std::max(peak, f.decode_peak);
  CHECK(peak <= 4);
  CHECK(run.scale_ups > 0);
  CHECK(run.scale_downs > 0);
  CHECK(run.unfinished == 0);
}

TEST_CASE("inter-token latency: every decode step counts once for each sequence it streams a token to after its first", "[serving]") {
  workload::ServingRequest base;
  StepCost prefill_cost(v3(), roofline(), prefill_unit(), ib(), base, nullptr), decode_cost(v3(), roofline(), decode_unit(), ib(), base, nullptr);
  ServingConfig c = prefill_and_decode(prefill_cost, decode_cost);
  c.duration_s = 10;
  c.mtp_drafts = 0;
  c.mtp_acceptance.clear();
  const Request q = a_request(1, 4000, 50);
  const auto run = simulate_serving({q}, c);
  const auto& r = run.requests[0];
  // Disaggregated: the first decode step gives the first token; the 49 after it are chunks, each
  // one step long, the request's whole decode after its first token.
  CHECK(run.inter_token_s.count() == 49);
  CHECK(run.inter_token_s.mean() * 49 == Approx(r.finish_s - r.first_token_s));
  CHECK(run.inter_token_s.percentile(50) == Approx((r.finish_s - r.first_token_s) / 49).epsilon(0.01));
  // Two requests decoding side by side: twice the chunks.
  Request q2 = q;
  q2.arrival_s = 1.0001;
  CHECK(simulate_serving({q, q2}, c).inter_token_s.count() == 98);
}
