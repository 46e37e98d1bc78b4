#include "studies/run/scenario_workers.hpp"

#include <poll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <thread>

#include "core/progress_bar.hpp"
#include "studies/report/report_wire.hpp"

namespace studies {

namespace {

// What a worker sends per scenario: its index, then the report's length and bytes, or kFailed
// and nothing.
constexpr std::uint64_t kFailed = ~std::uint64_t{0};

bool write_all(int fd, const std::string& bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + at, bytes.size() - at);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    at += static_cast<std::size_t>(n);
  }
  return true;
}

std::string frame(std::uint64_t index, const std::optional<std::string>& report) {
  std::string out(2 * sizeof(std::uint64_t), '\0');
  const std::uint64_t length = report ? report->size() : kFailed;
  std::memcpy(out.data(), &index, sizeof index);
  std::memcpy(out.data() + sizeof index, &length, sizeof length);
  if (report) out += *report;
  return out;
}

// A worker: takes scenarios by the shared counter until none is left; never returns.
[[noreturn]] void work(const std::vector<const Scenario*>& scenarios, std::atomic<std::size_t>& next, int out) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // a stopped run takes its workers with it
  // The parent draws the one bar; the simulations' own bars report into this silent one.
  std::FILE* nowhere = std::fopen("/dev/null", "w");
  std::optional<core::ProgressBar> quiet;
  if (nowhere) quiet.emplace("scenario", 1.0, 0.0, 1e300, nowhere);
  for (std::size_t i; (i = next.fetch_add(1)) < scenarios.size();) {
    std::optional<std::string> report;
    try {
      report = report_to_bytes(scenarios[i]->run({}));
    } catch (...) {  // run again by the parent, which reports it
    }
    if (!write_all(out, frame(i, report))) break;
  }
  ::_exit(0);
}

// Whole frames at the front of a worker's `buffer`, into `reports`; returns how many.
std::size_t take_frames(std::string& buffer, std::vector<std::optional<Report>>& reports) {
  std::size_t taken = 0, at = 0;
  constexpr std::size_t kHeader = 2 * sizeof(std::uint64_t);
  while (buffer.size() - at >= kHeader) {
    std::uint64_t index, length;
    std::memcpy(&index, buffer.data() + at, sizeof index);
    std::memcpy(&length, buffer.data() + at + sizeof index, sizeof length);
    const std::uint64_t body = length == kFailed ? 0 : length;
    if (buffer.size() - at - kHeader < body) break;
    if (index >= reports.size()) throw std::runtime_error("a scenario worker sent a report of no scenario");
    if (length != kFailed) reports[index] = report_from_bytes(buffer.substr(at + kHeader, body));
    at += kHeader + body;
    ++taken;
  }
  buffer.erase(0, at);
  return taken;
}

}  // namespace

int available_cores() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

std::vector<Report> run_scenarios(const std::vector<const Scenario*>& scenarios, int workers, const std::string& what) {
  const std::size_t n = scenarios.size();
  std::vector<std::optional<Report>> reports(n);
  workers = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(1, workers)), n));
  if (workers > 1) {
    void* shared =
        ::mmap(nullptr, sizeof(std::atomic<std::size_t>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shared == MAP_FAILED) throw std::runtime_error("mmap of the scenario counter failed");
    auto* next = new (shared) std::atomic<std::size_t>(0);
    static_assert(std::atomic<std::size_t>::is_always_lock_free, "the counter is shared between processes");
    std::vector<pid_t> pids;
    std::vector<pollfd> pipes;
    std::cout.flush();
    std::cerr.flush();
    for (int w = 0; w < workers; ++w) {
      int fds[2];
      if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
      const pid_t pid = ::fork();
      if (pid < 0) throw std::runtime_error("fork failed");
      if (pid == 0) {
        core::silence_progress_in_this_process();  // the parent's bar speaks for the scenarios
        ::close(fds[0]);
        for (const pollfd& p : pipes) ::close(p.fd);
        work(scenarios, *next, fds[1]);
      }
      ::close(fds[1]);
      pids.push_back(pid);
      pipes.push_back({fds[0], POLLIN, 0});
    }
    std::vector<std::string> buffers(pipes.size());
    // A bar on a terminal, no estimate line: scenarios are too uneven to project the rest from the first.
    core::ProgressBar bar(what, double(n), 2.0, std::numeric_limits<double>::infinity());
    std::size_t done = 0, open = pipes.size();
    char chunk[1 << 16];
    while (open > 0) {
      if (::poll(pipes.data(), pipes.size(), -1) < 0) {
        if (errno == EINTR) continue;
        break;
      }
      for (std::size_t w = 0; w < pipes.size(); ++w) {
        if (pipes[w].fd < 0 || !(pipes[w].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const ssize_t got = ::read(pipes[w].fd, chunk, sizeof chunk);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) {  // the worker is done (or died: what it did not send is run here)
          ::close(pipes[w].fd);
          pipes[w].fd = -1;
          --open;
          continue;
        }
        buffers[w].append(chunk, static_cast<std::size_t>(got));
        done += take_frames(buffers[w], reports);
        bar.update(double(done));
      }
    }
    for (const pollfd& p : pipes)
      if (p.fd >= 0) ::close(p.fd);  // (poll failed) a worker still writing stops
    for (pid_t pid : pids) ::waitpid(pid, nullptr, 0);
    ::munmap(shared, sizeof(std::atomic<std::size_t>));
  }
  std::vector<Report> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) out.push_back(reports[i] ? std::move(*reports[i]) : scenarios[i]->run({}));
  return out;
}

}  // namespace studies
