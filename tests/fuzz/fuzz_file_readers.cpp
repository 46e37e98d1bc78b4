// libFuzzer target for the two readers of files a user names by path, built once per reader
// (CODESIM_FUZZ_FILE_READER: 1, the cases of `codesim kernel --in`; 2, the shard logs of
// `codesim merge`, an input's 0xff byte splitting it into two shards). An input is the file's
// bytes. Reading must either give rows or raise core::InputError naming the file; any other
// exception, crash, leak, undefined behaviour or runaway allocation is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "studies/run/kernel_cases.hpp"
#include "studies/run/sweep.hpp"
#include "studies/run/sweep_runner.hpp"

namespace {

std::string scratch_file(int n) {
  return (std::filesystem::temp_directory_path() /
          ("codesim-fuzz-" + std::to_string(::getpid()) + "-" + std::to_string(n) + ".jsonl"))
      .string();
}

void write(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> paths;
  try {
#if CODESIM_FUZZ_FILE_READER == 1
    paths.push_back(scratch_file(0));
    write(paths[0], bytes);
    studies::estimate_kernel_file(paths[0], studies::KernelDefaults{});
#else
    const std::size_t split = bytes.find('\xff');
    paths.push_back(scratch_file(0));
    write(paths[0], bytes.substr(0, split));
    if (split != std::string::npos) {
      paths.push_back(scratch_file(1));
      write(paths[1], bytes.substr(split + 1));
    }
    studies::sweep_csv(studies::merge_sweep_logs(paths));  // merge's CSV reads every field of the rows
#endif
  } catch (const core::InputError&) {}
  for (const auto& path : paths) std::filesystem::remove(path);
  return 0;
}
