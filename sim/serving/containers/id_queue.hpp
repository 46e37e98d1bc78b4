#pragma once
// A first-in first-out queue of ints (ids) in 16 bytes: a ring buffer of a power of two, taken from
// the heap only once something is queued. A serving fleet has thousands of DP ranks, each with a
// few queues that are empty most of the time yet checked at every step; std::deque is 80 bytes
// and allocates when made, so a rank's queues alone filled five cache lines.
#include <cstdint>
#include <cstddef>
#include <stdexcept>
#include <utility>

namespace serving {

class IdQueue {
 public:
  IdQueue() = default;
  IdQueue(const IdQueue& o) : IdQueue() { *this = o; }
  IdQueue(IdQueue&& o) noexcept { *this = std::move(o); }
  IdQueue& operator=(const IdQueue& o) {
    if (this == &o) return *this;
    clear();
    for (std::uint32_t i = 0; i < o.size_; ++i) push_back(o.at(i));
    return *this;
  }
  IdQueue& operator=(IdQueue&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(head_, o.head_);
    const std::uint32_t size = size_, log_capacity = log_capacity_;  // (bit-fields: no std::swap)
    size_ = o.size_;
    log_capacity_ = o.log_capacity_;
    o.size_ = size;
    o.log_capacity_ = log_capacity;
    return *this;
  }
  ~IdQueue() { delete[] data_; }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  int front() const { return data_[head_]; }
  // The i-th from the front.
  int at(std::size_t i) const { return data_[(head_ + i) & mask()]; }

  void push_back(int id) {
    if (size_ == capacity()) grow();
    data_[(head_ + size_) & mask()] = id;
    ++size_;
  }
  void push_front(int id) {
    if (size_ == capacity()) grow();
    head_ = (head_ + mask()) & mask();
    data_[head_] = id;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & mask();
    --size_;
  }
  void clear() { head_ = size_ = 0; }

 private:
  std::uint32_t capacity() const { return data_ ? 1u << log_capacity_ : 0u; }
  std::uint32_t mask() const { return capacity() - 1; }
  void grow() {
    const std::uint32_t log_capacity = data_ ? log_capacity_ + 1 : 3;
    if (log_capacity > kMaxLogCapacity) throw std::length_error("more than 67 million ids in one queue");
    int* data = new int[std::size_t{1} << log_capacity];
    for (std::uint32_t i = 0; i < size_; ++i) data[i] = at(i);
    delete[] data_;
    data_ = data;
    head_ = 0;
    log_capacity_ = log_capacity;
  }

  static constexpr std::uint32_t kMaxLogCapacity = 26;  // its size then fits the 27 bits below
  int* data_ = nullptr;
  std::uint32_t head_ = 0;
  std::uint32_t size_ : 27 = 0;
  std::uint32_t log_capacity_ : 5 = 0;
};

}  // namespace serving
