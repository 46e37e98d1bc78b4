#pragma once
// The scenario's "model": a name from the catalogue ("deepseek-v3"), a model file of the
// catalogue's format ("my/model.json": {"display_name", "source", "huggingface_config": {...}}),
// the same inline, or a HuggingFace config.json ({"huggingface_config": "path/config.json"}, with
// an optional "name" the report calls it by; without one, the config's own name or its
// model_type and size). Models read from files live as long as the process, so a study may keep
// a pointer to them.
#include "core/json_reader.hpp"
#include "workload/model/model.hpp"

namespace studies {

const workload::Model& read_model(core::JsonReader& root, const std::string& key = "model");

}  // namespace studies
