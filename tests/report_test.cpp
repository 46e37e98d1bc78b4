#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "studies/report/report.hpp"

TEST_CASE("numbers and deltas are formatted stably", "[report]") {
  CHECK(studies::format_number(120.96) == "120.96");
  CHECK(studies::format_number(14.757120) == "14.7571");
  CHECK(studies::format_number(1) == "1");
  CHECK(studies::format_delta(std::nullopt) == "–");
  CHECK(studies::format_delta(0.0114) == "+1.14%");
  CHECK(studies::format_delta(-0.000001) == "+0.00%");
}

TEST_CASE("tables merge by id and render in every format", "[report]") {
  studies::Report a{"t", "Title", "src A", {{"x", "X", "m", "us", 2.0, 2.2}}, {"note"}, std::nullopt, {}, {}};
  studies::Report b{"t",          "Title", "src B", {{"y", "Y", "m", "us", std::nullopt, 1.0}}, {"note", "other"},
                    std::nullopt, {},      {}};
  const auto tables = studies::merge_by_table({a, b});
  REQUIRE(tables.size() == 1);
  CHECK(tables[0].rows.size() == 2);
  CHECK(tables[0].notes.size() == 2);
  CHECK(tables[0].source == "src A; src B");
  const auto md = studies::render_markdown(tables);
  CHECK_THAT(md, Catch::Contains("| X | m | us | 2 | 2.2 | +10.00% | closed-form |"));
  CHECK_THAT(md, Catch::Contains("| Y | m | us | – | 1 | – | – |"));
  const auto json = nlohmann::json::parse(studies::render_json(tables));
  CHECK(json["tables"][0]["id"] == "t");
  CHECK(json["tables"][0]["rows"][0]["paper"] == 2.0);
  CHECK(json["tables"][0]["rows"][1]["paper"].is_null());
  CHECK(json["tables"][0]["rows"][0]["label"] == "X");
  CHECK(studies::render_csv(tables).find("t,x,X,m,us,2,2.2,0.1,closed-form\n") != std::string::npos);
  CHECK(json["tables"][0]["rows"][0]["basis"] == "closed-form");
}

namespace {

using studies::Basis;
using studies::KnownMiss;
using studies::RowCheck;

// One table of one row for the checker: the paper's figure, ours, and the row's check.
studies::Report one_row(double paper, double ours, RowCheck check = {}, Basis basis = Basis::kSimulated) {
  studies::ReportRow row{"r", "row", "metric", "s", paper, ours, basis};
  return {"t", "Title", "", {row}, {}, std::nullopt, {check}, {}};
}

struct Outcome {
  int failures = 0;
  std::vector<std::string> lines;
};

Outcome check(const std::vector<studies::Report>& tables) {
  Outcome o;
  o.lines = studies::check_rows(tables, o.failures);
  return o;
}

std::string all_lines(const Outcome& o) {
  std::string text;
  for (const auto& l : o.lines) text += l + "\n";
  return text;
}

}  // namespace

TEST_CASE("the checker passes a row within tolerance and fails one past it", "[report][check]") {
  CHECK(check({one_row(10, 10.4)}).failures == 0);
  const auto past = check({one_row(10, 10.6)});
  CHECK(past.failures == 1);
  CHECK_THAT(all_lines(past),
             Catch::Contains("FAILED t / row / metric: paper 10, ours 10.6 (+6.00%), tolerance 5.00%"));
  CHECK(check({one_row(-10, -9.6)}).failures == 0);  // a negative paper figure keeps a sensible delta
}

TEST_CASE("the checker fails values that are not finite numbers", "[report][check]") {
  for (double bad : {std::nan(""), std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity()}) {
    const auto o = check({one_row(10, bad)});
    CHECK(o.failures == 1);
    CHECK_THAT(all_lines(o), Catch::Contains("not a finite number"));
  }
  // A known miss does not excuse a NaN either.
  RowCheck miss;
  miss.known_miss = KnownMiss{"reason", -0.5};
  CHECK(check({one_row(10, std::nan(""), miss)}).failures == 1);
}

TEST_CASE("a paper figure of 0 is checked against the scenario's absolute tolerance", "[report][check]") {
  const auto unstated = check({one_row(0, 0)});
  CHECK(unstated.failures == 1);
  CHECK_THAT(all_lines(unstated), Catch::Contains("needs the scenario's tolerance_abs"));
  RowCheck abs;
  abs.tolerance_abs = 0.01;
  CHECK(check({one_row(0, 0.005, abs)}).failures == 0);
  CHECK(check({one_row(0, -0.005, abs)}).failures == 0);
  const auto past = check({one_row(0, 0.02, abs)});
  CHECK(past.failures == 1);
  CHECK_THAT(all_lines(past), Catch::Contains("(0.02 absolute), tolerance 0.01 absolute"));
}

TEST_CASE("a known miss holds only at or below the delta it was recorded at", "[report][check]") {
  RowCheck miss;
  miss.known_miss = KnownMiss{"the roofline is short", -0.28};
  const auto same = check({one_row(20, 14.4, miss)});  // -28%
  CHECK(same.failures == 0);
  CHECK_THAT(all_lines(same),
             Catch::Contains("known miss, t / row / metric: paper 20, ours 14.4 (-28.00%): the roofline is short"));
  CHECK(check({one_row(20, 16, miss)}).failures == 0);  // -20%: smaller, still past tolerance
  const auto grown = check({one_row(20, 14, miss)});    // -30%
  CHECK(grown.failures == 1);
  CHECK_THAT(all_lines(grown), Catch::Contains("recorded at -28.00% and is now past it"));
  const auto flipped = check({one_row(20, 25, miss)});  // +25%: smaller, but the other way
  CHECK(flipped.failures == 1);
  CHECK_THAT(all_lines(flipped), Catch::Contains("is now past it"));
  // The Qwen case: an expected value of 1e9 is a -100% miss, past a miss recorded at +13%.
  RowCheck qwen;
  qwen.known_miss = KnownMiss{"another configuration", 0.13};
  CHECK(check({one_row(1e9, 444.86, qwen)}).failures == 1);
}

TEST_CASE("a known miss that now matches must leave known_misses", "[report][check]") {
  RowCheck miss;
  miss.known_miss = KnownMiss{"was short", -0.28};
  const auto fixed = check({one_row(20, 19.5, miss)});
  CHECK(fixed.failures == 1);
  CHECK_THAT(all_lines(fixed), Catch::Contains("remove it from known_misses"));
}

TEST_CASE("the checker counts rows within tolerance by basis", "[report][check]") {
  RowCheck fit;
  fit.calibrated = "price fitted";
  const auto o = check({one_row(1, 1, {}, Basis::kSimulated), one_row(1, 1, {}, Basis::kClosedForm),
                        one_row(1, 1, {}, Basis::kClosedForm), one_row(1, 1, {}, Basis::kFormula),
                        one_row(1, 1, {}, Basis::kInput), one_row(1, 1, fit, Basis::kFit)});
  REQUIRE_FALSE(o.lines.empty());
  CHECK(o.lines[0] ==
        "check: 6 rows within tolerance (1 simulated, 2 closed-form, 1 formula, 1 input, 1 fit), 0 known misses "
        "(explained in their tables' notes), 0 failed");
  // Rows without a paper figure are not counted at all.
  studies::Report none{"t", "T", "", {{"r", "row", "m", "s", std::nullopt, 1.0}}, {}, std::nullopt, {RowCheck{}}, {}};
  CHECK_THAT(check({none}).lines[0], Catch::StartsWith("check: 0 rows within tolerance"));
}
