#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/input_error.hpp"
#include "workload/profile/profile_trace.hpp"

using nlohmann::json;
using workload::profile_from_trace;

namespace {

json annotation(const std::string& name, double ts, double dur, int tid = 1) {
  return {{"ph", "X"}, {"cat", "user_annotation"}, {"name", name}, {"pid", 1}, {"tid", tid}, {"ts", ts}, {"dur", dur}};
}
json launch(int correlation, double ts, int tid = 1) {
  return {{"ph", "X"},
          {"cat", "cuda_runtime"},
          {"name", "cudaLaunchKernel"},
          {"pid", 1},
          {"tid", tid},
          {"ts", ts},
          {"dur", 1},
          {"args", {{"correlation", correlation}}}};
}
json kernel(int correlation, double ts, double dur, int stream, int device = 0) {
  return {{"ph", "X"},     {"cat", "kernel"},
          {"name", "k"},   {"pid", 0},
          {"tid", stream}, {"ts", ts},
          {"dur", dur},    {"args", {{"correlation", correlation}, {"device", device}, {"stream", stream}}}};
}

// Two instances of attn(F) and one mlp(B) nested in a step range; kernels on two streams, one
// launched from another thread (as autograd's backward is), one outside every op.
json small_trace() {
  json events = json::array({annotation("1F1B", 0, 1000), annotation("attn(F)", 10, 100),
                             annotation("attn(F)", 300, 100), annotation("mlp(B)", 500, 100)});
  events.push_back(launch(1, 20));
  events.push_back(kernel(1, 100, 40, 7));
  events.push_back(launch(2, 30));
  events.push_back(kernel(2, 120, 40, 23));  // overlaps kernel 1: busy 60 us, not 80
  events.push_back(launch(3, 310));
  events.push_back(kernel(3, 400, 20, 7));
  events.push_back(launch(4, 550, 2));  // another thread of the process
  events.push_back(kernel(4, 600, 50, 7));
  events.push_back(launch(5, 900));  // inside 1F1B only
  events.push_back(kernel(5, 950, 10, 7));
  events.push_back(launch(6, 2000));  // outside every annotation
  events.push_back(kernel(6, 2000, 10, 7));
  return {{"traceEvents", events},
          {"deviceProperties", json::array({{{"id", 0}, {"name", "NVIDIA H800"}, {"numSms", 132}}})}};
}

std::string error_of(const json& trace, std::optional<int> device = std::nullopt) {
  try {
    profile_from_trace(trace, "t.json", device);
  } catch (const core::InputError& e) { return e.what(); }
  return "no error";
}

}  // namespace

TEST_CASE("kernels belong to the innermost annotation holding their launch", "[calibrate]") {
  const auto p = profile_from_trace(small_trace(), "t.json");
  CHECK(p.device == "NVIDIA H800");
  CHECK(p.sms == 132);
  CHECK(p.kernels == 6);
  CHECK(p.unattributed == 1);
  CHECK(p.span_ms ==
        Approx((2010 - 100) / 1e3));  // the device's first kernel's start to its last one's end, attributed or not
  const auto& attn = p.ops.at("attn(F)");
  CHECK(attn.instances == 2);
  CHECK(attn.kernels == 1.5);                              // 3 kernels over 2 instances
  CHECK(attn.stream_ms.at(7) == Approx((40 + 20) / 2e3));  // per instance, in ms
  CHECK(attn.stream_ms.at(23) == Approx(40 / 2e3));
  CHECK(attn.busy_ms == Approx((60 + 20) / 2e3));  // the overlap of kernels 1 and 2 counts once
  CHECK(attn.span_ms == Approx((60 + 20) / 2e3));
  CHECK(p.ops.at("mlp(B)").busy_ms == Approx(0.05));  // launched from another thread
  CHECK(p.ops.at("1F1B").busy_ms == Approx(0.01));    // the enclosing range keeps what no op holds
}

