// Round-robin: each serving rank in turn, whatever its load.
#include "serving/routers/router.hpp"

namespace serving {

namespace {

class RoundRobinRouter : public Router {
 public:
  using Router::Router;
  bool hears_loads() const override { return false; }
  double load(const Rank&, bool) const override { return 0; }
  long long pages_told_below(const Rank&, bool) const override { return 0; }
  void tell(int, double) override {}
  Slot choose(const std::vector<Unit>& units) override {
    for (;;) {  // a side always has a unit serving
      const Slot slot = slots_[static_cast<std::size_t>(turn_++ % static_cast<long long>(slots_.size()))];
      if (units[static_cast<std::size_t>(slot.first)].serving) return slot;
    }
  }

 private:
  long long turn_ = 0;
};

}  // namespace

std::unique_ptr<Router> make_round_robin_router(std::vector<Router::Slot> slots, double) {
  return std::make_unique<RoundRobinRouter>(std::move(slots));
}

}  // namespace serving
