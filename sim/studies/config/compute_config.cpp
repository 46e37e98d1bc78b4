#include "studies/config/compute_config.hpp"

#include <algorithm>

#include "core/input_error.hpp"
#include "studies/report/joined.hpp"
#include "studies/report/report.hpp"

namespace studies {

void check_comm_sms(const core::JsonReader& c, int sms) {
  const workload::CommKernels k;
  if (sms % k.sms_per_channel != 0)
    throw core::InputError(c.pointer_of("communication_sms"),
                           std::to_string(sms) + " is not allowed; communication SMs form channels of " +
                               std::to_string(k.sms_per_channel) + " (0 offloads communication to hardware)");
}

workload::CommKernels read_comm_kernels(core::JsonReader& c, int sms) {
  workload::CommKernels k;
  k.sms = sms;
  check_comm_sms(c, sms);
  k.ib_Bps_per_channel = c.positive_number("channel_ib_bandwidth_Bps", k.ib_Bps_per_channel);
  k.nvlink_Bps_per_channel = c.positive_number("channel_nvlink_bandwidth_Bps", k.nvlink_Bps_per_channel);
  return k;
}

ComputeConfig parse_compute(core::JsonReader c, const hw::Gpu& gpu, int default_comm_sms,
                            const std::vector<hw::GemmKind>& gemm_kinds,
                            const std::vector<std::string>& preferred_libraries) {
  ComputeConfig out;
  out.fp8_gemms = c.boolean("fp8_gemms", gpu.fp8_dense_flops_per_s > 0);
  if (out.fp8_gemms) hw::require_precision(gpu, hw::GemmPrecision::kFp8, c.pointer_of("fp8_gemms"));
  out.fp4_gemms = c.boolean("fp4_gemms", false);
  if (out.fp4_gemms) {
    hw::require_precision(gpu, hw::GemmPrecision::kFp4, c.pointer_of("fp4_gemms"));
    if (std::find(gemm_kinds.begin(), gemm_kinds.end(), hw::GemmKind::kWeightGradient) != gemm_kinds.end())
      throw core::InputError(c.pointer_of("fp4_gemms"),
                             "true is not allowed; FP4 GEMMs are for inference, and this study trains (FP8 or BF16)");
    out.fp8_gemms = true;  // the quantised recipe's casts and kernels, at FP4's rate and bytes
  }
  const int sm_count = gpu.sm_count;
  out.gemm_library = &hw::default_gemm_library(out.precision(), gpu.name);
  for (const auto& name : preferred_libraries) {
    const hw::GemmLibrary& lib = hw::gemm_library(name, "preferred GEMM library");
    if (lib.runs_on_gpu(gpu.name) && lib.precision == out.precision() &&
        std::all_of(gemm_kinds.begin(), gemm_kinds.end(), [&](hw::GemmKind kind) { return lib.has(kind); })) {
      out.gemm_library = &lib;
      break;
    }
  }
  auto fraction = [&](const char* key, double fallback) {
    const double v = c.positive_number(key, fallback);
    if (v > 1)
      throw core::InputError(c.pointer_of(key),
                             format_number(v) + " is not allowed; an efficiency is a fraction of the peak, at most 1");
    return v;
  };
  auto& e = out.efficiency;
  e.fp8_gemm = fraction("fp8_gemm_efficiency", e.fp8_gemm);
  e.bf16_gemm = fraction("bf16_gemm_efficiency", e.bf16_gemm);
  e.attention_forward = fraction("attention_forward_efficiency", e.attention_forward);
  e.attention_backward = fraction("attention_backward_efficiency", e.attention_backward);
  e.memory = fraction("memory_efficiency", e.memory);
  if (const auto name = c.optional_string("gemm_library"); name && *name != "default") {
    const std::string where = c.pointer_of("gemm_library");
    const hw::GemmLibrary& lib = hw::gemm_library(*name, where);
    if (!lib.runs_on_gpu(gpu.name)) {
      throw core::InputError(where,
                             "'" + lib.name + "' is not allowed on the " + gpu.name + "; its kernels run on the " +
                                 joined(lib.runs_on, ", ") +
                                 " (\"default\" takes the default library's constants on any GPU, an assumption)");
    }
    if (lib.precision != out.precision()) {
      auto upper = [](hw::GemmPrecision p) {
        return p == hw::GemmPrecision::kFp8 ? "FP8" : p == hw::GemmPrecision::kFp4 ? "FP4" : "BF16";
      };
      throw core::InputError(where, "'" + lib.name + "' is not allowed; its rows are " + upper(lib.precision) +
                                        " GEMMs and this recipe runs " + upper(out.precision()) +
                                        (out.fp4_gemms ? " (compute/fp4_gemms)" : " (compute/fp8_gemms)"));
    }
    hw::require_gemm_kinds(lib, gemm_kinds, where);
    out.gemm_library = &lib;
  }
  out.kernels = read_comm_kernels(
      c, static_cast<int>(c.non_negative_integer("communication_sms", default_comm_sms, sm_count - 1)));
  c.finish();
  return out;
}

}  // namespace studies
