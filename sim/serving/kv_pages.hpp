#pragma once
// How one sequence's KV cache takes a DP rank's pages. Layers that attend over the whole context
// take a page every `page_tokens` tokens; windowed layers (a sliding window, or a chunk of chunked
// attention) keep at most their window, so past it the page leaving the window is freed as the
// next is taken: they hold the window's pages and the one being filled (vLLM's hybrid KV cache
// manager). Layers are grouped by window into page groups of equal bytes, so one pool of pages
// serves them all; a model without windows is one group of all its layers, and a page is then
// `page_tokens` tokens of the whole model.
#include <algorithm>
#include <vector>

#include "workload/model/model.hpp"

namespace serving {

struct KvPages {
  struct Windowed {
    int window_tokens = 0;
    int groups = 0;              // page groups of layers with this window
    double bytes_per_token = 0;  // their KV per token, the whole model's share (all GPUs)
  };
  int full_groups = 1;                   // page groups of layers over the whole context
  std::vector<Windowed> windowed;        // by window, ascending
  double group_bytes_per_token_gpu = 0;  // one page group's KV per token on one GPU: a page is page_tokens of it
  double full_bytes_per_token = 0;       // layers over the whole context, per token (all GPUs)
  double full_bytes_per_token_gpu = 0;   // ... on one GPU
  double gpu_share = 1;                  // of a sequence's KV, what one GPU of its DP rank holds

  // Pages a sequence of `tokens` holds. (Inline where no layer is windowed: a fleet's decode
  // ranks ask at each page boundary, over a billion times a day.)
  long long pages(long long tokens, int page_tokens) const {
    const long long full = (tokens + page_tokens - 1) / page_tokens;
    return windowed.empty() ? full * full_groups : full * full_groups + windowed_pages(full, page_tokens);
  }
  // KV bytes of a sequence of `tokens`: the whole (what a transfer moves), or one GPU's share.
  double bytes(double tokens) const { return tokens * full_bytes_per_token + windowed_bytes(tokens); }
  double bytes_gpu(double tokens) const {
    return tokens * full_bytes_per_token_gpu + windowed_bytes(tokens) * gpu_share;
  }
  // The longest sequence a DP rank holds, its KV cache `group_tokens` tokens of one page group:
  // that many where no layer is windowed; else in whole pages (a large number where all are).
  long long longest_tokens(long long group_tokens, int page_tokens) const;

 private:
  long long windowed_pages(long long full, int page_tokens) const;
  double windowed_bytes(double tokens) const {
    double b = 0;
    for (const auto& w : windowed) b += std::min(tokens, double(w.window_tokens)) * w.bytes_per_token;
    return b;
  }
};

// The page layout of `model` (and of its MTP module's layer where `mtp`, over the whole context),
// its KV at `bytes_per_element`, one GPU holding `gpu_share` of a sequence's KV.
KvPages kv_pages(const workload::Model& model, bool mtp, double bytes_per_element, double gpu_share);

}  // namespace serving
