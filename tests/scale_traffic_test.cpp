// Traffic by classes on Table 3's topologies (net/flow_classes, net/scale_fabric,
// net/scale_traffic): the classes held to flow-level runs of the same traffic.
#include <catch2/catch.hpp>
#include <algorithm>
#include <functional>
#include <memory>

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/fabric.hpp"
#include "net/graph_platform.hpp"
#include "net/scale/double_tree.hpp"
#include "net/scale/flow_classes.hpp"
#include "net/scale/scale_traffic.hpp"

namespace {

// Every router pair of an all-to-all (within groups of `group_routers` consecutive routers; 0: one
// group) as its own class on every link, routed with add_route (Valiant through every router, not
// split into halves): no symmetry, no shortcut. Each pair's bytes go over the fabrics' routings
// in the shares given (UGAL: a minimal fabric's and a Valiant one's), a class for each.
double router_level_alltoall(const std::vector<std::pair<const net::ScaleFabric*, double>>& routings, double bytes,
                             double Bps, int group_routers = 0) {
  const net::ScaleFabric& f = *routings.front().first;
  std::vector<net::LinkClass> links(static_cast<std::size_t>(f.links()));
  for (int l = 0; l < f.links(); ++l)
    links[static_cast<std::size_t>(l)] = {
        f.is_switch_link(l) ? Bps : Bps * f.endpoints_of((l - (f.links() - 2 * f.routers())) % f.routers()), 1};
  std::vector<net::FlowClass> classes;
  for (int s = 0; s < f.routers(); ++s)
    for (int d = 0; d < f.routers(); ++d)
      for (const auto& [routing, share] : routings) {
        const double flows = double(f.endpoints_of(s)) * (f.endpoints_of(d) - (s == d ? 1 : 0));
        if (flows <= 0 || share <= 0 || (group_routers > 0 && s / group_routers != d / group_routers)) continue;
        net::FlowClass c{flows, bytes * share, {{f.injection(s), 1.0}, {f.ejection(d), 1.0}}};
        routing->add_route(s, d, 1.0, c.use);
        std::sort(c.use.begin(), c.use.end());
        std::vector<std::pair<int, double>> merged;
        for (const auto& u : c.use)
          if (!merged.empty() && merged.back().first == u.first)
            merged.back().second += u.second;
          else
            merged.push_back(u);
        c.use = merged;
        classes.push_back(std::move(c));
      }
  return net::simulate_classes(links, classes).makespan_s;
}

double router_level_alltoall(const net::ScaleFabric& f, double bytes, double Bps) {
  return router_level_alltoall({{&f, 1.0}}, bytes, Bps);
}

// One flow per endpoint pair on the fluid engine, each on the single path the per-endpoint
// routing gives it (`path`: the switch links from router to router).
class EndpointPlatform : public core::Platform {
 public:
  using PathFn = std::function<std::vector<int>(int src, int dst)>;
  // `kept`: each switch link's share of Bps (empty: all of it).
  EndpointPlatform(const net::ScaleFabric& f, double Bps, PathFn path, std::vector<double> kept = {})
      : f_(f), Bps_(Bps), path_(std::move(path)), kept_(std::move(kept)) {
    for (int r = 0; r < f.routers(); ++r)
      for (int e = 0; e < f.endpoints_of(r); ++e) router_.push_back(r);
  }
  int gpus() const override { return static_cast<int>(router_.size()); }
  double gpu_flops_per_s() const override { return 1e15; }
  int router(int gpu) const { return router_[static_cast<std::size_t>(gpu)]; }
  core::Network network(const core::RoutePairs& pairs) const override {
    core::Network net;
    for (int l = 0; l < f_.links(); ++l)  // switch links (and unused merged ones)
      net.add_link(Bps_ * (kept_.empty() ? 1.0 : kept_[static_cast<std::size_t>(l)]), 0);
    const int base = net.add_link(Bps_, 0);
    for (int g = 1; g < 2 * gpus(); ++g) net.add_link(Bps_, 0);  // per endpoint: up, down
    for (const auto& [s, d] : pairs) {
      std::vector<int> links = {base + 2 * s};
      for (int l : path_(s, d)) links.push_back(l);
      links.push_back(base + 2 * d + 1);
      net.add_route(s, d, links);
    }
    return net;
  }

 private:
  const net::ScaleFabric& f_;
  double Bps_;
  PathFn path_;
  std::vector<double> kept_;
  std::vector<int> router_;
};

// Every endpoint's flows to the destinations `to` gives it, each of `bytes`, on the fluid engine.
double endpoint_run(const EndpointPlatform& p, double bytes, const std::function<std::vector<int>(int)>& to) {
  core::TaskGraph g;
  for (int s = 0; s < p.gpus(); ++s) {
    std::vector<core::Flow> flows;
    for (int d : to(s)) flows.push_back({s, d, bytes});
    g.add_transfer("a2a", s, "a2a", std::move(flows), {});
  }
  return core::simulate(p, g, nullptr, core::EngineKind::kFluid).makespan_s();
}

double endpoint_alltoall(const EndpointPlatform& p, double bytes, int group = 0) {
  const int G = group > 0 ? group : p.gpus();
  return endpoint_run(p, bytes, [&](int s) {
    std::vector<int> out;
    for (int d = s / G * G; d < s / G * G + G; ++d)
      if (d != s) out.push_back(d);
    return out;
  });
}

// A static route's path of each flow (ECMP's as the fabric hashes it in `plane`, or d-mod-k's).
EndpointPlatform::PathFn flow_path(const net::ScaleFabric& f, int plane = 0) {
  return [&f, plane](int s, int d) {
    int links[4];
    return std::vector<int>(links, links + f.flow_links(s, d, plane, links));
  };
}

}  // namespace

