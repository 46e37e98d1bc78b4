#pragma once
// Writes output files whole or not at all: content goes to a temporary file beside the target,
// which is renamed over it once complete, so a failure never leaves half a file behind.
#include <string>

namespace studies {

// Throws InputError naming the path when the file cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

// A program that may be stopped by a signal (Ctrl-C) while it writes calls this once: the
// temporary file then goes with it.
void remove_temporaries_on_signals();

// Fails early, before any work, when `path` could not be created (its folder is missing or
// not writable).
void check_writable_file(const std::string& path);
void check_writable_dir(const std::string& dir);  // creates it when missing

}  // namespace studies
