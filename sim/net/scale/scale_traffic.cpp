#include "net/scale/scale_traffic.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <numeric>
#include <sstream>
#include <unordered_map>

#include "core/input_error.hpp"
#include "net/scale/counted_traffic.hpp"
#include "net/scale/double_tree.hpp"
#include "net/scale/flow_classes.hpp"
#include "net/scale/ugal_share.hpp"

namespace net {

namespace {

// Orbits of a set under permutations: union-find, each element to its smallest.
class Orbits {
 public:
  explicit Orbits(std::size_t n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a), b = find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }
  // Numbers the orbits 0, 1, ... in order of their smallest element; sizes by number.
  std::vector<int> number(std::vector<double>& sizes) {
    std::vector<int> id(parent_.size(), -1);
    sizes.clear();
    for (std::size_t x = 0; x < parent_.size(); ++x) {
      const std::size_t root = find(x);
      if (id[root] < 0) {
        id[root] = static_cast<int>(sizes.size());
        sizes.push_back(0);
      }
      id[x] = id[root];
      sizes[static_cast<std::size_t>(id[x])] += 1;
    }
    return id;
  }

 private:
  std::vector<std::size_t> parent_;
};

using Use = std::vector<std::pair<int, double>>;

// Link uses onto link orbits, summed, sorted by orbit.
void to_orbits(Use& use, const std::vector<int>& orbit_of_link) {
  for (auto& [l, u] : use) l = orbit_of_link[static_cast<std::size_t>(l)];
  std::sort(use.begin(), use.end());
  std::size_t out = 0;
  for (std::size_t i = 0; i < use.size(); ++i) {
    if (out > 0 && use[out - 1].first == use[i].first)
      use[out - 1].second += use[i].second;
    else
      use[out++] = use[i];
  }
  use.resize(out);
}

struct UseHash {
  std::size_t operator()(const std::pair<double, Use>& key) const {
    const Use& use = key.second;
    std::size_t h = use.size() ^ std::hash<double>()(key.first);
    for (const auto& [l, u] : use)
      h = h * 1000003u ^ (static_cast<std::size_t>(l) * 2654435761u) ^ std::hash<long long>()(std::llround(u * 1e9));
    return h;
  }
};
struct UseEqual {
  bool operator()(const std::pair<double, Use>& x, const std::pair<double, Use>& y) const {
    const Use &a = x.second, &b = y.second;
    if (x.first != y.first || a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (a[i].first != b[i].first || std::abs(a[i].second - b[i].second) > 1e-9 * std::max(1.0, std::abs(a[i].second)))
        return false;
    return true;
  }
};

}  // namespace

ScaleRun simulate_scale_traffic(const ScaleFabric& f, const ScaleTrafficSpec& s) {
  const bool fat_tree = f.kind() == ScaleFabric::Kind::kFatTree2 || f.kind() == ScaleFabric::Kind::kFatTree3;
  // d-mod-k routes by the destination's port, which the classes' split stands for where every port
  // is a destination alike (all-to-all, shifts and rings of whole routers); a tree's flows are not
  // alike, nor a fault's links: counted flow by flow.
  if (counted_flow_by_flow(f.routing(), fat_tree, !s.link_fractions.empty(), s.kind))
    return simulate_counted_traffic(f, s);
  for (const ScaleTrafficPart& part : s.also)
    if (counted_flow_by_flow(f.routing(), fat_tree, false, part.kind))
      throw core::InputError("also",
                             "a tree is not allowed beside other traffic on a fat tree routed d-mod-k: its "
                             "flows are counted one by one, one traffic at a time; spray for traffic at once");
  ScaleRun run;
  auto start = std::chrono::steady_clock::now();
  const int R = f.routers();
  // Endpoints are numbered router by router; the routers with endpoints, in that order.
  std::vector<int> hosts;
  std::vector<long long> first(static_cast<std::size_t>(R), -1);
  long long n = 0;
  for (int r = 0; r < R; ++r)
    if (f.endpoints_of(r) > 0) {
      hosts.push_back(r);
      first[static_cast<std::size_t>(r)] = n;
      n += f.endpoints_of(r);
    }
  // Index of each host router in `hosts`; the host whose first endpoint is `e` (-1: none).
  std::vector<int> host_index(static_cast<std::size_t>(R), -1);
  for (std::size_t i = 0; i < hosts.size(); ++i) host_index[static_cast<std::size_t>(hosts[i])] = static_cast<int>(i);
  auto router_of = [&](long long e) {  // the router an endpoint is under
    return *(std::upper_bound(hosts.begin(), hosts.end(), e,
                              [&](long long x, int r) { return x < first[static_cast<std::size_t>(r)]; }) -
             1);
  };
  auto host_at = [&](long long e) {
    const auto it = std::lower_bound(hosts.begin(), hosts.end(), e,
                                     [&](int r, long long x) { return first[static_cast<std::size_t>(r)] < x; });
    return it != hosts.end() && first[static_cast<std::size_t>(*it)] == e ? *it : -1;
  };
  // Each part's groups of whole routers: a router's group, and the routers in a group.
  struct Part {
    ScaleTrafficPart traffic;
    std::vector<long long> group;  // per router
    std::size_t per_group = 0;
    bool within_routers = false;  // all-to-all groups of a router's endpoints, several under each
  };
  std::vector<Part> parts;
  std::vector<ScaleTrafficPart> asked = {{s.kind, s.group_endpoints, s.bytes_per_pair}};
  asked.insert(asked.end(), s.also.begin(), s.also.end());
  for (const ScaleTrafficPart& t : asked) {
    Part part{t, std::vector<long long>(static_cast<std::size_t>(R), -1), 0};
    const long long G = t.group_endpoints > 0 ? t.group_endpoints : n;
    if (n % G != 0 && t.kind != ScaleTraffic::kShift)
      throw core::InputError("group_endpoints",
                             std::to_string(G) + " is not allowed; groups of consecutive endpoints that divide the " +
                                 std::to_string(n) + " endpoints");
    // All-to-all groups smaller than a router: whole groups under every router, their flows
    // never leaving it.
    part.within_routers = t.kind == ScaleTraffic::kAllToAll && std::all_of(hosts.begin(), hosts.end(), [&](int r) {
                            return f.endpoints_of(r) > G && f.endpoints_of(r) % G == 0;
                          });
    for (int r : hosts) {
      const long long a = first[static_cast<std::size_t>(r)], b = a + f.endpoints_of(r) - 1;
      const bool whole = t.kind == ScaleTraffic::kShift
                             ? host_at((a + G) % n) >= 0 && f.endpoints_of(host_at((a + G) % n)) == f.endpoints_of(r)
                             : part.within_routers || a / G == b / G;
      if (!whole)
        throw core::InputError("group_endpoints", std::to_string(G) + " is not allowed; " +
                                                      (t.kind == ScaleTraffic::kShift ? "a shift by" : "a group is") +
                                                      " whole routers' endpoints (" +
                                                      std::to_string(f.endpoints_of(r)) + " under each router here)");
      part.group[static_cast<std::size_t>(r)] = t.kind == ScaleTraffic::kShift ? 0
                                                : part.within_routers          ? host_index[static_cast<std::size_t>(r)]
                                                                               : a / G;
    }
    part.per_group = t.kind == ScaleTraffic::kShift || part.within_routers
                         ? (part.within_routers ? 1 : hosts.size())
                         : hosts.size() / static_cast<std::size_t>(n / G);
    parts.push_back(std::move(part));
  }
  // The router-level flows of a part from router `r`: (destination router, endpoint flows).
  auto dests = [&](const Part& part, int r, std::vector<std::pair<int, double>>& out) {
    out.clear();
    const std::size_t lo = static_cast<std::size_t>(part.group[static_cast<std::size_t>(r)]) * part.per_group;
    const double p = f.endpoints_of(r);
    if (part.within_routers)  // each endpoint to the others of its group, under its own router
      return out.push_back({r, p * double(part.traffic.group_endpoints - 1)});
    if (part.traffic.kind == ScaleTraffic::kAllToAll) {
      for (std::size_t i = lo; i < lo + part.per_group; ++i) {
        const int d = hosts[i];
        out.push_back({d, p * (f.endpoints_of(d) - (d == r ? 1 : 0))});
      }
      return;
    }
    if (part.traffic.kind == ScaleTraffic::kTree) {  // each endpoint's tree neighbours, by router
      const long long G = part.traffic.group_endpoints > 0 ? part.traffic.group_endpoints : n;
      std::map<int, double> to;
      std::vector<long long> joined;
      const long long from = first[static_cast<std::size_t>(r)];
      for (long long e = from; e < from + f.endpoints_of(r); ++e) {
        joined.clear();
        double_tree_neighbours(e % G, G, joined);
        for (long long rank : joined) to[router_of(e / G * G + rank)] += 1;
      }
      out.assign(to.begin(), to.end());
      return;
    }
    if (part.traffic.kind == ScaleTraffic::kShift) {  // every endpoint to the one as far on: router to router
      const long long G = part.traffic.group_endpoints > 0 ? part.traffic.group_endpoints : n;
      return out.push_back({host_at((first[static_cast<std::size_t>(r)] + G) % n), p});
    }
    // Ring: p - 1 steps inside the router, and its last endpoint's to the next router of its
    // ring (or its own first endpoint, when the ring is this router's).
    const std::size_t next =
        lo + (static_cast<std::size_t>(host_index[static_cast<std::size_t>(r)]) - lo + 1) % part.per_group;
    if (hosts[next] == r) return out.push_back({r, p});
    if (p > 1) out.push_back({r, p - 1});
    out.push_back({hosts[next], 1});
  };
  // Each switch link's bandwidth, faults included.
  std::vector<double> fraction;
  if (!s.link_fractions.empty()) {
    // Spraying splits a router pair's flows alike whatever their endpoints, so a fault on a sprayed
    // fat tree is exact here (d-mod-k's and ECMP's are counted flow by flow, above); adaptive
    // routing would move traffic off the fault.
    if (fat_tree && f.routing() == ScaleRouting::kAdaptive)
      throw core::InputError("link_fractions",
                             "a fault is not allowed on a fat tree routed adaptive here: it moves traffic off the "
                             "fault; spray, d-mod-k or ecmp (static routes), or net::FabricPlatform flow by flow");
    fraction = f.kept_shares(s.link_fractions);
  }
  // The symmetries that keep the traffic (groups onto groups, rings onto rings) and the links'
  // bandwidths.
  std::vector<std::size_t> kept;
  for (std::size_t g = 0; s.use_symmetry && g < f.generators().size(); ++g) {
    const auto& sigma = f.generators()[g];
    std::unordered_map<long long, long long> group_map;
    bool keeps = true;
    for (const auto& [l, kept_share] : s.link_fractions)
      keeps = keeps && fraction[static_cast<std::size_t>(f.map_link(g, l))] == kept_share;
    std::vector<std::pair<int, double>> a, b;
    for (const Part& part : parts) {
      group_map.clear();
      for (int r : hosts) {
        if (!keeps) break;
        const int sr = sigma[static_cast<std::size_t>(r)];
        const auto [it, fresh] =
            group_map.emplace(part.group[static_cast<std::size_t>(r)], part.group[static_cast<std::size_t>(sr)]);
        keeps = fresh || it->second == part.group[static_cast<std::size_t>(sr)];
        if (keeps && part.traffic.kind != ScaleTraffic::kAllToAll) {  // the same flows, moved
          dests(part, r, a);
          dests(part, sr, b);
          for (auto& [d, flows] : a) d = sigma[static_cast<std::size_t>(d)];
          std::sort(a.begin(), a.end());
          std::sort(b.begin(), b.end());
          keeps = a == b;
        }
      }
    }
    if (keeps) kept.push_back(g);
  }
  run.symmetries = kept.size();
  // Orbits of routers and of links.
  Orbits router_orbits(static_cast<std::size_t>(R)), link_orbits(static_cast<std::size_t>(f.links()));
  for (std::size_t g : kept) {
    for (int r = 0; r < R; ++r)
      router_orbits.join(static_cast<std::size_t>(r),
                         static_cast<std::size_t>(f.generators()[g][static_cast<std::size_t>(r)]));
    for (int l = 0; l < f.links(); ++l)
      link_orbits.join(static_cast<std::size_t>(l), static_cast<std::size_t>(f.map_link(g, l)));
  }
  std::vector<double> router_orbit_size, link_orbit_size;
  const std::vector<int> orbit_of_router = router_orbits.number(router_orbit_size);
  const std::vector<int> orbit_of_link = link_orbits.number(link_orbit_size);
  std::vector<int> reps;  // the smallest router of each orbit with endpoints
  std::vector<int> rep_of_orbit(router_orbit_size.size(), -1);
  for (int r : hosts)
    if (rep_of_orbit[static_cast<std::size_t>(orbit_of_router[static_cast<std::size_t>(r)])] < 0) {
      rep_of_orbit[static_cast<std::size_t>(orbit_of_router[static_cast<std::size_t>(r)])] = r;
      reps.push_back(r);
    }
  run.source_routers = reps.size();
  // UGAL: each flow's minimal share and its Valiant share, classes of their own (net/ugal_share).
  const bool ugal = f.routing() == ScaleRouting::kUgal;
  const bool valiant = f.routing() == ScaleRouting::kValiant || ugal;
  // Memory of the classes before they are made: a sample class's size, times the classes.
  {
    std::vector<std::pair<int, double>> out;
    double minimal_classes = 0, valiant_classes = 0;
    for (const Part& part : parts)
      for (int r : reps) {
        dests(part, r, out);
        if (valiant) valiant_classes += std::min<double>(double(out.size()), double(router_orbit_size.size()));
        if (!valiant || ugal) minimal_classes += double(out.size());
      }
    Use sample;
    dests(parts.front(), reps.back(), out);
    f.add_minimal_route(reps.back(), out.back().first == reps.back() ? hosts.front() : out.back().first, 1, sample);
    to_orbits(sample, orbit_of_link);
    double bytes_needed = minimal_classes * (80 + 16 * double(sample.size() + 2));
    if (valiant) {  // a class's hops: its source's paths to every router and its destination's from every router
      sample.clear();
      for (int i = 0; i < R; ++i) {
        f.add_minimal_route(reps.back(), i, 1.0, sample);
        f.add_minimal_route(i, reps.back(), 1.0, sample);
        if (sample.size() > (1u << 16)) to_orbits(sample, orbit_of_link);
      }
      to_orbits(sample, orbit_of_link);
      bytes_needed += valiant_classes * (80 + 16 * double(sample.size() + 2));
    }
    const double classes = minimal_classes + valiant_classes, per_class = bytes_needed / classes;
    if (bytes_needed > s.max_bytes) {
      std::ostringstream what;
      what.precision(3);
      what << static_cast<long long>(classes) << " flow classes of about " << static_cast<long long>(per_class)
           << " B would need " << bytes_needed / double(1LL << 30) << " GiB, more than the "
           << s.max_bytes / double(1LL << 30) << " GiB allowed"
           << (kept.empty() ? " (no symmetry of the fabric keeps this traffic)" : "");
      throw core::InputError("classes", what.str());
    }
  }
  // Valiant: a flow's hops are its minimal path's to every router evenly, then from every router
  // evenly: the first half depends on the source alone, the second on the destination's orbit.
  std::vector<Use> valiant_out(static_cast<std::size_t>(R)), valiant_in(static_cast<std::size_t>(R));
  if (valiant)
    for (int r : reps) {
      Use& out = valiant_out[static_cast<std::size_t>(r)];
      Use& in = valiant_in[static_cast<std::size_t>(r)];
      for (int i = 0; i < R; ++i) {
        f.add_minimal_route(r, i, 1.0 / R, out);
        f.add_minimal_route(i, r, 1.0 / R, in);
        if (out.size() > (1u << 16)) to_orbits(out, orbit_of_link);
        if (in.size() > (1u << 16)) to_orbits(in, orbit_of_link);
      }
      to_orbits(out, orbit_of_link);
      to_orbits(in, orbit_of_link);
    }
  std::vector<FlowClass> classes;
  // What of its flows' bytes a class carries: all, or (UGAL) their minimal or their Valiant share.
  enum Share { kWhole, kMinimalShare, kValiantShare };
  std::vector<Share> share_of_class;
  // (bytes, use): a class, for each kind of share.
  std::unordered_map<std::pair<double, Use>, std::size_t, UseHash, UseEqual> index[3];
  double bytes = 0;  // the part's, for add_class
  std::vector<std::vector<std::size_t>> classes_of_part;
  auto add_class = [&](Use&& use, double flows, Share share) {
    if (share != kValiantShare) run.flows += flows;  // a flow's two shares are one flow
    const auto [it, fresh] = index[share].emplace(std::pair{bytes, std::move(use)}, classes.size());
    if (fresh) {
      classes.push_back({flows, bytes, it->first.second});
      share_of_class.push_back(share);
    } else {
      classes[it->second].flows += flows;
    }
    classes_of_part.back().push_back(it->second);
  };
  std::vector<std::pair<int, double>> out;
  for (const Part& part : parts)
    for (int r : reps) {
      if (r == reps.front()) classes_of_part.emplace_back();
      bytes = part.traffic.bytes_per_pair;
      const double copies = router_orbit_size[static_cast<std::size_t>(orbit_of_router[static_cast<std::size_t>(r)])];
      dests(part, r, out);
      std::map<int, double> by_orbit;  // Valiant: flows to each destination orbit
      for (const auto& [d, flows] : out) {
        if (flows <= 0) continue;
        if (valiant && d != r) {
          by_orbit[orbit_of_router[static_cast<std::size_t>(d)]] += flows;
          if (!ugal) continue;
        }
        Use use = {{f.injection(r), 1.0}, {f.ejection(d), 1.0}};
        f.add_minimal_route(r, d, 1.0, use);  // Valiant's from a router to itself: none, as minimal's
        to_orbits(use, orbit_of_link);
        add_class(std::move(use), copies * flows, ugal && d != r ? kMinimalShare : kWhole);
      }
      for (const auto& [orbit, flows] : by_orbit) {
        const int d = rep_of_orbit[static_cast<std::size_t>(orbit)];
        Use use = valiant_out[static_cast<std::size_t>(r)];
        use.insert(use.end(), valiant_in[static_cast<std::size_t>(d)].begin(),
                   valiant_in[static_cast<std::size_t>(d)].end());
        use.push_back({orbit_of_link[static_cast<std::size_t>(f.injection(r))], 1.0});
        use.push_back({orbit_of_link[static_cast<std::size_t>(f.ejection(d))], 1.0});
        // Already orbits: sum in place (to_orbits maps through orbit_of_link, which orbit numbers
        // are not).
        std::sort(use.begin(), use.end());
        std::size_t k = 0;
        for (std::size_t i = 0; i < use.size(); ++i) {
          if (k > 0 && use[k - 1].first == use[i].first)
            use[k - 1].second += use[i].second;
          else
            use[k++] = use[i];
        }
        use.resize(k);
        add_class(std::move(use), copies * flows, ugal ? kValiantShare : kWhole);
      }
    }
  // Link classes: an orbit's links have one bandwidth (the symmetries keep endpoints per router).
  std::vector<LinkClass> links(link_orbit_size.size());
  for (int l = 0; l < f.links(); ++l) {
    LinkClass& c = links[static_cast<std::size_t>(orbit_of_link[static_cast<std::size_t>(l)])];
    c.links = link_orbit_size[static_cast<std::size_t>(orbit_of_link[static_cast<std::size_t>(l)])];
    c.Bps_per_link = f.is_switch_link(l)
                         ? s.switch_Bps * (fraction.empty() ? 1.0 : fraction[static_cast<std::size_t>(l)])
                         : s.endpoint_Bps * f.endpoints_of((l - (f.links() - 2 * R)) % R);
  }
  run.flow_classes = classes.size();
  run.link_classes = links.size();
  run.classes_s = seconds_since(start);
  start = std::chrono::steady_clock::now();
  ClassRun solved;
  if (ugal) {  // every class's bytes at a share; the share that ends soonest
    std::vector<double> full_bytes(classes.size());
    for (std::size_t c = 0; c < classes.size(); ++c) full_bytes[c] = classes[c].bytes_per_flow;
    auto solve_at = [&](double share) {
      for (std::size_t c = 0; c < classes.size(); ++c)
        classes[c].bytes_per_flow = full_bytes[c] * (share_of_class[c] == kWhole          ? 1.0
                                                     : share_of_class[c] == kValiantShare ? share
                                                                                          : 1 - share);
      return simulate_classes(links, classes);
    };
    const UgalShare choice = ugal_valiant_share([&](double share) { return solve_at(share).makespan_s; });
    solved = solve_at(choice.valiant_share);
    run.valiant_share = choice.valiant_share;
    run.shares_tried = choice.tried;
  } else {
    solved = simulate_classes(links, classes);
  }
  run.solve_s = seconds_since(start);
  run.seconds = solved.makespan_s;
  run.rate_solves = solved.rate_solves;
  for (const auto& of_part : classes_of_part) {
    run.part_seconds.push_back(0);
    for (std::size_t c : of_part) run.part_seconds.back() = std::max(run.part_seconds.back(), solved.finish_s[c]);
  }
  run.method = kept.empty() ? "every router pair a class (no symmetry kept): exact at the routers' level"
                            : std::to_string(kept.size()) + " symmetries kept: " + std::to_string(reps.size()) +
                                  " source routers of " + std::to_string(hosts.size()) + ", " +
                                  std::to_string(links.size()) + " link orbits, " + std::to_string(classes.size()) +
                                  " flow classes; exact (max-min on the quotient)";
  if (ugal) {
    std::ostringstream share;
    share.precision(3);
    share << "UGAL: " << run.valiant_share * 100 << "% of each flow's bytes over Valiant's paths (the share that ends "
          << "soonest of " << run.shares_tried << " simulated); ";
    run.method = share.str() + run.method;
  }
  return run;
}

}  // namespace net
