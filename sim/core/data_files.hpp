#pragma once
// The data files under data/ (GPUs, nodes, models, kernel libraries): one JSON object a file,
// each figure with its source in a "sources" object beside it. Folders added by the user
// (`--data DIR`, CODESIM_DATA) are searched before the built-in one: a file of theirs adds to a
// catalogue, or replaces the built-in file of the same name. The built-in folder is the one
// installed beside the program (PREFIX/share/codesim/data), else the source tree's data/.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/json_reader.hpp"

namespace core {

// data/<folder>/*.json from every data folder, as (path, document): the added folders' files
// first (in the order the folders were added, each sorted by name), then the built-in ones that
// no added file of the same name replaces. InputError naming the folder when none holds a file.
std::vector<std::pair<std::string, nlohmann::json>> read_data_folder(const std::string& folder);
// Those files in the order a catalogue reads them where a file may hold constants from another's
// fit (`held_constants`): every file that holds none first, then those that do, each in order.
std::vector<const std::pair<std::string, nlohmann::json>*> holders_last(
    const std::vector<std::pair<std::string, nlohmann::json>>& files);

// Adds a folder searched before the built-in one, after those added earlier. Each of its
// <folder>/*.json files is parsed at once, so a file that does not parse is refused here, naming
// it; `where` names the folder's origin ("--data", "CODESIM_DATA"). The catalogues read their
// folders once, at first use: add folders before.
void add_data_dir(const std::string& dir, const std::string& where);
// The folders of CODESIM_DATA (separated by ':'), when it is set.
void add_data_dirs_from_environment();
const std::vector<std::string>& added_data_dirs();

// The built-in data folder: shipped_dir("data").
std::string builtin_data_dir();
// A folder of shipped files ("data", "scenarios"): PREFIX/share/codesim/<name> where codesim is
// installed (PREFIX: the program's folder's parent, or the one set below), else the source
// tree's.
std::string shipped_dir(const std::string& name);
// Where the package found itself installed (the Python module sets it: its prefix is not the
// interpreter's executable's).
void set_install_prefix(const std::string& prefix);

// Reads the "sources" object and refuses a file where one of `figures` has no source, or a
// source names a field that is not a figure.
void require_sources(JsonReader& file, const std::vector<std::string>& figures);

}  // namespace core
