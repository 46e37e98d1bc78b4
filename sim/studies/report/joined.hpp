#pragma once
// A list of names as one line of text ("a, b, c"), for messages and notes.
#include <string>
#include <vector>

namespace studies {

inline std::string joined(const std::vector<std::string>& items, const std::string& separator) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

}  // namespace studies
