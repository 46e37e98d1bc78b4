#include "workload/model.hpp"

#include <algorithm>
#include <filesystem>

#include "core/catalogue.hpp"
#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "workload/huggingface_config.hpp"

namespace workload {

namespace {

// Every model in data/models/: {"display_name", "source", "huggingface_config": {...}}, named by
// its file, read once.
const std::vector<Model>& catalogue() {
  static const std::vector<Model> models = [] {
    namespace fs = std::filesystem;
    const fs::path dir = fs::path(CODESIM_SOURCE_DIR) / "data" / "models";
    std::vector<std::string> files;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec))
      if (entry.path().extension() == ".json") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    std::vector<Model> out;
    for (const auto& path : files) {
      const nlohmann::json doc = core::read_json_file(path);
      core::JsonReader r(doc, path + ": ");
      const std::string display_name = r.string("display_name");
      r.string("source");
      const nlohmann::json* config = r.raw("huggingface_config");
      if (!config) throw core::InputError(r.pointer_of("huggingface_config"), "missing; a model's data is its config.json");
      r.finish();
      Model m = model_from_huggingface_config(*config, path + ": /huggingface_config");
      m.name = fs::path(path).stem().string();
      m.display_name = display_name;
      out.push_back(std::move(m));
    }
    if (out.empty()) throw core::InputError(dir.string(), "holds no model (*.json); the source tree's data/ folder is missing");
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
