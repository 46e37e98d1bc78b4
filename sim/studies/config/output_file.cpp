#include "studies/config/output_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/input_error.hpp"

namespace studies {

namespace fs = std::filesystem;

namespace {

// `content` written whole into `file`; an error naming `path` (what the user gave) where it cannot be.
void write_whole(const std::string& file, const std::string& path, const std::string& content) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (!out) throw core::InputError(path, std::string("cannot write the file: ") + std::strerror(errno));
  out << content;
  out.flush();
  if (!out) throw core::InputError(path, "cannot write the file: the write failed");
}

// The temporary file being written, for a signal's handler to remove: a fixed buffer, as all a
// handler may do is read it and unlink.
char g_temporary[4096] = "";

void remove_temporary_and_stop(int signal) {
  if (g_temporary[0] != '\0') ::unlink(g_temporary);
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

// Names the temporary for the handler while it lives.
class TemporaryInWriting {
 public:
  explicit TemporaryInWriting(const std::string& path) {
    if (path.size() < sizeof g_temporary) std::memcpy(g_temporary, path.c_str(), path.size() + 1);
  }
  ~TemporaryInWriting() { g_temporary[0] = '\0'; }
  TemporaryInWriting(const TemporaryInWriting&) = delete;
  TemporaryInWriting& operator=(const TemporaryInWriting&) = delete;
};

}  // namespace

void remove_temporaries_on_signals() {
  for (const int signal : {SIGINT, SIGTERM, SIGHUP}) std::signal(signal, remove_temporary_and_stop);
}

void write_file_atomically(const std::string& path, const std::string& content) {
  // A device, a pipe or a terminal (/dev/stdout, /dev/null) is written as it is: a file renamed
  // over it would replace it.
  std::error_code status_error;
  const auto status = fs::status(path, status_error);
  if (!status_error && fs::exists(status) && !fs::is_regular_file(status)) return write_whole(path, path, content);
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  const TemporaryInWriting in_writing(temporary);
  try {
    write_whole(temporary, path, content);
  } catch (const core::InputError&) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw;
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temporary, ignored);
    throw core::InputError(path, "cannot write the file: " + ec.message());
  }
}

void check_writable_file(const std::string& path) {
  const fs::path p(path);
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw core::InputError(path, "cannot write the file: folder '" + dir.string() + "' does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw core::InputError(path, "cannot write the file: folder '" + dir.string() + "' is not writable");
  if (fs::is_directory(p, ec)) throw core::InputError(path, "cannot write the file: it is a folder");
}

void check_writable_dir(const std::string& dir) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw core::InputError(dir, "cannot write output: not a folder");
  if (!fs::exists(dir, ec) && !fs::create_directories(dir, ec))
    throw core::InputError(dir, "cannot create the output folder: " + ec.message());
  if (::access(dir.c_str(), W_OK) != 0) throw core::InputError(dir, "cannot write output: the folder is not writable");
}

}  // namespace studies
