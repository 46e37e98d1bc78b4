#include "serving/kv_pages.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include "workload/model/layer_cost.hpp"

namespace serving {

long long KvPages::windowed_pages(long long full, int page_tokens) const {
  long long p = 0;
  for (const auto& w : windowed)
    p += w.groups * std::min(full, (w.window_tokens + page_tokens - 1) / page_tokens + 1LL);
  return p;
}

long long KvPages::longest_tokens(long long group_tokens, int page_tokens) const {
  if (windowed.empty()) return group_tokens;  // a token takes a page group's bytes, page by page
  const long long pages_total = group_tokens / page_tokens;
  if (full_groups == 0)  // every layer windowed: past the widest window a sequence takes no more
    return pages(windowed.back().window_tokens + 2LL * page_tokens, page_tokens) <= pages_total
               ? std::numeric_limits<int>::max()
               : 0;
  // The most whole pages of context whose sequence fits (pages grow with the context).
  long long lo = 0, hi = pages_total / full_groups + 1;
  while (hi - lo > 1) {
    const long long mid = (lo + hi) / 2;
    (pages(mid * page_tokens, page_tokens) <= pages_total ? lo : hi) = mid;
  }
  return lo * page_tokens;
}

KvPages kv_pages(const workload::Model& model, bool mtp, double bytes_per_element, double gpu_share) {
  // Elements per token of each kind of layer: window 0 is the whole context (the MTP module's
  // layer among them).
  std::map<int, double> elements;
  const auto costs = workload::layer_costs(model);
  for (const auto& c : costs) elements[c.attention_window_tokens] += c.kv_cache_elements_per_token;
  if (mtp) elements[0] += costs.back().kv_cache_elements_per_token;
  // A page group is the largest number of elements every kind is a whole number of.
  long long group = 0;
  for (const auto& [window, e] : elements) group = std::gcd(group, std::llround(e));
  group = std::max(group, 1LL);
  KvPages p;
  p.full_groups = 0;
  p.gpu_share = gpu_share;
  for (const auto& [window, e] : elements) {
    const int groups = static_cast<int>(std::llround(e) / group);
    if (window == 0) {
      p.full_groups = groups;
      p.full_bytes_per_token = e * bytes_per_element;
      p.full_bytes_per_token_gpu = p.full_bytes_per_token * gpu_share;
    } else {
      p.windowed.push_back({window, groups, e * bytes_per_element});
    }
  }
  p.group_bytes_per_token_gpu = double(group) * bytes_per_element * gpu_share;
  return p;
}

}  // namespace serving
