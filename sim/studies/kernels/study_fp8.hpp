#pragma once
// "fp8-gemm": FP8 GEMM accuracy against K, with and without FP32 promotion (DeepSeek-V3 report
// §3.3.2). "fp8-formats": E4M3, E5M2, LogFMT and BF16 on activation-like data (ISCA'25 §3.2).
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_fp8_gemm_study(core::JsonReader& root);
std::unique_ptr<Study> parse_fp8_formats_study(core::JsonReader& root);
}  // namespace studies
