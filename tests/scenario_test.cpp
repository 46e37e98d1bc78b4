#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "core/input_error.hpp"
#include "studies/config/overrides.hpp"
#include "studies/run/scenario.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kScenarios = std::string(CODESIM_SOURCE_DIR) + "/scenarios";

json tpot_ib() { return core::read_json_file(kScenarios + "/paper/tpot-ib.json"); }

// The message of the InputError that loading `doc` (then running it without simulation) raises.
std::string error_of(const json& doc) {
  try {
    studies::RunOptions dry;
    dry.simulate = false;
    studies::parse_scenario(doc, "test").run(dry);
  } catch (const core::InputError& e) { return e.what(); }
  return "no error";
}

json with(const std::string& assignment) {
  json doc = tpot_ib();
  studies::apply_override(doc, assignment);
  return doc;
}

}  // namespace

TEST_CASE("every shipped scenario loads and runs its closed-form part", "[scenario]") {
  int count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".json" || entry.path().filename() == "schema.json") continue;
    INFO(entry.path().string());
    const auto scenario = studies::load_scenario(entry.path().string());
    studies::RunOptions dry;
    dry.simulate = false;
    const auto report = scenario.run(dry);
    CHECK_FALSE(report.rows.empty());
    // Every paper figure the scenario states lands on the row it names, unchanged.
    for (const auto& expected : scenario.expected) {
      const std::string& id = expected.first;  // (a structured binding is not captured by clang before 16)
      const double value = expected.second;
      const auto row = std::find_if(report.rows.begin(), report.rows.end(), [&](const auto& r) { return r.id == id; });
      REQUIRE(row != report.rows.end());
      REQUIRE(row->paper);
      CHECK(*row->paper == value);
    }
    ++count;
  }
  CHECK(count >= 4);
}

TEST_CASE("each validation error names the pointer, the value and the rule", "[scenario]") {
  using Catch::StartsWith;
  CHECK_THAT(error_of(with("/cluster/scale_out_bandwidth_Bps=\"fast\"")),
             StartsWith("/cluster/scale_out_bandwidth_Bps: \"fast\" (a string) is not allowed; expected a number"));
  CHECK_THAT(error_of(with("/cluster/scale_out_bandwidth_Bps=0")),
             StartsWith("/cluster/scale_out_bandwidth_Bps: 0 (a number) is not allowed; expected a number > 0"));
  CHECK_THAT(error_of(with("/cluster/scale_out_bandwidth_Bps=-5e9")),
             StartsWith("/cluster/scale_out_bandwidth_Bps: -5"));
  CHECK_THAT(error_of(with("/cluster/scale_out_latency_s=-1")),
             StartsWith("/cluster/scale_out_latency_s: -1 (a number) is not allowed; expected a number >= 0"));
  CHECK_THAT(
      error_of(with("/cluster/node=h900")),
      StartsWith(
          "/cluster/node: 'h900' is unknown; allowed: dgx-a100, dgx-h100, g5-a10g, g6-l4, g6e-l40s, gb200-nvl72, h100"));
  CHECK_THAT(error_of(with("/cluster/gpu=B300")),
             StartsWith("/cluster/gpu: 'B300' is unknown; allowed: A100, A10G, A40, B200, GB200, H100"));
  CHECK_THAT(error_of(with("/cluster/nodes=0")), StartsWith("/cluster/nodes: 0 (a number) is not allowed"));
  CHECK_THAT(error_of(with("/model=deepseek-v4")), Catch::Contains("did you mean 'deepseek-v2'?"));
  CHECK_THAT(error_of(with("/model=llama-3.1-405b")), StartsWith("/model: 'llama-3.1-405b' is dense"));
  CHECK_THAT(error_of(with("/kind=decode-bond")), StartsWith("/kind: 'decode-bond' is unknown"));
  CHECK_THAT(error_of(with("/decode/tokens_per_device=0")), StartsWith("/decode/tokens_per_device: 0"));
  CHECK_THAT(error_of(with("/decode/tokens_per_device=2.5")), StartsWith("/decode/tokens_per_device: 2.5"));
  CHECK_THAT(error_of(with("/decode/layers=1e12")), Catch::Contains("expected an integer from 1 to 100000"));
  CHECK_THAT(error_of(with("/decode/hidden=0")), StartsWith("/decode/hidden: 0"));
  CHECK_THAT(error_of(with("/decode/path=rail")),
             StartsWith("/decode/path: 'rail' is unknown; allowed: scale-out, scale-up"));
  CHECK_THAT(error_of(with("/decode/compute=some")), StartsWith("/decode/compute: 'some' is unknown"));
  CHECK_THAT(error_of(with("/decode/flow/devices=72")),
             StartsWith("/decode/flow/devices: 72 is not allowed; on the scale-out path"));
  CHECK_THAT(error_of(with("/decode/flow/devices=84")), Catch::Contains("must be a multiple of 8 and at least 80"));
  CHECK_THAT(error_of(with("/decode/hiden=7000")),
             StartsWith("/decode/hiden: unknown key; allowed:") && Catch::Contains("did you mean 'hidden'?"));
  CHECK_THAT(error_of(with("/clustr=1")), Catch::Contains("did you mean 'cluster'?"));
  CHECK_THAT(error_of(with("/expected/tpto=1")), StartsWith("/expected/tpto: no row of this scenario has this id") &&
                                                     Catch::Contains("did you mean 'tpot'?"));
  CHECK_THAT(error_of(with("/expected/tpot=\"14\"")), StartsWith("/expected/tpot: \"14\" (a string)"));
  CHECK_THAT(error_of(with("/notes/0=3")), StartsWith("/notes/0: 3 (a number) is not allowed; expected a string"));
  CHECK_THAT(error_of(with("/title=[]")), StartsWith("/title: [] (an array) is not allowed; expected a string"));
  json no_title = tpot_ib();
  no_title.erase("title");
  CHECK(error_of(no_title) == "/title: missing; this field is required");
  CHECK(error_of(json::array()) == "/: [] (an array) is not an object; expected a JSON object");
}

