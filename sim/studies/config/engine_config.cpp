#include "studies/config/engine_config.hpp"

#include <algorithm>
#include <cctype>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "studies/report/joined.hpp"
#include "hw/attention_backend.hpp"
#include "hw/gemm_library.hpp"
#include "hw/gpu.hpp"
#include "serving/serving_config.hpp"

namespace studies {

namespace {

// Versions compared number by number ("0.14" after "0.5").
bool older(const std::string& a, const std::string& b) {
  std::vector<long> x, y;
  for (auto [text, out] : {std::pair{&a, &x}, std::pair{&b, &y}}) {
    std::size_t i = 0;
    while (i < text->size()) {
      std::size_t used = 0;
      out->push_back(std::stol(text->substr(i), &used));
      i += used + 1;
    }
  }
  return x < y;
}

const std::vector<serving::EngineProfile>& engine_catalogue() {
  static const std::vector<serving::EngineProfile> engines = [] {
    std::vector<serving::EngineProfile> out;
    for (const auto& [path, doc] : core::read_data_folder("engines")) {
      core::JsonReader r(doc, path + ": ");
      serving::EngineProfile e;
      e.name = r.string("name");
      r.string("description");
      std::vector<std::string> figures{"overlap_scheduling", "frontend_s", "tokenize_s_per_token", "emit_s"};
      if (r.has("version")) {
        // A release as numbers and dots ("0.14"), compared number by number.
        e.version = r.string("version");
        const bool numbers =
            !e.version.empty() && std::isdigit(static_cast<unsigned char>(e.version.front())) &&
            std::isdigit(static_cast<unsigned char>(e.version.back())) && e.version.find("..") == std::string::npos &&
            std::all_of(e.version.begin(), e.version.end(),
                        [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)) || ch == '.'; });
        if (!numbers)
          throw core::InputError(r.pointer_of("version"),
                                 "'" + e.version + "' is not allowed; a release as numbers and dots, e.g. \"0.14\"");
        for (const auto& other : out)
          if (other.name == e.name && other.version == e.version)
            throw core::InputError(r.pointer_of("version"), "'" + e.version + "' is not allowed; " + e.name + " " +
                                                                e.version + " has a profile already");
      }
      // An engine's CPU work is microseconds to milliseconds; a second bounds each figure, so that
      // a slip of the exponent is refused rather than stalling every request past the run.
      if (r.has("step_cpu")) {
        // By part, as the sources split it: each part's fixed and per-sequence figure.
        core::JsonReader parts = r.object("step_cpu");
        for (auto [key, part] : {std::pair{"schedule", &e.schedule}, std::pair{"prepare", &e.prepare},
                                 std::pair{"sample", &e.sample}, std::pair{"outputs", &e.outputs}}) {
          if (!parts.has(key)) continue;
          core::JsonReader p = parts.object(key);
          part->fixed_s = p.number_in("fixed_s", 0, 1);
          part->per_sequence_s = p.number_in("per_sequence_s", 0, 1);
          p.finish();
          figures.push_back(std::string("step_cpu_") + key);
        }
        parts.finish();
      } else {
        e.schedule.fixed_s = r.number_in("step_cpu_s", 0, 1);
        e.schedule.per_sequence_s = r.number_in("step_cpu_per_sequence_s", 0, 1);
        figures.insert(figures.end(), {"step_cpu_s", "step_cpu_per_sequence_s"});
      }
      for (const serving::CpuPart* part : {&e.schedule, &e.prepare, &e.sample, &e.outputs}) {
        e.step_cpu_s += part->fixed_s;
        e.step_cpu_per_sequence_s += part->per_sequence_s;
      }
      if (r.has("worker_dispatch_s")) {
        e.worker_dispatch_s = r.number_in("worker_dispatch_s", 0, 1);
        figures.push_back("worker_dispatch_s");
      }
      e.overlap_scheduling = r.boolean("overlap_scheduling", false);
      if (e.overlap_scheduling) {
        // What overlap leaves exposed each step, and whether tokens come a step later.
        e.overlap_exposed_s = r.number_in("overlap_exposed_s", 0, 1);
        e.tokens_a_step_later = r.boolean("tokens_a_step_later", false);
        figures.insert(figures.end(), {"overlap_exposed_s", "tokens_a_step_later"});
      }
      e.frontend_s = r.number_in("frontend_s", 0, 1);
      e.tokenize_s_per_token = r.number_in("tokenize_s_per_token", 0, 1);
      e.emit_s = r.number_in("emit_s", 0, 1);
      if (r.has("vendors")) {
        e.vendors = r.string_list("vendors", hw::gpu_vendors());
        figures.push_back("vendors");
      }
      if (r.has("attention_backends")) {
        e.attention_backends = r.string_list("attention_backends", hw::attention_backend_names());
        figures.push_back("attention_backends");
      }
      if (r.has("stream_s_per_token")) {
        e.stream_s_per_token = r.number_in("stream_s_per_token", 0, 1);
        figures.push_back("stream_s_per_token");
      }
      if (r.has("scheduler")) {
        e.scheduler = r.one_of("scheduler", serving::scheduler_names());
        figures.push_back("scheduler");
      }
      // How it sizes its KV cache: a share of HBM (vLLM's), of what the weights leave
      // (TensorRT-LLM's) or HBM less a reserve (SGLang's).
      if (r.has("kv_memory")) {
        const std::string rule = r.one_of("kv_memory", {"share-of-hbm", "share-of-free", "reserve"});
        figures.push_back("kv_memory");
        if (rule == "reserve") {
          e.kv_memory = serving::KvMemoryRule::kReserve;
          e.kv_memory_reserve_bytes = r.number_in("kv_memory_reserve_bytes", 0, 1e12);
          figures.push_back("kv_memory_reserve_bytes");
        } else {
          e.kv_memory =
              rule == "share-of-free" ? serving::KvMemoryRule::kShareOfFree : serving::KvMemoryRule::kShareOfHbm;
          e.kv_memory_fraction = r.number_in("kv_memory_fraction", 0.01, 1);
          figures.push_back("kv_memory_fraction");
        }
      }
      for (auto [key, slot, max] :
           {std::tuple{"page_tokens", &e.page_tokens, 1 << 16}, std::tuple{"max_running", &e.max_running, 1 << 20},
            std::tuple{"max_batch_tokens", &e.max_batch_tokens, 1 << 22}})
        if (r.has(key)) {
          *slot = static_cast<int>(r.positive_integer(key, max));
          figures.push_back(key);
        }
      if (r.has("two_batch_overlap")) {
        // By phase: a prefill unit's steps and a decode unit's.
        core::JsonReader t = r.object("two_batch_overlap");
        e.two_batch_overlap_prefill = t.boolean("prefill", false);
        e.two_batch_overlap_decode = t.boolean("decode", false);
        t.finish();
        figures.push_back("two_batch_overlap");
      }
      if (r.has("moe")) {
        // Its MoE path: the experts' layout, and with expert parallelism the all-to-all by phase.
        core::JsonReader p = r.object("moe");
        serving::EngineProfile::MoePath path;
        path.experts = p.one_of("experts", {"expert-parallel", "tensor-parallel"});
        core::JsonReader c = p.object("communication");
        path.prefill_communication = c.one_of("prefill", moe_communication_names());
        path.decode_communication = c.one_of("decode", moe_communication_names());
        c.finish();
        path.communication_sms = static_cast<int>(p.positive_integer("communication_sms", 1024));
        p.finish();
        e.moe = path;
        figures.insert(figures.end(), {"moe_experts", "moe_communication", "moe_communication_sms"});
      }
      if (r.has("cuda_graphs")) {
        // The batch sizes it captures up to, and whether prompts' steps replay graphs too.
        core::JsonReader g = r.object("cuda_graphs");
        e.cuda_graph_max_batch = static_cast<int>(g.non_negative_integer("max_batch", 0, 1 << 16));
        e.cuda_graph_prefill = g.boolean("prefill", false);
        g.finish();
        figures.push_back("cuda_graphs");
      }
      if (r.has("gemm_libraries")) {
        e.gemm_libraries = r.string_list("gemm_libraries", hw::gemm_library_names());
        figures.push_back("gemm_libraries");
      }
      core::require_sources(r, figures);
      r.finish();
      out.push_back(e);
    }
    return out;
  }();
  return engines;
}

}  // namespace

