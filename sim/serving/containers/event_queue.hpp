#pragma once
// A serving run's events in order of time, ties in the order pushed: a binary heap, and beside it
// lanes for kinds of event that come in order of time by themselves (arrivals, drawn in order;
// prompts ready the moment they arrive). A lane is a first-in first-out list while its events come
// in order; one that does not goes to the heap. The next event is the least of the heap's top and
// the lanes' fronts, so the order is the heap's alone, exactly. A fleet's day is half a billion
// events, two in three of them an arrival or a prompt made ready, and those no longer pass
// through the heap's dozens of step and transfer ends.
//
// The heap takes its least out bottom-up (Floyd's): the hole left at the top goes down to a leaf,
// each level taking the lesser child without a branch, and the last event rises from there (most
// often not at all). Which child is lesser is a coin's toss, and std::priority_queue's branch on
// it was mispredicted at every other level.
#include <array>
#include <cstddef>
#include <utility>
#include <vector>

namespace serving {

// `Event` has `t` (its time), `seq` (the order pushed) and operator>, by (t, seq).
template <class Event, std::size_t Lanes>
class EventQueue {
 public:
  static constexpr int kHeap = -1;  // a push to no lane

  bool empty() const { return heap_.empty() && lanes_empty(); }

  // `lane`: the lane of its kind, or kHeap.
  void push(const Event& e, int lane) {
    if (lane != kHeap) {
      Lane& l = lanes_[static_cast<std::size_t>(lane)];
      if (l.head == l.events.size()) {  // empty: filled from the start again
        l.events.clear();
        l.head = 0;
      } else if (l.head >= 4096 && 2 * l.head >= l.events.size()) {  // (a lane never empty keeps what is pending)
        l.events.erase(l.events.begin(), l.events.begin() + static_cast<std::ptrdiff_t>(l.head));
        l.head = 0;
      }
      if (l.events.empty() || !(l.events.back() > e)) {
        l.events.push_back(e);
        return;
      }
    }
    push_heap(e);
  }

  // The next event, left in (none where the queue is empty): its request may be asked of the
  // memory while the one before it is handled.
  const Event* peek() const { return next().first; }

  // The next event, taken out (the queue not empty).
  Event pop() {
    const auto [best, lane] = next();
    const Event e = *best;
    if (lane >= 0)
      ++lanes_[static_cast<std::size_t>(lane)].head;
    else
      pop_heap();
    return e;
  }

 private:
  struct Lane {
    std::vector<Event> events;  // in order; those before `head` are gone
    std::size_t head = 0;
  };
  // The next event and its lane (kHeap: the heap's top); none where the queue is empty.
  std::pair<const Event*, int> next() const {
    const Event* best = heap_.empty() ? nullptr : &heap_.front();
    int lane = kHeap;
    for (std::size_t i = 0; i < Lanes; ++i) {
      const Lane& l = lanes_[i];
      if (l.head < l.events.size() && (!best || *best > l.events[l.head])) {
        best = &l.events[l.head];
        lane = static_cast<int>(i);
      }
    }
    return {best, lane};
  }
  bool lanes_empty() const {
    for (const Lane& l : lanes_)
      if (l.head < l.events.size()) return false;
    return true;
  }

  void push_heap(const Event& e) {
    std::size_t i = heap_.size();
    heap_.push_back(e);
    rise(i, e);
  }
  void pop_heap() {
    const std::size_t n = heap_.size() - 1;  // the heap's size after
    const Event last = heap_[n];
    std::size_t hole = 0;
    for (std::size_t c = 1; c < n; c = 2 * hole + 1) {
      c += static_cast<std::size_t>((c + 1 < n) & (heap_[c] > heap_[c + 1]));  // (heap_[n] is still there to read)
      heap_[hole] = heap_[c];
      hole = c;
    }
    heap_.pop_back();
    if (n > 0) rise(hole, last);
  }
  // `e` into the hole at `i`, its parents that follow it moved down.
  void rise(std::size_t i, const Event& e) {
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!(heap_[parent] > e)) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;  // a binary heap, the least at the front
  std::array<Lane, Lanes> lanes_;
};

}  // namespace serving
