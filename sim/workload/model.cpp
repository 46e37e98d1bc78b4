#include "workload/model.hpp"

#include <filesystem>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "workload/huggingface_config.hpp"

namespace workload {

namespace {

// Every model in data/models/: {"display_name", "source", "huggingface_config": {...}}, named by
// its file, read once.
const std::vector<Model>& catalogue() {
  static const std::vector<Model> models = [] {
    std::vector<Model> out;
    for (const auto& [path, doc] : core::read_data_folder("models")) {
      core::JsonReader r(doc, path + ": ");
      const std::string display_name = r.string("display_name");
      r.string("source");
      const nlohmann::json* config = r.raw("huggingface_config");
      if (!config) throw core::InputError(r.pointer_of("huggingface_config"), "missing; a model's data is its config.json");
      r.finish();
      Model m = model_from_huggingface_config(*config, path + ": /huggingface_config");
      m.name = std::filesystem::path(path).stem().string();
      m.display_name = display_name;
      out.push_back(std::move(m));
    }
    return out;
  }();
  return models;
}

}  // namespace

std::vector<std::string> model_names() { return core::names_of(catalogue()); }

const Model& model_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(catalogue(), name, "model", where);
}

}  // namespace workload
