#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "studies/config/overrides.hpp"

using nlohmann::json;

TEST_CASE("overrides replace, adds and parses values", "[overrides]") {
  json doc = {{"cluster", {{"node", "h800"}, {"scale_out_bandwidth_Bps", 50e9}}}, {"list", {1, 2}}};
  studies::apply_override(doc, "/cluster/scale_out_bandwidth_Bps=100e9");
  CHECK(doc["cluster"]["scale_out_bandwidth_Bps"].get<double>() == 100e9);
  studies::apply_override(doc, "/cluster/node=h100");  // not JSON: taken as a string
  CHECK(doc["cluster"]["node"] == "h100");
  studies::apply_override(doc, "/cluster/nodes=4");  // a new leaf under an existing object
  CHECK(doc["cluster"]["nodes"] == 4);
  studies::apply_override(doc, "/list/1=\"x\"");
  CHECK(doc["list"][1] == "x");
  studies::apply_override(doc, "/cluster/extra={\"a\":[1]}");
  CHECK(doc["cluster"]["extra"]["a"][0] == 1);
}

TEST_CASE("override errors", "[overrides]") {
  json doc = {{"cluster", {{"node", "h800"}}}, {"list", {1, 2}}};
  CHECK_THROWS_AS(studies::apply_override(doc, "cluster/node=x"), core::InputError);
  CHECK_THROWS_AS(studies::apply_override(doc, "/cluster/node"), core::InputError);
  CHECK_THROWS_WITH(studies::apply_override(doc, "/nope/deeper=1"),
                    Catch::Contains("'/nope' does not exist in the scenario"));
  CHECK_THROWS_WITH(studies::apply_override(doc, "/list/7=1"), Catch::Contains("not an index of /list"));
  CHECK_THROWS_WITH(studies::apply_override(doc, "/cluster/node/x=1"), Catch::Contains("which has no fields"));
  CHECK_THROWS_WITH(studies::apply_override(doc, "/a~2=1"), Catch::Contains("not a valid JSON pointer"));
}

TEST_CASE("an override that is not UTF-8 is refused, not carried into messages", "[overrides]") {
  json doc = {{"pipeline", {{"pp", 8}}}};
  CHECK_THROWS_AS(studies::apply_override(doc, "/pipeline/pp=\xff\xfe"), core::InputError);
  CHECK_THROWS_AS(studies::apply_override(doc, "/pipeline/\xff=1"), core::InputError);
  CHECK(doc["pipeline"]["pp"] == 8);
}
