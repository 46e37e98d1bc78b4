#include "workload/goodput/failure_kinds.hpp"

#include <algorithm>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"

namespace workload {

namespace {

template <class T>
T named(const std::vector<std::string>& names, const std::string& name, const std::vector<T>& values) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw core::InputError("", "'" + name + "' is unknown");  // callers read it with one_of
  return values[std::size_t(it - names.begin())];
}

FailureKind read_kind(core::JsonReader& k, const std::string& name) {
  FailureKind f;
  f.name = name;
  f.component = component_named(k.one_of("component", component_names()));
  f.rate_per_hour = k.non_negative_number("rate_per_hour");
  f.detection_s = k.non_negative_number("detection_s");
  f.path = recovery_path_named(k.one_of("recovery", recovery_path_names()));
  f.rollback = rollback_named(k.one_of("rollback", rollback_names()));
  f.per_replica = k.one_of("scope", {"replica", "job"}) == "replica";
  f.network = k.boolean("network", false);
  f.while_running = k.boolean("while_running", false);
  core::require_sources(k, {"rate_per_hour", "detection_s"});
  k.finish();
  return f;
}

// The reasoning behind the file's choice of rates: a list of paragraphs.
std::vector<std::string> read_notes(core::JsonReader& r) {
  const nlohmann::json* notes = r.raw("notes");
  if (notes == nullptr || !notes->is_array() || notes->empty())
    throw core::InputError(r.pointer_of("notes"),
                           "expected a list of paragraphs: why these rates (which cluster, which sources)");
  std::vector<std::string> out;
  for (const auto& n : *notes) {
    if (!n.is_string() || n.get<std::string>().empty())
      throw core::InputError(r.pointer_of("notes") + "/" + std::to_string(out.size()), "expected a paragraph of text");
    out.push_back(n.get<std::string>());
  }
  return out;
}

const std::vector<ReliabilityData>& failure_kind_catalogue() {
  static const std::vector<ReliabilityData> all = [] {
    std::vector<ReliabilityData> out;
    for (const auto& [path, doc] : core::read_data_folder("reliability")) {
      core::JsonReader r(doc, path + ": ");
      ReliabilityData d;
      d.name = r.string("name");
      d.gpu = r.string("gpu");
      d.notes = read_notes(r);
      const nlohmann::json* kinds = r.raw("kinds");
      if (kinds == nullptr || !kinds->is_object() || kinds->empty())
        throw core::InputError(r.pointer_of("kinds"), "expected an object of failure kinds");
      for (const auto& [name, value] : kinds->items()) {
        core::JsonReader k(value, r.pointer_of("kinds") + "/" + name);
        d.kinds.push_back(read_kind(k, name));
      }
      core::JsonReader s = r.object("fail_slow");
      d.fail_slow_rate_per_node_hour = s.non_negative_number("rate_per_node_hour");
      d.fail_slow.min_s = s.positive_number("min_s");
      d.fail_slow.max_s = s.positive_number("max_s");
      d.fail_slow.slowdown_min = s.positive_number("slowdown_min");
      d.fail_slow.slowdown_max = s.positive_number("slowdown_max");
      core::require_sources(s, {"rate_per_node_hour", "min_s", "max_s", "slowdown_min", "slowdown_max"});
      s.finish();
      core::JsonReader planned = r.object("planned");
      d.code_data_share = read_stop_share(planned, "code_data_share", "a share of the job's stops");
      core::require_sources(planned, {"code_data_share"});
      planned.finish();
      core::JsonReader restart = r.object("restart");
      d.comm_init_s_per_gpu = restart.non_negative_number("comm_init_s_per_gpu");
      d.image_s = restart.non_negative_number("image_s");
      d.warmup_s = restart.non_negative_number("warmup_s");
      d.peer_read_Bps_per_gpu = restart.positive_number("peer_read_Bps_per_gpu");
      core::require_sources(restart, {"comm_init_s_per_gpu", "image_s", "warmup_s", "peer_read_Bps_per_gpu"});
      restart.finish();
      core::JsonReader stragglers = r.object("stragglers");
      d.straggler_loss = read_stop_share(stragglers, "throughput_loss", "a share of throughput");
      core::require_sources(stragglers, {"throughput_loss"});
      stragglers.finish();
      core::JsonReader m = r.object("manual_intervention");
      d.manual_fraction = m.non_negative_number("fraction");
      d.manual_s = m.non_negative_number("mean_s");
      core::require_sources(m, {"fraction", "mean_s"});
      m.finish();
      r.finish();
      out.push_back(std::move(d));
    }
    return out;
  }();
  return all;
}

}  // namespace

double read_stop_share(core::JsonReader& r, const std::string& key, const std::string& what) {
  const double x = r.number(key);
  if (!(x >= 0 && x < 1))
    throw core::InputError(r.pointer_of(key),
                           core::describe_number(x) + " is not allowed; " + what + ", from 0 to below 1");
  return x;
}

const ReliabilityData& reliability_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(failure_kind_catalogue(), name, "reliability data", where);
}

std::vector<std::string> reliability_names() { return core::names_of(failure_kind_catalogue()); }

const std::vector<std::string>& component_names() {
  static const std::vector<std::string> names{"gpu", "node", "nic", "link", "switch-link", "switch", "job"};
  return names;
}
const std::vector<std::string>& recovery_path_names() {
  static const std::vector<std::string> names{"in-place", "swap", "requeue"};
  return names;
}
const std::vector<std::string>& rollback_names() {
  static const std::vector<std::string> names{"last-checkpoint", "before-corruption", "none"};
  return names;
}

Component component_named(const std::string& name) {
  return named(component_names(), name,
               std::vector<Component>{Component::kGpu, Component::kNode, Component::kNic, Component::kLink,
                                      Component::kSwitchLink, Component::kSwitch, Component::kJob});
}
RecoveryPath recovery_path_named(const std::string& name) {
  return named(recovery_path_names(), name,
               std::vector<RecoveryPath>{RecoveryPath::kInPlace, RecoveryPath::kSwap, RecoveryPath::kRequeue});
}
Rollback rollback_named(const std::string& name) {
  return named(rollback_names(), name,
               std::vector<Rollback>{Rollback::kLastCheckpoint, Rollback::kBeforeCorruption, Rollback::kNone});
}

}  // namespace workload