TEST_CASE("scale-up path checks devices against the domain", "[scenario]") {
  json doc = core::read_json_file(kScenarios + "/paper/tpot-nvl72.json");
  studies::apply_override(doc, "/decode/flow/devices=73");
  CHECK_THAT(error_of(doc), Catch::StartsWith("/decode/flow/devices: 73 is not allowed; on the scale-up path"));
  studies::apply_override(doc, "/decode/flow/devices=9");
  CHECK_THAT(error_of(doc), Catch::Contains("devices must be from 10 to 72"));
}

TEST_CASE("kv-cache and train-flops sections are validated", "[scenario]") {
  json kv = core::read_json_file(kScenarios + "/paper/kv-cache.json");
  studies::apply_override(kv, "/kv_cache/models/1=qwen-72b");
  CHECK_THAT(error_of(kv), Catch::StartsWith("/kv_cache/models/1: 'qwen-72b' is unknown"));
  kv = core::read_json_file(kScenarios + "/paper/kv-cache.json");
  studies::apply_override(kv, "/kv_cache/models=[]");
  CHECK_THAT(error_of(kv), Catch::StartsWith("/kv_cache/models: [] (an array) is not allowed"));
  json tf = core::read_json_file(kScenarios + "/paper/train-flops.json");
  studies::apply_override(tf, "/train_flops/sequence_tokens=-4096");
  CHECK_THAT(error_of(tf), Catch::StartsWith("/train_flops/sequence_tokens: -4096"));
}

TEST_CASE("missing and malformed files", "[scenario]") {
  CHECK_THROWS_WITH(studies::load_scenario("/nonexistent/s.json"),
                    "/nonexistent/s.json: cannot open the file (missing or unreadable)");
  const auto path = fs::temp_directory_path() / "codesim_malformed.json";
  { std::ofstream(path) << "{\"kind\": "; }
  CHECK_THROWS_WITH(studies::load_scenario(path.string()), Catch::Contains("malformed JSON: parse error"));
  fs::remove(path);
}

TEST_CASE("an override changes what the scenario computes", "[scenario]") {
  studies::RunOptions dry;
  dry.simulate = false;
  auto tpot = [&](const std::vector<std::string>& sets) {
    for (const auto& r : studies::load_scenario(kScenarios + "/paper/tpot-ib.json", sets).run(dry).rows)
      if (r.id == "comm_per_ep_step") return r.ours;
    return -1.0;
  };
  CHECK(tpot({"/cluster/scale_out_bandwidth_Bps=100e9"}) == Approx(tpot({}) / 2));
}