TEST_CASE("flow classes: one link shared by two classes, the short one leaves its share", "[scale]") {
  // 3 flows of 1 MB and 1 flow of 3 MB over one link of 1 MB/s: 4 equal shares until 4 s, when
  // the short ones end; the long one's last 2 MB alone: 6 s.
  const auto run = net::simulate_classes({{1e6, 1}}, {{3, 1e6, {{0, 1.0}}}, {1, 3e6, {{0, 1.0}}}});
  CHECK(run.finish_s[0] == Approx(4.0));
  CHECK(run.makespan_s == Approx(6.0));
  // An orbit of 4 links carries a class of 8 flows crossing one of them each: 2 a link.
  CHECK(net::simulate_classes({{1e6, 4}}, {{8, 1e6, {{0, 1.0}}}}).makespan_s == Approx(2.0));
  // A bottleneck elsewhere leaves the rest to the other class (max-min).
  const auto two =
      net::simulate_classes({{1e6, 1}, {0.25e6, 1}}, {{1, 1e6, {{0, 1.0}, {1, 1.0}}}, {1, 1e6, {{0, 1.0}}}});
  CHECK(two.finish_s[0] == Approx(4.0));
  CHECK(two.finish_s[1] == Approx(1.0 / 0.75));
}

TEST_CASE("scale traffic: the classes by symmetry equal every router pair's run", "[scale]") {
  const double S = 1e6, Bps = 50e9;
  struct Case {
    const char* name;
    net::ScaleFabric fabric;
  };
  std::vector<Case> cases;
  cases.push_back({"FT2 k=8 d-mod-k", net::ScaleFabric::fat_tree_2(8, net::ScaleRouting::kDModK)});
  cases.push_back({"FT3 k=8 d-mod-k", net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kDModK)});
  cases.push_back({"FT3 k=8 spray", net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kSpray)});
  cases.push_back(
      {"FT3 k=8, 3 of its 8 pods, d-mod-k", net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kDModK, "", 3)});
  cases.push_back(
      {"FT3 k=8, 5 of its 8 pods, spray", net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kSpray, "", 5)});
  cases.push_back({"SF q=5 minimal", net::ScaleFabric::slim_fly(5, net::ScaleRouting::kMinimal)});
  cases.push_back({"SF q=5 Valiant", net::ScaleFabric::slim_fly(5, net::ScaleRouting::kValiant)});
  cases.push_back({"DF 2,4,2,9 minimal", net::ScaleFabric::dragonfly(2, 4, 2, 9, net::ScaleRouting::kMinimal)});
  cases.push_back({"DF 2,4,2,7 Valiant", net::ScaleFabric::dragonfly(2, 4, 2, 7, net::ScaleRouting::kValiant)});
  cases.push_back(
      {"DF 2,4,2,8 minimal (parallel links)", net::ScaleFabric::dragonfly(2, 4, 2, 8, net::ScaleRouting::kMinimal)});
  for (const auto& [name, f] : cases) {
    INFO(name);
    net::ScaleTrafficSpec spec;
    spec.bytes_per_pair = S;
    spec.endpoint_Bps = spec.switch_Bps = Bps;
    const auto symmetric = net::simulate_scale_traffic(f, spec);
    CHECK(symmetric.symmetries > 0);
    CHECK(symmetric.source_routers < static_cast<std::size_t>(f.routers()) / 2);
    spec.use_symmetry = false;
    const auto plain = net::simulate_scale_traffic(f, spec);
    CHECK(plain.symmetries == 0);
    CHECK(symmetric.flows == Approx(double(f.endpoints()) * double(f.endpoints() - 1)));
    CHECK(plain.flows == Approx(symmetric.flows));
    const double exact = router_level_alltoall(f, S, Bps);
    CHECK(symmetric.seconds == Approx(exact).epsilon(1e-9));
    CHECK(plain.seconds == Approx(exact).epsilon(1e-9));
  }
}

TEST_CASE("scale traffic: EP all-to-all, pipeline shift and ring in one run, by symmetry and without", "[scale]") {
  std::vector<net::ScaleFabric> fabrics;
  fabrics.push_back(net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kDModK));
  fabrics.push_back(net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kDModK, "", 4));  // a three-level MPFT's plane
  fabrics.push_back(net::ScaleFabric::dragonfly(2, 4, 2, 9, net::ScaleRouting::kMinimal));
  fabrics.push_back(net::ScaleFabric::dragonfly(2, 4, 2, 9, net::ScaleRouting::kValiant));
  fabrics.push_back(net::ScaleFabric::slim_fly(5, net::ScaleRouting::kMinimal));
  for (const auto& f : fabrics) {
    const long long p = f.endpoints_of(f.routers() - 1);
    net::ScaleTrafficSpec spec;
    spec.group_endpoints = 2 * p;  // EP groups of two routers
    spec.bytes_per_pair = 1e6;
    spec.also = {{net::ScaleTraffic::kShift, 3 * p, 4e6}, {net::ScaleTraffic::kRingStep, 0, 2e6}};
    const auto together = net::simulate_scale_traffic(f, spec);
    spec.use_symmetry = false;
    const auto plain = net::simulate_scale_traffic(f, spec);
    CHECK(together.seconds == Approx(plain.seconds).epsilon(1e-9));
    CHECK(together.flows == Approx(plain.flows));
    // Each part's end, the same by symmetry and without; the last is the run's.
    REQUIRE(together.part_seconds.size() == 3);
    REQUIRE(plain.part_seconds.size() == 3);
    for (std::size_t i = 0; i < 3; ++i) CHECK(together.part_seconds[i] == Approx(plain.part_seconds[i]).epsilon(1e-9));
    CHECK(*std::max_element(together.part_seconds.begin(), together.part_seconds.end()) ==
          Approx(together.seconds).epsilon(1e-12));
    // Sharing links, the three together take at least as long as the longest alone.
    spec.use_symmetry = true;
    spec.also.clear();
    const auto ep = net::simulate_scale_traffic(f, spec);
    CHECK(together.seconds >= ep.seconds * (1 - 1e-9));
    CHECK(together.flows > ep.flows);
  }
}

