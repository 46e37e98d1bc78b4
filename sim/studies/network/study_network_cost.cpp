#include "studies/network/study_network_cost.hpp"

#include "core/input_error.hpp"
#include "net/cost_model.hpp"
#include "studies/config/topology_config.hpp"

namespace studies {

namespace {

struct NamedTopology {
  std::string label;
  TopologyConfig topology;
};

class NetworkCostStudy : public Study {
 public:
  std::vector<NamedTopology> topologies;
  net::Prices prices;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    for (const auto& [label, topology] : topologies) {
      std::string note;
      const net::TopologyCounts c = topology.counts(&note);
      if (!note.empty()) r.notes.push_back(label + ": " + note);
      const auto cost = net::network_cost(c, prices);
      r.rows.push_back({label + "/endpoints", label, "endpoints", "", std::nullopt, double(c.endpoints)});
      r.rows.push_back({label + "/switches", label, "switches", "", std::nullopt, double(c.switches)});
      r.rows.push_back(
          {label + "/links", label, "links (switch to switch)", "", std::nullopt, double(c.inter_switch_links)});
      r.rows.push_back({label + "/cost", label, "cost", "M$", std::nullopt, cost.total_usd / 1e6});
      r.rows.push_back(
          {label + "/cost_per_endpoint", label, "cost per endpoint", "k$", std::nullopt, cost.per_endpoint_usd / 1e3});
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_network_cost_study(core::JsonReader& root) {
  auto s = std::make_unique<NetworkCostStudy>();
  core::JsonReader n = root.object("network_cost");
  core::JsonReader prices = n.object("prices");
  s->prices.switch_usd = prices.non_negative_number("switch_usd");
  s->prices.inter_switch_link_usd = prices.non_negative_number("inter_switch_link_usd");
  s->prices.endpoint_link_usd = prices.non_negative_number("endpoint_link_usd");
  prices.finish();
  for (core::JsonReader& t : n.object_list("topologies", "topologies")) {
    NamedTopology named;
    named.label = t.string("label");
    named.topology = parse_topology(t);
    t.finish();
    s->topologies.push_back(named);
  }
  n.finish();
  return s;
}

}  // namespace studies
