#pragma once
// A rank's decoding sequences, stepped together without being walked one by one. A sequence's
// last step is drawn when it joins (`DecodeSteps`), its context grows by a step's mean tokens,
// and it is visited only at its events: its first token and its last step here, the steps where
// its pages fall short on its unit's `PageCalendar`. The rank's context is kept as a sum. A walk
// over the sequences costs a step in proportion to its batch; this costs in proportion to its
// events (a page boundary every page of tokens, and a finish), several times less in large
// batches such as an SLO search fills.
//
// Without MTP a step adds exactly one token to each sequence, so this is the walk's arithmetic,
// exactly. With MTP a sequence's own tokens between its join and its end follow the mean (its
// pages, its part of the context), and its number of steps is drawn from the true distribution.
#include <algorithm>
#include <climits>
#include <vector>

#include "core/fast_random.hpp"
#include "serving/containers/page_calendar.hpp"

namespace serving {

// How many decode steps a sequence takes for its remaining tokens: each step gives one, and one
// more for each of MTP's drafted tokens accepted in a row (draft i with `acceptance[i]` once the
// ones before it are). Drawn step by step for short answers and, past `kExactTokens`, from the
// central limit theorem for renewal counts: mean (tokens + overshoot) / m and variance
// tokens * var / m^3, m and var a step's mean and variance of tokens, overshoot the mean of the
// tokens a last step gives past what was left.
class DecodeSteps {
 public:
  static constexpr int kExactTokens = 64;

  explicit DecodeSteps(std::vector<double> acceptance);

  double mean_tokens() const { return mean_; }
  int draw(int tokens, core::FastNormal& random) const;

 private:
  std::vector<double> acceptance_;
  double mean_ = 1, variance_ = 0, overshoot_ = 0;
};

struct DecodeSeq {
  int id = 0;
  int in_kv = 0;                  // tokens in its KV cache when it joined
  int generated = 0;              // tokens it had generated when it joined
  int output = 0;                 // tokens it generates in all
  int room = 0;                   // tokens its pages held when it joined (whole pages of context)
  long long first = 0, last = 0;  // its first and last steps, in the batch's count of steps
  bool alive = true;
};

class DecodeBatch {
 public:
  // `mean_tokens`: a step's mean tokens per sequence; `lookahead`: the tokens a step computes for
  // each (one, and MTP's drafts), for which it needs room before the step; `page_tokens`: the
  // tokens of a page.
  explicit DecodeBatch(double mean_tokens = 1, int lookahead = 1, int page_tokens = 1)
      : mean_(mean_tokens), lookahead_(lookahead), page_tokens_(page_tokens) {}

  int size() const { return alive_; }
  bool empty() const { return alive_ == 0; }
  // Sequences that have not yet had a step (no token generated when they joined).
  int fresh() const { return fresh_count_; }
  // The sequence in `slot`, valid until the next step starts.
  const DecodeSeq& at(int slot) const { return seqs_[static_cast<std::size_t>(slot)]; }

  // A sequence joins, taking part from the next step on, for `steps` steps; returns its first
  // page boundary (its `rank` and `pages` unset), for its unit's calendar.
  PageBoundary join(DecodeSeq s, int steps);
  // The next step's number in the batch's count.
  long long next_step() const { return step_; }
  // The tokens its pages hold room for, as of the latest step started: at its join, and past it
  // the pages its context and a step's tokens needed at each step (its page boundaries).
  long long room_tokens(const DecodeSeq& s) const;
  // The sum of its sequences' KV tokens at the next step.
  double context() const;

  // The latest to join leaves (preempted): its state as of the next step, `room` the tokens its
  // pages hold room for.
  DecodeSeq leave_latest();

  // The next step starts with every sequence in the batch; returns how many.
  int start_step() {
    if (compaction_due()) compact();  // the last step's finished are read no more
    in_step_ = alive_;
    if (next_last_ <= step_) find_ending();
    ++step_;
    return in_step_;
  }
  // The step in flight ends with no first token and no finish: it generates its sequences times
  // a step's mean tokens and changes nothing else, so its end may be left out (the next
  // start_step replaces it). Known when it starts: a sequence that joins during it waits for the
  // next.
  bool ends_quietly() const { return fresh_count_ == 0 && ending_count_ == 0; }
  // Those whose last step is the step in flight (slot, request), found as it starts and their
  // records asked of the memory then (the request's by the caller): read at its end, a step later,
  // they come from the cache. They were last read at their join, hundreds of steps before.
  struct Ending {
    int slot, id;
  };
  int ending_count() const { return ending_count_; }
  const std::vector<Ending>& ending() const { return ending_; }
  // The step in flight ends. `first_tokens`: those that got their first token; `finished`: those
  // whose last step it was, dead now but readable until the next step starts; both in the order
  // they joined. Returns the tokens the step generated (a finishing sequence's last step counts
  // what it had left: the mean is corrected there).
  double end_step(std::vector<int>& first_tokens, std::vector<int>& finished) {
    if (!ends_quietly()) return end_step_events(first_tokens, finished);
    first_tokens.clear();
    finished.clear();
    const double tokens = double(in_step_) * mean_;
    in_step_ = 0;
    return tokens;
  }

 private:
  static constexpr long long kNever = 1LL << 62;
  long long produced(long long steps) const { return produced_tokens(steps, mean_); }
  bool compaction_due() const { return dead_ > std::max(32, alive_); }
  void find_ending();
  double end_step_events(std::vector<int>& first_tokens, std::vector<int>& finished);
  void kill(std::size_t slot);
  void compact();

  // First, in one cache line: what every step reads. A fleet has thousands of ranks stepping in
  // turn, and most of their steps have no event; those read this line and nothing else.
  long long step_ = 0;                       // the next step's number
  long long next_last_ = kNever;             // the sequences' earliest last step (a lower bound)
  long long sum_in_kv_ = 0, sum_first_ = 0;  // over the living
  double mean_;
  int in_step_ = 0;  // sequences in the step in flight (0: none in flight)
  int alive_ = 0, fresh_count_ = 0;
  int dead_ = 0;          // dead records not yet compacted
  int ending_count_ = 0;  // those whose last step is the step in flight
  // The rest is read at events.
  int lookahead_, page_tokens_;
  std::vector<DecodeSeq> seqs_;  // in order of joining; dead ones are left until compacted
  // Each sequence's last step (kNeverStep when dead) and request, kept apart from the records so
  // that finding a step's finishes reads a few cache lines.
  struct LastStep {
    int step, id;
  };
  static constexpr int kNeverStep = INT_MAX;
  std::vector<LastStep> last_at_;
  std::vector<int> fresh_;  // slots of fresh sequences, in order of joining
  std::vector<Ending> ending_;
};

}  // namespace serving
