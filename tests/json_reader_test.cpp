#include <catch2/catch.hpp>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "core/json_reader.hpp"

using nlohmann::json;

TEST_CASE("edit distance and suggestions", "[json]") {
  CHECK(core::edit_distance("kitten", "sitting") == 3);
  CHECK(core::edit_distance("", "abc") == 3);
  CHECK(core::closest_match("clustr", {"cluster", "model"}) == "cluster");
  CHECK(core::closest_match("zzzzzz", {"cluster", "model"}).empty());
}

TEST_CASE("reader errors name the pointer, the value and what is allowed", "[json]") {
  const json doc = {{"a", {{"n", -1}, {"s", 3}, {"i", 2.5}, {"k", "h801"}, {"big", 1e12}}}};
  core::JsonReader root(doc, "");
  core::JsonReader a = root.object("a");
  auto message = [](auto&& f) {
    try {
      f();
    } catch (const core::InputError& e) { return std::string(e.what()); }
    return std::string("no error");
  };
  CHECK(message([&] { a.positive_number("n"); }) == "/a/n: -1 (a number) is not allowed; expected a number > 0");
  CHECK(message([&] { a.string("s"); }) == "/a/s: 3 (a number) is not allowed; expected a string");
  CHECK(message([&] { a.positive_integer("i"); }).find("/a/i: 2.5") == 0);
  CHECK(message([&] { a.positive_integer("big"); }).find("expected an integer from 1 to 1000000000") !=
        std::string::npos);
  CHECK(message([&] {
          a.one_of("k", {"h800", "h100"});
        }) == "/a/k: 'h801' is unknown; allowed: h800, h100; did you mean 'h800'?");
  CHECK(message([&] { a.number("missing"); }) == "/a/missing: missing; this field is required");
}

TEST_CASE("unknown keys are rejected with a did-you-mean", "[json]") {
  const json doc = {{"nodes", 2}, {"nodse", 3}};
  core::JsonReader r(doc, "/cluster");
  r.positive_integer("nodes");
  try {
    r.finish();
    FAIL("finish accepted an unknown key");
  } catch (const core::InputError& e) {
    CHECK(std::string(e.what()) == "/cluster/nodse: unknown key; allowed: nodes; did you mean 'nodes'?");
  }
}

TEST_CASE("a non-object where an object is expected", "[json]") {
  CHECK_THROWS_WITH(core::JsonReader(json::array(), "/decode"),
                    "/decode: [] (an array) is not an object; expected a JSON object");
}
