#include "net/traffic_class.hpp"

#include <stdexcept>

namespace net {

TrafficClassPlatform::TrafficClassPlatform(const core::Platform& base, std::vector<TrafficClass> classes,
                                           std::vector<int> class_of_gpu)
    : base_(base), classes_(std::move(classes)), class_of_gpu_(std::move(class_of_gpu)) {
  double reserved = 0;
  for (const auto& c : classes_) {
    if (!(c.weight > 0) || !(c.reserved_share >= 0))
      throw std::logic_error("traffic class '" + c.name + "' needs a weight > 0 and a share >= 0");
    reserved += c.reserved_share;
  }
  if (!(reserved < 1)) throw std::logic_error("traffic classes reserve all of a link");
  if (static_cast<int>(class_of_gpu_.size()) != base_.gpus())
    throw std::logic_error("a traffic class per GPU is needed");
  set_compute_slowdowns(base_.compute_slowdowns());
}

core::Network TrafficClassPlatform::network(const core::RoutePairs& pairs) const {
  core::Network net = base_.network(pairs);
  if (!net.changes().empty()) throw std::logic_error("traffic classes on a changing network are not modelled");
  const std::size_t links = net.links().size();
  // A reserving class's copy of every link, at its share; the originals keep the rest.
  std::vector<int> first_copy(classes_.size(), -1);
  double reserved = 0;
  for (std::size_t c = 0; c < classes_.size(); ++c) {
    if (classes_[c].reserved_share <= 0) continue;
    reserved += classes_[c].reserved_share;
    first_copy[c] = static_cast<int>(net.links().size());
    for (std::size_t l = 0; l < links; ++l)
      net.add_link(net.links()[l].Bps * classes_[c].reserved_share, net.links()[l].latency_s);
  }
  for (std::size_t l = 0; l < links; ++l) net.set_link_Bps(static_cast<int>(l), net.links()[l].Bps * (1 - reserved));
  for (std::size_t r = 0; r < net.routes(); ++r) {
    const int c = class_of_gpu_.at(static_cast<std::size_t>(net.pair(r).first));
    const auto& cls = classes_.at(static_cast<std::size_t>(c));
    if (first_copy[static_cast<std::size_t>(c)] >= 0) {
      const int offset = first_copy[static_cast<std::size_t>(c)];
      net.map_route_links(r, [offset](int l) { return offset + l; });
    } else if (cls.weight != 1) {
      net.set_route_weight(r, cls.weight);
    }
  }
  return net;
}

}  // namespace net