const std::vector<std::string>& moe_communication_names() {
  static const std::vector<std::string> names = {"forwarded", "direct", "all-gather"};
  return names;
}

std::vector<std::string> engine_names() {
  std::vector<std::string> names;
  for (const auto& n : core::names_of(engine_catalogue()))
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  return names;
}

std::vector<std::string> engine_versions(const std::string& name) {
  std::vector<std::string> versions;
  for (const auto& e : engine_catalogue())
    if (e.name == name && !e.version.empty()) versions.push_back(e.version);
  std::sort(versions.begin(), versions.end(), older);
  return versions;
}

const serving::EngineProfile& engine_by_name(const std::string& name, const std::string& where) {
  const serving::EngineProfile* latest = nullptr;
  for (const auto& e : engine_catalogue())
    if (e.name == name && (!latest || older(latest->version, e.version))) latest = &e;
  if (!latest)
    throw core::InputError(where, "engine '" + name + "' is unknown; " + core::allowed_list(name, engine_names()));
  return *latest;
}

const serving::EngineProfile& engine_by_version(const std::string& name, const std::string& version,
                                                const std::string& where) {
  for (const auto& e : engine_catalogue())
    if (e.name == name && e.version == version) return e;
  const auto versions = engine_versions(name);
  const std::string listed = joined(versions, ", ");
  throw core::InputError(where, "'" + version + "' is not allowed; " + name +
                                    "'s versions in data/engines: " + (listed.empty() ? "none (one profile)" : listed));
}

}  // namespace studies