TEST_CASE("pipeline scenarios refuse what no schedule can run", "[scenario][pipeline]") {
  const json base = core::read_json_file(kScenarios + "/paper/pipeline-1-design-point.json");
  auto err = [&](const std::string& assignment) {
    json doc = base;
    studies::apply_override(doc, assignment);
    return error_of(doc);
  };
  using Catch::StartsWith;
  CHECK_THAT(err("/pipeline/pp=7"), StartsWith("/pipeline/pp: 7 is odd; DualPipe needs an even number of ranks"));
  CHECK_THAT(err("/pipeline/micro_batches=21"), StartsWith("/pipeline/microbatches: 21 is odd"));
  CHECK_THAT(err("/pipeline/micro_batches=10"), Catch::Contains("needs at least 2 x pp = 16"));
  CHECK_THAT(err("/pipeline/pp=0"), StartsWith("/pipeline/pp: 0 (a number) is not allowed"));
  CHECK_THAT(err("/pipeline/weight_s=2"),
             StartsWith("/pipeline/weight_s: 2 is not allowed; the weight pass is part of the backward, so W < B (2)"));
  CHECK_THAT(err("/pipeline/forward_s=-1"), StartsWith("/pipeline/forward_s: -1"));
  CHECK_THAT(err("/pipeline/schedules=[\"gpipe\"]"), StartsWith("/pipeline/schedules/0: 'gpipe' is unknown"));
  CHECK_THAT(err("/pipeline/transfer_bytes=1e6"), StartsWith("/pipeline/transfer_bytes: needs a /cluster"));
}

TEST_CASE("chunk-overlap scenarios are validated", "[scenario]") {
  json doc = core::read_json_file(kScenarios + "/figures/dualpipe-figure4.json");
  studies::apply_override(doc, "/chunk_pair/comm_sms=132");
  CHECK_THAT(error_of(doc),
             Catch::StartsWith("/chunk_pair/comm_sms: 132 is not allowed; communication must leave SMs"));
  doc = core::read_json_file(kScenarios + "/figures/dualpipe-figure4.json");
  studies::apply_override(doc, "/chunk_pair/forward/mlp_s=-1");
  CHECK_THAT(error_of(doc), Catch::StartsWith("/chunk_pair/forward/mlp_s: -1"));
}

TEST_CASE("fp8 scenarios are validated", "[scenario][fp8]") {
  json gemm = core::read_json_file(kScenarios + "/paper/fp8-1-gemm-accumulation.json");
  auto err = [&](json doc, const std::string& assignment) {
    studies::apply_override(doc, assignment);
    return error_of(doc);
  };
  CHECK_THAT(
      err(gemm, "/fp8_gemm/k/2=1000"),
      Catch::StartsWith(
          "/fp8_gemm/k/2: 1000 (a number) is not allowed; expected an integer from 128 to 65536, a multiple of 128"));
  CHECK_THAT(err(gemm, "/fp8_gemm/k=[]"),
             Catch::StartsWith("/fp8_gemm/k: [] (an array) is not allowed; expected a non-empty array"));
  CHECK_THAT(err(gemm, "/fp8_gemm/accumulator_bits=50"),
             Catch::StartsWith("/fp8_gemm: accumulator bits: 50 is not supported"));
  CHECK_THAT(err(gemm, "/fp8_gemm/data=uniform"), Catch::StartsWith("/fp8_gemm/data: 'uniform' is unknown"));
  json big = gemm;
  studies::apply_override(big, "/fp8_gemm/n=4096");
  CHECK_THAT(err(big, "/fp8_gemm/m=4096"), Catch::Contains("too large to emulate"));
  json formats = core::read_json_file(kScenarios + "/paper/fp8-2-formats.json");
  CHECK_THAT(err(formats, "/fp8_formats/formats/0=e4m4"),
             Catch::StartsWith("/fp8_formats/formats/0: 'e4m4' is unknown"));
  CHECK_THAT(err(formats, "/fp8_formats/elements=0"), Catch::StartsWith("/fp8_formats/elements: 0"));
}