TEST_CASE("scale traffic: merged endpoints and split routes equal one flow per endpoint pair", "[scale]") {
  const double S = 1e6, Bps = 50e9;
  // FT3 of 8-port switches (128 endpoints), d-mod-k per endpoint: up to the aggregation switch of
  // the destination's port under its edge switch, then the core of its edge switch's index.
  {
    const auto f = net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kDModK);
    const int half = 4, cores = 16, k = 8;
    auto one = [&](int u, int v) { return f.links_between(u, v).at(0); };
    std::unique_ptr<EndpointPlatform> p;
    p = std::make_unique<EndpointPlatform>(f, Bps, [&](int s, int d) -> std::vector<int> {
      const int rs = p->router(s), rd = p->router(d);
      if (rs == rd) return {};
      const int pod_s = (rs - cores) / k, pod_d = (rd - cores) / k, edge_d = (rd - cores) % k - half, port_d = d % half;
      const int agg_s = cores + pod_s * k + port_d, agg_d = cores + pod_d * k + port_d, core = port_d * half + edge_d;
      if (pod_s == pod_d) return {one(rs, agg_s), one(agg_s, rd)};
      return {one(rs, agg_s), one(agg_s, core), one(core, agg_d), one(agg_d, rd)};
    });
    net::ScaleTrafficSpec spec;
    spec.bytes_per_pair = S;
    spec.endpoint_Bps = spec.switch_Bps = Bps;
    CHECK(net::simulate_scale_traffic(f, spec).seconds == Approx(endpoint_alltoall(*p, S)).epsilon(1e-6));
  }
  // Dragonfly with one global link between each two groups: minimal routes are single paths.
  {
    const auto f = net::ScaleFabric::dragonfly(2, 4, 2, 9, net::ScaleRouting::kMinimal);
    std::unique_ptr<EndpointPlatform> p;
    p = std::make_unique<EndpointPlatform>(f, Bps, [&](int s, int d) {
      std::vector<std::pair<int, double>> use;
      f.add_minimal_route(p->router(s), p->router(d), 1.0, use);
      std::vector<int> out;
      for (const auto& u : use) out.push_back(u.first);
      return out;
    });
    net::ScaleTrafficSpec spec;
    spec.bytes_per_pair = S;
    spec.endpoint_Bps = spec.switch_Bps = Bps;
    CHECK(net::simulate_scale_traffic(f, spec).seconds == Approx(endpoint_alltoall(*p, S)).epsilon(1e-6));
  }
}

TEST_CASE("scale traffic: a degraded link breaks the symmetry and is simulated exactly", "[scale]") {
  const double S = 1e6, Bps = 50e9;
  const auto f = net::ScaleFabric::dragonfly(2, 4, 2, 9, net::ScaleRouting::kMinimal);
  int global = -1;
  // Whichever global link leaves group 0 first, found through the graph.
  for (int v = 4; global < 0 && v < f.routers(); ++v)
    for (int u = 0; u < 4 && global < 0; ++u)
      if (!f.links_between(u, v).empty()) global = f.links_between(u, v)[0];
  REQUIRE(global >= 0);
  net::ScaleTrafficSpec spec;
  spec.bytes_per_pair = S;
  spec.endpoint_Bps = spec.switch_Bps = Bps;
  const auto healthy = net::simulate_scale_traffic(f, spec);
  spec.link_fractions = {{global, 0.25}};
  const auto faulty = net::simulate_scale_traffic(f, spec);
  CHECK(faulty.symmetries < healthy.symmetries);
  CHECK(faulty.source_routers > healthy.source_routers);
  CHECK(faulty.seconds > healthy.seconds * 1.5);
  // One fluid flow per endpoint pair over the same routes, the link at a quarter.
  class Degraded : public core::Platform {
   public:
    Degraded(const net::ScaleFabric& f, double Bps, int link) : f_(f), Bps_(Bps), link_(link) {
      for (int r = 0; r < f.routers(); ++r)
        for (int e = 0; e < f.endpoints_of(r); ++e) router_.push_back(r);
    }
    int gpus() const override { return static_cast<int>(router_.size()); }
    double gpu_flops_per_s() const override { return 1e15; }
    core::Network network(const core::RoutePairs& pairs) const override {
      core::Network net;
      for (int l = 0; l < f_.links(); ++l) net.add_link(l == link_ ? Bps_ / 4 : Bps_, 0);
      const int base = net.add_link(Bps_, 0);
      for (int g = 1; g < 2 * gpus(); ++g) net.add_link(Bps_, 0);
      for (const auto& [s, d] : pairs) {
        std::vector<std::pair<int, double>> use;
        f_.add_minimal_route(router_[static_cast<std::size_t>(s)], router_[static_cast<std::size_t>(d)], 1.0, use);
        std::vector<int> links = {base + 2 * s};
        for (const auto& u : use) links.push_back(u.first);
        links.push_back(base + 2 * d + 1);
        net.add_route(s, d, links);
      }
      return net;
    }

   private:
    const net::ScaleFabric& f_;
    double Bps_;
    int link_;
    std::vector<int> router_;
  };
  const Degraded platform(f, Bps, global);
  core::TaskGraph g;
  for (int s = 0; s < platform.gpus(); ++s) {
    std::vector<core::Flow> flows;
    for (int d = 0; d < platform.gpus(); ++d)
      if (d != s) flows.push_back({s, d, S});
    g.add_transfer("a2a", s, "a2a", std::move(flows), {});
  }
  CHECK(faulty.seconds ==
        Approx(core::simulate(platform, g, nullptr, core::EngineKind::kFluid).makespan_s()).epsilon(1e-6));
  // Refused where routing would steer off the fault, or the fraction is no fraction.
  const auto ft = net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kAdaptive);
  CHECK_THROWS_AS(net::simulate_scale_traffic(ft, spec), core::InputError);
  spec.link_fractions = {{global, 0.0}};
  CHECK_THROWS_AS(net::simulate_scale_traffic(f, spec), core::InputError);
}

