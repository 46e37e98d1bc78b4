#include "studies/config/reliability_config.hpp"

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"

namespace studies {

namespace {

constexpr double kMaxNodeSlowdown = 100;    // past it a node is down, not slow
constexpr double kMaxRestartPartS = 86400;  // a part of a restart that takes more than a day is an outage

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"restart", "per-replica", "elastic"};
  return names;
}

workload::FailureKind legacy_kind(const std::string& name, workload::Component component, double rate_per_hour) {
  workload::FailureKind k;
  k.name = name;
  k.component = component;
  k.rate_per_hour = rate_per_hour;
  const bool network = component == workload::Component::kNic || component == workload::Component::kLink ||
                       component == workload::Component::kSwitch;
  k.path = network ? workload::RecoveryPath::kInPlace : workload::RecoveryPath::kSwap;
  k.per_replica = component == workload::Component::kGpu || component == workload::Component::kNode;
  k.network = network;
  return k;
}

ReliabilityConfig read_legacy_rates(core::JsonReader& f) {
  ReliabilityConfig c;
  auto rate = [&](const char* key) { return f.has(key) ? f.non_negative_number(key) : 0.0; };
  using workload::Component;
  c.kinds = {legacy_kind("gpu", Component::kGpu, rate("gpu")), legacy_kind("node", Component::kNode, rate("node")),
             legacy_kind("nic", Component::kNic, rate("nic")), legacy_kind("link", Component::kLink, rate("link")),
             legacy_kind("switch", Component::kSwitch, rate("switch"))};
  c.detection_from.assign(c.kinds.size(), f.pointer());
  c.sources = f.optional_string("sources").value_or("");
  f.finish();
  return c;
}

double read_slowdown(core::JsonReader& r, const std::string& key, double fallback) {
  if (!r.has(key)) return fallback;
  const double x = r.number(key);
  if (!(x >= 1 && x <= kMaxNodeSlowdown))
    throw core::InputError(
        r.pointer_of(key),
        core::describe_number(x) + " is not allowed; a slowdown is a factor on compute time in [1, 100]");
  return x;
}

}  // namespace

const char* strategy_name(workload::RecoveryStrategy s) {
  switch (s) {
    case workload::RecoveryStrategy::kRestart:
      return "restart";
    case workload::RecoveryStrategy::kPerReplica:
      return "per-replica";
    case workload::RecoveryStrategy::kElastic:
      return "elastic";
  }
  return "";
}

