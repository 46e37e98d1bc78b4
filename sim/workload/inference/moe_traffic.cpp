#include "workload/inference/moe_traffic.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/analytic_engine.hpp"
#include "core/engine.hpp"
#include "hw/low_latency_alltoall.hpp"
#include "net/platform.hpp"
#include "workload/moe/ep_comm.hpp"

namespace workload {

int moe_profiles(const ServingDeployment& d) {
  return d.popularity ? static_cast<int>(d.popularity->layers.size()) : 1;
}

std::vector<double> expert_shares(const Moe& moe, const ServingDeployment& d, const GateConfig& gate,
                                  const ServingRequest& q, int p, AllToAllCache* cache) {
  if (d.popularity) return d.popularity->layer(p);
  if (q.affinity.skew == AffinitySkew::kUniform || q.affinity.skew == AffinitySkew::kBalanced)
    return std::vector<double>(static_cast<std::size_t>(moe.routed_experts), 1.0 / moe.routed_experts);
  if (cache && !cache->gate_shares.empty()) return cache->gate_shares;
  const std::vector<float> no_bias(static_cast<std::size_t>(moe.routed_experts), 0.0f);
  const auto history =
      route_synthetic_tokens(8192, q.affinity.skew, q.affinity.strength, q.seed + 0x9E37, gate, no_bias);
  std::vector<double> shares(static_cast<std::size_t>(moe.routed_experts), 0.0);
  for (int e : history.experts) shares[static_cast<std::size_t>(e)] += 1.0 / history.experts.size();
  if (cache) cache->gate_shares = shares;
  return shares;
}

namespace {

// EPLB's plan for profile `p`: made from what the plan saw (a measured popularity, the plan's own
// file where it names one; else the gate's shares): hierarchical when the nodes divide the expert
// groups, else global.
ReplicatedPlacement eplb_plan(const Moe& moe, const ServingDeployment& d, const GateConfig& gate,
                              const ServingRequest& q, int p, AllToAllCache* cache) {
  std::vector<double> estimate = d.eplb_plan ? d.eplb_plan->layer(p) : expert_shares(moe, d, gate, q, p, cache);
  if (d.eplb_window_tokens > 0) {  // the counts of a past window, drawn apart from the tokens served
    const Routing window = draw_routing(estimate, d.eplb_window_tokens, moe.active_routed_experts,
                                        q.seed + 0xE9B1ull * (static_cast<std::uint64_t>(p) + 1));
    std::fill(estimate.begin(), estimate.end(), 0.0);
    for (int e : window.experts) estimate[static_cast<std::size_t>(e)] += 1;
  }
  return eplb_hierarchical(moe.groups, d.routed_gpus, d.gpus_per_node)
             ? balance_experts_hierarchical(estimate, d.redundant_experts, d.routed_gpus, moe.groups,
                                            d.routed_gpus / d.gpus_per_node)
             : balance_experts(estimate, d.redundant_experts, d.routed_gpus);
}

// With a measured popularity, each layer routes its own tokens: a micro-batch's tokens are drawn
// at a count rounded to 8 points per doubling above 256 (within 4.5%), its bytes and loads scaled
// to the count, so that a run's many step shapes share their routings.
int routed_count(const ServingDeployment& d, long long tokens, int max_routed) {
  const int routed = static_cast<int>(std::min<long long>(tokens, max_routed));
  if (!d.popularity || routed <= 256) return routed;
  const double step = std::exp2(std::floor(std::log2(double(routed)))) / 8;
  return static_cast<int>(std::lround(routed / step) * step);
}

// What `routed` tokens of MoE-layer profile `p` put on the GPUs: routed by the gate (or drawn
// from the measured popularity) onto the placed experts (replicas of the heaviest with redundant
// experts), sent directly or DeepEP's way.
RoutedLoad routed_load(const Model& m, const ServingDeployment& d, const ServingRequest& q, int routed,
                       AllToAllCache* cache, int p, bool matrices) {
  const std::uint64_t seed = q.seed;
  const int max_routed = q.max_routed_tokens;
  const Moe& moe = *m.moe;
  const GateConfig gate{moe.routed_experts, moe.active_routed_experts, moe.groups,
                        std::min(moe.groups_per_token, moe.groups), 2.5};
  const std::vector<float> no_bias(static_cast<std::size_t>(moe.routed_experts), 0.0f);
  const std::uint64_t layer_seed = seed + 0x51ED27ull * static_cast<std::uint64_t>(p);
  // Tokens are routed one by one and the first tokens' affinities do not depend on how many are
  // drawn, so fewer tokens' routing is the start of more tokens' routing: kept, and drawn again
  // (for at least twice as many) only when more are asked.
  auto route = [&](Routing& r, int n) {
    if (d.popularity)
      extend_routing(r, d.popularity->layer(p), n, moe.active_routed_experts, layer_seed);
    else
      r = route_synthetic_tokens(n, q.affinity.skew, q.affinity.strength, seed, gate, no_bias);
  };
  Routing* kept = nullptr;
  if (cache) {
    if (cache->routings.size() < static_cast<std::size_t>(moe_profiles(d)))
      cache->routings.resize(static_cast<std::size_t>(moe_profiles(d)));
    kept = &cache->routings[static_cast<std::size_t>(p)];
    if (kept->tokens < routed) route(*kept, std::min(max_routed, std::max(routed, 2 * kept->tokens)));
  }
  // The placement answers the load seen over time (EPLB's estimate), not this batch: it is made
  // from another sample of the same gate, or from the popularity its plan saw. Each routed expert
  // id becomes the slot of its replica.
  const int slots = moe.routed_experts + d.redundant_experts;
  std::vector<double> slot_inclusion(static_cast<std::size_t>(slots));  // a token's chance of choosing each slot
  const std::vector<double> shares = expert_shares(moe, d, gate, q, p, cache);
  const ReplicatedPlacement* placement = nullptr;
  std::optional<ReplicatedPlacement> made;
  if (d.redundant_experts > 0) {
    if (cache && cache->placements.size() < static_cast<std::size_t>(moe_profiles(d)))
      cache->placements.resize(static_cast<std::size_t>(moe_profiles(d)));
    std::optional<ReplicatedPlacement>& plan = cache ? cache->placements[static_cast<std::size_t>(p)] : made;
    if (!plan) plan = eplb_plan(moe, d, gate, q, p, cache);
    placement = &*plan;
    for (int e = 0; e < moe.routed_experts; ++e)
      for (int s : placement->expert_slots[static_cast<std::size_t>(e)])
        slot_inclusion[static_cast<std::size_t>(s)] =
            moe.active_routed_experts * shares[static_cast<std::size_t>(e)] / placement->replicas(e);
  } else {
    for (int e = 0; e < moe.routed_experts; ++e)
      slot_inclusion[static_cast<std::size_t>(e)] = moe.active_routed_experts * shares[static_cast<std::size_t>(e)];
  }
  const int per_gpu = slots / d.routed_gpus;
  // DeepEP's low-latency (direct) kernels add 16 bytes of metadata to each selection
  // (notes/kernels.md).
  const double dispatch_bytes = fp8_token_bytes(m.hidden) + (d.direct_comm ? 16 : 0);
  const bool shared_destination = d.dedicated_shared && d.shared_gpus() > 0;

  // Tokens [first, routed) of the routing (from token 0, expert ids) as slots, counted on the GPUs:
  // copies on each expert GPU, and the dispatch's copies by link (directly or DeepEP's way).
  Routing routing;
  routing.top_k = kept ? kept->top_k : 0;
  auto count = [&](const std::vector<int>& experts, int first, AllToAllCache::CountedTokens& c) {
    routing.experts.resize(static_cast<std::size_t>(routed) * routing.top_k);
    for (int t = first; t < routed; ++t)
      for (int k = 0; k < routing.top_k; ++k) {
        const std::size_t i = static_cast<std::size_t>(t) * routing.top_k + k;
        const int slot = placement ? placement->slot_for(experts[i], t) : experts[i];
        routing.experts[i] = slot;
        ++c.load[static_cast<std::size_t>(slot / per_gpu)];
      }
    if (d.direct_comm) {
      std::vector<int> destinations;
      for (int t = first; t < routed; ++t) {
        destinations.clear();
        for (int k = 0; k < routing.top_k; ++k) destinations.push_back(routing.expert(t, k) / per_gpu);
        if (shared_destination) destinations.push_back(d.routed_gpus + t % d.shared_gpus());
        add_direct_copies(t, destinations.data(), destinations.data() + destinations.size(), d.gpus, d.gpus_per_node,
                          c.copies);
      }
    } else {
      add_dispatch_copies(routing.experts, routing.top_k, first, routed,
                          ExpertPlacement{d.gpus, d.gpus_per_node, slots}, c.copies);
    }
  };
  AllToAllCache::CountedTokens counted{std::vector<long long>(static_cast<std::size_t>(d.routed_gpus), 0),
                                       std::vector<GpuCopies>(static_cast<std::size_t>(d.gpus))};
  if (cache && !matrices) {
    // From the counts of the most tokens fewer than these, their tokens added.
    if (cache->counted.size() < static_cast<std::size_t>(moe_profiles(d)))
      cache->counted.resize(static_cast<std::size_t>(moe_profiles(d)));
    auto& by_count = cache->counted[static_cast<std::size_t>(p)];
    int first = 0;
    if (auto it = by_count.upper_bound(routed); it != by_count.begin()) {
      --it;
      first = it->first;
      counted = it->second;
    }
    count(kept->experts, first, counted);
    by_count[routed] = counted;
  } else {
    if (kept)
      routing.experts.assign(kept->experts.begin(),
                             kept->experts.begin() + static_cast<std::ptrdiff_t>(routed) * routing.top_k);
    else
      route(routing, routed);
    routing.tokens = routed;
    const std::vector<int> experts = routing.experts;
    count(experts, 0, counted);
  }

  RoutedLoad out;
  out.mean_copies = double(static_cast<long long>(routed) * routing.top_k) / d.routed_gpus;
  const auto busiest_gpu =
      static_cast<int>(std::max_element(counted.load.begin(), counted.load.end()) - counted.load.begin());
  out.busiest_copies = double(counted.load[static_cast<std::size_t>(busiest_gpu)]);
  out.busiest_inclusion.assign(slot_inclusion.begin() + static_cast<std::ptrdiff_t>(busiest_gpu) * per_gpu,
                               slot_inclusion.begin() + static_cast<std::ptrdiff_t>(busiest_gpu + 1) * per_gpu);
  // Copies are whole numbers and a copy's bytes too: these are exactly the matrices' sums.
  out.dispatched.resize(counted.copies.size());
  for (std::size_t g = 0; g < counted.copies.size(); ++g) {
    const GpuCopies& c = counted.copies[g];
    out.dispatched[g] = {double(c.ib_sent) * dispatch_bytes, double(c.ib_received) * dispatch_bytes,
                         double(c.nvlink_sent) * dispatch_bytes, double(c.nvlink_received) * dispatch_bytes};
  }
  if (matrices) {
    routing.tokens = routed;
    if (d.direct_comm) {
      std::vector<std::vector<int>> destinations(static_cast<std::size_t>(routed));
      for (int t = 0; t < routed; ++t) {
        for (int k = 0; k < routing.top_k; ++k) destinations[t].push_back(routing.expert(t, k) / per_gpu);
        if (shared_destination) destinations[t].push_back(d.routed_gpus + t % d.shared_gpus());
      }
      out.dispatch = direct_traffic(destinations, d.gpus, d.gpus_per_node, dispatch_bytes);
    } else {
      out.dispatch = dispatch_traffic(routing, ExpertPlacement{d.gpus, d.gpus_per_node, slots}, dispatch_bytes);
    }
  }
  return out;
}

// The EP all-to-all of one micro-batch in MoE-layer profile `p`: its routing's load on the GPUs,
// scaled to the micro-batch's tokens, and timed.
MoeTraffic moe_traffic(const Model& m, const ServingDeployment& d, const ServingLinks& links, long long tokens,
                       const ServingRequest& q, const net::Cluster* cluster, AllToAllCache* cache, int p) {
  const int routed = routed_count(d, tokens, q.max_routed_tokens);
  const double scale = double(tokens) / routed;
  // Kept by routed tokens (a flow simulation's pair matrices only for the gate's one profile).
  const bool keep = cache && (!cluster || !d.popularity);
  const std::pair<int, int> key{p, routed};
  RoutedLoad made;
  if (keep && !cache->loads.count(key)) cache->loads[key] = routed_load(m, d, q, routed, cache, p, cluster != nullptr);
  if (!keep) made = routed_load(m, d, q, routed, cache, p, cluster != nullptr);
  const RoutedLoad& l = keep ? cache->loads.at(key) : made;

  MoeTraffic out;
  out.busiest_expert_tokens = l.busiest_copies * scale;
  out.imbalance = l.busiest_copies / l.mean_copies;
  // The busiest GPU's experts that any of its token copies chose: as many tokens as bring it
  // that many copies, each choosing each of its slots with the slot's chance.
  const double gpu_chance = std::accumulate(l.busiest_inclusion.begin(), l.busiest_inclusion.end(), 0.0);
  out.busiest_experts_touched =
      gpu_chance > 0 ? expected_experts_touched(l.busiest_inclusion, out.busiest_expert_tokens / gpu_chance) : 0.0;

  const double dispatch_bytes = fp8_token_bytes(m.hidden) + (d.direct_comm ? 16 : 0);
  const double combine_bytes = 2.0 * m.hidden;  // BF16
  // The combine retraces the dispatch's copies, each of its own size.
  const double combine_ratio = combine_bytes / dispatch_bytes;
  const DispatchTraffic& dispatch = l.dispatch;
  DispatchTraffic combine;
  if (cluster) {
    combine = dispatch;
    for (auto* matrix : {&combine.ib, &combine.nvlink})
      for (auto& row : *matrix)
        for (double& b : row) b *= combine_ratio;
  }
  const std::vector<GpuTraffic>& dispatched = l.dispatched;
  std::vector<GpuTraffic> combined = dispatched;
  for (GpuTraffic& g : combined)
    g.ib_sent *= combine_ratio, g.ib_received *= combine_ratio, g.nvlink_sent *= combine_ratio,
        g.nvlink_received *= combine_ratio;
  double busiest = 0;
  for (const GpuTraffic& g : dispatched) busiest = std::max(busiest, g.ib_sent);
  out.ib_bytes_per_gpu = busiest * scale;
  out.simulated = cluster != nullptr;
  if (out.simulated && d.direct_comm && d.measured_all_to_all) {
    // The low-latency kernels on the simulated network: each link at the share of its rate the
    // kernels reach (their fitted model), the kernel's fixed time on top of the flows' makespan.
    const auto& ll = hw::deepep_low_latency();
    net::Cluster kernels = *cluster;
    kernels.scale_out_Bps *= ll.nic.rate_fraction;
    kernels.scale_up_Bps *= ll.nvlink.rate_fraction;
    kernels.scale_out_latency_s = kernels.scale_up_latency_s = 0;
    const double fixed_s = d.gpus > d.gpus_per_node ? ll.nic.latency_s : ll.nvlink.latency_s;
    out.dispatch_s =
        core::simulate(net::StarPlatform(kernels), dispatch_graph(dispatch, scale, false)).makespan_s() + fixed_s;
    out.combine_s =
        core::simulate(net::StarPlatform(kernels), dispatch_graph(combine, scale, true)).makespan_s() + fixed_s;
  } else if (out.simulated) {
    out.dispatch_s = core::simulate(net::StarPlatform(*cluster), dispatch_graph(dispatch, scale, false)).makespan_s();
    out.combine_s = core::simulate(net::StarPlatform(*cluster), dispatch_graph(combine, scale, true)).makespan_s();
  } else if (d.direct_comm && d.measured_all_to_all) {
    // DeepEP's low-latency kernels as measured: the busiest GPU's messages, sent or received,
    // through its NIC and over NVLink, each path at its fitted latency and share of the link.
    const auto& ll = hw::deepep_low_latency();
    auto seconds = [&](const std::vector<GpuTraffic>& per_gpu) {
      double worst = 0;
      for (const GpuTraffic& g : per_gpu)
        worst =
            std::max({worst, ll.seconds(g.ib_sent * scale, g.nvlink_sent * scale, links.ib_Bps, links.nvlink_Bps),
                      ll.seconds(g.ib_received * scale, g.nvlink_received * scale, links.ib_Bps, links.nvlink_Bps)});
      return worst;
    };
    out.dispatch_s = seconds(dispatched);
    out.combine_s = seconds(combined);
  } else {
    const bool crosses_nodes = d.gpus > d.gpus_per_node;
    const double latency = crosses_nodes ? links.ib_latency_s : links.nvlink_latency_s;
    // The busiest port's bytes at the link's rate (ep_comm.hpp's dispatch_bound_s, per GPU).
    auto bound_s = [&](const std::vector<GpuTraffic>& per_gpu) {
      double worst = 0;
      for (const GpuTraffic& g : per_gpu)
        worst = std::max({worst, std::max(g.ib_sent, g.ib_received) * scale / links.ib_Bps,
                          std::max(g.nvlink_sent, g.nvlink_received) * scale / links.nvlink_Bps});
      return worst;
    };
    out.dispatch_s = bound_s(dispatched) + latency;
    out.combine_s = bound_s(combined) + latency;
  }
  return out;
}

}  // namespace

std::vector<MoeTraffic> moe_traffics(const Model& m, const ServingDeployment& d, const ServingLinks& links,
                                     long long tokens, const ServingRequest& q, const net::Cluster* cluster,
                                     AllToAllCache* cache) {
  if (cache)
    if (const auto kept = cache->by_tokens.find(tokens); kept != cache->by_tokens.end()) return kept->second;
  std::vector<MoeTraffic> out;
  for (int p = 0; p < moe_profiles(d); ++p) out.push_back(moe_traffic(m, d, links, tokens, q, cluster, cache, p));
  if (cache) cache->by_tokens[tokens] = out;
  return out;
}

}  // namespace workload
