#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "hw/fp8/tiny_training.hpp"

using namespace hw::fp8;

TEST_CASE("the FP8 recipe trains like BF16 on a small model", "[fp8][training]") {
  TinyTraining c;
  c.steps = 20;
  const auto t = train_fp8_against_bf16(c);
  REQUIRE(t.fp8_loss.size() == 20);
  CHECK(t.fp8_loss.back() < 0.8 * t.fp8_loss.front());  // it learns
  CHECK(t.bf16_loss.back() < 0.8 * t.bf16_loss.front());
  // Same data, same start: the curves differ only by the GEMMs' numerics.
  CHECK(t.final_relative_gap < 0.01);
  CHECK(t.fp8_loss[5] != t.bf16_loss[5]);  // but they do differ
}

TEST_CASE("tiny training refuses shapes the FP8 tiles cannot take", "[fp8][training]") {
  TinyTraining c;
  c.hidden = 200;
  CHECK_THROWS_WITH(train_fp8_against_bf16(c), Catch::StartsWith("tiny model: 200 is not allowed"));
}