TEST_CASE("a simulation scenario can ask for the numerics of its GEMMs", "[scenario][fp8]") {
  studies::RunOptions dry;
  dry.simulate = false;
  auto accumulation_error = [&](const std::string& numerics) {
    const auto rows =
        studies::load_scenario(kScenarios + "/paper/tpot-ib.json", {"/numerics=" + numerics}).run(dry).rows;
    for (const auto& r : rows)
      if (r.id == "numerics/expert gate+up projection/accumulation") return r.ours;
    return -1.0;
  };
  const double promoted = accumulation_error("{}");
  const double fast = accumulation_error("{\"promote_every\": 0}");
  CHECK(promoted > 0);
  CHECK(fast > 10 * promoted);  // K = 7168 without promotion
  json doc = tpot_ib();
  studies::apply_override(doc, "/numerics={\"accumulator_bits\": 50}");
  CHECK_THAT(error_of(doc), Catch::StartsWith("/numerics: accumulator bits: 50 is not supported"));
  doc = tpot_ib();
  studies::apply_override(doc, "/numerics={\"sample_row\": 3}");
  CHECK_THAT(error_of(doc), Catch::Contains("did you mean 'sample_rows'?"));
}

TEST_CASE("network-cost scenarios refuse topologies that cannot exist", "[scenario][topology]") {
  const json base = core::read_json_file(kScenarios + "/paper/network-cost.json");
  auto err = [&](const std::string& assignment) {
    json doc = base;
    studies::apply_override(doc, assignment);
    return error_of(doc);
  };
  using Catch::StartsWith;
  CHECK_THAT(err("/network_cost/topologies/0/radix=63"),
             StartsWith("/network_cost/topologies/0/radix: 63 is not allowed; a fat tree needs an even switch radix"));
  CHECK_THAT(err("/network_cost/topologies/1/planes=0"),
             StartsWith("/network_cost/topologies/1/planes: 0 (a number) is not allowed"));
  CHECK_THAT(err("/network_cost/topologies/4/groups=600"),
             StartsWith("/network_cost/topologies/4/groups: 600 is not allowed; from 2 to a x h + 1 = 513"));
  CHECK_THAT(err("/network_cost/topologies/2/kind=ft4"),
             StartsWith("/network_cost/topologies/2/kind: 'ft4' is unknown"));
  CHECK_THAT(err("/network_cost/prices/switch_usd=-1"), StartsWith("/network_cost/prices/switch_usd: -1"));
  CHECK_THAT(err("/network_cost/topologies/0/planes=2"), Catch::Contains("unknown key"));
}

TEST_CASE("alltoall scenarios are validated", "[scenario][fabric]") {
  const json base = core::read_json_file(kScenarios + "/paper/alltoall-mpft-128.json");
  auto err = [&](const std::string& assignment) {
    json doc = base;
    studies::apply_override(doc, assignment);
    return error_of(doc);
  };
  using Catch::StartsWith;
  CHECK_THAT(err("/collective/pxn=false"),
             StartsWith("/collective/pxn: false is not allowed on a multi-plane fat tree"));
  CHECK_THAT(err("/collective/pxn=1"),
             StartsWith("/collective/pxn: 1 (a number) is not allowed; expected true or false"));
  json graph = core::read_json_file(kScenarios + "/figures/alltoall-topologies.json");
  studies::apply_override(graph, "/fabric/radix=64");
  CHECK_THAT(error_of(graph), Catch::StartsWith("/fabric/radix: unknown key"));
  CHECK_THAT(err("/fabric/radix=63"), StartsWith("/fabric/radix: 63 is not allowed"));
  CHECK_THAT(err("/fabric/nodes=5000"), StartsWith("/fabric/nodes: 5000 is not allowed"));
  CHECK_THAT(err("/fabric/routing=adaptive"), Catch::Contains("no error"));
  CHECK_THAT(err("/fabric/routing=spray"), Catch::Contains("no error"));
  json sprayed_graph = core::read_json_file(kScenarios + "/figures/alltoall-topologies.json");
  studies::apply_override(sprayed_graph, "/fabric/routing=spray");
  CHECK_THAT(error_of(sprayed_graph), StartsWith("/fabric/routing: 'spray' is not allowed on a topology graph"));
  json big = base;
  studies::apply_override(big, "/fabric/nodes=1024");
  studies::apply_override(big, "/fabric/routing=ecmp");
  CHECK_THAT(error_of(big), Catch::Contains("no error"));  // plane by plane
  studies::apply_override(big, "/collective/method=full");
  CHECK_THAT(error_of(big), StartsWith("/fabric/nodes: 1024 nodes is more than the full simulation handles"));
  CHECK_THAT(err("/fabric/kind=torus"), StartsWith("/fabric/kind: 'torus' is unknown"));
  CHECK_THAT(err("/fabric/routing=random"), StartsWith("/fabric/routing: 'random' is unknown"));
  CHECK_THAT(err("/collective/sizes_bytes/0=0"),
             StartsWith("/collective/sizes_bytes/0: 0 (a number) is not allowed; expected a number from 1 to 1e+12"));
}