TEST_CASE("scale traffic: adaptive routing on a fat tree is spraying's balanced split, as the fluid engine's",
          "[scale]") {
  // Three-level: adaptive's classes are spraying's (every aggregation switch and core evenly).
  {
    net::ScaleTrafficSpec spec;
    spec.group_endpoints = 8;  // EP groups of two edge switches
    spec.bytes_per_pair = 1e6;
    spec.also = {{net::ScaleTraffic::kShift, 12, 4e6}, {net::ScaleTraffic::kRingStep, 0, 2e6}};
    const auto adaptive =
        net::simulate_scale_traffic(net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kAdaptive), spec);
    const auto spray = net::simulate_scale_traffic(net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kSpray), spec);
    CHECK(adaptive.seconds == Approx(spray.seconds).epsilon(1e-12));
    CHECK(adaptive.flow_classes == spray.flow_classes);
  }
  // Two-level, 8-port switches (32 endpoints): against the fluid engine's adaptive routing, one
  // flow per endpoint pair, each route on the spine least used so far (net::Routing::kAdaptive),
  // at full bisection and with the spine links at a quarter (4:1 oversubscribed).
  const double Bps = 50e9, S = 1e6;
  const auto f = net::ScaleFabric::fat_tree_2(8, net::ScaleRouting::kAdaptive);
  const int n = static_cast<int>(f.endpoints());
  struct Case {
    const char* name;
    net::ScaleTraffic kind;
    long long group_endpoints;
    std::function<bool(int, int)> sends;  // endpoint s sends to endpoint d
  };
  const std::vector<Case> cases = {
      {"all-to-all", net::ScaleTraffic::kAllToAll, 0, [](int s, int d) { return s != d; }},
      {"EP all-to-all in groups of two leaves", net::ScaleTraffic::kAllToAll, 8,
       [](int s, int d) { return s != d && s / 8 == d / 8; }},
      {"ring step", net::ScaleTraffic::kRingStep, 0, [n](int s, int d) { return d == (s + 1) % n; }},
      {"shift to the next leaf", net::ScaleTraffic::kShift, 4, [n](int s, int d) { return d == (s + 4) % n; }},
      {"shift three leaves on", net::ScaleTraffic::kShift, 12, [n](int s, int d) { return d == (s + 12) % n; }},
  };
  for (const double switch_Bps : {Bps, Bps / 4}) {
    net::FabricSpec fabric;
    fabric.routing = net::Routing::kAdaptive;
    fabric.nodes = n;
    fabric.gpus_per_node = 1;
    fabric.radix = 8;
    fabric.nic_Bps = Bps;
    fabric.switch_link_Bps = switch_Bps;
    const net::FabricPlatform platform(fabric);
    REQUIRE(platform.gpus() == n);
    for (const Case& c : cases) {
      INFO(c.name << ", spine links at " << switch_Bps / Bps << " of the endpoints'");
      net::ScaleTrafficSpec spec;
      spec.kind = c.kind;
      spec.group_endpoints = c.group_endpoints;
      spec.bytes_per_pair = S;
      spec.endpoint_Bps = Bps;
      spec.switch_Bps = switch_Bps;
      core::TaskGraph g;
      for (int s = 0; s < n; ++s) {
        std::vector<core::Flow> flows;
        for (int d = 0; d < n; ++d)
          if (c.sends(s, d)) flows.push_back({s, d, S});
        g.add_transfer("traffic", s, "traffic", std::move(flows), {});
      }
      const double fluid = core::simulate(platform, g, nullptr, core::EngineKind::kFluid).makespan_s();
      const double classes = net::simulate_scale_traffic(f, spec).seconds;
      // The ring's one flow from a leaf to the next takes one spine link in the fluid engine (a
      // route per flow), where the balanced split spreads it over the four (per packet, as a
      // flowlet switch does): 4x slower once a spine link is slower than an endpoint's.
      const bool one_flow_per_leaf_pair = c.kind == net::ScaleTraffic::kRingStep && switch_Bps < Bps;
      CHECK(classes * (one_flow_per_leaf_pair ? 4 : 1) == Approx(fluid).epsilon(1e-6));
    }
  }
}

