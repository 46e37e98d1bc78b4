#include "hw/fp8/format_comparison.hpp"

#include <cmath>
#include <random>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "hw/fp8/logfmt.hpp"
#include "hw/fp8/quantize.hpp"

namespace hw::fp8 {

std::vector<double> activation_like(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::student_t_distribution<double> t(3.0);
  std::vector<double> x(count);
  for (auto& v : x) v = t(rng);
  return x;
}

std::vector<std::string> comparable_formats() { return {"e4m3", "e5m2", "bf16", "logfmt-8", "logfmt-10"}; }

FormatError format_error(const std::vector<double>& x, const std::string& format) {
  std::vector<double> y;
  if (format.rfind("logfmt-", 0) == 0) {
    int bits = 0;
    try {
      bits = std::stoi(format.substr(7));
    } catch (const std::exception&) { bits = 0; }
    y = logfmt_round_trip(x, bits);
  } else if (format == "bf16") {
    for (double v : x) y.push_back(round_to(bf16(), v));
  } else if (format == "e4m3" || format == "e5m2") {
    Matrix row = Eigen::Map<const Matrix>(x.data(), 1, static_cast<Eigen::Index>(x.size()));
    const Matrix d = quantize(row, kActivationTiles, format_by_name(format)).dequantized();
    y.assign(d.data(), d.data() + d.size());
  } else {
    throw core::InputError("format", "'" + format + "' is unknown; " +
                                         core::allowed_list(format, comparable_formats()) +
                                         " (logfmt-N for N from 3 to 16)");
  }
  FormatError e{format};
  double err2 = 0, x2 = 0;
  std::size_t nonzero = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    err2 += (y[i] - x[i]) * (y[i] - x[i]);
    x2 += x[i] * x[i];
    if (x[i] != 0) {
      e.mean_relative += std::fabs(y[i] - x[i]) / std::fabs(x[i]);
      ++nonzero;
    }
  }
  e.relative_rms = x2 > 0 ? std::sqrt(err2 / x2) : 0;
  if (nonzero) e.mean_relative /= static_cast<double>(nonzero);
  return e;
}

}  // namespace hw::fp8
