#include "studies/config/model_config.hpp"

#include <deque>
#include <filesystem>
#include <functional>
#include <map>

#include "core/input_error.hpp"
#include "studies/config/input_file.hpp"
#include "workload/model/huggingface_config.hpp"

namespace studies {

namespace {

// Models read from files or defined inline, kept for the process: by file path, or by the text
// of the inline definition.
const workload::Model& keep(const std::string& key, const std::function<workload::Model()>& read) {
  static std::map<std::string, const workload::Model*> loaded;
  static std::deque<workload::Model> models;  // stable addresses
  if (auto it = loaded.find(key); it != loaded.end()) return *it->second;
  models.push_back(read());
  return *(loaded[key] = &models.back());
}

}  // namespace

const workload::Model& read_model(core::JsonReader& root, const std::string& key) {
  const nlohmann::json* value = root.raw(key);
  const std::string where = root.pointer_of(key);
  if (value && value->is_object()) {
    const nlohmann::json* config = value->contains("huggingface_config") ? &value->at("huggingface_config") : nullptr;
    const auto name = value->find("name");
    const bool named = name != value->end();
    if (config && config->is_string() &&
        value->size() == (named ? 2u : 1u)) {  // {"huggingface_config": "path/config.json", "name"?}
      core::JsonReader model(*value, where);
      model.string("huggingface_config");
      const auto display_name = model.optional_string("name");
      if (display_name && display_name->empty())
        throw core::InputError(model.pointer_of("name"), "is empty; expected the model's name");
      const std::string path = resolve_input_file(config->get<std::string>());
      return keep(path + "\n" + display_name.value_or(""), [&] {
        workload::Model m = workload::read_huggingface_config(path);
        if (display_name) m.name = m.display_name = *display_name;  // the scenario's name for it, over the config's
        return m;
      });
    }
    // Inline, as data/models/ holds a model.
    return keep(value->dump(), [&] { return workload::model_from_data(*value, where, "inline"); });
  }
  if (value && value->is_string() && std::filesystem::path(value->get<std::string>()).extension() == ".json") {
    const std::string path = resolve_input_file(value->get<std::string>());  // a model file of our own
    return keep(path, [&] {
      return workload::model_from_data(core::read_json_file(path), path + ": ",
                                       std::filesystem::path(path).stem().string());
    });
  }
  return workload::model_by_name(root.one_of(key, workload::model_names()), where);
}

}  // namespace studies