TEST_CASE("scale traffic: UGAL on Dragonfly and Slim Fly, minimal's time on uniform traffic and Valiant's on a shift",
          "[scale]") {
  using R = net::ScaleRouting;
  struct Case {
    const char* name;
    std::function<net::ScaleFabric(R)> build;
    long long shift_endpoints;  // a shift that sends every router's flows to one other group (or router)
  };
  const std::vector<Case> cases = {
      // A Dragonfly group's 16 endpoints on: every router's flows to the next group, over its one
      // global link to it when minimal.
      {"DF 2,4,2,9", [](R r) { return net::ScaleFabric::dragonfly(2, 4, 2, 9, r); }, 8},
      {"DF 4,8,4,33", [](R r) { return net::ScaleFabric::dragonfly(4, 8, 4, 33, r); }, 32},
      // Slim Fly q=5 (4 endpoints a router): five routers on.
      {"SF q=5", [](R r) { return net::ScaleFabric::slim_fly(5, r); }, 20},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    net::ScaleTrafficSpec spec;
    spec.bytes_per_pair = 1e6;
    auto time = [&](R r) { return net::simulate_scale_traffic(c.build(r), spec); };
    // Uniform all-to-all: minimal is best, and UGAL keeps to it (Valiant's paths are twice as long).
    {
      const auto minimal = time(R::kMinimal), valiant = time(R::kValiant), ugal = time(R::kUgal);
      CHECK(valiant.seconds > 1.8 * minimal.seconds);
      CHECK(ugal.seconds <= minimal.seconds * (1 + 1e-9));
      CHECK(ugal.seconds >= minimal.seconds * (1 - 1e-9));
      CHECK(ugal.valiant_share < 0.01);
      CHECK(ugal.flows == Approx(minimal.flows));
    }
    // The shift: minimal routing crowds one link per router pair, Valiant spreads it; UGAL goes
    // Valiant's way.
    spec.kind = net::ScaleTraffic::kShift;
    spec.group_endpoints = c.shift_endpoints;
    {
      const auto minimal = time(R::kMinimal), valiant = time(R::kValiant), ugal = time(R::kUgal);
      CHECK(minimal.seconds > 1.9 * valiant.seconds);
      CHECK(ugal.seconds <= valiant.seconds * (1 + 1e-9));
      CHECK(ugal.seconds >= 0.95 * valiant.seconds);
      CHECK(ugal.valiant_share > 0.9);
      CHECK(ugal.flows == Approx(minimal.flows));
    }
  }
}

TEST_CASE("scale traffic: UGAL's shares by symmetry equal every router pair's run", "[scale]") {
  using R = net::ScaleRouting;
  const double S = 1e6, Bps = 50e9;
  const auto minimal = net::ScaleFabric::dragonfly(2, 4, 2, 9, R::kMinimal);
  const auto valiant = net::ScaleFabric::dragonfly(2, 4, 2, 9, R::kValiant);
  const auto ugal = net::ScaleFabric::dragonfly(2, 4, 2, 9, R::kUgal);
  net::ScaleTrafficSpec spec;
  spec.bytes_per_pair = S;
  spec.endpoint_Bps = spec.switch_Bps = Bps;
  // An all-to-all in each half of the fabric (36 endpoints, 4.5 groups): UGAL's share ends
  // sooner than either routing alone; at that share, every router pair's two shares as classes.
  spec.group_endpoints = 36;
  const auto run = net::simulate_scale_traffic(ugal, spec);
  const double x = run.valiant_share;
  CHECK(x > 0.3);
  CHECK(x < 0.7);
  const double minimal_s = router_level_alltoall({{&minimal, 1.0}}, S, Bps, 18);
  const double valiant_s = router_level_alltoall({{&valiant, 1.0}}, S, Bps, 18);
  CHECK(run.seconds < 0.99 * std::min(minimal_s, valiant_s));
  CHECK(run.seconds == Approx(router_level_alltoall({{&minimal, 1 - x}, {&valiant, x}}, S, Bps, 18)).epsilon(1e-9));
  // The whole fabric's all-to-all, a shift and a step's traffic at once: the same by symmetry
  // and without, and never later than minimal or Valiant routing.
  spec.group_endpoints = 0;
  std::vector<net::ScaleTrafficSpec> specs = {spec};
  spec.kind = net::ScaleTraffic::kShift;
  spec.group_endpoints = 8;
  specs.push_back(spec);
  spec.kind = net::ScaleTraffic::kAllToAll;
  spec.group_endpoints = 4;
  spec.also = {{net::ScaleTraffic::kShift, 8, 4e6}, {net::ScaleTraffic::kRingStep, 0, 2e6}};
  specs.push_back(spec);
  for (net::ScaleTrafficSpec& t : specs) {
    const auto symmetric = net::simulate_scale_traffic(ugal, t);
    CHECK(symmetric.symmetries > 0);
    CHECK(symmetric.seconds <= net::simulate_scale_traffic(minimal, t).seconds * (1 + 1e-9));
    CHECK(symmetric.seconds <= net::simulate_scale_traffic(valiant, t).seconds * (1 + 1e-9));
    t.use_symmetry = false;
    const auto plain = net::simulate_scale_traffic(ugal, t);
    CHECK(plain.symmetries == 0);
    CHECK(symmetric.seconds == Approx(plain.seconds).epsilon(1e-9));
    CHECK(symmetric.flows == Approx(plain.flows));
  }
  // UGAL's split is the traffic's: no route of its own.
  std::vector<std::pair<int, double>> use;
  CHECK_THROWS_AS(ugal.add_route(0, 5, 1.0, use), std::logic_error);
  // Refused on a fat tree, adaptive refused on a Dragonfly.
  CHECK_THROWS_AS(net::ScaleFabric::fat_tree_2(8, R::kUgal), core::InputError);
  CHECK_THROWS_AS(net::ScaleFabric::dragonfly(2, 4, 2, 9, R::kAdaptive), core::InputError);
}

// At 16K GPUs and more, the classes against every router pair's run (ctest -L slow: about a minute
// and 1.6 GB).
TEST_CASE("scale traffic: the classes equal the exact run at 16K and 37K GPUs", "[.][scale-16k]") {
  const double S = 1 << 20, Bps = 50e9;
  for (const auto& f : {net::ScaleFabric::slim_fly(29, net::ScaleRouting::kMinimal),
                        net::ScaleFabric::dragonfly(8, 16, 8, 129, net::ScaleRouting::kMinimal)}) {
    REQUIRE(f.endpoints() >= 16384);
    net::ScaleTrafficSpec spec;
    spec.bytes_per_pair = S;
    spec.endpoint_Bps = spec.switch_Bps = Bps;
    const auto classes = net::simulate_scale_traffic(f, spec);
    spec.use_symmetry = false;
    const auto exact = net::simulate_scale_traffic(f, spec);
    CHECK(classes.flow_classes * 100 < exact.flow_classes);
    CHECK(classes.seconds == Approx(exact.seconds).epsilon(0.02));
  }
}

