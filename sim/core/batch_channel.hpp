#pragma once
// Items handed from one thread to another in batches, in order: one lock per batch rather than
// per item (BatchChannel), and a consumer of them on a thread of its own (BackgroundSink). A
// day's serving fleet draws its requests and sums its records on the second core while the first
// simulates; what it hands over is hundreds of millions of small items.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace core {

template <class T>
class BatchChannel {
 public:
  // At most `capacity` batches wait; a producer ahead of its consumer then waits for it.
  explicit BatchChannel(std::size_t capacity) : capacity_(capacity < 1 ? 1 : capacity) {}

  // Hands a batch over, waiting while the channel is full. False (the batch dropped) once it
  // was closed: the consumer has stopped.
  bool push(std::vector<T>&& batch) {
    std::unique_lock lock(m_);
    room_.wait(lock, [&] { return closed_ || waiting_.size() < capacity_; });
    if (closed_) return false;
    waiting_.push_back(std::move(batch));
    lock.unlock();
    filled_.notify_one();
    return true;
  }

  // The next batch, waiting while there is none. False once the channel is closed and empty.
  bool pop(std::vector<T>& into) {
    std::unique_lock lock(m_);
    filled_.wait(lock, [&] { return closed_ || !waiting_.empty(); });
    if (waiting_.empty()) return false;
    into = std::move(waiting_.front());
    waiting_.pop_front();
    lock.unlock();
    room_.notify_one();
    return true;
  }

  // No more batches: by the producer at its end (the consumer takes what waits, then stops), or
  // by the consumer to stop the producer. Either side may call it, more than once.
  void close() {
    {
      std::lock_guard lock(m_);
      closed_ = true;
    }
    filled_.notify_all();
    room_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable filled_, room_;
  std::deque<std::vector<T>> waiting_;
  std::size_t capacity_;
  bool closed_ = false;
};

// A consumer at the far end of a channel, on a thread of its own: push() collects items in
// batches and hands each full one over, and the consumer sees every item in the order pushed.
// For sums that nothing reads until the end (a serving run's streamed records), so their cost
// leaves the thread that produces them.
template <class T>
class BackgroundSink {
 public:
  static constexpr std::size_t kBatch = 4096;

  // `consume` runs on the sink's thread, alone: what it writes is read after close().
  explicit BackgroundSink(std::function<void(const T&)> consume) : consume_(std::move(consume)), channel_(4) {
    batch_.reserve(kBatch);
    thread_ = std::thread([this] { drain(); });
  }
  BackgroundSink(const BackgroundSink&) = delete;
  BackgroundSink& operator=(const BackgroundSink&) = delete;
  // Unclosed (an exception on the producing side), the items pushed are still consumed; an
  // error of the consumer's is then dropped.
  ~BackgroundSink() { finish(); }

  void push(const T& item) {
    batch_.push_back(item);
    if (batch_.size() == kBatch) hand_over();
  }

  // Every item pushed has been consumed once this returns; an exception the consumer threw is
  // thrown here.
  void close() {
    finish();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void hand_over() {
    channel_.push(std::move(batch_));  // (dropped where the consumer stopped on an error)
    batch_ = {};
    batch_.reserve(kBatch);
  }
  void finish() {
    if (!thread_.joinable()) return;  // closed already
    if (!batch_.empty()) hand_over();
    channel_.close();
    thread_.join();
  }
  void drain() {
    std::vector<T> batch;
    try {
      while (channel_.pop(batch))
        for (const T& item : batch) consume_(item);
    } catch (...) {
      error_ = std::current_exception();
      channel_.close();
    }
  }

  std::function<void(const T&)> consume_;
  BatchChannel<T> channel_;
  std::vector<T> batch_;
  std::exception_ptr error_;  // written by the sink's thread before it ends, read after join
  std::thread thread_;
};

}  // namespace core
