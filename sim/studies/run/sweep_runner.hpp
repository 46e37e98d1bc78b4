#pragma once
// Runs a sweep's points in worker processes (each simulation already forks, and a process per
// worker keeps SimGrid and the allocator single-threaded). Every finished point is appended to a
// JSON Lines log (FILE itself, or FILE's .jsonl twin for a .csv) as one line written by one
// write(2) under an exclusive lock: killing the run at any moment loses no finished point and
// leaves at most one partial line, which the next run cuts off before it skips the points
// already logged. A CSV is rewritten whole from the log at the end (its columns are the union of
// every point's inputs and metrics, which differ between points). `codesim sweep` and
// `codesim plan` run on it.
#include <cstddef>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/run/sweep.hpp"

namespace studies {

inline bool is_csv(const std::string& path) { return std::filesystem::path(path).extension() == ".csv"; }

// InputError for --out not ending in .csv or .jsonl, and for --jobs outside 1-256.
void check_results_path(const std::string& out);
void check_jobs(int jobs);

// The log that holds `out`'s rows: out itself, or the .jsonl beside a .csv.
std::string sweep_log_path(const std::string& out);

// Runs the points of share shard_i of shard_n not yet in the log, with a progress bar named
// `what` on a terminal. False when a worker failed (rerunning resumes).
// `interrupted`, asked at each point done and when a signal interrupts the wait: true stops the
// workers (killed, their finished points kept in the log) and returns false.
bool run_sweep(const Sweep& sweep, const std::string& out, int jobs, std::size_t shard_i, std::size_t shard_n,
               const std::string& what, const std::function<bool()>& interrupted = {});

// The finished rows of a log, sorted by point, first of each point kept.
std::vector<nlohmann::json> read_sweep_rows(const std::string& path);

// The rows of the shards' logs of one sweep, sorted by point: InputError for a file that is not a
// sweep's log (a line that is not a row), rows of two sweeps, or no row at all.
std::vector<nlohmann::json> merge_sweep_logs(const std::vector<std::string>& paths);

}  // namespace studies
