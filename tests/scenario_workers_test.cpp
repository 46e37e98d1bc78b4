#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "studies/report/report_wire.hpp"
#include "studies/run/scenario.hpp"
#include "studies/run/scenario_workers.hpp"

namespace {

const std::string kPaper = std::string(CODESIM_SOURCE_DIR) + "/scenarios/paper/";

std::vector<std::string> bytes_of(const std::vector<studies::Report>& reports) {
  std::vector<std::string> out;
  for (const auto& r : reports) out.push_back(studies::report_to_bytes(r));
  return out;
}

}  // namespace

TEST_CASE("scenarios run by workers give the reports of a run one after another, in order", "[workers]") {
  std::vector<studies::Scenario> loaded;
  for (const char* name :
       {"kv-cache", "tpot-ib", "train-flops", "kernels-memory", "latency", "pipeline-1-design-point"})
    loaded.push_back(studies::load_scenario(kPaper + name + ".json"));
  std::vector<const studies::Scenario*> scenarios;
  for (const auto& s : loaded) scenarios.push_back(&s);
  const auto alone = bytes_of(studies::run_scenarios(scenarios, 1, "test"));
  REQUIRE(alone.size() == loaded.size());
  CHECK(bytes_of(studies::run_scenarios(scenarios, 2, "test")) == alone);
  CHECK(bytes_of(studies::run_scenarios(scenarios, 4, "test")) == alone);   // more workers than a few scenarios each
  CHECK(bytes_of(studies::run_scenarios(scenarios, 64, "test")) == alone);  // more workers than scenarios
}

TEST_CASE("a scenario that fails in a worker raises its own error, the first in order", "[workers]") {
  // "expected" naming a row the study does not give fails when the scenario runs, not when it loads.
  auto failing = [](const std::string& row) {
    auto doc = core::read_json_file(kPaper + "tpot-ib.json");
    doc["expected"] = {{row, 1.0}};
    return studies::parse_scenario(doc, "test");
  };
  const studies::Scenario good = studies::load_scenario(kPaper + "kv-cache.json");
  const studies::Scenario first = failing("no-such-row"), second = failing("another-row");
  std::string expected;
  try {
    first.run({});
  } catch (const core::InputError& e) { expected = e.what(); }
  REQUIRE(!expected.empty());
  for (int workers : {1, 2, 3}) {
    CHECK_THROWS_WITH(studies::run_scenarios({&good, &first, &good, &second}, workers, "test"), expected);
    CHECK_THROWS_AS(studies::run_scenarios({&good, &first, &good, &second}, workers, "test"), core::InputError);
  }
}