TEST_CASE("collective scenarios on topology graphs are validated", "[scenario][graph-platform]") {
  const json base = core::read_json_file(kScenarios + "/figures/alltoall-topologies.json");
  auto err = [&](const std::string& assignment) {
    json doc = base;
    studies::apply_override(doc, assignment);
    return error_of(doc);
  };
  using Catch::StartsWith;
  CHECK_THAT(err("/fabric/topology/q=6"), StartsWith("/fabric/topology/q: 6 is not allowed"));
  CHECK_THAT(err("/fabric/topology={\"kind\":\"ft3\",\"radix\":64}"),
             StartsWith("/fabric/topology: 65536 endpoints is more than"));
  CHECK_THAT(err("/fabric/topology={\"kind\":\"ft3\",\"radix\":7}"),
             StartsWith("/fabric/topology/radix: 7 is not allowed"));
  CHECK_THAT(err("/fabric/nodes=4"), Catch::Contains("unknown key"));
  CHECK(
      err("/fabric/topology={\"kind\":\"dragonfly\",\"endpoints_per_router\":2,\"routers_per_group\":4,\"global_links_per_router\":2,\"groups\":9}") ==
      "no error");
}

TEST_CASE("moe-routing scenarios refuse layouts the gate cannot use", "[scenario][moe]") {
  const json base = core::read_json_file(kScenarios + "/paper/moe-1-node-limited-routing.json");
  auto err = [&](const std::string& assignment) {
    json doc = base;
    studies::apply_override(doc, assignment);
    return error_of(doc);
  };
  using Catch::StartsWith;
  CHECK_THAT(err("/moe_routing/ep_gpus=60"),
             StartsWith("/moe_routing/ep_gpus: 60 is not allowed; the EP group must be whole nodes"));
  CHECK_THAT(
      err("/moe_routing/ep_gpus=32"),
      StartsWith("/moe_routing/ep_gpus: 32 is not allowed; node-limited routing maps each of the 8 expert groups"));
  CHECK_THAT(err("/model=qwen2.5-72b"), StartsWith("/model: 'qwen2.5-72b' is dense"));
  CHECK_THAT(err("/moe_routing/skew=pareto"), StartsWith("/moe_routing/skew: 'pareto' is unknown"));
  CHECK_THAT(err("/moe_routing/tokens=0"), StartsWith("/moe_routing/tokens: 0"));
}

TEST_CASE("moe-dispatch scenarios are validated", "[scenario][moe]") {
  const json base = core::read_json_file(kScenarios + "/paper/moe-2-dispatch-mpft.json");
  auto err = [&](const std::string& assignment) {
    json doc = base;
    studies::apply_override(doc, assignment);
    return error_of(doc);
  };
  CHECK_THAT(
      err("/moe_dispatch/ep_sizes/0=12"),
      Catch::StartsWith(
          "/moe_dispatch/ep_sizes/0: 12 (a number) is not allowed; expected an integer from 8 to 256, a multiple of 8"));
  CHECK_THAT(err("/moe_dispatch/ep_sizes/0=24"),
             Catch::StartsWith("/moe_dispatch/ep_sizes/0: 24 is not allowed; the EP size must divide the 256 experts"));
  CHECK_THAT(err("/model=llama-3.1-405b"), Catch::StartsWith("/model: 'llama-3.1-405b' is dense"));
}

