#include "serving/containers/decode_batch.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

namespace serving {

DecodeSteps::DecodeSteps(std::vector<double> acceptance) : acceptance_(std::move(acceptance)) {
  // A step gives 1 + J tokens, J the drafts accepted in a row.
  double reach = 1, square = 0;
  mean_ = 0;
  for (std::size_t j = 0; j <= acceptance_.size(); ++j) {
    const double p = reach * (j < acceptance_.size() ? 1 - acceptance_[j] : 1.0);  // exactly j accepted
    const double x = double(j + 1);
    mean_ += p * x;
    square += p * x * x;
    if (j < acceptance_.size()) reach *= acceptance_[j];
  }
  variance_ = std::max(0.0, square - mean_ * mean_);
  overshoot_ = (square - mean_) / (2 * mean_);  // a lattice renewal's mean overshoot of a level
}

int DecodeSteps::draw(int tokens, core::FastNormal& random) const {
  if (tokens <= 1 || acceptance_.empty()) return std::max(1, tokens);
  const int drafts = static_cast<int>(acceptance_.size());
  if (tokens <= kExactTokens) {
    int steps = 0;
    for (int made = 0; made < tokens; ++steps) {
      int produced = 1;
      while (produced <= drafts && random.uniform() < acceptance_[static_cast<std::size_t>(produced - 1)]) ++produced;
      made += produced;
    }
    return steps;
  }
  const double mean = (double(tokens) + overshoot_) / mean_;
  const double sd = std::sqrt(double(tokens) * variance_ / (mean_ * mean_ * mean_));
  const long long steps = std::llround(mean + sd * random.normal());
  return static_cast<int>(std::clamp<long long>(steps, (tokens + drafts) / (drafts + 1), tokens));
}

PageBoundary DecodeBatch::join(DecodeSeq s, int steps) {
  s.first = step_;
  s.last = step_ + std::max(1, steps) - 1;
  s.alive = true;
  const int slot = static_cast<int>(seqs_.size());
  seqs_.push_back(s);
  last_at_.push_back({static_cast<int>(s.last), s.id});
  next_last_ = std::min(next_last_, s.last);
  ++alive_;
  sum_in_kv_ += s.in_kv;
  sum_first_ += s.first;
  if (s.generated == 0) {
    fresh_.push_back(slot);
    ++fresh_count_;
  }
  PageBoundary b;
  b.id = s.id;
  b.in_kv = s.in_kv;
  b.room = s.room;
  b.first = static_cast<int>(s.first);
  b.last = static_cast<int>(s.last);
  return b;
}

long long DecodeBatch::room_tokens(const DecodeSeq& s) const {
  const long long latest = std::min(step_ - 1, s.last);  // the latest step it took part in
  if (latest < s.first) return s.room;
  const long long needed = s.in_kv + produced(latest - s.first) + lookahead_;
  return std::max<long long>(s.room, page_room(needed, page_tokens_));
}

double DecodeBatch::context() const {
  const long long steps = static_cast<long long>(alive_) * step_ - sum_first_;  // steps taken, summed
  if (mean_ == 1.0) return double(sum_in_kv_ + steps);
  return double(sum_in_kv_) + mean_ * double(steps);
}

void DecodeBatch::kill(std::size_t slot) {
  DecodeSeq& s = seqs_[slot];
  s.alive = false;
  last_at_[slot].step = kNeverStep;
  --alive_;
  ++dead_;
  sum_in_kv_ -= s.in_kv;
  sum_first_ -= s.first;
}

DecodeSeq DecodeBatch::leave_latest() {
  std::size_t i = seqs_.size();
  while (!seqs_[--i].alive) {}
  kill(i);
  const DecodeSeq& s = seqs_[i];
  if (s.generated == 0 && s.first == step_) --fresh_count_;  // it never stepped
  DecodeSeq now = s;
  now.room = static_cast<int>(room_tokens(s));
  now.generated = static_cast<int>(std::min<long long>(s.output - 1, s.generated + produced(step_ - s.first)));
  now.generated = std::max(now.generated, s.generated);
  now.in_kv = s.in_kv + (now.generated - s.generated);
  return now;
}

void DecodeBatch::find_ending() {
  long long next = kNever;
  for (std::size_t i = 0; i < last_at_.size(); ++i) {
    if (last_at_[i].step > step_) {
      next = std::min<long long>(next, last_at_[i].step);
      continue;
    }
    ending_.push_back({static_cast<int>(i), last_at_[i].id});
    const char* record = reinterpret_cast<const char*>(&seqs_[i]);
    __builtin_prefetch(record);
    __builtin_prefetch(record + sizeof(DecodeSeq) - 1);
  }
  next_last_ = next;
  ending_count_ = static_cast<int>(ending_.size());
}

double DecodeBatch::end_step_events(std::vector<int>& first_tokens, std::vector<int>& finished) {
  first_tokens.clear();
  finished.clear();
  const long long step = step_ - 1;
  // Those that joined during the step come last, and wait for the next.
  std::size_t done = 0;
  for (; done < fresh_.size() && seqs_[static_cast<std::size_t>(fresh_[done])].first <= step; ++done) {
    const int slot = fresh_[done];
    if (!seqs_[static_cast<std::size_t>(slot)].alive) continue;
    first_tokens.push_back(slot);
    --fresh_count_;
  }
  if (done > 0) fresh_.erase(fresh_.begin(), fresh_.begin() + static_cast<std::ptrdiff_t>(done));
  double tokens = double(in_step_) * mean_;
  in_step_ = 0;
  for (const Ending& e : ending_) {
    finished.push_back(e.slot);
    kill(static_cast<std::size_t>(e.slot));
    const DecodeSeq& s = seqs_[static_cast<std::size_t>(e.slot)];
    tokens += double(s.output - s.generated) - double(s.last - s.first + 1) * mean_;  // what it had left, not the mean
  }
  ending_.clear();
  ending_count_ = 0;
  return tokens;
}

// Drops the dead, keeping the order of joining. (The fresh are in order of joining too, so their
// new slots are found in the same walk, without a table of old slots to new.)
void DecodeBatch::compact() {
  std::size_t kept = 0, fresh_kept = 0, next_fresh = 0;
  for (std::size_t i = 0; i < seqs_.size(); ++i) {
    const bool fresh = next_fresh < fresh_.size() && fresh_[next_fresh] == static_cast<int>(i);
    if (fresh) ++next_fresh;
    if (!seqs_[i].alive) continue;
    if (fresh) fresh_[fresh_kept++] = static_cast<int>(kept);
    seqs_[kept] = seqs_[i];
    last_at_[kept] = last_at_[i];
    ++kept;
  }
  seqs_.resize(kept);
  last_at_.resize(kept);
  fresh_.resize(fresh_kept);
  dead_ = 0;
}

}  // namespace serving
