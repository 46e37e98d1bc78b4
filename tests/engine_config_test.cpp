#include <catch2/catch.hpp>

#include "core/data_files.hpp"
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

TEST_CASE("engine profiles: what each runs on the GPU, from its sources", "[serving]") {
  // Each engine's MoE path as notes/engines.md gives its defaults: experts tensor-parallel unless
  // expert parallelism is asked for, then vLLM's all-gather / reduce-scatter and SGLang's DeepEP
  // kernels by phase; no two-batch overlap in either phase.
  const auto& vllm = engine_by_name("vllm", "/deployment/engine");
  const auto& sglang = engine_by_name("sglang", "/deployment/engine");
  const auto& trtllm = engine_by_name("trtllm", "/deployment/engine");
  for (const auto* e : {&vllm, &sglang, &trtllm}) {
    REQUIRE(e->moe.has_value());
    CHECK(e->moe->experts == "tensor-parallel");
    CHECK(e->two_batch_overlap_prefill == std::optional<bool>(false));
    CHECK(e->two_batch_overlap_decode == std::optional<bool>(false));
  }
  CHECK(vllm.moe->prefill_communication == "all-gather");
  CHECK(vllm.moe->decode_communication == "all-gather");
  CHECK(sglang.moe->prefill_communication == "forwarded");
  CHECK(sglang.moe->decode_communication == "direct");
  CHECK(sglang.moe->communication_sms == 20);  // DeepEP's library default, where DeepSeek's profile held 24
  // Their FP8 GEMMs: per-token scales on CUTLASS (vLLM, SGLang), per-tensor on cuBLASLt
  // (TensorRT-LLM); so SGLang and TensorRT-LLM differ on one layout's dense FP8 GEMMs.
  REQUIRE_FALSE(sglang.gemm_libraries.empty());
  REQUIRE_FALSE(trtllm.gemm_libraries.empty());
  CHECK(sglang.gemm_libraries.front() != trtllm.gemm_libraries.front());
  // CUDA graphs: vLLM's full and piecewise graphs up to 512, SGLang's decode graphs up to 256,
  // TensorRT-LLM's up to 128.
  CHECK(vllm.cuda_graph_max_batch == 512);
  CHECK(vllm.cuda_graph_prefill);
  CHECK(sglang.cuda_graph_max_batch == 256);
  CHECK_FALSE(sglang.cuda_graph_prefill);
  CHECK(trtllm.cuda_graph_max_batch == 128);
  // No engine: DeepSeek's own way (expert-parallel, its stage order) stays the deployment's.
  const auto& bare = engine_by_name("bare", "/deployment/engine");
  CHECK_FALSE(bare.moe.has_value());
  CHECK_FALSE(bare.two_batch_overlap_decode.has_value());
  CHECK(bare.gemm_libraries.empty());
  CHECK(bare.cuda_graph_max_batch == 0);
}

TEST_CASE("engine profiles: every figure names its row in the notes, or says it is an assumption", "[serving]") {
  for (const auto& [path, doc] : core::read_data_folder("engines"))
    for (const auto& [figure, source] : doc.at("sources").items()) {
      INFO(path << ": " << figure << ": " << source);
      const std::string text = source.get<std::string>();
      CHECK(
          (text.rfind("assumption", 0) == 0 || text.rfind("none", 0) == 0 || text.find("notes/") != std::string::npos));
    }
}
