#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "hw/attention_backend.hpp"
#include "hw/gemm_library.hpp"
#include "hw/memory_kernel.hpp"
#include "studies/run/kernel_cases.hpp"

using namespace studies;

namespace {

KernelRow ask(const std::string& kind, const nlohmann::json& fields, const KernelDefaults& d = {}) {
  return estimate_kernel(fields, "", kind, d);
}

double seconds(const std::string& kind, const nlohmann::json& fields) { return ask(kind, fields).estimate->seconds; }

std::string error_of(const std::string& kind, const nlohmann::json& fields) {
  try {
    ask(kind, fields);
  } catch (const core::InputError& e) { return e.what(); }
  return "";
}

}  // namespace

TEST_CASE("A GEMM query is the library's model at its fitted constants", "[kernels][query]") {
  const KernelRow row = ask("gemm", {{"m", 4096}, {"n", 7168}, {"k", 2048}, {"precision", "bf16"}});
  const hw::GemmLibrary& lib = hw::default_gemm_library(hw::GemmPrecision::kBf16, "H100");
  hw::GemmShape s;
  s.m = 4096, s.n = 7168, s.k = 2048, s.precision = hw::GemmPrecision::kBf16;
  const hw::Gpu& h100 = hw::gpu_by_name("H100", "");
  CHECK(row.estimate->model == lib.name);
  CHECK(row.estimate->seconds == hw::gemm_seconds(h100, s, h100.sm_count, lib.constants));
  CHECK(row.estimate->rate == Approx(s.flops() / row.estimate->seconds / 1e12));
  CHECK(row.estimate->bound == "compute");  // 4096 rows: the tensor cores
  // Fewer SMs, more waves, more time.
  CHECK(seconds("gemm", {{"m", 4096}, {"n", 7168}, {"k", 2048}, {"precision", "bf16"}, {"sms", 66}}) >
        row.estimate->seconds * 1.5);
}

TEST_CASE("A GEMM query refuses what the library cannot run, naming the field", "[kernels][query]") {
  CHECK(error_of("gemm", {{"m", 64}, {"n", 7168}, {"k", 100}}).rfind("/k: 100 is not allowed", 0) == 0);
  CHECK(error_of("gemm", {{"m", 64}, {"n", 7168}, {"k", 2048}, {"groups", 4}})
            .rfind("/groups: 4 is not allowed for a dense GEMM", 0) == 0);
  CHECK(error_of("gemm", {{"m", 64}, {"n", 7168}, {"k", 2048}, {"library", "cublas"}})
            .rfind("/library: GEMM library 'cublas' is unknown", 0) == 0);
  CHECK(error_of("gemm", {{"m", 64}, {"n", 7168}, {"k", 2048}, {"gpu", "A100"}})
            .rfind("/precision: 'fp8' is not allowed on A100", 0) == 0);
  CHECK(
      error_of("gemm",
               {{"m", 64}, {"n", 7168}, {"k", 2048}, {"gemm_kind", "weight-gradient"}, {"library", "deepgemm-2025-02"}})
          .find("no published weight-gradient GEMMs") != std::string::npos);
}

TEST_CASE("Attention queries: GQA, MLA's value dim, decode, forward and backward", "[kernels][query]") {
  const nlohmann::json prefill = {{"batch", 4}, {"heads", 16}, {"seq", 4096}, {"head_dim", 128}, {"causal", true}};
  // The forward+backward row is the two passes' sum; its FLOPs 3.5 times the forward's.
  nlohmann::json both = prefill;
  both["pass"] = "both";
  nlohmann::json backward = prefill;
  backward["pass"] = "backward";
  const KernelRow b = ask("attention", both);
  CHECK(b.estimate->seconds == Approx(seconds("attention", prefill) + seconds("attention", backward)));
  // Prefill is bound by the tensor cores: fewer KV heads barely matter.
  nlohmann::json gqa = prefill;
  gqa["kv_heads"] = 1;
  CHECK(seconds("attention", gqa) == Approx(seconds("attention", prefill)).epsilon(0.01));
  // MLA: a value head dim below the query/key one does less work.
  nlohmann::json mla = prefill;
  mla["head_dim"] = 192;
  nlohmann::json mla_v = mla;
  mla_v["v_head_dim"] = 128;
  CHECK(seconds("attention", mla_v) < seconds("attention", mla));
  // Decode with one query reads the KV cache: GQA's 8 KV heads read a quarter of 32, in a quarter of the time.
  const nlohmann::json decode = {{"batch", 64}, {"heads", 32}, {"q_len", 1}, {"kv_len", 8192}, {"head_dim", 128}};
  nlohmann::json decode_gqa = decode;
  decode_gqa["kv_heads"] = 8;
  const KernelRow d = ask("attention", decode_gqa);
  CHECK(d.estimate->bound == "memory");
  CHECK(d.estimate->seconds == Approx(seconds("attention", decode) / 4).epsilon(0.02));
  const hw::Gpu& h100 = hw::gpu_by_name("H100", "");
  const auto& fa3 = hw::flash_attention_3_on_hopper();
  const double kv_bytes = 2.0 * 64 * 8 * 8192 * 256;
  CHECK(d.estimate->seconds ==
        Approx(kv_bytes / (h100.hbm_bandwidth_Bps * fa3.hbm_Bps / fa3.measured_hbm_Bps)).epsilon(0.02));
}

