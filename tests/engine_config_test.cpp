#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "studies/config/engine_config.hpp"

using studies::engine_by_name;
using studies::engine_by_version;

TEST_CASE("engine profiles: by version, the latest by default, each engine its own", "[serving]") {
  const auto& latest = engine_by_name("vllm", "/deployment/engine");
  CHECK(latest.version == "0.14");
  CHECK(latest.overlap_scheduling);  // asynchronous scheduling by default from 0.14
  const auto& sync = engine_by_version("vllm", "0.13", "/deployment/engine_version");
  CHECK_FALSE(sync.overlap_scheduling);
  CHECK(sync.step_s(5e-3, 64) > latest.step_s(5e-3, 64));
  const auto& v0 = engine_by_version("vllm", "0.5", "/deployment/engine_version");
  CHECK(v0.step_cpu_per_sequence_s >
        10 * sync.step_cpu_per_sequence_s);  // V0's per-sequence work (engine-overhead.md #1)
  CHECK_THROWS_WITH(
      engine_by_version("vllm", "0.7", "/deployment/engine_version"),
      "/deployment/engine_version: '0.7' is not allowed; vllm's versions in data/engines: 0.5, 0.13, 0.14");
  // SGLang and TensorRT-LLM differ by their sourced defaults: the KV rule, the admission, the CPU work.
  const auto& sglang = engine_by_name("sglang", "/deployment/engine");
  const auto& trtllm = engine_by_name("trtllm", "/deployment/engine");
  CHECK(sglang.kv_memory == serving::KvMemoryRule::kReserve);
  CHECK(trtllm.kv_memory == serving::KvMemoryRule::kShareOfFree);
  CHECK(trtllm.scheduler == std::optional<std::string>("guaranteed-no-evict"));
  CHECK_FALSE(sglang.scheduler.has_value());
  CHECK(sglang.step_s(5e-3, 64) != Approx(trtllm.step_s(5e-3, 64)));
  CHECK_FALSE(engine_by_version("sglang", "0.3", "/deployment/engine_version").overlap_scheduling);
}
