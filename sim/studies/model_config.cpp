#include "studies/model_config.hpp"

#include <deque>
#include <map>

#include "core/input_error.hpp"
#include "studies/input_file.hpp"
#include "workload/huggingface_config.hpp"

namespace studies {

const workload::Model& read_model(core::JsonReader& root, const std::string& key) {
  const nlohmann::json* value = root.raw(key);
  if (value && value->is_object()) {
    core::JsonReader m(*value, root.pointer_of(key));
    const std::string path = resolve_input_file(m.string("huggingface_config"));
    m.finish();
    static std::map<std::string, const workload::Model*> loaded;  // by path: each file read once
    static std::deque<workload::Model> models;                    // stable addresses
    if (auto it = loaded.find(path); it != loaded.end()) return *it->second;
    models.push_back(workload::read_huggingface_config(path));
    return *(loaded[path] = &models.back());
  }
  return workload::model_by_name(root.one_of(key, workload::model_names()), root.pointer_of(key));
}

}  // namespace studies