TEST_CASE("Attention queries refuse what the backend cannot run", "[kernels][query]") {
  const nlohmann::json decode = {{"heads", 32}, {"kv_heads", 5}, {"q_len", 1}, {"kv_len", 64}, {"head_dim", 128}};
  CHECK(error_of("attention", decode).rfind("/kv_heads: 5 is not allowed", 0) == 0);
  CHECK(error_of("attention", {{"heads", 8}, {"kv_len", 64}, {"head_dim", 128}, {"backend", "cudnn"}})
            .rfind("/backend: attention backend 'cudnn' is unknown; allowed: cudnn-decode-hopper, fa2-ada, fa2-ampere, "
                   "fa2-decode-ampere, fa3, "
                   "fa4-blackwell, flashinfer-ada, flashinfer-ampere, flashinfer-decode-ada, flashinfer-decode-ampere, "
                   "flashmla, trtllm-decode-blackwell",
                   0) == 0);
  CHECK(error_of("attention", {{"heads", 8}, {"q_len", 128}, {"kv_len", 64}, {"head_dim", 128}, {"causal", true}})
            .rfind("/q_len: 128 is not allowed", 0) == 0);
  CHECK(error_of("attention",
                 {{"heads", 8}, {"kv_len", 64}, {"head_dim", 576}, {"backend", "flashmla"}, {"pass", "both"}})
            .rfind("/pass: 'forward+backward' is not allowed", 0) == 0);
}

TEST_CASE("A memory op is its kind's floor and HBM share, launch by launch", "[kernels][query]") {
  const hw::MemoryKernelModel& model = hw::hopper_memory_kernels();
  const double hbm = hw::gpu_by_name("H100", "").hbm_bandwidth_Bps;
  CHECK(seconds("memory", {{"op", "rmsnorm"}, {"tokens", 4096}, {"hidden", 7168}}) ==
        Approx(model.seconds(hw::MemoryKernelKind::kRowReduction, 4.0 * 4096 * 7168, hbm)));
  // Eager SiLU x mul: two launches moving 10 bytes per output element.
  CHECK(seconds("memory", {{"op", "silu-mul-eager"}, {"tokens", 16}, {"ffn", 2048}}) ==
        Approx(model.seconds(hw::MemoryKernelKind::kElementwise, 10.0 * 16 * 2048, hbm, 2)));
  CHECK(ask("memory", {{"op", "copy"}, {"bytes", 8192}}).estimate->bound == "launch");
  CHECK(error_of("memory", {{"op", "rmsnrm"}, {"bytes", 8192}}).find("did you mean 'rmsnorm'") != std::string::npos);
}

TEST_CASE("A file of measured kernels gets deltas; refused cases keep their rows", "[kernels][query]") {
  const std::string path = std::string(CODESIM_SOURCE_DIR) + "/tests/data/kernels/cases.jsonl";
  const auto rows = estimate_kernel_file(path, {});
  REQUIRE(rows.size() == 8);  // the env and the refused layout skipped
  CHECK(rows[0].c.family == "gemm bf16");
  CHECK(*rows[0].delta() == Approx(rows[0].estimate->seconds / 0.000168 - 1));
  CHECK_FALSE(rows[1].delta());  // no measured time
  CHECK(rows[5].error.find("cases.jsonl:7: /backend: attention backend 'cudnn' is unknown") != std::string::npos);
  KernelDefaults fa3;
  fa3.backend = "fa3";
  const auto with_fa3 = estimate_kernel_file(path, fa3);
  CHECK(with_fa3[5].error.empty());
  CHECK(with_fa3[5].c.family == "attention cudnn forward");  // the row's own backend names its family
  const auto summary = kernel_family_summary(rows);
  CHECK(summary.size() > 3);
  CHECK_THROWS_WITH(estimate_kernel_file(std::string(CODESIM_SOURCE_DIR) + "/tests/data/kernels/malformed.jsonl", {}),
                    Catch::Contains("malformed.jsonl:1: malformed JSON"));
}

TEST_CASE("A data folder that does not parse is refused, naming the file", "[kernels][data]") {
  const std::string bad = std::string(CODESIM_SOURCE_DIR) + "/tests/data/kernels/bad-data";
  CHECK_THROWS_WITH(core::add_data_dir(bad, "--data"), Catch::Contains("bad-data/gpus/broken.json: malformed JSON"));
  CHECK_THROWS_WITH(core::add_data_dir(bad + "/nothing", "--data"), Catch::StartsWith("--data: '"));
  CHECK(core::added_data_dirs().empty());
  CHECK(core::builtin_data_dir() == std::string(CODESIM_SOURCE_DIR) + "/data");  // not installed: the source tree's
  CHECK(hw::attention_backend_names() ==
        std::vector<std::string>{"cudnn-decode-hopper", "fa2-ada", "fa2-ampere", "fa2-decode-ampere", "fa3",
                                 "fa4-blackwell", "flashinfer-ada", "flashinfer-ampere", "flashinfer-decode-ada",
                                 "flashinfer-decode-ampere", "flashmla", "trtllm-decode-blackwell"});
}