TEST_CASE("scale traffic: all-to-all groups within each router stay under it", "[scale]") {
  const double S = 1e6, Bps = 50e9;
  const auto f = net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kDModK);  // 4 endpoints a router
  net::ScaleTrafficSpec spec;
  spec.group_endpoints = 2;  // two groups under every edge switch
  spec.bytes_per_pair = S;
  spec.endpoint_Bps = spec.switch_Bps = Bps;
  // Each endpoint sends one flow to its one peer: its own link's time, no switch link used.
  const auto alone = net::simulate_scale_traffic(f, spec);
  CHECK(alone.seconds == Approx(S / Bps).epsilon(1e-12));
  CHECK(alone.flows == Approx(128));
  // Beside a pipeline's shift across pods, by symmetry and without: the same run, and the groups
  // slowed only where they share their endpoints' links.
  spec.also = {{net::ScaleTraffic::kShift, 32, 4 * S}};
  const auto together = net::simulate_scale_traffic(f, spec);
  spec.use_symmetry = false;
  const auto plain = net::simulate_scale_traffic(f, spec);
  REQUIRE(together.part_seconds.size() == 2);
  CHECK(together.part_seconds[0] == Approx(plain.part_seconds[0]).epsilon(1e-9));
  CHECK(together.part_seconds[1] == Approx(plain.part_seconds[1]).epsilon(1e-9));
  CHECK(together.part_seconds[0] == Approx(2 * S / Bps).epsilon(1e-9));  // half the link while both send
  // A group that is neither a fraction of a router nor whole routers is refused.
  spec.also.clear();
  spec.group_endpoints = 8;
  CHECK_NOTHROW(net::simulate_scale_traffic(f, spec));
  spec.group_endpoints = 6;
  CHECK_THROWS_AS(net::simulate_scale_traffic(f, spec), core::InputError);
}

TEST_CASE("scale traffic: a fault on a sprayed fat tree is simulated exactly; adaptive refuses it", "[scale]") {
  const double S = 1e6, Bps = 50e9;
  const auto f = net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kSpray);  // 16 cores, then 8 pods of 8
  const int up = f.links_between(16, 0).at(0);  // pod 0's first aggregation switch to core 0
  net::ScaleTrafficSpec spec;
  spec.bytes_per_pair = S;
  spec.endpoint_Bps = spec.switch_Bps = Bps;
  const auto healthy = net::simulate_scale_traffic(f, spec);
  spec.link_fractions = {{up, 0.25}};
  const auto faulty = net::simulate_scale_traffic(f, spec);
  spec.use_symmetry = false;
  const auto plain = net::simulate_scale_traffic(f, spec);
  // Spraying does not steer around the slow link: the flows over it end last, every router pair's
  // run agrees with the classes, and fewer symmetries are kept than without the fault.
  CHECK(faulty.seconds > healthy.seconds * 1.5);
  CHECK(faulty.seconds == Approx(plain.seconds).epsilon(1e-9));
  CHECK(faulty.symmetries < healthy.symmetries);
  CHECK(faulty.flow_classes > healthy.flow_classes);
  CHECK_THROWS_WITH(net::simulate_scale_traffic(net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kAdaptive), spec),
                    Catch::Contains("moves traffic off the fault"));
}

TEST_CASE("scale traffic: d-mod-k flow by flow is its classes' split, and takes a fault exactly", "[scale]") {
  const double S = 1e6, Bps = 50e9;
  net::ScaleTrafficSpec spec;
  spec.bytes_per_pair = S;
  spec.endpoint_Bps = spec.switch_Bps = Bps;
  for (const auto& f : {net::ScaleFabric::fat_tree_2(8, net::ScaleRouting::kDModK),
                        net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kDModK),
                        net::ScaleFabric::fat_tree_3(6, net::ScaleRouting::kDModK, "", 3)}) {
    const EndpointPlatform p(f, Bps, flow_path(f));  // flow_links: d-mod-k's path on this fabric
    const double classes = net::simulate_scale_traffic(f, spec).seconds;
    CHECK(classes == Approx(endpoint_alltoall(p, S)).epsilon(1e-9));
    // A degraded up link out of the first edge switch: counted flow by flow, as the flow-level run.
    // (The first edge switch's first up switch: spine 0, or its pod's first aggregation switch, k/2
    // routers before it.)
    const int edge = p.router(0), up = f.kind() == net::ScaleFabric::Kind::kFatTree2 ? 0 : edge - f.endpoints_of(edge);
    spec.link_fractions = {{f.links_between(edge, up).at(0), 0.25}};
    const auto faulty = net::simulate_scale_traffic(f, spec);
    CHECK(faulty.seconds > classes * 1.5);
    CHECK(faulty.seconds ==
          Approx(endpoint_alltoall(EndpointPlatform(f, Bps, flow_path(f), f.kept_shares(spec.link_fractions)), S))
              .epsilon(1e-9));
    CHECK_THAT(faulty.method, Catch::Contains("d-mod-k flow by flow"));
    // Traffic at once beside the fault: refused (flows of several sizes).
    spec.also = {{net::ScaleTraffic::kRingStep, 0, S}};
    CHECK_THROWS_WITH(net::simulate_scale_traffic(f, spec), Catch::Contains("beside d-mod-k's counted flow by flow"));
    spec.also.clear();
    spec.link_fractions.clear();
  }
}

