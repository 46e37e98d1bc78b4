#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>

#include "core/input_error.hpp"
#include "hw/gpu.hpp"
#include "workload/inference/inference.hpp"
#include "workload/moe/expert_popularity.hpp"

using namespace workload;

namespace {

const std::string kCounts = std::string(CODESIM_SOURCE_DIR) + "/tests/data/expert-counts/";

const Model& v3() { return model_by_name("deepseek-v3"); }

ExpertPopularity small_counts() {
  return read_expert_counts(kCounts + "v3-small.json", 61, 3, 256, "/experts/popularity");
}

}  // namespace

TEST_CASE("expert counts: one share per expert of each MoE layer, the dense layers dropped", "[moe][popularity]") {
  const ExpertPopularity p = small_counts();
  REQUIRE(p.layers.size() == 58);
  for (const auto& layer : p.layers) CHECK(std::accumulate(layer.begin(), layer.end(), 0.0) == Approx(1));
  // Counts 1 + (e mod 7): expert 6 holds 7 of the mean's 1 + 3 = 4 (about; 256 is not a multiple of 7).
  CHECK(hottest_over_mean(p.layers[0]) ==
        Approx(7.0 / (std::accumulate(p.layers[0].begin(), p.layers[0].end(), 0.0) / 256 / p.layers[0][0]))
            .epsilon(1e-9));
  CHECK(p.layers[57][5] > 0.2);
  CHECK(&p.layer(60) == &p.layers[57]);  // an MTP layer takes the last
}

TEST_CASE(
    "expert counts of the wrong shape, negative or not matching the model are refused, naming the field and the file",
    "[moe][popularity]") {
  auto message = [](const std::string& file, int layers, int experts) {
    try {
      read_expert_counts(kCounts + file, layers, 3, experts, "/deployment/decode/experts/popularity");
    } catch (const core::InputError& e) { return std::string(e.what()); }
    return std::string("accepted");
  };
  CHECK_THAT(
      message("v3-negative.json", 61, 256),
      Catch::Matches(
          "/deployment/decode/experts/popularity: .*v3-negative.json/logical_count/7/3: -1 \\(a number\\) is not allowed; a count is a number from 0 up"));
  CHECK_THAT(
      message("v3-60-layers.json", 61, 256),
      Catch::Matches(
          ".*v3-60-layers.json/logical_count: 60 rows is not allowed; expected 61 \\(the model's layers\\), each 256 counts.*"));
  CHECK_THAT(
      message("v3-small.json", 61, 160),
      Catch::Matches(
          ".*v3-small.json/logical_count/0: 256 counts is not allowed; expected 160, one per routed expert of the model"));
}

TEST_CASE("a drawn routing chooses distinct experts in proportion to their shares; fewer tokens are the start of more",
          "[moe][popularity]") {
  std::vector<double> shares(256, 1.0);
  shares[3] = 20;
  const double sum = std::accumulate(shares.begin(), shares.end(), 0.0);
  for (double& s : shares) s /= sum;
  const Routing r = draw_routing(shares, 20000, 8, 7);
  std::vector<double> load(256, 0);
  for (int t = 0; t < r.tokens; ++t) {
    std::set<int> chosen;
    for (int k = 0; k < 8; ++k) chosen.insert(r.expert(t, k));
    CHECK(chosen.size() == 8);
    for (int e : chosen) load[static_cast<std::size_t>(e)] += 1;
  }
  // Each expert is chosen by about top-k x its share of the tokens: expert 3 by 8 x 20 / 275.
  CHECK(load[3] / r.tokens == Approx(8 * 20.0 / 275).epsilon(0.03));
  CHECK(load[100] / r.tokens == Approx(8 * 1.0 / 275).epsilon(0.1));
  const Routing start = draw_routing(shares, 100, 8, 7);
  CHECK(std::equal(start.experts.begin(), start.experts.end(), r.experts.begin()));
}

TEST_CASE("experts touched: one token touches top-k, many touch all, an unchosen expert never", "[moe][popularity]") {
  const std::vector<double> uniform(256, 8.0 / 256);
  CHECK(expected_experts_touched(uniform, 1) == Approx(8));
  CHECK(expected_experts_touched(uniform, 16) == Approx(256 * (1 - std::pow(1 - 8.0 / 256, 16))));
  CHECK(expected_experts_touched(uniform, 100000) == Approx(256));
  std::vector<double> half = uniform;
  std::fill(half.begin(), half.begin() + 128, 0.0);
  CHECK(expected_experts_touched(half, 100000) == Approx(128));
}

