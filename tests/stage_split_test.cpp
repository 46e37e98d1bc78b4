// Uneven pipeline stages: Megatron-Core's layout string and first/last-rank layer counts, and
// the bubble a schedule then has against its closed form over equal stages.
#include <catch2/catch.hpp>

#include <numeric>

#include "core/analytic_engine.hpp"
#include "core/input_error.hpp"
#include "workload/pipeline/pipeline_layout.hpp"
#include "workload/pipeline/pipeline_simulation.hpp"
#include "workload/pipeline/schedule_generators.hpp"
#include "workload/pipeline/schedule_registry.hpp"
#include "workload/training/stage_layout.hpp"

using namespace workload;

namespace {

const Model& v3() { return model_by_name("deepseek-v3"); }

std::vector<int> layers_of(const StageLayout& l) { return l.layers; }

}  // namespace

TEST_CASE("Megatron-Core's layout string: DeepSeek-V3 on PP 16 x VPP 2", "[stages]") {
  const auto parsed = parse_pipeline_layout("Et*3|(tt|)*29,m|L", "/x");
  REQUIRE(parsed.size() == 32);
  CHECK(parsed.front().embedding);
  CHECK(parsed.front().layers == 3);
  CHECK(parsed[30].mtp_layers == 1);
  CHECK(parsed[31].loss);
  const auto layout = string_stage_layout(v3(), parsed, 32, true, "/x");
  std::vector<int> expected = {3};
  for (int i = 0; i < 29; ++i) expected.push_back(2);
  expected.push_back(0);
  expected.push_back(0);
  CHECK(layers_of(layout) == expected);
  CHECK(layout.mtp_stage == 30);
  CHECK(layout.first_layer[31] == 61);
  CHECK(layout.describe() == "3, 2 x 29, 0 + MTP, 0");
}

TEST_CASE("a layout string that is not one is refused with its position", "[stages]") {
  CHECK_THROWS_WITH(parse_pipeline_layout("Et*3|tx|L", "/x"), Catch::Contains("'x' at character 7"));
  CHECK_THROWS_WITH(parse_pipeline_layout("E(tt|*2", "/x"), Catch::Contains("an unclosed '('"));
  CHECK_THROWS_WITH(parse_pipeline_layout("Et*0|L", "/x"), Catch::Contains("a repeat count"));
  CHECK_THROWS_WITH(parse_pipeline_layout("Et)", "/x"), Catch::Contains("a ')' without its '('"));
  // Stages, layers, embedding, loss and MTP against the model and the schedule.
  auto refuse = [](const std::string& text, int stages, bool mtp) {
    return string_stage_layout(v3(), parse_pipeline_layout(text, "/x"), stages, mtp, "/x");
  };
  CHECK_THROWS_WITH(refuse("Et*3|(tt|)*29,m|L", 16, true),
                    Catch::Contains("32 stages is not allowed; the schedule runs 16"));
  CHECK_THROWS_WITH(refuse("t*3|(tt|)*29,m|EL", 32, true), Catch::Contains("the first stage has no E"));
  CHECK_THROWS_WITH(refuse("Et*3|(tt|)*29,m|", 32, true), Catch::Contains("the last stage has no L"));
  CHECK_THROWS_WITH(refuse("Et*3|(tt|)*28,t|m|L", 32, true),
                    Catch::Contains("the stages hold 60 layers (t); DeepSeek-V3 has 61"));
  CHECK_THROWS_WITH(refuse("Et*3|(tt|)*29,|L", 32, true), Catch::Contains("0 MTP layers (m) is not allowed"));
  CHECK_THROWS_WITH(refuse("Emt*3|(tt|)*29,|L", 32, true), Catch::Contains("an m before every t"));
}

