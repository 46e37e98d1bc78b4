#include "workload/profile/profile_trace.hpp"

#include <algorithm>
#include <filesystem>
#include <set>
#include <tuple>

#include "core/input_error.hpp"
#include "core/json_reader.hpp"

namespace workload {

namespace {

struct Annotation {
  std::string name;
  double start_us = 0, end_us = 0;
};

struct Launch {
  double ts_us = 0;
  long long pid = 0;
};

struct Kernel {
  double start_us = 0, end_us = 0;
  int stream = 0;
  long long correlation = 0;
  KernelClass kind = KernelClass::kOther;
};

// Typed access to one trace event, every error naming the file and the event's pointer.
class EventReader {
 public:
  EventReader(const nlohmann::json& event, std::string where) : e_(event), where_(std::move(where)) {}

  double number(const nlohmann::json& object, const char* key, const std::string& at) const {
    const auto it = object.find(key);
    if (it == object.end() || !it->is_number())
      throw core::InputError(where_ + at + "/" + key,
                             (it == object.end() ? std::string("missing") : core::describe(*it) + " is not allowed") +
                                 "; expected a number");
    return it->get<double>();
  }
  double number(const char* key) const { return number(e_, key, ""); }
  double arg(const char* key) const {
    const auto args = e_.find("args");
    if (args == e_.end() || !args->is_object()) throw core::InputError(where_ + "/args", "missing; expected an object");
    return number(*args, key, "/args");
  }
  // Chrome traces give the pid as a number or as a string (a name); either identifies it.
  long long process_id() const {
    const auto it = e_.find("pid");
    if (it == e_.end()) return 0;
    if (it->is_number()) return it->get<long long>();
    return static_cast<long long>(std::hash<std::string>{}(it->dump()));
  }

 private:
  const nlohmann::json& e_;
  std::string where_;
};

// The profiler's own per-step ranges, not the program's annotations.
bool profiler_step(const std::string& name) { return name.rfind("ProfilerStep#", 0) == 0; }

double union_ms(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double total = 0, end = -1e300;
  for (const auto& [s, e] : intervals) {
    if (e <= end) continue;
    total += e - std::max(s, end);
    end = e;
  }
  return total / 1e3;
}

}  // namespace

Profile profile_from_trace(const nlohmann::json& trace, const std::string& origin, std::optional<int> device) {
  const std::string file = origin + ": ";
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array())
    throw core::InputError(file + "/traceEvents",
                           "missing; expected a Chrome trace (an object with a traceEvents array)");
  const auto& events = trace["traceEvents"];

  // By process: a kernel launched from another thread of the process (the autograd engine's, in
  // the backward) belongs to the annotation open on the main thread at its launch.
  std::map<long long, std::vector<Annotation>> annotations;
  std::map<long long, Launch> launches;        // by correlation id
  std::map<int, std::vector<Kernel>> kernels;  // by device
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (!e.is_object()) continue;
    const auto cat = e.find("cat");
    if (cat == e.end() || !cat->is_string()) continue;
    const std::string c = cat->get<std::string>();
    const EventReader r(e, file + "/traceEvents/" + std::to_string(i));
    if (c == "user_annotation") {
      const auto name = e.find("name");
      if (name == e.end() || !name->is_string() || profiler_step(name->get<std::string>())) continue;
      const double ts = r.number("ts");
      annotations[r.process_id()].push_back({name->get<std::string>(), ts, ts + r.number("dur")});
    } else if (c == "cuda_runtime" || c == "cuda_driver") {
      const auto args = e.find("args");
      if (args == e.end() || !args->is_object() || !args->contains("correlation")) continue;
      launches[static_cast<long long>(r.arg("correlation"))] = {r.number("ts"), r.process_id()};
    } else if (c == "kernel") {
      const double ts = r.number("ts");
      const auto name = e.find("name");
      kernels[static_cast<int>(r.arg("device"))].push_back(
          {ts, ts + r.number("dur"), static_cast<int>(r.arg("stream")), static_cast<long long>(r.arg("correlation")),
           kernel_class(name != e.end() && name->is_string() ? name->get<std::string>() : "")});
    }
  }
  if (kernels.empty())
    throw core::InputError(file + "/traceEvents",
                           "holds no GPU kernels (events with \"cat\": \"kernel\"); expected a GPU trace");
  if (annotations.empty())
    throw core::InputError(
        file + "/traceEvents",
        "holds no user annotations (\"cat\": \"user_annotation\", from record_function); expected the ops named");
  std::string devices;
  for (const auto& [id, list] : kernels) devices += (devices.empty() ? "" : ", ") + std::to_string(id);
  if (!device && kernels.size() > 1)
    throw core::InputError(file + "/traceEvents",
                           "kernels of several devices (" + devices + "); choose one with --device");
  const int chosen = device ? *device : kernels.begin()->first;
  if (!kernels.count(chosen))
    throw core::InputError("--device",
                           std::to_string(chosen) + " is not allowed; the trace has kernels of device " + devices);

  Profile p;
  p.source = origin;
  p.device_id = chosen;
  if (const auto props = trace.find("deviceProperties"); props != trace.end() && props->is_array())
    for (const auto& d : *props)
      if (d.is_object() && d.value("id", -1) == chosen) {
        p.device = d.value("name", "");
        p.sms = d.value("numSms", 0);
      }

  for (auto& [process, list] : annotations)
    std::sort(list.begin(), list.end(), [](const Annotation& a, const Annotation& b) {
      return std::tie(a.start_us, b.end_us) < std::tie(b.start_us, a.end_us);  // parents before children
    });
  // Kernels of each annotation instance, keyed by (process, index in its sorted list).
  std::map<std::pair<long long, std::size_t>, std::vector<const Kernel*>> instances;
  const auto& list = kernels.at(chosen);
  p.kernels = static_cast<int>(list.size());
  double first_us = list.front().start_us, last_us = list.front().end_us;
  for (const auto& k : list) first_us = std::min(first_us, k.start_us), last_us = std::max(last_us, k.end_us);
  p.span_ms = (last_us - first_us) / 1e3;
  for (const auto& k : list) {
    const auto launch = launches.find(k.correlation);
    if (launch == launches.end()) {
      ++p.unattributed;
      continue;
    }
    const Launch& l = launch->second;
    const auto process = annotations.find(l.pid);
    if (process == annotations.end()) {
      ++p.unattributed;
      continue;
    }
    // Properly nested ranges: the innermost one holding the launch starts last among those
    // that hold it.
    const auto& ranges = process->second;
    auto it = std::upper_bound(ranges.begin(), ranges.end(), l.ts_us,
                               [](double t, const Annotation& a) { return t < a.start_us; });
    std::optional<std::size_t> holder;
    while (it != ranges.begin()) {
      --it;
      if (it->end_us >= l.ts_us) {
        holder = static_cast<std::size_t>(it - ranges.begin());
        break;
      }
    }
    if (!holder) {
      ++p.unattributed;
      continue;
    }
    instances[{process->first, *holder}].push_back(&k);
  }

  std::map<std::string, int> counts;
  for (const auto& [process, list_of] : annotations)
    for (const auto& a : list_of) ++counts[a.name];
  for (const auto& [key, ks] : instances) {
    const std::string& name = annotations.at(key.first)[key.second].name;
    OpTimes& op = p.ops[name];
    op.instances = counts.at(name);
    const double share = 1.0 / op.instances;  // figures are per instance: the mean over them
    std::vector<std::pair<double, double>> intervals;
    double first = 1e300, last = -1e300;
    for (const Kernel* k : ks) {
      op.stream_ms[k->stream] += (k->end_us - k->start_us) / 1e3 * share;
      op.class_ms[k->kind] += (k->end_us - k->start_us) / 1e3 * share;
      intervals.emplace_back(k->start_us, k->end_us);
      first = std::min(first, k->start_us);
      last = std::max(last, k->end_us);
    }
    op.kernels += double(ks.size()) * share;
    op.busy_ms += union_ms(intervals) * share;
    op.span_ms += (last - first) / 1e3 * share;
  }
  return p;
}

