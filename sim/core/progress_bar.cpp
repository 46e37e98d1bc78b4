#include "core/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace core {

ProgressBar::ProgressBar(std::string what, double total, double delay_s)
    : what_(std::move(what)), total_(total), delay_s_(delay_s), terminal_(::isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()), last_draw_(start_) {}

ProgressBar::~ProgressBar() {
  if (drawn_) std::fprintf(stderr, "\r\033[K"), std::fflush(stderr);
}

void ProgressBar::update(double done) {
  if (!terminal_ || total_ <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  if (elapsed_s < delay_s_ || (drawn_ && now - last_draw_ < std::chrono::milliseconds(200) && done < total_)) return;
  last_draw_ = now;
  drawn_ = true;
  constexpr int kWidth = 30;
  const double share = std::clamp(done / total_, 0.0, 1.0);
  const int filled = static_cast<int>(kWidth * share);
  // An ETA from the first few percent would be noise.
  const std::string eta = share < 0.05 ? "ETA --" : "ETA " + std::to_string(static_cast<long>(elapsed_s / share * (1 - share) + 0.5)) + " s";
  std::fprintf(stderr, "\r%s [%s%s] %3.0f%%  %.0f s elapsed, %s \033[K", what_.c_str(), std::string(filled, '#').c_str(),
               std::string(kWidth - filled, '.').c_str(), 100 * share, elapsed_s, eta.c_str());
  std::fflush(stderr);
}

}  // namespace core
