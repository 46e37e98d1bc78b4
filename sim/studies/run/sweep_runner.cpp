#include "studies/run/sweep_runner.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "core/input_error.hpp"
#include "core/progress_bar.hpp"
#include "studies/config/output_file.hpp"

namespace studies {

namespace {

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

// What keeps a parsed line from being a row as run_sweep_point and run_sweep write it: its point a
// whole number, its inputs an object, its metrics numbers (null where not finite), its units, error
// and keys text. Empty for a row; the readers after (the CSV, plan, serve-search) take its fields
// as they are.
std::string row_problem(const nlohmann::json& row) {
  if (!row.is_object()) return "not an object";
  if (!row.contains("point") || !row["point"].is_number_unsigned()) return "its \"point\" is not a whole number";
  if (!row.contains("inputs") || !row["inputs"].is_object()) return "its \"inputs\" is not an object";
  auto all_of = [&](const char* key, auto&& is) {
    if (!row.contains(key)) return true;
    if (!row[key].is_object()) return false;
    for (const auto& [id, value] : row[key].items())
      if (!is(value)) return false;
    return true;
  };
  if (!all_of("metrics", [](const nlohmann::json& v) { return v.is_number() || v.is_null(); }))
    return "its \"metrics\" is not an object of numbers";
  if (!all_of("units", [](const nlohmann::json& v) { return v.is_string(); }))
    return "its \"units\" is not an object of text";
  for (const char* key : {"error", "sweep", "scenario"})
    if (row.contains(key) && !row[key].is_string()) return std::string("its \"") + key + "\" is not text";
  return {};
}

// A finished row, parsed, with its point index; what is wrong with the line otherwise.
struct ParsedRow {
  std::size_t point = 0;
  nlohmann::json row;
  std::string problem;  // empty for a row
};

ParsedRow parse_row(const std::string& line) {
  ParsedRow parsed;
  parsed.row = nlohmann::json::parse(line, nullptr, false);
  if (parsed.row.is_discarded()) {
    parsed.problem = "not JSON";
    return parsed;
  }
  parsed.problem = row_problem(parsed.row);
  if (parsed.problem.empty()) parsed.point = parsed.row["point"].get<std::size_t>();
  return parsed;
}

}  // namespace

std::vector<nlohmann::json> read_sweep_rows(const std::string& path) {
  std::map<std::size_t, nlohmann::json> rows;
  for (const auto& line : complete_lines(path, false))
    if (auto parsed = parse_row(line); parsed.problem.empty()) rows.emplace(parsed.point, std::move(parsed.row));
  std::vector<nlohmann::json> out;
  for (auto& [point, row] : rows) out.push_back(std::move(row));
  return out;
}

std::vector<nlohmann::json> merge_sweep_logs(const std::vector<std::string>& paths) {
  std::map<std::size_t, nlohmann::json> rows;
  std::string sweep_key, sweep_path;
  for (const auto& path : paths) {
    if (std::filesystem::path(path).extension() != ".jsonl")
      throw core::InputError(path, "is not a sweep log; merge the .jsonl files (a .csv sweep keeps one beside it)");
    if (!std::filesystem::is_regular_file(path))
      throw core::InputError(path, "cannot open the file (missing, unreadable or not a file)");
    std::size_t line_number = 0;
    for (const auto& line : complete_lines(path, false)) {
      ++line_number;
      auto parsed = parse_row(line);
      const std::string where = path + " line " + std::to_string(line_number);
      if (!parsed.problem.empty())
        throw core::InputError(
            where, "is not a sweep's row (" + parsed.problem + "); merge the logs `codesim sweep --shard` wrote");
      const auto key = parsed.row.value("sweep", std::string());
      if (key.empty()) throw core::InputError(where, "names no sweep (a log of an older codesim); run its shard again");
      if (sweep_path.empty()) {
        sweep_key = key;
        sweep_path = path;
      } else if (key != sweep_key) {
        throw core::InputError(where, "is a row of another sweep than " + sweep_path + "'s (sweep " + key + ", not " +
                                          sweep_key + "); merge the shards of one sweep");
      }
      // Shards never overlap: a point given twice is the same run (a shard named twice), else two
      // runs of the sweep that disagree.
      const auto [kept, added] = rows.emplace(parsed.point, parsed.row);
      if (!added && kept->second != parsed.row)
        throw core::InputError(where, "gives point " + std::to_string(parsed.point) +
                                          " other results than an earlier line; merge the shards of one run");
    }
  }
  if (rows.empty())
    throw core::InputError(paths.front(), "holds no finished point; merge the logs once their shards have run");
  std::vector<nlohmann::json> out;
  for (auto& [point, row] : rows) out.push_back(std::move(row));
  return out;
}

namespace {

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

void check_results_path(const std::string& out) {
  if (const auto ext = std::filesystem::path(out).extension(); ext != ".csv" && ext != ".jsonl")
    throw core::InputError("--out", "'" + out + "' is not allowed; the file name ends in .jsonl or .csv");
}

void check_jobs(int jobs) {
  if (jobs < 1 || jobs > 256) throw core::InputError("--jobs", std::to_string(jobs) + " is not allowed; from 1 to 256");
}

std::string sweep_log_path(const std::string& out) {
  return is_csv(out) ? std::filesystem::path(out).replace_extension(".jsonl").string() : out;
}

namespace {

// Keeps the log's rows that ran what this sweep's points run, once each; any other row (a point
// whose scenario changed since it ran, a point the sweep no longer has, another sweep's) is cut
// from the log, in place under its lock. Returns the points done and the rows cut.
std::pair<std::set<std::size_t>, std::size_t> keep_current_rows(const std::string& log, const SweepKeys& keys) {
  std::set<std::size_t> done;
  std::string kept;
  std::size_t cut = 0, line_number = 0;
  for (const auto& line : complete_lines(log, true)) {
    ++line_number;
    const auto parsed = parse_row(line);
    if (!parsed.problem.empty())
      throw core::InputError(log, "line " + std::to_string(line_number) + " is not a sweep's row (" + parsed.problem +
                                      "); give --out a new file or a log this command wrote");
    const std::size_t point = parsed.point;
    const auto* key = parsed.row.contains("scenario") ? &parsed.row["scenario"] : nullptr;
    if (point < keys.points.size() && key && *key == keys.points[point] && done.insert(point).second) {
      kept += line + "\n";
    } else {
      ++cut;
    }
  }
  if (cut) {
    const int fd = ::open(log.c_str(), O_WRONLY);
    if (fd < 0) throw core::InputError(log, "cannot open the file for writing");
    ::flock(fd, LOCK_EX);
    const bool ok =
        ::ftruncate(fd, 0) == 0 && ::write(fd, kept.data(), kept.size()) == static_cast<ssize_t>(kept.size());
    ::flock(fd, LOCK_UN);
    ::close(fd);
    if (!ok) throw core::InputError(log, "cannot rewrite the file (disk full?)");
  }
  return {done, cut};
}

}  // namespace

bool run_sweep(const Sweep& sweep, const std::string& out, int jobs, std::size_t shard_i, std::size_t shard_n,
               const std::string& what, const std::function<bool()>& interrupted) {
  check_writable_file(out);
  const std::string log = sweep_log_path(out);
  const SweepKeys keys = sweep_keys(sweep);
  const auto [done, cut] = keep_current_rows(log, keys);
  std::vector<std::size_t> todo;
  std::size_t in_shard = 0, resumed = 0;
  for (const auto& p : sweep.points)
    if (p.index % shard_n == shard_i) {
      ++in_shard;
      if (!done.count(p.index))
        todo.push_back(p.index);
      else
        ++resumed;
    }
  // Said on every stream, not only a terminal: results taken from a file are the user's to know.
  if (cut)
    std::cerr << what << ": " << cut << " row(s) of " << log
              << " ran another scenario than this one's (its base or points changed since) and are run again\n";
  if (resumed) std::cerr << what << ": resumed " << resumed << " of " << in_shard << " points from " << log << "\n";
  const bool tty = ::isatty(STDERR_FILENO);
  if (todo.empty()) {
    if (is_csv(out)) write_file_atomically(out, sweep_csv(read_sweep_rows(log)));
    if (tty) std::cerr << what << ": all " << in_shard << " points of this shard are in " << log << "\n";
    return true;
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
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);        // a killed sweep takes its workers with it
      core::silence_progress_in_this_process();  // the parent's bar speaks for the points
      if (::getppid() == 1) ::_exit(1);
      ::close(progress[0]);
      int code = 0;
      // Each worker opens the log itself: flock excludes open file descriptions, and one
      // inherited through fork would be shared by every worker.
      const int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
      try {
        if (fd < 0) throw core::InputError(log, "cannot open the file for appending");
        for (std::size_t k = static_cast<std::size_t>(w); k < todo.size(); k += static_cast<std::size_t>(workers)) {
          nlohmann::json row = run_sweep_point(sweep, sweep.points[todo[k]]);
          row["sweep"] = keys.sweep;
          row["scenario"] = keys.points[todo[k]];
          append_row(fd, log, row);
          const char tick = 1;
          if (::write(progress[1], &tick, 1) != 1) break;
        }
      } catch (const std::exception& e) {
        std::cerr << "codesim " << what << ": " << e.what() << "\n";
        code = 1;
      }
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  ::close(progress[1]);
  std::size_t finished = 0;
  // Drawn on a terminal only; a sweep projected past a minute says so in a log too.
  std::optional<core::ProgressBar> bar(std::in_place, what, double(todo.size()), 0.0);
  char buffer[256];
  ssize_t n;
  bool stopped = false;
  // A signal may land on another thread of the process and leave read() running: asked at each
  // point done too.
  while ((n = ::read(progress[0], buffer, sizeof buffer)) != 0) {
    if (n < 0 && errno != EINTR) break;
    if (interrupted && interrupted()) {
      stopped = true;
      for (pid_t pid : pids) ::kill(pid, SIGKILL);  // a point cut short is not in the log; the rest are
      break;
    }
    if (n < 0) continue;
    finished += static_cast<std::size_t>(n);
    bar->update(double(finished));
  }
  ::close(progress[0]);
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  bar.reset();
  if (stopped) return false;
  if (failed) {
    std::cerr << "codesim " << what << ": " << failed << " worker(s) failed; rerun to resume\n";
    return false;
  }
  if (is_csv(out)) write_file_atomically(out, sweep_csv(read_sweep_rows(log)));
  if (tty) std::cerr << what << ": " << finished << " points written to " << out << "\n";
  return true;
}

}  // namespace studies
