// codesim sweep SWEEP.json --out FILE [--jobs N] [--shard i/N] and codesim merge --out FILE SHARDS...
//
// Points run in worker processes (each simulation already forks, and a process per worker keeps
// SimGrid and the allocator single-threaded). Every finished point is appended to a JSON Lines
// log (FILE itself, or FILE's .jsonl twin for a .csv) as one line written by one write(2) under
// an exclusive lock: killing the sweep at any moment loses no finished point and leaves at most
// one partial line, which the next run cuts off before it skips the points already logged. A
// CSV is rewritten whole from the log when the sweep ends (its columns are the union of every
// point's inputs and metrics, which differ between points).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "core/progress_bar.hpp"
#include "studies/output_file.hpp"
#include "studies/report.hpp"
#include "studies/sweep.hpp"

namespace cli {

namespace {

bool is_csv(const std::string& path) { return std::filesystem::path(path).extension() == ".csv"; }

// The complete lines of an output file; a trailing partial line (a killed write) is cut off.
std::vector<std::string> complete_lines(const std::string& path, bool truncate_partial) {
  std::vector<std::string> lines;
  std::ifstream in(path, std::ios::binary);
  if (!in) return lines;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t start = 0, end;
  while ((end = text.find('\n', start)) != std::string::npos) {
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (start < text.size() && truncate_partial) std::filesystem::resize_file(path, start);
  return lines;
}

// A finished row, parsed, with its point index; nullopt for anything else.
std::optional<std::pair<std::size_t, nlohmann::json>> parse_row(const std::string& line) {
  try {
    auto row = nlohmann::json::parse(line);
    const auto point = row.at("point").get<std::size_t>();
    return std::pair{point, std::move(row)};
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The finished rows of a log, sorted by point, first of each point kept.
std::vector<nlohmann::json> read_rows(const std::string& path) {
  std::map<std::size_t, nlohmann::json> rows;
  for (const auto& line : complete_lines(path, false))
    if (auto row = parse_row(line)) rows.emplace(row->first, std::move(row->second));
  std::vector<nlohmann::json> out;
  for (auto& [point, row] : rows) out.push_back(std::move(row));
  return out;
}

std::string log_path(const std::string& out) {
  return is_csv(out) ? std::filesystem::path(out).replace_extension(".jsonl").string() : out;
}

void write_all(int fd, const std::string& text, const std::string& path) {
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw core::InputError(path, "cannot append to the file (disk full?)");
}

// Appends one finished point to the log.
void append_row(int fd, const std::string& path, const nlohmann::json& row) {
  ::flock(fd, LOCK_EX);
  write_all(fd, row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", path);
  ::flock(fd, LOCK_UN);
}

}  // namespace

int sweep_command(const Args& args) {
  po::options_description options("options");
  std::string sweep_path, out, shard = "0/1";
  int jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.add_options()("sweep", po::value(&sweep_path)->required(), "sweep JSON file")(
      "out", po::value(&out)->required(),
      "results: FILE.jsonl (JSON Lines), or FILE.csv written at the end from its FILE.jsonl log; rerunning resumes")(
      "jobs,j", po::value(&jobs)->default_value(jobs), "worker processes")(
      "shard", po::value(&shard)->default_value(shard), "run share i of N (points with index % N == i), e.g. 3/8");
  po::positional_options_description positional;
  positional.add("sweep", 1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim sweep SWEEP.json --out FILE [options]", options, positional, vm)) return 0;
  std::size_t shard_i = 0, shard_n = 1;
  if (std::sscanf(shard.c_str(), "%zu/%zu", &shard_i, &shard_n) != 2 || shard_n == 0 || shard_i >= shard_n)
    throw core::InputError("--shard", "'" + shard + "' is not allowed; expected i/N with 0 <= i < N, e.g. 0/4");
  if (jobs < 1 || jobs > 256) throw core::InputError("--jobs", std::to_string(jobs) + " is not allowed; from 1 to 256");
  const std::string ext = std::filesystem::path(out).extension().string();
  if (ext != ".csv" && ext != ".jsonl")
    throw core::InputError("--out", "'" + out + "' is not allowed; the file name ends in .jsonl or .csv");

  const studies::Sweep sweep = studies::load_sweep(sweep_path);
  studies::check_writable_file(out);
  const std::string log = log_path(out);
  std::set<std::size_t> done;
  for (const auto& line : complete_lines(log, true))
    if (auto row = parse_row(line)) done.insert(row->first);
  std::vector<std::size_t> todo;
  std::size_t in_shard = 0;
  for (const auto& p : sweep.points)
    if (p.index % shard_n == shard_i) {
      ++in_shard;
      if (!done.count(p.index)) todo.push_back(p.index);
    }
  const bool tty = ::isatty(STDERR_FILENO);
  if (todo.empty()) {
    if (is_csv(out)) studies::write_file_atomically(out, studies::sweep_csv(read_rows(log)));
    if (tty) std::cerr << "sweep: all " << in_shard << " points of this shard are in " << log << "\n";
    return 0;
  }

  {
    const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd < 0) throw core::InputError(log, "cannot open the file for appending");
    ::close(fd);
  }
  int progress[2];
  if (::pipe(progress) != 0) throw std::runtime_error("pipe failed");
  const int workers = std::min<int>(jobs, static_cast<int>(todo.size()));
  std::vector<pid_t> pids;
  std::cout.flush();
  std::cerr.flush();
  for (int w = 0; w < workers; ++w) {
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a killed sweep takes its workers with it
      if (::getppid() == 1) ::_exit(1);
      ::close(progress[0]);
      int code = 0;
      // Each worker opens the log itself: flock excludes open file descriptions, and one
      // inherited through fork would be shared by every worker.
      const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
      try {
        if (fd < 0) throw core::InputError(log, "cannot open the file for appending");
        for (std::size_t k = static_cast<std::size_t>(w); k < todo.size(); k += static_cast<std::size_t>(workers)) {
          append_row(fd, log, studies::run_sweep_point(sweep, sweep.points[todo[k]]));
          const char tick = 1;
          if (::write(progress[1], &tick, 1) != 1) break;
        }
      } catch (const std::exception& e) {
        std::cerr << "codesim sweep: " << e.what() << "\n";
        code = 1;
      }
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  ::close(progress[1]);
  std::size_t finished = 0;
  std::optional<core::ProgressBar> bar;
  if (tty) bar.emplace("sweep", double(todo.size()), 0.0);
  char buffer[256];
  ssize_t n;
  while ((n = ::read(progress[0], buffer, sizeof buffer)) > 0) {
    finished += static_cast<std::size_t>(n);
    if (bar) bar->update(double(finished));
  }
  ::close(progress[0]);
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  bar.reset();
  if (failed) {
    std::cerr << "codesim sweep: " << failed << " worker(s) failed; rerun to resume\n";
    return 1;
  }
  if (is_csv(out)) studies::write_file_atomically(out, studies::sweep_csv(read_rows(log)));
  if (tty) std::cerr << "sweep: " << finished << " points written to " << out << "\n";
  return 0;
}

int merge_command(const Args& args) {
  po::options_description options("options");
  std::string out;
  std::vector<std::string> inputs;
  options.add_options()("out", po::value(&out)->required(), "merged results: FILE.jsonl or FILE.csv")(
      "inputs", po::value(&inputs)->composing(), "the shards' JSON Lines logs");
  po::positional_options_description positional;
  positional.add("inputs", -1);
  po::variables_map vm;
  if (!parse_options(args, "usage: codesim merge --out FILE SHARD.jsonl...", options, positional, vm)) return 0;
  if (inputs.empty()) throw core::InputError("merge", "no shard logs given");
  if (const auto ext = std::filesystem::path(out).extension(); ext != ".csv" && ext != ".jsonl")
    throw core::InputError("--out", "'" + out + "' is not allowed; the file name ends in .jsonl or .csv");
  std::map<std::size_t, nlohmann::json> rows;  // shards never overlap; a point seen twice is kept once
  for (const auto& path : inputs) {
    if (std::filesystem::path(path).extension() != ".jsonl")
      throw core::InputError(path, "is not a sweep log; merge the .jsonl files (a .csv sweep keeps one beside it)");
    if (!std::filesystem::exists(path)) throw core::InputError(path, "cannot open the file (missing or unreadable)");
    for (auto& row : read_rows(path)) rows.emplace(row.at("point").get<std::size_t>(), std::move(row));
  }
  std::vector<nlohmann::json> sorted;
  for (auto& [point, row] : rows) sorted.push_back(std::move(row));
  std::string text;
  if (is_csv(out)) {
    text = studies::sweep_csv(sorted);
  } else {
    for (const auto& row : sorted) text += row.dump() + "\n";
  }
  studies::write_file_atomically(out, text);
  std::cerr << "merged " << sorted.size() << " points into " << out << "\n";
  return 0;
}

}  // namespace cli
