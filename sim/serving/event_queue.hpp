#pragma once
// A serving run's events in order of time, ties in the order pushed: a binary heap, and beside it
// lanes for kinds of event that come in order of time by themselves (arrivals, drawn in order;
// prompts ready the moment they arrive). A lane is a first-in first-out list while its events come
// in order; one that does not goes to the heap. The next event is the least of the heap's top and
// the lanes' fronts, so the order is the heap's alone, exactly. A fleet's day is half a billion
// events, two in three of them an arrival or a prompt made ready, and those no longer pass
// through the heap's dozens of step and transfer ends.
#include <array>
#include <cstddef>
#include <functional>
#include <queue>
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
    heap_.push(e);
  }

  // The next event, taken out (the queue not empty).
  Event pop() {
    Lane* from = nullptr;
    const Event* best = heap_.empty() ? nullptr : &heap_.top();
    for (Lane& l : lanes_)
      if (l.head < l.events.size() && (!best || *best > l.events[l.head])) {
        best = &l.events[l.head];
        from = &l;
      }
    const Event e = *best;
    if (from) ++from->head;
    else heap_.pop();
    return e;
  }

 private:
  struct Lane {
    std::vector<Event> events;  // in order; those before `head` are gone
    std::size_t head = 0;
  };
  bool lanes_empty() const {
    for (const Lane& l : lanes_)
      if (l.head < l.events.size()) return false;
    return true;
  }

  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> heap_;
  std::array<Lane, Lanes> lanes_;
};

}  // namespace serving