TEST_CASE("dispatch on MPFT runs near IB line rate where NVLink keeps up", "[scenario][moe]") {
  studies::RunOptions run;
  const auto rows =
      studies::load_scenario(kScenarios + "/paper/moe-2-dispatch-mpft.json",
                             {"/moe_dispatch/ep_sizes=[16,64]", "/moe_dispatch/simulated_tokens_per_gpu=64"})
          .run(run)
          .rows;
  std::map<std::string, double> v;
  for (const auto& r : rows) v[r.id] = r.ours;
  CHECK(v["ep64/nvlink_per_ib"] < 3.2);
  CHECK(v["ep64/dispatch_bw"] > 40);
  CHECK(v["ep64/dispatch_bw"] <= 50 + 1e-9);  // a NIC's rate is the ceiling
  CHECK(v["ep16/nvlink_per_ib"] > 3.2);       // two nodes: NVLink, not IB, limits
  CHECK(v["ep16/dispatch_bw"] < 40);
}

TEST_CASE("what a scenario says about its comparisons is validated", "[scenario][check]") {
  using Catch::StartsWith;
  // A known miss carries its reason and the delta it was recorded at.
  CHECK_THAT(error_of(with("/known_misses={\"tpot\":\"slow\"}")),
             StartsWith("/known_misses/tpot: \"slow\" (a string) is not an object"));
  CHECK_THAT(error_of(with("/known_misses={\"tpot\":{\"reason\":\"slow\"}}")), StartsWith("/known_misses/tpot/delta"));
  CHECK_THAT(error_of(with("/known_misses={\"tpot\":{\"reason\":\"slow\",\"delta\":0}}")),
             StartsWith("/known_misses/tpot/delta: 0 is not allowed"));
  CHECK(error_of(with("/known_misses={\"tpot\":{\"reason\":\"slow\",\"delta\":0.1}}")) == "no error");
  // A paper figure of 0 needs an absolute tolerance.
  CHECK_THAT(error_of(with("/expected/tpot=0")), StartsWith("/expected/tpot: 0 has no relative delta"));
  json zero = with("/expected/tpot=0");
  studies::apply_override(zero, "/tolerance_abs=0.5");
  CHECK(error_of(zero) == "no error");
  // A scenario may call a row a formula or an input, not simulated, and only a row it compares.
  CHECK_THAT(error_of(with("/basis={\"tpot\":\"simulated\"}")),
             StartsWith("/basis/tpot: 'simulated' is unknown; allowed: formula, input"));
  CHECK_THAT(error_of(with("/basis={\"nope\":\"input\"}")),
             StartsWith("/basis/nope: names no row with a paper figure"));
  const auto restated = studies::parse_scenario(with("/basis={\"tpot\":\"input\"}"), "test").run({});
  for (const auto& row : restated.rows)
    if (row.id == "tpot") CHECK(row.basis == studies::Basis::kInput);
  // A calibration point is a fit whatever the study says.
  const auto fitted = studies::parse_scenario(with("/calibrated={\"tpot\":\"bandwidth fitted\"}"), "test").run({});
  for (const auto& row : fitted.rows)
    if (row.id == "tpot") CHECK(row.basis == studies::Basis::kFit);
}

TEST_CASE("validation names every row and simulates nothing", "[scenario]") {
  for (const char* file : {"/paper/routing-allgather-ecmp.json", "/paper/latency.json",
                           "/paper/moe-2-dispatch-mpft.json", "/paper/fp8-1-gemm-accumulation.json"}) {
    INFO(file);
    const auto scenario = studies::load_scenario(kScenarios + file);
    studies::RunOptions dry;
    dry.simulate = false;
    const auto rows = scenario.run(dry).rows;
    const auto full = scenario.run({}).rows;
    REQUIRE(rows.size() == full.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      CHECK(rows[i].id == full[i].id);
      CHECK(std::isnan(rows[i].ours));  // not simulated
      CHECK(std::isfinite(full[i].ours));
    }
  }
}