TEST_CASE("scale traffic: ECMP's paths are the graph router's hash on the same graph", "[scale]") {
  // net::GraphPlatform routes the fat tree's graph hop by hop, by its own hash of the pair and hop
  // over the next switches in vertex order; the scale fabric's routers keep that order.
  struct Case {
    net::Graph graph;
    net::ScaleFabric fabric;
  };
  std::vector<Case> cases;
  cases.push_back({net::fat_tree_2(8, 1), net::ScaleFabric::fat_tree_2(8, net::ScaleRouting::kEcmp)});
  cases.push_back({net::fat_tree_3(8), net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kEcmp)});
  cases.push_back({net::fat_tree_3(6, "", 3), net::ScaleFabric::fat_tree_3(6, net::ScaleRouting::kEcmp, "", 3)});
  for (const Case& c : cases) {
    const net::GraphPlatform graph(c.graph, {}, net::Routing::kEcmp);
    std::vector<int> router(boost::num_vertices(c.graph), -1);
    int routers = 0;
    for (auto [v, end] = boost::vertices(c.graph); v != end; ++v)
      if (c.graph[*v].kind == net::VertexKind::kSwitch) router[*v] = routers++;
    int mismatched = 0, multi_hop = 0;
    for (int s = 0; s < graph.gpus(); ++s)
      for (int d = 0; d < graph.gpus(); ++d) {
        if (s == d) continue;
        const std::vector<net::VertexId> path = graph.route(s, d);
        std::vector<int> expected;
        for (std::size_t i = 2; i + 1 < path.size(); ++i)
          expected.push_back(c.fabric.links_between(router[path[i - 1]], router[path[i]]).at(0));
        int links[4];
        const std::vector<int> ours(links, links + c.fabric.flow_links(s, d, 0, links));
        mismatched += ours != expected ? 1 : 0;
        multi_hop += ours.size() == 4 ? 1 : 0;
      }
    CHECK(mismatched == 0);
    CHECK((c.fabric.kind() == net::ScaleFabric::Kind::kFatTree2 || multi_hop > 0));
  }
}

TEST_CASE("scale traffic: ECMP counted equals one fluid flow per endpoint pair on its hashed path", "[scale]") {
  const double S = 1e6, Bps = 50e9;
  net::ScaleTrafficSpec spec;
  spec.bytes_per_pair = S;
  spec.endpoint_Bps = spec.switch_Bps = Bps;
  struct Case {
    net::ScaleFabric ecmp, spray;
  };
  std::vector<Case> cases;
  cases.push_back({net::ScaleFabric::fat_tree_2(8, net::ScaleRouting::kEcmp),
                   net::ScaleFabric::fat_tree_2(8, net::ScaleRouting::kSpray)});
  cases.push_back({net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kEcmp),
                   net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kSpray)});
  cases.push_back({net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kEcmp, "", 3),
                   net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kSpray, "", 3)});
  for (const Case& c : cases) {
    const net::ScaleFabric& f = c.ecmp;
    const EndpointPlatform p(f, Bps, flow_path(f));
    const int n = p.gpus();
    spec.kind = net::ScaleTraffic::kAllToAll;
    spec.group_endpoints = 0;
    const auto whole = net::simulate_scale_traffic(f, spec);
    CHECK(whole.seconds == Approx(endpoint_alltoall(p, S)).epsilon(1e-9));
    CHECK(whole.flows == double(n) * (n - 1));
    // Hash collisions: the busiest link carries more than the mean, and the run is longer than the
    // balanced split's.
    CHECK(whole.busiest_link_flows > whole.mean_link_flows);
    CHECK(whole.seconds > net::simulate_scale_traffic(c.spray, spec).seconds);
    // EP groups of 8 endpoints (two edge switches), a ring step, a shift.
    spec.group_endpoints = 8;
    CHECK(net::simulate_scale_traffic(f, spec).seconds == Approx(endpoint_alltoall(p, S, 8)).epsilon(1e-9));
    spec.kind = net::ScaleTraffic::kRingStep;
    spec.group_endpoints = 16;
    CHECK(net::simulate_scale_traffic(f, spec).seconds == Approx(endpoint_run(p, S, [](int s) {
                                                            return std::vector<int>{s / 16 * 16 + (s % 16 + 1) % 16};
                                                          })).epsilon(1e-9));
    spec.kind = net::ScaleTraffic::kShift;
    spec.group_endpoints = 5;
    CHECK(net::simulate_scale_traffic(f, spec).seconds ==
          Approx(endpoint_run(p, S, [n](int s) { return std::vector<int>{(s + 5) % n}; })).epsilon(1e-9));
  }
  // A degraded link: the hash does not steer around it, and the count still gives the run.
  const auto f = net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kEcmp);
  spec.kind = net::ScaleTraffic::kAllToAll;
  spec.group_endpoints = 0;
  const double healthy = net::simulate_scale_traffic(f, spec).seconds;
  spec.link_fractions = {{f.links_between(16, 0).at(0), 0.25}};  // pod 0's first aggregation switch to core 0
  const double faulty = net::simulate_scale_traffic(f, spec).seconds;
  CHECK(faulty > healthy * 1.5);
  CHECK(faulty ==
        Approx(endpoint_alltoall(EndpointPlatform(f, Bps, flow_path(f), f.kept_shares(spec.link_fractions)), S))
            .epsilon(1e-9));
  spec.link_fractions.clear();
  // Two planes, each hashing with its own seed: the run is the longer plane's.
  spec.ecmp_planes = 2;
  const double planes = net::simulate_scale_traffic(f, spec).seconds;
  CHECK(planes == Approx(std::max(endpoint_alltoall(EndpointPlatform(f, Bps, flow_path(f, 0)), S),
                                  endpoint_alltoall(EndpointPlatform(f, Bps, flow_path(f, 1)), S)))
                      .epsilon(1e-9));
  // Flows of several sizes at once have no busiest-link bound: refused.
  spec.also = {{net::ScaleTraffic::kShift, 4, S}};
  CHECK_THROWS_WITH(net::simulate_scale_traffic(f, spec), Catch::Contains("beside ECMP's"));
}

