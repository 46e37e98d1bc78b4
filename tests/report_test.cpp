#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "studies/report.hpp"

TEST_CASE("numbers and deltas are formatted stably", "[report]") {
  CHECK(studies::format_number(120.96) == "120.96");
  CHECK(studies::format_number(14.757120) == "14.7571");
  CHECK(studies::format_number(1) == "1");
  CHECK(studies::format_delta(std::nullopt) == "–");
  CHECK(studies::format_delta(0.0114) == "+1.14%");
  CHECK(studies::format_delta(-0.000001) == "+0.00%");
}

TEST_CASE("tables merge by id and render in every format", "[report]") {
  studies::Report a{"t", "Title", "src A", {{"x", "X", "m", "us", 2.0, 2.2}}, {"note"}, std::nullopt, {}};
  studies::Report b{"t", "Title", "src B", {{"y", "Y", "m", "us", std::nullopt, 1.0}}, {"note", "other"}, std::nullopt, {}};
  const auto tables = studies::merge_by_table({a, b});
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].rows.size() == 2);
  CHECK(tables[0].notes.size() == 2);
  CHECK(tables[0].source == "src A; src B");
  const auto md = studies::render_markdown(tables);
  CHECK_THAT(md, Catch::Contains("| X | m | us | 2 | 2.2 | +10.00% |"));
  CHECK_THAT(md, Catch::Contains("| Y | m | us | – | 1 | – |"));
  const auto json = nlohmann::json::parse(studies::render_json(tables));
  CHECK(json["tables"][0]["id"] == "t");
  CHECK(json["tables"][0]["rows"][0]["paper"] == 2.0);
  CHECK(json["tables"][0]["rows"][1]["paper"].is_null());
  CHECK(json["tables"][0]["rows"][0]["label"] == "X");
  CHECK(studies::render_csv(tables).find("t,x,X,m,us,2,2.2,0.1\n") != std::string::npos);
}
