#include "studies/network/collective_query.hpp"

#include "core/input_error.hpp"
#include "studies/network/study_collective.hpp"

namespace studies {

const std::vector<std::string>& collective_names() {
  static const std::vector<std::string> names = {"all-to-all", "all-reduce", "all-gather", "reduce-scatter"};
  return names;
}

KernelEstimate estimate_collective(core::JsonReader& r, KernelCase& c) {
  const std::string kind = r.one_of("collective", collective_names());
  const long long ranks = r.positive_integer("ranks", 1 << 20);
  const double bytes = r.number_in("bytes", 1, 1e12);  // what a collective study sizes
  const std::string path = r.string("fabric");
  const nlohmann::json scenario = core::read_json_file(path);
  if (!scenario.is_object() || !scenario.contains("fabric") || !scenario["fabric"].is_object())
    throw core::InputError(r.pointer_of("fabric"),
                           "'" + path + "' has no /fabric object; give a scenario with a fabric of nodes (mpft, mrft)");
  nlohmann::json fabric = scenario["fabric"];
  const std::string fabric_kind = fabric.value("kind", "");
  if (fabric_kind != "mpft" && fabric_kind != "mrft")
    throw core::InputError(r.pointer_of("fabric"), "'" + path + "': /fabric/kind '" + fabric_kind +
                                                       "' is not allowed; a fabric of nodes (mpft, mrft)");
  const long long per_node = fabric.contains("gpus_per_node") && fabric["gpus_per_node"].is_number_integer()
                                 ? fabric["gpus_per_node"].get<long long>()
                                 : 8;
  if (per_node <= 0 || ranks % per_node != 0)
    throw core::InputError(r.pointer_of("ranks"), std::to_string(ranks) + " is not allowed; the fabric of '" + path +
                                                      "' has " + std::to_string(per_node) +
                                                      " GPUs per node, and the ranks fill whole nodes");
  fabric["nodes"] = ranks / per_node;
  fabric.erase("faults");
  nlohmann::json document = {{"fabric", fabric},
                             {"collective",
                              {{"kind", kind == "all-to-all"   ? "alltoall"
                                        : kind == "all-reduce" ? "allreduce"
                                        : kind == "all-gather" ? "allgather"
                                                               : "reducescatter"},
                               {"sizes_bytes", {bytes}}}}};
  core::JsonReader root(document, path + ": ");
  // The fabric file is the user's, the node count ours: a fabric too small for the ranks is the ranks' error.
  const auto study = [&] {
    try {
      return parse_collective_study(root);
    } catch (const core::InputError& e) {
      if (e.where() != path + ": /fabric/nodes") throw;
      const std::string why = std::string(e.what()).substr(e.where().size() + 2);
      throw core::InputError(
          r.pointer_of("ranks"),
          std::to_string(ranks) + " ranks (" + std::to_string(ranks / per_node) + " nodes) is not allowed on '" + path +
              "': " +
              why.substr(why.find("is not allowed; ") == std::string::npos ? 0 : why.find("is not allowed; ") + 16));
    }
  }();
  const StudyResult result = study->run({});
  KernelEstimate e;
  e.model = fabric_kind + " (" + path + ")";
  for (const auto& row : result.rows) {
    const std::string metric = row.id.substr(row.id.rfind('/') + 1);
    if (metric == "time") e.seconds = row.ours * 1e-6;
    if (metric == "algbw") e.rate = row.ours;
    if (metric == "busbw") e.terms.emplace_back("busbw_GBps", row.ours);
  }
  e.rate_unit = "GB/s";
  e.bound = "network";
  e.terms.emplace_back("nodes", static_cast<double>(ranks / per_node));
  e.terms.emplace_back("gpus_per_node", static_cast<double>(per_node));
  c.description = kind + " of " + format_number(bytes) + " bytes over " + std::to_string(ranks) + " ranks";
  if (c.family.empty()) c.family = "collective " + kind;
  return e;
}

}  // namespace studies
