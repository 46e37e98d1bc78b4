#include "studies/config/overrides.hpp"

#include "core/input_error.hpp"
#include "core/json_reader.hpp"

namespace studies {

void apply_override(nlohmann::json& document, const std::string& assignment) {
  // Everything below ends up in JSON and in messages: refuse bytes that are not UTF-8 first.
  try {
    (void)nlohmann::json(assignment).dump();
  } catch (const nlohmann::json::type_error&) {
    throw core::InputError("--set", "the assignment is not valid UTF-8 text");
  }
  const std::string where = "--set " + assignment;
  const auto equals = assignment.find('=');
  if (assignment.empty() || assignment[0] != '/' || equals == std::string::npos)
    throw core::InputError(where, "expected /json/pointer=VALUE, e.g. /cluster/scale_out_bandwidth_Bps=100e9");
  const std::string pointer_text = assignment.substr(0, equals);
  const std::string value_text = assignment.substr(equals + 1);
  nlohmann::json::json_pointer pointer;
  try {
    pointer = nlohmann::json::json_pointer(pointer_text);
  } catch (const nlohmann::json::exception&) {
    throw core::InputError(where, "'" + pointer_text + "' is not a valid JSON pointer (RFC 6901)");
  }
  core::check_json_text(value_text, where);
  nlohmann::json value = nlohmann::json::parse(value_text, nullptr, /*allow_exceptions=*/false);
  if (value.is_discarded()) value = value_text;

  const auto parent = pointer.parent_pointer();
  if (!document.contains(parent))
    throw core::InputError(where,
                           "'" + parent.to_string() + "' does not exist in the scenario; only a leaf can be added");
  auto& container = document[parent];
  if (container.is_object()) {
    container[pointer.back()] = std::move(value);
  } else if (container.is_array()) {
    const std::string& token = pointer.back();
    std::size_t index = 0;
    const bool numeric = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos &&
                         token.size() < 10 && (index = std::stoul(token)) < container.size();
    if (!numeric)
      throw core::InputError(where, "'" + token + "' is not an index of " + parent.to_string() + " (0 to " +
                                        std::to_string(container.size()) + " exclusive)");
    container[index] = std::move(value);
  } else {
    throw core::InputError(where,
                           "'" + parent.to_string() + "' is " + core::describe(container) + ", which has no fields");
  }
}

void apply_overrides(nlohmann::json& document, const std::vector<std::string>& assignments) {
  for (const auto& a : assignments) apply_override(document, a);
}

}  // namespace studies