Profile read_profile_trace(const std::string& path, std::optional<int> device) {
  return profile_from_trace(core::read_json_file(path), path, device);
}

nlohmann::json calibration_json(const Profile& p) {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [name, op] : p.ops) {
    nlohmann::json streams = nlohmann::json::object();
    for (const auto& [stream, ms] : op.stream_ms) streams[std::to_string(stream)] = ms;
    ops[name] = {{"instances", op.instances},
                 {"kernels", op.kernels},
                 {"busy_ms", op.busy_ms},
                 {"span_ms", op.span_ms},
                 {"stream_ms", streams}};
  }
  nlohmann::json out = {{"source", std::filesystem::path(p.source).filename().string()},
                        {"device", p.device},
                        {"sms", p.sms},
                        {"ops", ops}};
  nlohmann::json w = nlohmann::json::object();
  if (p.workload.micro_batch_tokens > 0) w["micro_batch_tokens"] = p.workload.micro_batch_tokens;
  if (p.workload.communication_sms >= 0) w["communication_sms"] = p.workload.communication_sms;
  out["workload"] = w;
  return out;
}

Profile calibration_from_json(const nlohmann::json& document, const std::string& origin) {
  core::JsonReader root(document, origin + ": ");
  Profile p;
  p.source = origin;
  p.device = root.string("device");
  p.sms = static_cast<int>(root.positive_integer("sms", 100'000));
  root.optional_string("source");
  core::JsonReader w = root.object("workload");
  if (w.has("micro_batch_tokens")) p.workload.micro_batch_tokens = w.positive_number("micro_batch_tokens");
  if (w.has("communication_sms"))
    p.workload.communication_sms = static_cast<int>(w.non_negative_integer("communication_sms", 0, p.sms - 1));
  w.finish();
  core::JsonReader ops = root.object("ops");
  for (const auto& [name, value] : document.at("ops").items()) {
    core::JsonReader o = ops.object(name);
    OpTimes op;
    op.instances = static_cast<int>(o.positive_integer("instances", 1'000'000));
    op.kernels = o.non_negative_number("kernels");
    op.busy_ms = o.non_negative_number("busy_ms");
    op.span_ms = o.non_negative_number("span_ms");
    core::JsonReader streams = o.object("stream_ms");
    for (const auto& [stream, ms] : document.at("ops").at(name).at("stream_ms").items()) {
      int id = 0;
      try {
        id = std::stoi(stream);
      } catch (const std::exception&) { throw core::InputError(streams.pointer_of(stream), "is not a stream number"); }
      op.stream_ms[id] = streams.non_negative_number(stream);
    }
    streams.finish();
    o.finish();
    p.ops[name] = op;
  }
  ops.finish();
  root.finish();
  return p;
}

Profile read_calibration(const std::string& path) { return calibration_from_json(core::read_json_file(path), path); }

}  // namespace workload
