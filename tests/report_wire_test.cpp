#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>

#include "studies/report/report_wire.hpp"

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST_CASE("a report read back from its bytes is the report, every number to the bit", "[report]") {
  studies::Report r{"t",          "Title \"quoted\"\nand a line",       "src", {},
                    {"note", ""}, std::string("{\"traceEvents\": []}"), {},    {"warning"}};
  r.rows.push_back({"a", "A", "m", "us", 2.0, 0.1 + 0.2, studies::Basis::kSimulated});
  r.rows.push_back({"b", "B, with \0 inside", "m", "GB/s", std::nullopt, std::numeric_limits<double>::quiet_NaN(),
                    studies::Basis::kFit});
  r.rows.push_back({"c", "C", "m", "s", -0.0, -std::numeric_limits<double>::infinity(), studies::Basis::kInput});
  r.checks.push_back({0.05, std::nullopt, std::nullopt, std::nullopt});
  r.checks.push_back({0.01, 1e-3, studies::KnownMiss{"why", -0.25}, std::string("the input")});
  r.checks.push_back({});
  const std::string bytes = studies::report_to_bytes(r);
  const studies::Report back = studies::report_from_bytes(bytes);
  CHECK(studies::report_to_bytes(back) == bytes);
  CHECK(back.title == r.title);
  CHECK(back.trace_json == r.trace_json);
  CHECK(back.notes == r.notes);
  CHECK(back.warnings == r.warnings);
  REQUIRE(back.rows.size() == 3);
  CHECK(same_bits(back.rows[0].ours, 0.1 + 0.2));
  CHECK(std::isnan(back.rows[1].ours));
  CHECK(!back.rows[1].paper);
  CHECK(back.rows[1].basis == studies::Basis::kFit);
  CHECK(same_bits(*back.rows[2].paper, -0.0));
  REQUIRE(back.checks.size() == 3);
  CHECK(*back.checks[1].tolerance_abs == 1e-3);
  CHECK(back.checks[1].known_miss->reason == "why");
  CHECK(*back.checks[1].calibrated == "the input");
  CHECK(studies::render_markdown({back}) == studies::render_markdown({r}));
  // Bytes that are not one whole report.
  CHECK_THROWS_AS(studies::report_from_bytes(bytes.substr(0, bytes.size() - 1)), std::runtime_error);
  CHECK_THROWS_AS(studies::report_from_bytes(bytes + "x"), std::runtime_error);
  CHECK_THROWS_AS(studies::report_from_bytes(std::string(8, '\xff')), std::runtime_error);
}
