#include "hw/decode_attention.hpp"

#include <algorithm>
#include <cmath>

#include "hw/log_fit.hpp"

namespace hw {

DecodeAttentionTime decode_attention_time(const Gpu& gpu, const DecodeAttentionShape& s, int sms,
                                          const DecodeAttentionCalibration& c) {
  DecodeAttentionTime out;
  if (s.sequences <= 0 || s.kv_heads <= 0 || s.kv_bytes <= 0 || sms <= 0) return out;
  const double pairs = s.sequences * s.kv_heads;
  if (pairs < sms)
    out.splits = std::max(1.0, std::min(std::floor(sms / pairs), std::ceil(s.context_tokens / c.split_tokens)));
  out.units = pairs * out.splits;
  out.waves = std::ceil(out.units / sms);
  const double active = std::min(out.units, static_cast<double>(sms));
  const double rate_Bps = gpu.hbm_bandwidth_Bps * c.hbm_share * std::min(1.0, active * c.sm_stream_share / sms);
  out.stream_s = s.kv_bytes / rate_Bps;
  out.fixed_s = c.launch_s + (out.splits > 1 ? c.merge_s : 0.0) + out.waves * c.unit_s;
  out.seconds = out.stream_s + out.fixed_s;
  return out;
}

double decode_attention_share(const Gpu& gpu, const DecodeAttentionMeasurement& row,
                              const DecodeAttentionCalibration& c) {
  const double seconds = decode_attention_time(gpu, row.shape, gpu.sm_count, c).seconds;
  return row.shape.kv_bytes / seconds / gpu.hbm_bandwidth_Bps;
}

const std::vector<std::string>& decode_attention_constant_names() {
  static const std::vector<std::string> names = {"launch_s", "merge_s", "unit_s", "hbm_share", "sm_stream_share"};
  return names;
}

double& decode_attention_constant(DecodeAttentionCalibration& c, const std::string& name) {
  if (name == "launch_s") return c.launch_s;
  if (name == "merge_s") return c.merge_s;
  if (name == "unit_s") return c.unit_s;
  if (name == "hbm_share") return c.hbm_share;
  return c.sm_stream_share;
}

// Each fitted constant as its log (all are positive); the share of HBM stays at most 1 and an
// SM's stream at least its even share.
DecodeAttentionFit fit_decode_attention(const Gpu& gpu, const std::vector<DecodeAttentionMeasurement>& rows,
                                        const DecodeAttentionCalibration& start,
                                        const std::vector<std::string>& fitted) {
  auto constants = [&](const Eigen::VectorXd& x) {
    DecodeAttentionCalibration c = start;
    for (size_t i = 0; i < fitted.size(); ++i)
      decode_attention_constant(c, fitted[i]) = std::exp(x[static_cast<Eigen::Index>(i)]);
    c.hbm_share = std::min(c.hbm_share, 1.0);
    c.sm_stream_share = std::max(c.sm_stream_share, 1.0);
    return c;
  };
  Eigen::VectorXd x(fitted.size());
  for (size_t i = 0; i < fitted.size(); ++i) {
    DecodeAttentionCalibration c = start;
    x[static_cast<Eigen::Index>(i)] = std::log(std::max(decode_attention_constant(c, fitted[i]), 1e-15));
  }
  DecodeAttentionFit fit;
  fit.rms_log_error = fit_logs(x, static_cast<int>(rows.size()), [&](const Eigen::VectorXd& at, Eigen::VectorXd& r) {
    const DecodeAttentionCalibration c = constants(at);
    for (size_t i = 0; i < rows.size(); ++i)
      r[static_cast<Eigen::Index>(i)] = std::log(decode_attention_share(gpu, rows[i], c) / rows[i].hbm_share);
  });
  fit.constants = constants(x);
  return fit;
}

}  // namespace hw
