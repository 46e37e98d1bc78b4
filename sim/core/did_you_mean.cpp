#include "core/did_you_mean.hpp"

#include <algorithm>
#include <numeric>

namespace core {

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& candidate : candidates) {
    const std::size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string allowed_list(const std::string& word, const std::vector<std::string>& candidates) {
  std::string text = "allowed: ";
  for (std::size_t i = 0; i < candidates.size(); ++i) text += (i ? ", " : "") + candidates[i];
  if (const std::string guess = closest_match(word, candidates); !guess.empty())
    text += "; did you mean '" + guess + "'?";
  return text;
}

}  // namespace core
