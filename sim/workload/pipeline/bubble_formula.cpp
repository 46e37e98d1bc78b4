#include "workload/pipeline/bubble_formula.hpp"

namespace workload {

std::optional<double> balanced_bubble_s(const std::string& kind, int ranks, const PassTimes& t) {
  const double F = t.forward_s, B = t.backward_s, W = t.weight_s, FB = t.overlapped_s;
  if (kind == "1f1b" || kind == "1f1b-interleaved") return (ranks - 1) * (F + B);
  if (kind == "zb1p") return (ranks - 1) * (F + B - 2 * W);
  if (kind == "dualpipe") return (ranks / 2 - 1) * (FB + B - 3 * W);
  if (kind == "dualpipev") return (ranks - 1) * (FB + B - 3 * W);  // 2 x ranks stages
  return std::nullopt;
}

}  // namespace workload
