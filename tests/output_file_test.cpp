#include <catch2/catch.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
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

TEST_CASE("output files: a signal while a file is written takes its temporary with it", "[config]") {
  const fs::path dir = fs::temp_directory_path() / ("codesim-output-signal-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "requests.csv").string();
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // The temporary is a FIFO with no reader: the write blocks in it until the signal comes.
    studies::remove_temporaries_on_signals();
    const std::string temporary = path + ".tmp." + std::to_string(::getpid());
    if (::mkfifo(temporary.c_str(), 0600) != 0) ::_exit(3);
    studies::write_file_atomically(path, "never written\n");
    ::_exit(4);
  }
  const std::string temporary = path + ".tmp." + std::to_string(child);
  for (int i = 0; i < 200 && !fs::exists(temporary); ++i) ::usleep(10000);
  REQUIRE(fs::exists(temporary));
  ::usleep(100000);  // into the write's open
  ::kill(child, SIGINT);
  int status = 0;
  ::waitpid(child, &status, 0);
  CHECK(WIFSIGNALED(status));
  CHECK(WTERMSIG(status) == SIGINT);
  CHECK_FALSE(fs::exists(temporary));
  CHECK_FALSE(fs::exists(path));
  fs::remove_all(dir);
}