ReliabilityConfig read_reliability(core::JsonReader& root) {
  const bool legacy = root.has("failure_rates_per_hour"), given = root.has("reliability");
  if (legacy && given)
    throw core::InputError(root.pointer_of("failure_rates_per_hour"),
                           "is not allowed beside /reliability; give the failure rates one way");
  if (legacy) {
    core::JsonReader f = root.object("failure_rates_per_hour");
    return read_legacy_rates(f);
  }
  core::JsonReader r = root.object("reliability");
  ReliabilityConfig c;
  c.data = r.one_of("data", workload::reliability_names());
  const workload::ReliabilityData& data = workload::reliability_by_name(c.data, r.pointer_of("data"));
  c.kinds = data.kinds;
  for (const workload::FailureKind& k : c.kinds)
    c.detection_from.push_back("data/reliability/" + c.data + ".json: /kinds/" + k.name + "/detection_s");
  if (const nlohmann::json* kinds = r.raw("kinds")) {
    const std::string at = r.pointer_of("kinds");
    if (!kinds->is_object())
      throw core::InputError(at, core::describe(*kinds) + " is not allowed; expected an object of failure kinds");
    std::vector<std::string> names;
    for (const workload::FailureKind& k : c.kinds) names.push_back(k.name);
    for (const auto& [name, value] : kinds->items()) {
      std::size_t i = 0;
      while (i < names.size() && names[i] != name) ++i;
      if (i == names.size())
        throw core::InputError(at + "/" + name,
                               "'" + name + "' is not a failure kind; " + core::allowed_list(name, names));
      core::JsonReader k(value, at + "/" + name);
      workload::FailureKind& kind = c.kinds[i];
      kind.rate_per_hour = k.non_negative_number("rate_per_hour", kind.rate_per_hour);
      if (k.has("detection_s")) {
        kind.detection_s = k.non_negative_number("detection_s");
        c.detection_from[i] = k.pointer_of("detection_s");
      }
      if (k.has("recovery"))
        kind.path = workload::recovery_path_named(k.one_of("recovery", workload::recovery_path_names()));
      k.finish();
    }
  }
  c.fail_slow = data.fail_slow;
  c.fail_slow_rate_per_node_hour = data.fail_slow_rate_per_node_hour;
  if (auto s = r.optional_object("fail_slow")) {
    c.fail_slow_rate_per_node_hour = s->non_negative_number("rate_per_node_hour", c.fail_slow_rate_per_node_hour);
    c.fail_slow.min_s = s->positive_number("min_s", c.fail_slow.min_s);
    c.fail_slow.max_s = s->positive_number("max_s", c.fail_slow.max_s);
    c.fail_slow.slowdown_min = read_slowdown(*s, "slowdown_min", c.fail_slow.slowdown_min);
    c.fail_slow.slowdown_max = read_slowdown(*s, "slowdown_max", c.fail_slow.slowdown_max);
    c.fail_slow.exclude_after_s = s->non_negative_number("exclude_after_s", 0.0);
    if (c.fail_slow.max_s < c.fail_slow.min_s)
      throw core::InputError(s->pointer_of("max_s"), core::describe_number(c.fail_slow.max_s) +
                                                         " is not allowed; at least min_s (" +
                                                         core::describe_number(c.fail_slow.min_s) + ")");
    if (c.fail_slow.slowdown_max < c.fail_slow.slowdown_min)
      throw core::InputError(s->pointer_of("slowdown_max"), core::describe_number(c.fail_slow.slowdown_max) +
                                                                " is not allowed; at least slowdown_min (" +
                                                                core::describe_number(c.fail_slow.slowdown_min) + ")");
    s->finish();
  }
  c.manual_fraction = data.manual_fraction;
  c.manual_s = data.manual_s;
  if (auto m = r.optional_object("manual_intervention")) {
    if (m->has("fraction")) {
      c.manual_fraction = m->non_negative_number("fraction");
      if (c.manual_fraction > 1)
        throw core::InputError(m->pointer_of("fraction"), core::describe_number(c.manual_fraction) +
                                                              " is not allowed; a share of the stops, at most 1");
    }
    c.manual_s = m->non_negative_number("mean_s", c.manual_s);
    m->finish();
  }
  c.code_data_share = data.code_data_share;
  if (auto p = r.optional_object("planned")) {
    if (p->has("code_data_share"))
      c.code_data_share = workload::read_stop_share(*p, "code_data_share", "a share of the job's stops");
    p->finish();
  }
  c.straggler_loss = data.straggler_loss;
  if (auto s = r.optional_object("stragglers")) {
    if (s->has("throughput_loss"))
      c.straggler_loss = workload::read_stop_share(*s, "throughput_loss", "a share of throughput");
    s->finish();
  }
  // Off: neither fail-slow nodes nor stragglers, the stops alone.
  if (!r.boolean("throughput_losses", true)) {
    c.straggler_loss = 0;
    c.fail_slow_rate_per_node_hour = 0;
  }
  c.sources = r.optional_string("sources").value_or("");
  r.finish();
  return c;
}

