// codesim plan's layouts: every one valid for the cluster and batch, none twice.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "core/input_error.hpp"
#include "studies/run/layout_plan.hpp"

namespace {

const std::string kMixtral = std::string(CODESIM_SOURCE_DIR) + "/scenarios/training/mixtral-8x7b-h100.json";

}  // namespace

TEST_CASE("a plan's layouts multiply to the GPUs, divide what they cut and are all different", "[plan]") {
  const auto sweep = studies::plan_sweep(kMixtral, {"/fabric/nodes=2"});  // 16 GPUs
  REQUIRE(!sweep.points.empty());
  std::set<std::string> seen;
  for (const auto& p : sweep.points) {
    std::map<std::string, nlohmann::json> v(p.values.begin(), p.values.end());
    const int tp = v["/parallel/tp"], cp = v["/parallel/cp"], pp = v["/parallel/pp"], dp = v["/parallel/dp"],
              ep = v["/parallel/ep"];
    const int etp = v["/parallel/etp"], vpp = v["/parallel/vpp"], mbs = v["/batch/micro_batch_sequences"];
    INFO(nlohmann::json(v).dump());
    CHECK(tp * cp * pp * dp == 16);
    CHECK(tp <= 8);
    CHECK(32 % tp == 0);                      // Mixtral's heads
    CHECK((tp * cp * dp) % (etp * ep) == 0);  // the experts fold over a stage's GPUs
    CHECK(8 % ep == 0);                       // its experts
    CHECK((etp == 1 || etp == tp));
    CHECK(256 % (dp * mbs) == 0);  // the scenario's 256 sequences into whole micro-batches per replica
    if (vpp > 1) CHECK(v["/parallel/schedule"] == "interleaved");
    CHECK(seen.insert(nlohmann::json(v).dump()).second);
  }
  // Folded layouts are among them: EP spanning TP ranks where DP alone is too few.
  CHECK(std::any_of(sweep.points.begin(), sweep.points.end(), [](const studies::SweepPoint& p) {
    std::map<std::string, nlohmann::json> v(p.values.begin(), p.values.end());
    return int(v["/parallel/dp"]) % int(v["/parallel/ep"]) != 0;
  }));
  // The scenario's own layout fields are replaced; its placement and options are kept.
  CHECK(sweep.base["mode"] == "analytical");
  CHECK_FALSE(sweep.base["parallel"].contains("tp"));
}

TEST_CASE("a plan takes only a training-step scenario", "[plan]") {
  const std::string tpot = std::string(CODESIM_SOURCE_DIR) + "/scenarios/paper/tpot-ib.json";
  CHECK_THROWS_AS(studies::plan_sweep(tpot), core::InputError);
}
