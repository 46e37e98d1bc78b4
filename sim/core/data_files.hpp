#pragma once
// The data files under data/ (GPUs, nodes, models): one JSON object a file, read in file-name
// order, each figure with its source in a "sources" object beside it.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/json_reader.hpp"

namespace core {

// data/<folder>/*.json of the source tree, as (path, document), sorted by path; InputError
// naming the folder when it holds none.
std::vector<std::pair<std::string, nlohmann::json>> read_data_folder(const std::string& folder);

// Reads the "sources" object and refuses a file where one of `figures` has no source, or a
// source names a field that is not a figure.
void require_sources(JsonReader& file, const std::vector<std::string>& figures);

}  // namespace core
