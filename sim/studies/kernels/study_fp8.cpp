#include "studies/kernels/study_fp8.hpp"

#include <cstdio>

#include "core/input_error.hpp"
#include "hw/fp8/format_comparison.hpp"
#include "hw/fp8/gemm_study.hpp"

namespace studies {

namespace {

class Fp8GemmStudy : public Study {
 public:
  hw::fp8::GemmStudy base;
  std::vector<long long> ks;
  int promote_every = 128;

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    double without_at_4096 = 0, with_at_4096 = 0;
    // Validation runs no GEMM: its rows are named, their values not a number.
    auto error = [&](hw::fp8::GemmStudy s) {
      return options.simulate ? hw::fp8::run_gemm_study(s).accumulation
                              : hw::fp8::GemmError{kNotRun, kNotRun, kNotRun, kNotRun};
    };
    for (long long k : ks) {
      auto s = base;
      s.k = k;
      s.model.promote_every = 0;
      const auto without = error(s);
      s.model.promote_every = promote_every;
      const auto with = error(s);
      const std::string tag = "k" + std::to_string(k);
      r.rows.push_back({tag + "/no_promotion", "K = " + std::to_string(k) + ", no promotion", "max error / output RMS",
                        "%", std::nullopt, 100 * without.max_over_rms, Basis::kSimulated});
      r.rows.push_back({tag + "/promoted",
                        "K = " + std::to_string(k) + ", promoted every " + std::to_string(promote_every),
                        "max error / output RMS", "%", std::nullopt, 100 * with.max_over_rms, Basis::kSimulated});
      if (k == 4096) {
        without_at_4096 = without.max_over_rms;
        with_at_4096 = with.max_over_rms;
      }
    }
    r.notes.push_back(
        "GEMM " + std::to_string(base.m) + " x " + std::to_string(base.n) +
        " x K on E4M3 operands (A in 1x128 tiles, B in "
        "128x128 blocks) from seeded N(0,1) data; accumulator " +
        std::to_string(base.model.accumulator_bits) + " bits with " + std::to_string(base.model.product_fraction_bits) +
        " fraction bits kept after aligning each MMA's 32 products and the accumulator to their largest exponent, "
        "cut toward zero. Error is against double precision on the same quantised operands, so it is the accumulation "
        "alone; it is measured against the output's RMS because N(0,1) outputs near zero make element-wise relative "
        "errors unbounded.");
    if (with_at_4096 > 0) {
      // The same model on data whose outputs are never near zero, where element-wise relative
      // error is meaningful: the other plausible reading of the report's figure.
      auto positive = base;
      positive.k = 4096;
      positive.model.promote_every = 0;
      positive.data = hw::fp8::Data::kPositive;
      const double element_wise = hw::fp8::run_gemm_study(positive).accumulation.max_relative;
      char text[1024];
      std::snprintf(text, sizeof text,
                    "At K = 4096 promotion removes %.1f%% of the error. The report does not say how it measured its "
                    "'maximum relative error of nearly 2%%': ours is %.2f%% against the output RMS here, it grows with "
                    "the number of outputs the maximum is taken over (see `codesim fp8 gemm --data normal "
                    "--promote-every 0 --m 128 --n 128`), and with |N(0,1)| data "
                    "(no output near zero) the element-wise maximum is %.1f%% under the same model. The order of "
                    "magnitude and the benefit of promotion agree; the exact figure depends on data and metric.",
                    100 * (1 - with_at_4096 / without_at_4096), 100 * without_at_4096, 100 * element_wise);
      r.notes.push_back(text);
    }
    return r;
  }
};

class Fp8FormatsStudy : public Study {
 public:
  std::vector<std::string> formats;
  std::size_t elements = 65536;
  std::uint64_t seed = 1;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    const auto x = hw::fp8::activation_like(elements, seed);
    for (const auto& f : formats) {
      const auto e = hw::fp8::format_error(x, f);
      r.rows.push_back(
          {f + "/relative_rms", f, "relative RMS error", "%", std::nullopt, 100 * e.relative_rms, Basis::kSimulated});
    }
    r.notes.push_back(std::to_string(elements) + " Student-t (3 degrees of freedom) samples, seed " +
                      std::to_string(seed) +
                      "; E4M3 and E5M2 scaled per 1x128 tile by amax, LogFMT per 1x128 tile, BF16 rounded directly. "
                      "ISCA'25 reports LogFMT-8 more accurate than E4M3 and E5M2, and LogFMT-10 close to BF16.");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_fp8_gemm_study(core::JsonReader& root) {
  auto s = std::make_unique<Fp8GemmStudy>();
  core::JsonReader g = root.object("fp8_gemm");
  s->base.m = g.positive_integer("m", 64, 4096);
  s->base.n = g.positive_integer("n", 64, 4096);
  for (double k : g.number_list("k", {128, 65536, true, 128, true})) s->ks.push_back(static_cast<long long>(k));
  s->base.data = hw::fp8::data_by_name(g.one_of("data", hw::fp8::data_names(), "normal"), g.pointer_of("data"));
  s->base.seed = static_cast<std::uint64_t>(g.positive_integer("seed", 1, core::JsonReader::kMaxInteger));
  s->base.model.accumulator_bits = static_cast<int>(g.positive_integer("accumulator_bits", 22, 64));
  s->base.model.product_fraction_bits = static_cast<int>(g.positive_integer("product_fraction_bits", 13, 64));
  s->promote_every = static_cast<int>(g.positive_integer("promote_every", 128, 65536));
  hw::fp8::AccumulatorModel check = s->base.model;
  check.promote_every = s->promote_every;
  try {
    hw::fp8::check_model(check, 128);
  } catch (const core::InputError& e) { throw core::InputError(g.pointer(), e.what()); }
  long long k_sum = 0;
  for (long long k : s->ks) k_sum += k;
  if (2 * s->base.m * s->base.n * k_sum > (1LL << 36))
    throw core::InputError(g.pointer(),
                           "m x n x (sum of K) x 2 runs = " + std::to_string(2 * s->base.m * s->base.n * k_sum) +
                               " multiply-adds, too large to emulate (at most 2^36)");
  g.finish();
  return s;
}

std::unique_ptr<Study> parse_fp8_formats_study(core::JsonReader& root) {
  auto s = std::make_unique<Fp8FormatsStudy>();
  core::JsonReader f = root.object("fp8_formats");
  s->formats = f.string_list("formats", {"e4m3", "e5m2", "bf16", "logfmt-8", "logfmt-10", "logfmt-6", "logfmt-12"});
  s->elements = static_cast<std::size_t>(f.positive_integer("elements", 65536, 1 << 26));
  s->seed = static_cast<std::uint64_t>(f.positive_integer("seed", 1, core::JsonReader::kMaxInteger));
  f.finish();
  return s;
}

}  // namespace studies
