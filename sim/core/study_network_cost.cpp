#include "core/study_network_cost.hpp"

#include "core/input_error.hpp"
#include "net/cost_model.hpp"
#include "net/topology.hpp"

namespace core {

namespace {

struct TopologySpec {
  std::string label;
  std::string kind;
  std::string pointer;
  int radix = 64, planes = 1, q = 0, p = 0, a = 0, h = 0, groups = 0;
};

class NetworkCostStudy : public Study {
 public:
  std::vector<TopologySpec> topologies;
  net::Prices prices;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    for (const auto& t : topologies) {
      net::TopologyCounts c;
      const std::string where = t.pointer + "/";
      if (t.kind == "ft2" || t.kind == "mpft") c = net::count(net::fat_tree_2(t.radix, t.planes, where));
      else if (t.kind == "ft3") c = net::count(net::fat_tree_3(t.radix, where));
      else if (t.kind == "dragonfly") c = net::count(net::dragonfly(t.p, t.a, t.h, t.groups, where));
      else {
        bool buildable = true;
        try {
          c = net::count(net::slim_fly(t.q, where));
        } catch (const InputError&) {
          buildable = false;
        }
        if (!buildable) {
          c = net::slim_fly_counts(t.q);
          r.notes.push_back(t.label + ": no MMS Slim Fly graph exists for q = " + std::to_string(t.q) +
                            " (not a prime power), so its counts come from the closed forms 2q^2 routers, network "
                            "radix (3q - delta)/2, half as many endpoints per router.");
        }
      }
      const auto cost = net::network_cost(c, prices);
      r.rows.push_back({t.label + "/endpoints", t.label, "endpoints", "", std::nullopt, double(c.endpoints)});
      r.rows.push_back({t.label + "/switches", t.label, "switches", "", std::nullopt, double(c.switches)});
      r.rows.push_back({t.label + "/links", t.label, "links (switch to switch)", "", std::nullopt, double(c.inter_switch_links)});
      r.rows.push_back({t.label + "/cost", t.label, "cost", "M$", std::nullopt, cost.total_usd / 1e6});
      r.rows.push_back({t.label + "/cost_per_endpoint", t.label, "cost per endpoint", "k$", std::nullopt, cost.per_endpoint_usd / 1e3});
    }
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_network_cost_study(JsonReader& root) {
  auto s = std::make_unique<NetworkCostStudy>();
  JsonReader n = root.object("network_cost");
  JsonReader prices = n.object("prices");
  s->prices.switch_usd = prices.non_negative_number("switch_usd");
  s->prices.inter_switch_link_usd = prices.non_negative_number("inter_switch_link_usd");
  s->prices.endpoint_link_usd = prices.non_negative_number("endpoint_link_usd");
  prices.finish();
  const auto* list = n.raw("topologies");
  if (!list || !list->is_array() || list->empty())
    throw InputError(n.pointer_of("topologies"), "expected a non-empty array of topologies");
  for (std::size_t i = 0; i < list->size(); ++i) {
    JsonReader t((*list)[i], n.pointer_of("topologies") + "/" + std::to_string(i));
    TopologySpec spec;
    spec.pointer = t.pointer();
    spec.label = t.string("label");
    spec.kind = t.one_of("kind", {"ft2", "mpft", "ft3", "slim-fly", "dragonfly"});
    if (spec.kind == "ft2" || spec.kind == "mpft" || spec.kind == "ft3")
      spec.radix = static_cast<int>(t.positive_integer("radix", 1024));
    if (spec.kind == "mpft") spec.planes = static_cast<int>(t.positive_integer("planes", 64));
    if (spec.kind == "slim-fly") spec.q = static_cast<int>(t.positive_integer("q", 1000));
    if (spec.kind == "dragonfly") {
      spec.p = static_cast<int>(t.positive_integer("endpoints_per_router", 1024));
      spec.a = static_cast<int>(t.positive_integer("routers_per_group", 1024));
      spec.h = static_cast<int>(t.positive_integer("global_links_per_router", 1024));
      spec.groups = static_cast<int>(t.positive_integer("groups", 1'000'000));
    }
    t.finish();
    s->topologies.push_back(spec);
  }
  n.finish();
  return s;
}

}  // namespace core
