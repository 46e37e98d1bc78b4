#include <catch2/catch.hpp>

#include "hw/gpu.hpp"
#include "serving/gpu_memory.hpp"
#include "serving/kv_pages.hpp"
#include "workload/model/model.hpp"

using serving::kv_pages;

namespace {

// LLaMA-3.1-8B's shapes (32 layers, 8 KV heads of 128: 2,048 K and V elements a token and layer)
// with the last `windowed` layers keeping only `window` tokens.
workload::Model with_windows(int windowed, int window) {
  workload::Model m = workload::model_by_name("llama-3.1-8b");
  m.attention_window_tokens.assign(static_cast<std::size_t>(m.layers), 0);
  for (int i = m.layers - windowed; i < m.layers; ++i) m.attention_window_tokens[static_cast<std::size_t>(i)] = window;
  return m;
}

}  // namespace

TEST_CASE("kv pages: without windows a sequence takes a page every page_tokens tokens", "[serving]") {
  const auto p = kv_pages(workload::model_by_name("llama-3.1-8b"), false, 2, 0.5);
  CHECK(p.full_groups == 1);
  CHECK(p.windowed.empty());
  CHECK(p.pages(1, 16) == 1);
  CHECK(p.pages(16, 16) == 1);
  CHECK(p.pages(17, 16) == 2);
  CHECK(p.group_bytes_per_token_gpu == 32 * 2048 * 2 * 0.5);
  CHECK(p.bytes(1000) == Approx(1000.0 * 32 * 2048 * 2));
  CHECK(p.bytes_gpu(1000) == Approx(p.bytes(1000) * 0.5));
  // Capacity is counted in tokens, as before pages existed.
  CHECK(p.longest_tokens(12345, 16) == 12345);
}

TEST_CASE("kv pages: windowed layers hold their window's pages and the one being filled", "[serving]") {
  // 8 full layers and 24 windowed: page groups of 8 layers, one full and three windowed.
  const auto p = kv_pages(with_windows(24, 1000), false, 2, 1);
  CHECK(p.full_groups == 1);
  REQUIRE(p.windowed.size() == 1);
  CHECK(p.windowed[0].groups == 3);
  CHECK(p.windowed[0].window_tokens == 1000);
  CHECK(p.group_bytes_per_token_gpu == 8 * 2048 * 2);
  // Below the window every group grows alike: 10 pages of context, 4 groups.
  CHECK(p.pages(160, 16) == 40);
  // Past it the windowed groups stay at ceil(1000 / 16) + 1 = 64 pages each.
  CHECK(p.pages(1600, 16) == 100 + 3 * 64);
  CHECK(p.pages(16000, 16) == 1000 + 3 * 64);
  // A transfer moves the window of the windowed layers only.
  CHECK(p.bytes(1600) == Approx(1600.0 * 8 * 4096 + 1000.0 * 24 * 4096));
  // 292 pages hold 1,600 tokens and not one page more; the MTP layer, where loaded, counts as full.
  CHECK(p.longest_tokens(292 * 16, 16) == 1600);
  CHECK(p.longest_tokens(292 * 16 - 1, 16) == 1584);
  const auto mtp = kv_pages(with_windows(24, 1000), true, 2, 1);
  CHECK(mtp.full_groups == 3);  // 9 full layers and 24 windowed: groups of 3
  CHECK(mtp.windowed[0].groups == 8);
}

TEST_CASE("kv pages: where every layer is windowed a sequence of any length fits once its window does", "[serving]") {
  const auto p = kv_pages(with_windows(32, 4096), false, 2, 1);
  CHECK(p.full_groups == 0);
  CHECK(p.pages(100000, 16) == 257);
  CHECK(p.longest_tokens(257 * 16, 16) > 1000000);
  CHECK(p.longest_tokens(256 * 16, 16) == 0);
}

TEST_CASE("kv pages: Gemma 3 27B on one H100 holds a sequence of about six times the tokens its bytes a token allow",
          "[serving]") {
  serving::MemoryInput in;
  in.max_step_tokens = 8192;
  in.weights = hw::GemmPrecision::kBf16;
  in.page_tokens = 16;
  workload::ServingDeployment d;
  d.gpus = 1;
  d.attention_tp = 1;
  const auto& gemma = workload::model_by_name("gemma-3-27b");
  const auto p = serving::plan_memory(gemma, hw::gpu_by_name("H100"), d, in);
  // 62 layers (10 full, 52 of 1,024-token windows), 16 KV heads of 128: page groups of 2 layers.
  CHECK(p.kv_pages.full_groups == 5);
  REQUIRE(p.kv_pages.windowed.size() == 1);
  CHECK(p.kv_pages.windowed[0].groups == 26);
  CHECK(p.kv_bytes_per_token_gpu == 62.0 * 16 * 128 * 2 * 2);
  // Counted as if every layer kept the whole context, the same bytes hold kv_bytes / 508 KB tokens.
  const double whole_context = p.kv_bytes / p.kv_bytes_per_token_gpu;
  CHECK(double(p.kv_tokens) > 5.5 * whole_context);
  CHECK(double(p.kv_tokens) < 62.0 / 10 * whole_context);
}

TEST_CASE("memory: a pipeline stage holds its layers' weights and one of the embedding and the LM head", "[serving]") {
  serving::MemoryInput in;
  in.max_step_tokens = 8192;
  workload::ServingDeployment d;
  d.gpus = 8;
  d.attention_tp = 8;
  const auto& llama = workload::model_by_name("llama-3.1-70b");
  const auto& h100 = hw::gpu_by_name("H100");
  const auto one = serving::plan_memory(llama, h100, d, in);
  d.pipeline_stages = 2;
  const auto two = serving::plan_memory(llama, h100, d, in);
  const double vocab_matrix = double(llama.vocab) * llama.hidden / 8 * 2;  // BF16, over TP8
  CHECK(two.weight_bytes == Approx((one.weight_bytes - 2 * vocab_matrix) / 2 + vocab_matrix));
  // A token's KV on a GPU is counted over all layers: a stage holds half the layers of twice the
  // tokens, two batches in flight, each with the capacity one rank had at the same free memory.
  CHECK(two.kv_bytes_per_token_gpu == one.kv_bytes_per_token_gpu);
  CHECK(two.kv_tokens > one.kv_tokens);
}
