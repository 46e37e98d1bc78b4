#include "core/progress_bar.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <thread>

namespace core {

namespace {
// A projection from less than this share of the work would be noise; the pace is that of the
// latest half, so of at least kEstimateFromShare / 2.
constexpr double kEstimateFromShare = 0.04;
// Shares closer than this make one sample (at most a thousand of them).
constexpr double kSampleStep = 0.001;
// The bar of the outermost work under way on this thread, which the bars of the work inside it
// report into.
thread_local ProgressBar* outermost = nullptr;

struct Observer {
  ProgressObserver call;
  std::thread::id thread;
  pid_t pid = 0;
  std::chrono::steady_clock::time_point last;
};
Observer& observer() {
  static Observer o;
  return o;
}
}  // namespace

void set_progress_observer(ProgressObserver call) {
  Observer& o = observer();
  o.call = std::move(call);
  o.thread = std::this_thread::get_id();
  o.pid = ::getpid();
  o.last = {};
}

void ProgressBar::notify(double done) const {
  Observer& o = observer();
  if (!o.call || total_ <= 0 || std::this_thread::get_id() != o.thread || ::getpid() != o.pid) return;
  const double share = std::clamp(done / total_, 0.0, 1.0);
  const auto now = std::chrono::steady_clock::now();
  if (share < 1 && now - o.last < std::chrono::milliseconds(100)) return;
  o.last = now;
  o.call(what_, share);
}

namespace {
bool silenced = false;  // in a forked worker
}  // namespace

void silence_progress_in_this_process() { silenced = true; }

ProgressBar::ProgressBar(std::string what, double total, double delay_s, double estimate_above_s, std::FILE* out,
                         double log_every_s)
    : what_(std::move(what)),
      total_(silenced ? 0 : total),
      delay_s_(delay_s),
      estimate_above_s_(estimate_above_s),
      out_(out),
      terminal_(::isatty(::fileno(out)) != 0),
      log_every_s_(log_every_s),
      next_log_s_(log_every_s / 3),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  if (outermost) {
    outer_ = outermost;
    const std::lock_guard<std::mutex> lock(outer_->mutex_);
    ++outer_->under_way_;
  } else {
    outermost = this;
  }
}

ProgressBar::~ProgressBar() {
  if (outermost == this) outermost = nullptr;
  if (outer_) {
    {
      const std::lock_guard<std::mutex> lock(outer_->mutex_);
      --outer_->under_way_;
    }
    outer_->report(-reported_, false);  // the outer bar counts its unit whole (and, in a destructor, tells no observer)
  }
  if (drawn_) std::fprintf(out_, "\r\033[K"), std::fflush(out_);
}

ProgressBar::Inside::Inside(ProgressBar& outer) : saved_(outermost) { outermost = &outer; }

ProgressBar::Inside::~Inside() { outermost = saved_; }

void ProgressBar::update(double done) {
  if (outer_) {
    if (total_ <= 0) return;
    const double share = std::clamp(done / total_, 0.0, 1.0);
    outer_->report(share - reported_);
    reported_ = share;
    return;
  }
  double now_done = 0;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    done_ = done;
    show();
    now_done = done_ + inner_;
  }
  notify(now_done);  // outside the lock: it may throw
}

void ProgressBar::report(double change, bool observed) {
  double now_done = 0;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    inner_ += change;
    show();
    now_done = done_ + inner_;
  }
  if (observed) notify(now_done);
}

void ProgressBar::show() {
  if (total_ <= 0) return;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed_s = std::chrono::duration<double>(now - start_).count();
  if (elapsed_s < delay_s_) return;
  const double done = done_ + inner_;
  const double share = std::clamp(done / total_, 0.0, 1.0);
  // Projected once a whole unit is done, the units under way as far along as it (they started
  // with it, on threads of their own): an inner run's own share is not its pace (a fluid run
  // ends few flows while it solves from scratch, then many).
  if (under_way_ == 0 || done_ >= 1) {
    const double projected = std::min(1.0, (done_ + under_way_) / total_);
    if (projected >= samples_.back().share + kSampleStep) samples_.push_back({projected, elapsed_s});
    if (!estimated_) estimate(projected, elapsed_s);
  }
  if (!terminal_) {
    if (elapsed_s >= next_log_s_ && share < 1) log_line(share, elapsed_s);
    return;
  }
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(200) && done < total_) return;
  last_draw_ = now;
  draw(share, elapsed_s);
}

std::optional<double> ProgressBar::seconds_per_share() const {
  const Sample& last = samples_.back();
  if (last.share < kEstimateFromShare) return std::nullopt;
  const auto half =
      std::find_if(samples_.rbegin(), samples_.rend(), [&](const Sample& s) { return s.share <= last.share / 2; });
  return (last.elapsed_s - half->elapsed_s) / (last.share - half->share);  // samples_ starts at share 0
}

void ProgressBar::estimate(double share, double elapsed_s) {
  const auto pace = seconds_per_share();
  if (!pace || share >= 1) return;
  estimated_ = true;
  const double total_s = elapsed_s + (1 - share) * *pace;
  if (total_s <= estimate_above_s_) return;
  std::fprintf(out_, "%s%s: about %s in all (%.0f%% done after %s)\n", drawn_ ? "\r\033[K" : "", what_.c_str(),
               human_duration(total_s).c_str(), 100 * share, human_duration(elapsed_s).c_str());
  std::fflush(out_);
}

void ProgressBar::log_line(double share, double elapsed_s) {
  next_log_s_ = elapsed_s + log_every_s_;
  const auto pace = seconds_per_share();
  std::fprintf(out_, "%s: %.0f%% done after %s%s\n", what_.c_str(), 100 * share, human_duration(elapsed_s).c_str(),
               pace ? (", about " + human_duration(*pace * (1 - share)) + " left").c_str() : "");
  std::fflush(out_);
}

void ProgressBar::draw(double share, double elapsed_s) {
  drawn_ = true;
  constexpr int kWidth = 30;
  const int filled = static_cast<int>(kWidth * share);
  const auto pace = seconds_per_share();
  const std::string eta = pace ? "ETA " + human_duration(*pace * (1 - share)) : "ETA --";
  std::fprintf(out_, "\r%s [%s%s] %3.0f%%  %.0f s elapsed, %s \033[K", what_.c_str(), std::string(filled, '#').c_str(),
               std::string(kWidth - filled, '.').c_str(), 100 * share, elapsed_s, eta.c_str());
  std::fflush(out_);
}

std::string human_duration(double seconds) {
  char text[32];
  if (seconds < 90) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else if (seconds < 90 * 60) {
    std::snprintf(text, sizeof text, "%.0f min", seconds / 60);
  } else {
    std::snprintf(text, sizeof text, "%.1f h", seconds / 3600);
  }
  return text;
}

}  // namespace core
