#include "workload/moe/routing_file.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "core/json_reader.hpp"

namespace workload {

Routing read_routing_file(const std::string& path, int experts, int top_k) {
  const nlohmann::json doc = core::read_json_file(path);
  auto fail = [&](const std::string& pointer, const std::string& what) {
    throw core::InputError(path + ": " + pointer, what);
  };
  if (!doc.is_object())
    fail("/", core::describe(doc) + " is not allowed; expected {\"experts\", \"top_k\", \"tokens\"}");
  for (const auto& [key, value] : doc.items())
    if (key != "experts" && key != "top_k" && key != "tokens" && key != "weights")
      fail("/" + key, "unknown key; allowed: experts, top_k, tokens, weights");
  auto integer = [&](const char* key) {
    if (!doc.contains(key) || !doc[key].is_number_integer())
      fail(std::string("/") + key, "is missing or not an integer");
    return doc[key].get<long long>();
  };
  if (integer("experts") != experts)
    fail("/experts", std::to_string(integer("experts")) + " does not match the model's " + std::to_string(experts) +
                         " routed experts");
  if (integer("top_k") != top_k)
    fail("/top_k", std::to_string(integer("top_k")) + " does not match the gate's top-" + std::to_string(top_k));
  if (!doc.contains("tokens") || !doc["tokens"].is_array() || doc["tokens"].empty())
    fail("/tokens", "is missing or empty; expected an array with one array of expert ids per token");
  const auto& tokens = doc["tokens"];
  if (tokens.size() > (1u << 20)) fail("/tokens", std::to_string(tokens.size()) + " tokens is more than 1,048,576");
  const nlohmann::json* weights = doc.contains("weights") ? &doc["weights"] : nullptr;
  if (weights && (!weights->is_array() || weights->size() != tokens.size()))
    fail("/weights", "does not have one row per token (" + std::to_string(tokens.size()) + ")");
  Routing r;
  r.tokens = static_cast<int>(tokens.size());
  r.top_k = top_k;
  r.experts.reserve(tokens.size() * static_cast<std::size_t>(top_k));
  r.weights.reserve(r.experts.capacity());
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const std::string at = "/tokens/" + std::to_string(t);
    const auto& row = tokens[t];
    if (!row.is_array() || row.size() != static_cast<std::size_t>(top_k))
      fail(at, core::describe(row) + " is not allowed; expected " + std::to_string(top_k) + " expert ids");
    std::vector<int> seen;
    for (std::size_t k = 0; k < row.size(); ++k) {
      if (!row[k].is_number_integer() || row[k].get<long long>() < 0 || row[k].get<long long>() >= experts)
        fail(at + "/" + std::to_string(k),
             core::describe(row[k]) + " is not an expert id from 0 to " + std::to_string(experts - 1));
      const int e = row[k].get<int>();
      if (std::find(seen.begin(), seen.end(), e) != seen.end())
        fail(at + "/" + std::to_string(k), "expert " + std::to_string(e) + " appears twice");
      seen.push_back(e);
      r.experts.push_back(e);
      float w = 1.0f / static_cast<float>(top_k);
      if (weights) {
        const auto& wr = (*weights)[t];
        if (!wr.is_array() || wr.size() != row.size() || !wr[k].is_number())
          fail("/weights/" + std::to_string(t), "does not match its token's " + std::to_string(top_k) + " experts");
        w = wr[k].get<float>();
      }
      r.weights.push_back(w);
    }
  }
  return r;
}

}  // namespace workload
