// codesim fp8 gemm ... | codesim fp8 cast ...
#include <cstdio>
#include <iostream>

#include "cli/options.hpp"
#include "core/input_error.hpp"
#include "hw/fp8/gemm_study.hpp"
#include "hw/fp8/tiny_training.hpp"
#include "studies/report/report.hpp"

namespace cli {

namespace {

int fp8_gemm(const Args& args) {
  po::options_description options("options");
  hw::fp8::GemmStudy s;
  long long m = 64, n = 64, k = 4096;
  std::uint64_t seed = 1;
  std::string data;
  options.add_options()("m", po::value(&m)->default_value(64), "rows of A (tokens)")(
      "n", po::value(&n)->default_value(64), "rows of B (output channels)")("k", po::value(&k)->default_value(4096),
                                                                            "inner dimension, a multiple of 128")(
      "accum-bits", po::value(&s.model.accumulator_bits)->default_value(22),
      "accumulator width: 1 sign + 8 exponent + the rest mantissa (22: Hopper's FP22, 32: FP32)")(
      "promote-every", po::value(&s.model.promote_every)->default_value(128),
      "K elements per promotion to FP32 on CUDA cores (N_c); 0 never promotes")(
      "product-bits", po::value(&s.model.product_fraction_bits)->default_value(13),
      "fraction bits kept after aligning a group of products")("seed", po::value(&seed)->default_value(1),
                                                               "seed of the synthetic data")(
      "data", po::value(&data)->default_value("positive"), "normal or positive (|N(0,1)|)");
  po::variables_map vm;
  if (!parse_options(args,
                     "usage: codesim fp8 gemm [options]\n\nC = A x B^T with A in 1x128 E4M3 tiles and B in "
                     "128x128 E4M3 blocks, accumulated as Hopper's tensor cores do.",
                     options, {}, vm))
    return 0;
  for (auto [name, value] : {std::pair{"--m", m}, {"--n", n}, {"--k", k}})
    if (value < 1 || value > 65536) throw core::InputError(name, std::to_string(value) + " is not from 1 to 65536");
  if (m * n * k > 1LL << 36)
    throw core::InputError("--m x --n x --k", "more than 2^36 multiply-adds; too large to emulate");
  s.m = m;
  s.n = n;
  s.k = k;
  s.seed = seed;
  s.data = hw::fp8::data_by_name(data, "--data");
  const auto r = hw::fp8::run_gemm_study(s);
  std::cout << "gemm " << m << " x " << n << " x " << k << ", E4M3 operands (" << data << " data, seed " << seed
            << "), accumulator " << s.model.accumulator_bits << " bits, "
            << (s.model.promote_every ? "promotion every " + std::to_string(s.model.promote_every)
                                      : std::string("no promotion"))
            << "\n";
  auto line = [](const char* what, const hw::fp8::GemmError& e) {
    std::cout << what << ": max relative error " << studies::format_number(e.max_relative) << ", mean "
              << studies::format_number(e.mean_relative) << ", max/rms " << studies::format_number(e.max_over_rms)
              << ", DeepGEMM diff " << studies::format_number(e.deepgemm_diff) << "\n";
  };
  line("accumulation (vs double on the same FP8 operands)", r.accumulation);
  line("total (vs double on the original data)", r.total);
  std::cout << "emulation: " << studies::format_number(r.seconds) << " s, "
            << studies::format_number(r.multiply_adds_per_s / 1e6) << " M multiply-adds/s\n";
  return 0;
}

int fp8_cast(const Args& args) {
  po::options_description options("options");
  std::string to;
  std::vector<std::string> values, not_numbers;
  bool saturate = false;
  options.add_options()("to", po::value(&to)->required(), "e4m3, e5m2, e5m6, bf16, fp22, fp32 or ue8m0")(
      "saturate", po::bool_switch(&saturate), "clamp overflow to the largest finite value (default: Inf or NaN)")(
      "value", po::value(&not_numbers)->composing(), "values to convert");
  po::positional_options_description positional;
  positional.add("value", -1);
  // Negative numbers look like options to the parser: take every argument that is a number
  // (or nan/inf) as a value before parsing the rest.
  Args rest;
  for (const auto& a : args) {
    std::size_t used = 0;
    try {
      std::stod(a, &used);
    } catch (const std::exception&) { used = 0; }
    (used == a.size() && !a.empty() ? values : rest).push_back(a);
  }
  po::variables_map vm;
  if (!parse_options(rest,
                     "usage: codesim fp8 cast --to FORMAT [--saturate] VALUE...\n\nPrints, one line per value: "
                     "the input, the code in hex and the decoded value (round to nearest even).",
                     options, positional, vm))
    return 0;
  const auto& format = hw::fp8::format_by_name(to, "--to");
  if (!not_numbers.empty())
    throw core::InputError("VALUE", "'" + not_numbers.front() + "' is not a number (nan and inf are accepted)");
  if (values.empty()) throw core::InputError("VALUE", "give at least one value to convert");
  const int hex_digits = (format.total_bits() + 3) / 4;
  for (const auto& text : values) {
    const double x = std::stod(text);  // checked above
    const auto code =
        hw::fp8::encode(format, x, saturate ? hw::fp8::Overflow::kSaturate : hw::fp8::Overflow::kNonSaturate);
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%0*X", hex_digits, code);
    char decoded[64];
    std::snprintf(decoded, sizeof decoded, "%.17g", hw::fp8::decode(format, code));
    std::cout << text << " " << hex << " " << decoded << "\n";
  }
  return 0;
}

int fp8_train(const Args& args) {
  po::options_description options("options");
  hw::fp8::TinyTraining c;
  std::uint64_t seed = 1;
  options.add_options()("steps", po::value(&c.steps)->default_value(100), "training steps (10 to 100000)")(
      "seed", po::value(&seed)->default_value(1), "seed of the data and the initial weights")(
      "hidden", po::value(&c.hidden)->default_value(256), "hidden width, a multiple of 128");
  po::variables_map vm;
  if (!parse_options(args,
                     "usage: codesim fp8 train [options]\n\nTrains a two-layer MLP on a random teacher twice, "
                     "with the FP8 recipe (E4M3 Fprop, Dgrad and Wgrad, fine-grained scales, FP32 promotion) and "
                     "with BF16 GEMMs, and prints both loss curves and their final relative gap.",
                     options, {}, vm))
    return 0;
  c.seed = seed;
  const auto t = hw::fp8::train_fp8_against_bf16(c);
  std::cout << "step fp8_loss bf16_loss\n";
  const int every = std::max(1, c.steps / 20);
  for (int i = 0; i < c.steps; i += every)
    std::cout << i << " " << studies::format_number(t.fp8_loss[i]) << " " << studies::format_number(t.bf16_loss[i])
              << "\n";
  std::cout << "relative loss gap over the last tenth of the steps: "
            << studies::format_number(100 * t.final_relative_gap)
            << "% (the report keeps it below 0.25% when training DeepSeek-V3)\n";
  return 0;
}

}  // namespace

int fp8_command(const Args& args) {
  const std::string usage =
      "usage: codesim fp8 gemm [options]   accuracy of one FP8 GEMM with Hopper-like accumulation\n"
      "       codesim fp8 cast --to FORMAT [--saturate] VALUE...\n"
      "       codesim fp8 train [--steps N]       a small model trained with the FP8 recipe against BF16\n";
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? std::cerr : std::cout) << usage;
    return args.empty() ? core::kInputErrorExitCode : 0;
  }
  const Args rest(args.begin() + 1, args.end());
  if (args[0] == "gemm") return fp8_gemm(rest);
  if (args[0] == "cast") return fp8_cast(rest);
  if (args[0] == "train") return fp8_train(rest);
  throw core::InputError("fp8 " + args[0], "not a subcommand; allowed: gemm, cast, train");
}

}  // namespace cli