TEST_CASE("scale traffic: ECMP counted equals the fluid engine on a 16K-GPU MPFT", "[.][scale-16k]") {
  // A 16,384-GPU MPFT: 8 planes of a two-level fat tree of 64-port switches (2,048 NICs), each
  // plane's 4.2 million flows on the fluid engine.
  const double S = 1 << 20, Bps = 50e9;
  const auto f = net::ScaleFabric::fat_tree_2(64, net::ScaleRouting::kEcmp);
  REQUIRE(f.endpoints() * 8 == 16384);
  net::ScaleTrafficSpec spec;
  spec.bytes_per_pair = S;
  spec.endpoint_Bps = spec.switch_Bps = Bps;
  spec.ecmp_planes = 8;
  const auto counted = net::simulate_scale_traffic(f, spec);
  double exact = 0;
  for (int plane = 0; plane < 8; ++plane)
    exact = std::max(exact, endpoint_alltoall(EndpointPlatform(f, Bps, flow_path(f, plane)), S));
  CHECK(counted.seconds == Approx(exact).epsilon(1e-6));
}

TEST_CASE("double binary tree: two spanning trees, every edge both ways, a rank inner in at most one", "[scale]") {
  for (long long n = 2; n <= 70; ++n) {
    std::vector<std::vector<long long>> joined(static_cast<std::size_t>(n));
    std::size_t edges = 0, most = 0;
    for (long long r = 0; r < n; ++r) {
      net::double_tree_neighbours(r, n, joined[static_cast<std::size_t>(r)]);
      edges += joined[static_cast<std::size_t>(r)].size();
      most = std::max(most, joined[static_cast<std::size_t>(r)].size());
    }
    CAPTURE(n);
    CHECK(edges == static_cast<std::size_t>(4 * (n - 1)));  // two trees of n - 1 edges, each counted at both ends
    for (long long r = 0; r < n; ++r)
      for (long long x : joined[static_cast<std::size_t>(r)]) {
        const auto& back = joined[static_cast<std::size_t>(x)];
        CHECK(std::count(back.begin(), back.end(), r) ==
              std::count(joined[static_cast<std::size_t>(r)].begin(), joined[static_cast<std::size_t>(r)].end(), x));
      }
    // The first tree spans: every rank's parents lead to the root.
    for (long long r = 0; r < n; ++r) {
      long long at = r, steps = 0;
      while (at != 0 && steps++ < n) at = net::binary_tree_parent(at, n);
      CHECK(at == 0);
    }
    if (n % 2 == 0) CHECK(most <= 4);  // mirrored: a leaf of one tree is an inner node of the other
  }
}

TEST_CASE("scale traffic: a double-tree all-reduce's flows, by classes and counted, equal the fluid engine",
          "[scale]") {
  const double S = 1e6, Bps = 50e9;
  net::ScaleTrafficSpec spec;
  spec.kind = net::ScaleTraffic::kTree;
  spec.bytes_per_pair = S;
  spec.endpoint_Bps = spec.switch_Bps = Bps;
  auto tree_run = [&](const EndpointPlatform& p, int group) {
    return endpoint_run(p, S, [&](int s) {
      std::vector<long long> joined;
      net::double_tree_neighbours(s % group, group, joined);
      std::vector<int> out;
      for (long long r : joined) out.push_back(static_cast<int>(s / group * group + r));
      return out;
    });
  };
  // Fat trees under d-mod-k and ECMP: counted flow by flow on their static paths.
  for (const auto& f : {net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kDModK),
                        net::ScaleFabric::fat_tree_3(8, net::ScaleRouting::kEcmp),
                        net::ScaleFabric::fat_tree_2(8, net::ScaleRouting::kDModK)}) {
    const EndpointPlatform p(f, Bps, flow_path(f));
    for (int group : {0, 16}) {
      spec.group_endpoints = group;
      const auto run = net::simulate_scale_traffic(f, spec);
      CHECK(run.seconds == Approx(tree_run(p, group > 0 ? group : p.gpus())).epsilon(1e-9));
      CHECK(run.flows == 4.0 * double(p.gpus() - p.gpus() / (group > 0 ? group : p.gpus())));
    }
  }
  // Dragonfly with one global link between each two groups, minimal: single paths, by classes.
  const auto df = net::ScaleFabric::dragonfly(2, 4, 2, 9, net::ScaleRouting::kMinimal);
  std::unique_ptr<EndpointPlatform> p;
  p = std::make_unique<EndpointPlatform>(df, Bps, [&](int s, int d) {
    std::vector<std::pair<int, double>> use;
    df.add_minimal_route(p->router(s), p->router(d), 1.0, use);
    std::vector<int> out;
    for (const auto& u : use) out.push_back(u.first);
    return out;
  });
  spec.group_endpoints = 0;
  const auto classes = net::simulate_scale_traffic(df, spec);
  CHECK(classes.seconds == Approx(tree_run(*p, p->gpus())).epsilon(1e-6));
  spec.use_symmetry = false;
  CHECK(net::simulate_scale_traffic(df, spec).seconds == Approx(classes.seconds).epsilon(1e-9));
}
