#pragma once
// A bar with an ETA on standard error for work that takes more than a few seconds: drawn only
// on a terminal, only once `delay_s` has passed, at most five times a second, and cleared when
// the work ends, so logs and pipes never see it.
#include <chrono>
#include <string>

namespace core {

class ProgressBar {
 public:
  ProgressBar(std::string what, double total, double delay_s = 2.0);
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  void update(double done);

 private:
  std::string what_;
  double total_;
  double delay_s_;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace core