TEST_CASE("Megatron-Core's first and last rank layer counts, the rest even, each rank's over its virtual stages",
          "[stages]") {
  // 61 layers, PP 16: 1 on the first rank (with the embedding), 4 on each other.
  const auto first = megatron_stage_layout(v3(), 16, 1, {1, -1, "/first", "/last"}, true, "/pp");
  CHECK(first.layers.front() == 1);
  CHECK(std::count(first.layers.begin(), first.layers.end(), 4) == 15);
  CHECK(first.mtp_stage == 15);
  // PP 4 x VPP 2 of LLaMA-3.1-405B's 126 layers: 30 on the first and last ranks, 33 on the others,
  // a rank's layers halved over its two virtual stages (stage s on rank s % 4).
  const Model& llama = model_by_name("llama-3.1-405b");
  CHECK_THROWS_WITH(
      megatron_stage_layout(llama, 4, 2, {30, 30, "/first", "/last"}, false, "/pp"),
      Catch::Contains("33 layers on pipeline rank 1 is not allowed; they spread evenly over its 2 virtual stages"));
  const auto v = megatron_stage_layout(llama, 4, 2, {30, 32, "/first", "/last"}, false, "/pp");
  CHECK(layers_of(v) == std::vector<int>{15, 16, 16, 16, 15, 16, 16, 16});
  CHECK(std::accumulate(v.layers.begin(), v.layers.end(), 0) == 126);
  CHECK_THROWS_WITH(megatron_stage_layout(v3(), 16, 1, {5, -1, "/first", "/last"}, true, "/pp"),
                    Catch::Contains("leave 56 of DeepSeek-V3's 61 layers for 15 other ranks"));
  // Megatron's default: every stage the same, which 61 layers over 16 stages are not.
  CHECK_THROWS_WITH(megatron_stage_layout(v3(), 16, 1, {}, true, "/pp"),
                    Catch::Contains("16 stages is not allowed with an even split"));
  CHECK(layers_of(megatron_stage_layout(llama, 6, 1, {}, false, "/pp")) == std::vector<int>(6, 21));
}

TEST_CASE("layers_per_stage: the first and the last stage may hold only the embedding or the head", "[stages]") {
  std::vector<int> sizes(16, 4);
  sizes.front() = 0;
  sizes[1] = 5;
  CHECK(explicit_stage_layout(v3(), sizes, true, "/x").layers.front() == 0);
  sizes.front() = 1;
  sizes[1] = 0;
  sizes[2] = 8;
  CHECK_THROWS_WITH(explicit_stage_layout(v3(), sizes, true, "/x"), Catch::Contains("/x/1: 0 is not allowed"));
}

TEST_CASE("equal stages: every schedule's simulated bubble is its closed form", "[stages][property]") {
  for (const char* kind : {"1f1b", "1f1b-interleaved"})
    for (int pp : {2, 4, 8})
      for (double f : {1.0, 0.3}) {
        const PassTimes t{f, 2.2 * f, 0.0, 0.0};
        const Schedule s = schedule_for({kind, pp, 4LL * pp, 2});
        const auto pg = pipeline_graph(s, t, 0.0);
        const auto m = pipeline_metrics(s, pg, core::evaluate_analytically(pg.graph));
        INFO(kind << " pp " << pp);
        CHECK(m.bubble_s == Approx(*balanced_bubble_s(kind, pp, t)));
      }
}

TEST_CASE("1F1B with the last stage slowest: it runs without a gap, the bubble is the rest's fill and drain",
          "[stages][property]") {
  for (int pp : {2, 4, 8})
    for (double extra : {0.1, 0.5, 2.0}) {
      const int m = 3 * pp;
      // Stage s: F 1 + s/10, B 2 + s/10; the last one `extra` more in each.
      auto F = [&](int s) { return 1.0 + 0.1 * s + (s == pp - 1 ? extra : 0.0); };
      auto B = [&](int s) { return 2.0 + 0.1 * s + (s == pp - 1 ? extra : 0.0); };
      const Schedule s = schedule_for({"1f1b", pp, m, 1});
      const auto pg = pipeline_graph(
          s,
          [&](const Step& st) {
            const Chunk& c = st.chunks.front();
            return c.pass == Pass::kForward ? F(c.position) : B(c.position);
          },
          0.0);
      const double makespan = core::evaluate_analytically(pg.graph).makespan_s();
      double fill_and_drain = 0;
      for (int k = 0; k + 1 < pp; ++k) fill_and_drain += F(k) + B(k);
      INFO("pp " << pp << " extra " << extra);
      CHECK(makespan == Approx(fill_and_drain + m * (F(pp - 1) + B(pp - 1))));
    }
}