TEST_CASE("the calibration file round-trips", "[calibrate]") {
  auto p = profile_from_trace(small_trace(), "t.json");
  p.workload.micro_batch_tokens = 4096;
  p.workload.communication_sms = 20;
  const auto back = workload::calibration_from_json(workload::calibration_json(p), "c.json");
  CHECK(back.device == p.device);
  CHECK(back.workload.micro_batch_tokens == 4096);
  CHECK(back.workload.communication_sms == 20);
  REQUIRE(back.ops.size() == p.ops.size());
  CHECK(back.ops.at("attn(F)").busy_ms == Approx(p.ops.at("attn(F)").busy_ms));
  CHECK(back.ops.at("attn(F)").stream_ms.at(23) == Approx(p.ops.at("attn(F)").stream_ms.at(23)));
  json bad = workload::calibration_json(p);
  bad["ops"]["attn(F)"]["busy_ms"] = "fast";
  CHECK_THROWS_WITH(workload::calibration_from_json(bad, "c.json"), Catch::StartsWith("c.json: /ops/attn(F)/busy_ms"));
}

TEST_CASE("traces that cannot be read are refused naming the file and the field", "[calibrate]") {
  using Catch::StartsWith;
  CHECK_THAT(error_of(json::array()), StartsWith("t.json: /traceEvents: missing; expected a Chrome trace"));
  CHECK_THAT(error_of({{"traceEvents", json::array({annotation("a", 0, 1)})}}),
             StartsWith("t.json: /traceEvents: holds no GPU kernels"));
  CHECK_THAT(error_of({{"traceEvents", json::array({kernel(1, 0, 1, 7)})}}),
             StartsWith("t.json: /traceEvents: holds no user annotations"));
  json two = small_trace();
  two["traceEvents"].push_back(kernel(9, 0, 1, 7, 1));
  CHECK_THAT(error_of(two),
             StartsWith("t.json: /traceEvents: kernels of several devices (0, 1); choose one with --device"));
  CHECK(error_of(two, 1) == "no error");
  CHECK_THAT(error_of(two, 5), StartsWith("--device: 5 is not allowed"));
  json bad_ts = small_trace();
  bad_ts["traceEvents"][1]["ts"] = "soon";
  CHECK_THAT(error_of(bad_ts),
             StartsWith("t.json: /traceEvents/1/ts: \"soon\" (a string) is not allowed; expected a number"));
}

TEST_CASE("kernels are classed by what their names say they do", "[calibrate]") {
  using workload::KernelClass;
  using workload::kernel_class;
  // Names as DeepSeek's profile and common libraries give them.
  CHECK(kernel_class("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(...)") ==
        KernelClass::kGemm);
  CHECK(kernel_class("sm90_xmma_gemm_bf16f32_bf16f32_f32_tn_n_tilesize128x128x64") == KernelClass::kGemm);
  CHECK(kernel_class("void dpsk::grouped_gemm::cuda::utils::transpose<512, 128, 4, 4>(...)") == KernelClass::kOther);
  CHECK(kernel_class("void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1>>(...)") ==
        KernelClass::kAttention);
  CHECK(kernel_class("void dpsk::ep::internode::combine<false, 8, __nv_bfloat16>(...)") == KernelClass::kCommunication);
  CHECK(kernel_class("ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)") ==
        KernelClass::kCommunication);
  CHECK(kernel_class("void layer_norm::ln_fwd_kernel<...>(...)") == KernelClass::kOther);
  CHECK(kernel_class("void cuda::per_channel_cast_and_transpose<256, 128>(...)") == KernelClass::kOther);
  // Per op and instance: the small trace's kernels are all named "k", so all "other".
  const auto p = profile_from_trace(small_trace(), "t.json");
  CHECK(p.ops.at("attn(F)").class_ms.at(KernelClass::kOther) == Approx(0.05));  // (40 + 40 + 20) us over 2 instances
  CHECK(p.ops.at("attn(F)").class_ms.count(KernelClass::kGemm) == 0);
}
