#pragma once
// Suggests the closest allowed name for a misspelt key or value (Levenshtein distance).
#include <string>
#include <vector>

namespace core {

std::size_t edit_distance(const std::string& a, const std::string& b);

// The closest candidate, or "" when none is close enough to be a plausible typo.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

// "one of a, b, c" plus ", did you mean 'x'?" when a candidate is close.
std::string allowed_list(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace core