TEST_CASE("a scenario's model may be a HuggingFace config.json", "[scenario][huggingface]") {
  json named = core::read_json_file(kScenarios + "/paper/table4-mpft.json");
  named["mode"] = "analytical";
  named["moe"]["simulated_tokens_per_gpu"] = 64;
  json from_config = named;
  from_config["model"] = {{"huggingface_config", "tests/data/huggingface/deepseek-v3/config.json"}};
  const auto a = studies::parse_scenario(named, "named").run({}).rows;
  const auto b = studies::parse_scenario(from_config, "config").run({}).rows;
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].ours == b[i].ours);
  from_config["model"] = {{"huggingface_config", "tests/data/huggingface/llama-3.1-405b/config.json"}};
  CHECK_THAT(error_of(from_config), Catch::Contains("is dense"));
  from_config["model"] = {{"huggingface_config", "nowhere/config.json"}};
  CHECK_THAT(error_of(from_config), Catch::StartsWith("nowhere/config.json: cannot open the file"));
}

namespace {

// How many of a trace's compute ops (events of category `op_category`) the kernels of the same
// GPU and op fill, one after the other from the op's start to its end (by layer where the ops
// carry it).
int ops_filled_by_their_kernels(const std::string& trace_json, const std::string& op_category) {
  const auto events = nlohmann::json::parse(trace_json)["traceEvents"];
  // Kernels by (rank, op, layer), in the order they were written.
  std::map<std::tuple<int, std::string, int>, std::vector<const nlohmann::json*>> kernels;
  const bool by_layer = op_category == "op";
  for (const auto& e : events)
    if (e.value("cat", "") == "kernel")
      kernels[{e["pid"].get<int>(), e["args"]["op"].get<std::string>(), by_layer ? e["args"]["layer"].get<int>() : -1}]
          .push_back(&e);
  REQUIRE(!kernels.empty());
  int checked = 0;
  for (const auto& op : events) {
    static const std::set<std::string> compute = {"attn(F)", "mlp(F)", "attn(B)", "attn(W)", "mlp(B)", "mlp(W)"};
    if (op.value("cat", "") != op_category || compute.count(op["name"].get<std::string>()) == 0) continue;
    const auto it = kernels.find(
        {op["pid"].get<int>(), op["name"].get<std::string>(), by_layer ? op["args"]["layer"].get<int>() : -1});
    REQUIRE(it != kernels.end());
    // This instance's kernels: those that start inside it, one after the other, filling it.
    const double start = op["ts"].get<double>(), end = start + op["dur"].get<double>();
    double t = start;
    for (const auto* k : it->second) {
      const double ks = (*k)["ts"].get<double>();
      if (ks < start - 1e-6 || ks >= end - 1e-9) continue;
      CHECK(ks == Approx(t).margin(1e-6));
      t = ks + (*k)["dur"].get<double>();
    }
    CHECK(t == Approx(end).margin(1e-6));
    ++checked;
  }
  return checked;
}

}  // namespace

TEST_CASE("a training step's trace shows each op's kernels inside it", "[scenario][training]") {
  studies::RunOptions options;
  options.trace = options.trace_kernels = true;
  const auto report = studies::load_scenario(kScenarios + "/paper/table4-mpft.json",
                                             {"/mode=\"analytical\"", "/batch/global_sequences=4096"})
                          .run(options);
  REQUIRE(report.trace_json);
  CHECK(ops_filled_by_their_kernels(*report.trace_json, "op") > 1000);
}

TEST_CASE("with its all-to-alls in the run, a step's trace puts each op's kernels under the task that ran it",
          "[scenario][training]") {
  studies::RunOptions options;
  options.trace = options.trace_kernels = true;
  const auto report =
      studies::load_scenario(kScenarios + "/training/mixtral-8x7b-h100.json",
                             {"/mode=\"flow\"", "/moe/traffic=\"in-step\"", "/batch/global_sequences=64"})
          .run(options);
  REQUIRE(report.trace_json);
  // The run's op tasks are compute events named as the ops; the model's layout is not drawn.
  CHECK(report.trace_json->find("\"cat\":\"op\"") == std::string::npos);
  CHECK(ops_filled_by_their_kernels(*report.trace_json, "compute") > 100);
}
