#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/input_error.hpp"
#include "studies/config/output_file.hpp"

namespace fs = std::filesystem;

TEST_CASE("output files: a regular file is replaced whole, a device is written as it is", "[config]") {
  const fs::path dir = fs::temp_directory_path() / "codesim-output-file-test";
  fs::create_directories(dir);
  const std::string path = (dir / "out.csv").string();
  studies::write_file_atomically(path, "a,b\n1,2\n");
  studies::write_file_atomically(path, "c\n");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  CHECK(text.str() == "c\n");
  fs::remove_all(dir);
  // Renaming a file over /dev/null would replace the device (as root, for every program after).
  if (fs::is_character_file("/dev/null")) {
    studies::write_file_atomically("/dev/null", "x\n");
    CHECK(fs::is_character_file("/dev/null"));
  }
  // A write that fails is an error naming the file, not a silent loss.
  if (fs::is_character_file("/dev/full")) {
    CHECK_THROWS_AS(studies::write_file_atomically("/dev/full", "x\n"), core::InputError);
    CHECK(fs::is_character_file("/dev/full"));
  }
}
