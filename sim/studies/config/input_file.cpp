#include "studies/config/input_file.hpp"

#include <filesystem>

namespace studies {

std::string resolve_input_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(path, ec) || fs::path(path).is_absolute()) return path;
  const fs::path shipped = fs::path(CODESIM_SOURCE_DIR) / path;
  return fs::exists(shipped, ec) ? shipped.string() : path;
}

}  // namespace studies
