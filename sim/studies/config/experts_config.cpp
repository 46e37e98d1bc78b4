#include "studies/config/experts_config.hpp"

#include <filesystem>

#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "studies/config/input_file.hpp"

namespace studies {

namespace {

// The model's derived summary in data/expert_popularity/, for `phase`; null where none is shipped.
std::shared_ptr<const workload::ExpertPopularity> model_summary(const workload::Model& m, const std::string& phase,
                                                                const std::string& pointer) {
  for (const auto& [path, doc] : core::read_data_folder("expert_popularity"))
    if (doc.is_object() && doc.value("model", "") == m.name) {
      workload::ExpertPopularity p =
          workload::popularity_from_summary(doc, path, phase, m.moe_layer_count(), m.moe->routed_experts, 1, pointer);
      p.source = "data/expert_popularity/" + std::filesystem::path(path).filename().string() + ", " +
                 phase;  // not the machine's own path
      return std::make_shared<const workload::ExpertPopularity>(std::move(p));
    }
  return nullptr;
}

std::shared_ptr<const workload::ExpertPopularity> counts_file(const std::string& file, const workload::Model& m,
                                                              const std::string& pointer) {
  workload::ExpertPopularity p = workload::read_expert_counts(
      resolve_input_file(file), m.layers, m.layers - m.moe_layer_count(), m.moe->routed_experts, pointer);
  p.source = file;  // as the scenario names it
  return std::make_shared<const workload::ExpertPopularity>(std::move(p));
}

}  // namespace

ExpertsSpec parse_experts(core::JsonReader& u, const workload::Model& m, const std::string& phase, int routed_gpus,
                          const std::string& default_layout) {
  ExpertsSpec s;
  const std::vector<std::string> layouts = {"expert-parallel", "tensor-parallel"};
  std::optional<std::string> popularity, plan;
  std::string popularity_pointer = u.pointer_of("experts"), plan_pointer, window_pointer;
  if (u.has("experts") && u.raw("experts")->is_object()) {
    core::JsonReader e = u.object("experts");
    s.tensor_parallel =
        e.one_of("parallel", layouts, e.has("tp") ? "expert-parallel" : default_layout) == "tensor-parallel";
    if (s.tensor_parallel) s.tp = routed_gpus;
    if (e.has("tp")) {
      s.tp = static_cast<int>(e.positive_integer("tp", routed_gpus));
      if (routed_gpus % s.tp != 0)
        throw core::InputError(e.pointer_of("tp"), std::to_string(s.tp) + " does not divide the unit's " +
                                                       std::to_string(routed_gpus) +
                                                       " routed-expert GPUs: expert TP x EP must equal them");
      if (e.has("parallel") && !s.tensor_parallel && s.tp > 1)
        throw core::InputError(
            e.pointer_of("tp"),
            std::to_string(s.tp) +
                " is not allowed with /parallel 'expert-parallel' (whole experts); leave out /parallel");
      s.tensor_parallel = s.tp > 1;
    }
    popularity = e.optional_string("popularity");
    popularity_pointer = e.pointer_of("popularity");
    plan = e.optional_string("eplb_plan");
    plan_pointer = e.pointer_of("eplb_plan");
    s.eplb_window_tokens = static_cast<int>(e.non_negative_integer("eplb_window_tokens", 0, 1 << 20));
    window_pointer = e.pointer_of("eplb_window_tokens");
    e.finish();
  } else {
    s.tensor_parallel = u.one_of("experts", layouts, default_layout) == "tensor-parallel";
    if (s.tensor_parallel) s.tp = routed_gpus;
  }
  if (!popularity)
    s.popularity = model_summary(m, phase, popularity_pointer);
  else if (*popularity != "uniform")
    s.popularity = counts_file(*popularity, m, popularity_pointer);
  for (const auto& [given, pointer] :
       {std::pair{plan.has_value(), plan_pointer}, std::pair{s.eplb_window_tokens > 0, window_pointer}})
    if (given && !s.popularity)
      throw core::InputError(pointer, "is for a measured popularity; the unit's experts' popularity is uniform");
  if (plan) s.eplb_plan = counts_file(*plan, m, plan_pointer);
  return s;
}

}  // namespace studies
