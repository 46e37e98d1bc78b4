#include "studies/config/straggler_config.hpp"

#include <set>
#include <string>
#include <utility>

#include "core/fast_random.hpp"
#include "core/input_error.hpp"
#include "net/fabric_fault.hpp"

namespace studies {

namespace {

constexpr double kMaxGpuSlowdown = 100;  // past it a GPU is down, not slow: a fault of the training-run study

double read_slowdown(core::JsonReader& r, const std::string& key) {
  const double x = r.number(key);
  if (!(x >= 1 && x <= kMaxGpuSlowdown))
    throw core::InputError(
        r.pointer_of(key),
        core::describe_number(x) + " is not allowed; a slowdown is a factor on compute time in [1, 100]");
  return x;
}

}  // namespace

std::string gpu_name(const net::FabricSpec& fabric, int gpu) {
  return "node " + std::to_string(gpu / fabric.gpus_per_node) + " / gpu " + std::to_string(gpu % fabric.gpus_per_node);
}

core::ComputeSlowdowns read_stragglers(core::JsonReader& s, const net::FabricSpec& fabric) {
  const int gpus = fabric.nodes * fabric.gpus_per_node;
  core::ComputeSlowdowns out;
  std::set<int> taken;
  if (s.has("gpus")) {
    for (core::JsonReader& g : s.object_list("gpus", "stragglers: {gpu, slowdown, from_s}")) {
      const auto c = net::find_fabric_component(fabric, net::FaultKind::kGpu, g.string("gpu"), g.pointer_of("gpu"));
      const int gpu = c.node * fabric.gpus_per_node + c.local;
      if (!taken.insert(gpu).second)
        throw core::InputError(g.pointer_of("gpu"),
                               "'" + gpu_name(fabric, gpu) + "' is not allowed twice; give a GPU one slowdown");
      out.add({gpu, read_slowdown(g, "slowdown"), g.non_negative_number("from_s", 0.0)});
      g.finish();
    }
  }
  if (auto d = s.optional_object("drawn")) {
    const long long free = gpus - static_cast<long long>(taken.size());
    const auto count = d->positive_integer("count", free);
    const double low = read_slowdown(*d, "slowdown_min");
    const double high = read_slowdown(*d, "slowdown_max");
    if (high < low)
      throw core::InputError(
          d->pointer_of("slowdown_max"),
          core::describe_number(high) + " is not allowed; it is below slowdown_min " + core::describe_number(low));
    const double from_s = d->non_negative_number("from_s", 0.0);
    core::FastNormal random(
        static_cast<std::uint64_t>(d->non_negative_integer("seed", 1, core::JsonReader::kMaxInteger)));
    d->finish();
    // GPUs without replacement (a partial Fisher-Yates over those not named), each its slowdown
    // uniform in [slowdown_min, slowdown_max].
    std::vector<int> pool;
    for (int g = 0; g < gpus; ++g)
      if (!taken.count(g)) pool.push_back(g);
    for (long long i = 0; i < count; ++i) {
      const auto j = static_cast<std::size_t>(i) +
                     static_cast<std::size_t>(random.uniform() * double(pool.size() - static_cast<std::size_t>(i)));
      std::swap(pool[static_cast<std::size_t>(i)], pool[j]);
      out.add({pool[static_cast<std::size_t>(i)], low + (high - low) * random.uniform(), from_s});
    }
  }
  s.finish();
  if (out.empty()) throw core::InputError(s.pointer(), "names no straggler; give gpus or drawn");
  return out;
}

}  // namespace studies