namespace {

// DeepSeek-V3's decode on EP32 of H100s (4 nodes), 32 redundant experts, its traffic drawn from
// the counts; EPLB's plan made from `plan` (null: the same counts).
ServingStep ep32_decode(std::shared_ptr<const ExpertPopularity> served, std::shared_ptr<const ExpertPopularity> plan,
                        int window_tokens = 0) {
  ServingDeployment d;
  d.gpus = d.routed_gpus = 32;
  d.gpus_per_node = 8;
  d.attention_tp = 1;
  d.dedicated_shared = false;
  d.redundant_experts = 32;
  d.popularity = std::move(served);
  d.eplb_plan = std::move(plan);
  d.eplb_window_tokens = window_tokens;
  ServingRequest q;
  q.sequences = 32 * 128;
  q.context_tokens = 1000;
  return serving_step(v3(), Roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, true), d, ServingLinks{}, q, nullptr);
}

}  // namespace

TEST_CASE("measured popularity: each MoE layer its own draw; EPLB's plan from other traffic serves it worse",
          "[moe][popularity]") {
  const auto served = std::make_shared<const ExpertPopularity>(small_counts());
  // A stale plan: the same loads, the experts' order reversed (the hot expert of the last layer
  // is cold in the plan).
  ExpertPopularity reversed = *served;
  for (auto& layer : reversed.layers) std::reverse(layer.begin(), layer.end());
  const auto stale = std::make_shared<const ExpertPopularity>(reversed);
  const ServingStep fresh = ep32_decode(served, nullptr), old = ep32_decode(served, stale),
                    uniform = ep32_decode(nullptr, nullptr);
  // Per MoE layer: the last, with its hot expert, costs more than the others.
  const auto& layers = fresh.layers;
  CHECK(layers[60].expert_s > layers[40].expert_s);
  CHECK(layers[60].dispatch_s >= layers[40].dispatch_s);
  CHECK(old.expert_imbalance > fresh.expert_imbalance * 1.05);
  CHECK(old.step_s > fresh.step_s);
  CHECK(fresh.expert_imbalance > uniform.expert_imbalance * 0.95);
  // A plan from a short past window fits its noise: it serves worse than one from the whole run,
  // and a longer window nears it.
  const ServingStep short_window = ep32_decode(served, nullptr, 2000),
                    long_window = ep32_decode(served, nullptr, 1 << 20);
  CHECK(short_window.expert_imbalance > fresh.expert_imbalance * 1.02);
  CHECK(long_window.expert_imbalance < short_window.expert_imbalance);
}

TEST_CASE("measured popularity: steps from a cache kept over many token counts are those computed afresh",
          "[moe][popularity]") {
  // The cache counts a routing's first tokens once and adds more tokens to the nearest fewer, and
  // keeps the MoE layers' costs by tokens: each step as computed alone, to the bit, whichever
  // counts came before, for DeepEP's normal kernels and its direct (low-latency) ones.
  const auto served = std::make_shared<const ExpertPopularity>(small_counts());
  for (bool direct : {false, true}) {
    ServingDeployment d;
    d.gpus = d.routed_gpus = 32;
    d.gpus_per_node = 8;
    d.attention_tp = 1;
    d.dedicated_shared = false;
    d.redundant_experts = 32;
    d.direct_comm = direct;
    d.popularity = served;
    const Roofline roofline(hw::gpu_by_name("H100"), KernelEfficiency{}, true);
    AllToAllCache cache;
    for (int sequences : {32 * 128, 32 * 9, 32 * 200, 32 * 128 + 40, 32 * 100, 5, 32 * 9}) {
      ServingRequest q;
      q.sequences = sequences;
      q.context_tokens = 1000;
      const ServingStep kept = serving_step(v3(), roofline, d, ServingLinks{}, q, nullptr, &cache);
      const ServingStep alone = serving_step(v3(), roofline, d, ServingLinks{}, q, nullptr);
      CAPTURE(direct, sequences);
      CHECK(kept.step_s == alone.step_s);
      CHECK(kept.expert_imbalance == alone.expert_imbalance);
      CHECK(kept.ib_bytes_per_gpu == alone.ib_bytes_per_gpu);
      REQUIRE(kept.layers.size() == alone.layers.size());
      for (std::size_t l = 0; l < kept.layers.size(); ++l) {
        CHECK(kept.layers[l].dispatch_s == alone.layers[l].dispatch_s);
        CHECK(kept.layers[l].combine_s == alone.layers[l].combine_s);
        CHECK(kept.layers[l].expert_s == alone.layers[l].expert_s);
      }
    }
  }
}
