#pragma once
// Lookup by name in a catalogue of named data (GPUs, nodes, models): one place for the names
// list and for the "unknown, did you mean" error.
#include <string>
#include <vector>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"

namespace core {

template <class T>
std::vector<std::string> names_of(const std::vector<T>& items) {
  std::vector<std::string> names;
  for (const auto& item : items) names.push_back(item.name);
  return names;
}

// `what` names the kind of thing in the error, e.g. "GPU"; `where` is the JSON pointer.
template <class T>
const T& find_by_name(const std::vector<T>& items, const std::string& name, const std::string& what,
                      const std::string& where) {
  for (const auto& item : items)
    if (item.name == name) return item;
  throw InputError(where, what + " '" + name + "' is unknown; " + allowed_list(name, names_of(items)));
}

}  // namespace core
