#include "studies/run/layout_plan.hpp"

#include "core/input_error.hpp"
#include "core/json_reader.hpp"
#include "studies/config/fabric_config.hpp"
#include "studies/config/model_config.hpp"
#include "studies/config/overrides.hpp"
#include "workload/pipeline/schedule_registry.hpp"

namespace studies {

namespace {

std::vector<int> divisors(int n, int at_most) {
  std::vector<int> out;
  for (int d = 1; d <= std::min(n, at_most); ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

}  // namespace

Sweep plan_sweep(const std::string& path, const std::vector<std::string>& overrides) {
  Sweep sweep;
  sweep.base = core::read_json_file(path);
  apply_overrides(sweep.base, overrides);
  sweep.base_origin = path;
  // The scenario's own layout may not suit the cluster (a plan tries others), so only its kind
  // is checked here; every point is then validated as it runs.
  const std::string kind = sweep.base.is_object() ? sweep.base.value("kind", std::string()) : std::string();
  if (kind != "training-step")
    throw core::InputError(path + ": /kind",
                           "'" + kind + "' is not allowed; codesim plan takes a training-step scenario");
  for (const char* section : {"fabric", "batch"})
    if (!sweep.base.contains(section) || !sweep.base[section].is_object())
      throw core::InputError(path + ": /" + section, "missing; a training step needs it");
  if (!sweep.base.contains("parallel") || !sweep.base["parallel"].is_object())
    sweep.base["parallel"] = nlohmann::json::object();

  // What the layouts must divide: the model, the cluster and the batch, as the scenario gives them.
  nlohmann::json& base = sweep.base;
  core::JsonReader root(base, "");
  const workload::Model& model = read_model(root);
  net::FabricSpec fabric;
  core::JsonReader f(base.at("fabric"), "/fabric");
  read_fabric_fields(f, fabric, true);
  const int gpn = fabric.gpus_per_node, gpus = fabric.nodes * gpn;
  const auto& batch = base.at("batch");
  core::JsonReader b(batch, "/batch");
  const long long sequences = b.positive_integer("global_sequences", 1 << 24);
  const long long sequence_tokens = b.positive_integer("sequence_tokens", 1 << 20);

  // Keep the scenario's placement and options; the layout is the plan's.
  nlohmann::json parallel = nlohmann::json::object();
  for (const char* key : {"order", "mtp", "tp_comm_overlap", "dp_comm_overlap", "sequence_parallel"})
    if (base["parallel"].contains(key)) parallel[key] = base["parallel"][key];
  base["parallel"] = parallel;
  base["mode"] = "analytical";
  base.erase("expected");
  base.erase("known_misses");
  base.erase("basis");
  base.erase("calibrated");
  base.erase("tolerance");
  base.erase("tolerance_abs");

  sweep.pointers = {"/parallel/tp",       "/parallel/cp",        "/parallel/pp",  "/parallel/dp",
                    "/parallel/vpp",      "/parallel/ep",        "/parallel/etp", "/batch/micro_batch_sequences",
                    "/parallel/schedule", "/parallel/recompute", "/parallel/zero"};
  const bool moe = model.moe.has_value();
  for (int tp : divisors(gpn, gpn)) {
    if (model.attention.heads % tp != 0) continue;
    for (int cp = 1; cp <= 32 && gpus % (tp * cp) == 0; cp *= 2) {
      if (sequence_tokens % (2 * cp) != 0) continue;
      for (int pp : divisors(gpus / (tp * cp), model.layers)) {
        const int dp = gpus / (tp * cp * pp);
        if (sequences % dp != 0) continue;
        const long long per_replica = sequences / dp;
        for (int mbs : {1, 2, 4, 8}) {
          if (per_replica % mbs != 0) continue;
          const long long m = per_replica / mbs;
          // Each schedule that takes pp ranks and m micro-batches with a layer a stage at least, at 2
          // and 4 virtual stages where it has them, in the order the plan numbers its layouts; one
          // stage runs every schedule as 1F1B.
          std::vector<std::pair<std::string, int>> schedules;
          for (const char* name : {"1f1b", "zb1p", "1f1b-interleaved", "dualpipe", "dualpipev"}) {
            const workload::ScheduleKind& kind = workload::schedule_kind(name);
            if (pp == 1 && !schedules.empty()) break;
            for (int vpp : kind.virtual_stages ? std::vector<int>{2, 4} : std::vector<int>{1})
              if (kind.stages(pp, vpp) <= model.layers && !kind.refuses(pp, m, vpp))
                schedules.push_back({kind.parallel_name, vpp});
          }
          // MoE parallel folding: etp x ep over a stage's tp x cp x dp GPUs, experts whole or cut as attention is.
          std::vector<std::pair<int, int>> experts = {{1, 1}};  // (ep, etp)
          if (moe) {
            experts.clear();
            const int stage_gpus = tp * cp * dp;
            for (int etp : tp > 1 ? std::vector<int>{1, tp} : std::vector<int>{1})
              for (int ep : divisors(stage_gpus / etp, stage_gpus))
                if (model.moe->routed_experts % ep == 0 && model.moe->expert_ffn % etp == 0)
                  experts.push_back({ep, etp});
          }
          for (const auto& [schedule, vpp] : schedules)
            for (const auto& [ep, etp] : experts)
              for (const char* recompute : {"none", "selective", "full"})
                for (int zero : {0, 1, 2, 3}) {
                  SweepPoint p;
                  p.index = sweep.points.size();
                  p.values = {{"/parallel/tp", tp},
                              {"/parallel/cp", cp},
                              {"/parallel/pp", pp},
                              {"/parallel/dp", dp},
                              {"/parallel/vpp", vpp},
                              {"/parallel/ep", ep},
                              {"/parallel/etp", etp},
                              {"/batch/micro_batch_sequences", mbs},
                              {"/parallel/schedule", schedule},
                              {"/parallel/recompute", recompute},
                              {"/parallel/zero", zero}};
                  sweep.points.push_back(std::move(p));
                  if (sweep.points.size() > kMaxSweepPoints)
                    throw core::InputError(path,
                                           "has more than " + std::to_string(kMaxSweepPoints) + " layouts to plan");
                }
        }
      }
    }
  }
  return sweep;
}

}  // namespace studies
