#pragma once
// A bar with an ETA on standard error for work that takes more than a few seconds: drawn only
// on a terminal, only once `delay_s` has passed, at most five times a second, and cleared when
// the work ends, so logs and pipes never see it. Work that shows it will take longer than
// `estimate_above_s` in all also gets one line with the estimate, on a terminal or in a log,
// as soon as a few percent of it is done: early enough to stop it and ask for less. Estimates and
// ETAs project the pace of the latest half of the work done, not of all of it: a run's start is
// often slower than the rest (caches warming: the fleet hour said "about 7 min" for 101 s).
// A bar made while another is alive on the same thread (a simulation inside a run of several:
// each plane of an all-to-all) shows nothing of its own: its share of done fills the outer bar's
// unit in progress, so one bar speaks for the whole. Its estimate waits for a whole unit (an inner
// run's share is not its pace: a fluid run ends few flows while it solves from scratch, then
// many), and counts the units under way as far along as it. Work split over threads puts each
// thread Inside the bar.
#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace core {

// What a host (the Python package) hears of the outermost bar: the work's name and its share
// done, on the thread and in the process that set it (never in a forked simulation), at most ten
// times a second and at the end. It may throw to stop the work.
using ProgressObserver = std::function<void(const std::string& what, double share)>;
void set_progress_observer(ProgressObserver observer);  // empty: none

class ProgressBar {
 public:
  // Off a terminal (a pipe, a log), work past `log_every_s` / 3 prints a line of its progress,
  // then one every `log_every_s`: a long run piped to a file is not silent.
  ProgressBar(std::string what, double total, double delay_s = 2.0, double estimate_above_s = 60.0,
              std::FILE* out = stderr, double log_every_s = 30.0);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(double done);

  // While it lives, the bars made on this thread report into `outer` (which outlives it).
  class Inside {
   public:
    explicit Inside(ProgressBar& outer);
    ~Inside();
    Inside(const Inside&) = delete;
    Inside& operator=(const Inside&) = delete;

   private:
    ProgressBar* saved_;
  };

 private:
  void report(double change, bool observed = true);  // in an inner bar's share of its work done
  void notify(double done) const;
  void show();
  void estimate(double share, double elapsed_s);
  void draw(double share, double elapsed_s);
  void log_line(double share, double elapsed_s);
  // Seconds a share of the work takes at the pace of the latest half done; none before enough.
  std::optional<double> seconds_per_share() const;

  struct Sample {
    double share;
    double elapsed_s;
  };

  std::string what_;
  double total_;
  double done_ = 0;
  double inner_ = 0;              // the shares of the units under way, as inner bars report them
  int under_way_ = 0;             // inner bars alive
  ProgressBar* outer_ = nullptr;  // the bar this one reports into
  double reported_ = 0;           // this one's share, as reported to it
  std::mutex mutex_;              // inner bars may report from several threads
  double delay_s_;
  double estimate_above_s_;
  std::FILE* out_;
  bool terminal_;
  bool drawn_ = false;
  bool estimated_ = false;
  double log_every_s_;
  double next_log_s_;                    // elapsed seconds of the next progress line off a terminal
  std::vector<Sample> samples_{{0, 0}};  // share done over time, a step apart: the pace's record
  std::chrono::steady_clock::time_point start_, last_draw_;
};

// A forked worker's bars print nothing (its parent's bar speaks for the work): called in the child.
void silence_progress_in_this_process();

// "45 s", "3 min", "2.1 h": a duration as a person reads it.
std::string human_duration(double seconds);

}  // namespace core
