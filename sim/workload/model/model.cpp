#include "workload/model/model.hpp"

#include <filesystem>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "workload/model/huggingface_config.hpp"

namespace workload {

int Model::moe_layer_count() const {
  int n = 0;
  for (int l = 0; l < layers; ++l) n += is_moe_layer(l) ? 1 : 0;
  return n;
}

Model model_from_data(const nlohmann::json& doc, const std::string& where, const std::string& name) {
  core::JsonReader r(doc, where);
  const std::string display_name = r.string("display_name");
  r.string("source");
  const nlohmann::json* config = r.raw("huggingface_config");
  if (!config) throw core::InputError(r.pointer_of("huggingface_config"), "missing; a model's data is its config.json");
  r.finish();
  Model m = model_from_huggingface_config(*config, r.pointer_of("huggingface_config"));
  m.name = name;
  m.display_name = display_name;
  return m;
}

namespace {

// Every model in data/models/, named by its file, read once.
const std::vector<Model>& model_catalogue() {
  static const std::vector<Model> models = [] {
    std::vector<Model> out;
    for (const auto& [path, doc] : core::read_data_folder("models"))
      out.push_back(model_from_data(doc, path + ": ", std::filesystem::path(path).stem().string()));
    return out;
  }();
  return models;
}

}  // namespace

std::vector<std::string> model_names() { return core::names_of(model_catalogue()); }

const Model& model_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(model_catalogue(), name, "model", where);
}

}  // namespace workload