workload::Checkpointing read_checkpoint(core::JsonReader& root) {
  core::JsonReader k = root.object("checkpoint");
  workload::Checkpointing c;
  c.interval_s = k.non_negative_number("interval_s", 0.0);
  const bool sized = k.has("size_bytes_per_gpu");
  if (sized == k.has("write_s"))
    throw core::InputError(k.pointer_of("write_s"),
                           sized ? "is not allowed beside size_bytes_per_gpu; give the write one way"
                                 : "missing; give write_s, or size_bytes_per_gpu and write_Bps_per_gpu");
  const double size = sized ? k.positive_number("size_bytes_per_gpu") : 0.0;
  c.write_s = sized ? size / k.positive_number("write_Bps_per_gpu") : k.non_negative_number("write_s");
  c.async = k.boolean("async", false);
  // Asked either way, so that a misspelt key's hint lists them.
  for (const char* key : {"stall_s", "snapshot_Bps_per_gpu"})
    if (k.has(key) && !c.async)
      throw core::InputError(
          k.pointer_of(key),
          "is not allowed without async: true; a synchronous checkpoint stops the job for its whole write");
  if (c.async) {
    if (k.has("snapshot_Bps_per_gpu")) {
      if (!sized)
        throw core::InputError(k.pointer_of("snapshot_Bps_per_gpu"),
                               "is not allowed without size_bytes_per_gpu; give stall_s");
      if (k.has("stall_s"))
        throw core::InputError(k.pointer_of("stall_s"),
                               "is not allowed beside snapshot_Bps_per_gpu; give the stall one way");
      c.stall_s = size / k.positive_number("snapshot_Bps_per_gpu");
    } else if (k.has("stall_s")) {
      c.stall_s = k.non_negative_number("stall_s");
    } else {
      throw core::InputError(k.pointer_of("stall_s"),
                             "missing; an asynchronous checkpoint stalls for stall_s, or for size_bytes_per_gpu at "
                             "snapshot_Bps_per_gpu (the copy to host memory): give one of them");
    }
    if (c.stall_s > c.write_s)
      throw core::InputError(k.pointer_of(k.has("stall_s") ? "stall_s" : "snapshot_Bps_per_gpu"),
                             core::describe_number(c.stall_s) +
                                 " s of stall is not allowed; an asynchronous checkpoint stalls at most its write (" +
                                 core::describe_number(c.write_s) + " s)");
  }
  if (auto m = k.optional_object("in_memory")) {
    if (!c.async)
      throw core::InputError(
          k.pointer_of("in_memory"),
          "is not allowed without async: true; a snapshot in host memory is an asynchronous checkpoint's stall");
    c.in_memory = true;
    c.storage_every = static_cast<int>(m->positive_integer("storage_every", 1, 1'000'000));
    c.memory_peers = static_cast<int>(m->non_negative_integer("peer_copies", 0, 1'000));
    m->finish();
  }
  k.finish();
  return c;
}

RecoveryConfig read_recovery(core::JsonReader& root) {
  core::JsonReader r = root.object("recovery");
  RecoveryConfig c;
  for (const std::string& s :
       r.has("strategies") ? r.string_list("strategies", strategy_names()) : std::vector<std::string>{"restart"})
    c.strategies.push_back(s == "restart"       ? workload::RecoveryStrategy::kRestart
                           : s == "per-replica" ? workload::RecoveryStrategy::kPerReplica
                                                : workload::RecoveryStrategy::kElastic);
  c.replicas_pointer = r.pointer_of("replicas");
  c.recovery.replicas = static_cast<int>(r.positive_integer("replicas", 1, 1'000'000));
  c.parts_pointer = r.pointer_of("restart_parts");
  if (auto parts = r.optional_object("restart_parts")) {
    if (r.has("restart_s"))
      throw core::InputError(r.pointer_of("restart_s"),
                             "is not allowed beside restart_parts; give the restart one way");
    RestartPartsConfig p;
    auto part_s = [&](const char* key) {
      return parts->has(key) ? std::optional<double>(parts->number_in(key, 0, kMaxRestartPartS)) : std::nullopt;
    };
    auto bandwidth = [&](const char* key) {
      return parts->has(key) ? std::optional<double>(parts->positive_number(key)) : std::nullopt;
    };
    p.image_s = part_s("image_s");
    p.comm_init_s = part_s("comm_init_s");
    p.warmup_s = part_s("warmup_s");
    p.read_Bps_per_gpu = bandwidth("read_Bps_per_gpu");
    p.peer_read_Bps_per_gpu = bandwidth("peer_read_Bps_per_gpu");
    parts->finish();
    c.parts = p;
  } else {
    c.recovery.restart_s = r.non_negative_number("restart_s");
  }
  c.recovery.in_place_s = r.non_negative_number("in_place_s", 0.0);
  c.recovery.swap_s = r.non_negative_number("swap_s", 0.0);
  c.recovery.requeue_s = r.non_negative_number("requeue_s");
  c.recovery.repair_s = r.non_negative_number("repair_s");
  r.finish();
  for (workload::RecoveryStrategy s : c.strategies)
    if (s != workload::RecoveryStrategy::kRestart && c.recovery.replicas < 2)
      throw core::InputError(c.replicas_pointer, std::to_string(c.recovery.replicas) +
                                                     " is not allowed with strategy '" + strategy_name(s) +
                                                     "'; it works in data-parallel replicas: at least 2");
  return c;
}

}  // namespace studies
