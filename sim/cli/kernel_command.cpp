// codesim kernel gemm|attention|memory|collective [flags] | codesim kernel [KIND] --in FILE.jsonl:
// one kernel, or a file of them, asked of the models directly (studies/run/kernel_cases.hpp).
#include <cmath>
#include <iostream>
#include <map>

#include "cli/options.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"
#include "studies/config/output_file.hpp"
#include "studies/report/report.hpp"
#include "studies/run/kernel_cases.hpp"

namespace cli {

namespace {

constexpr const char* kUsage =
    "usage: codesim kernel gemm --m M --n N --k K [--precision fp8|bf16|fp4] [--library NAME] [--kind dense|grouped-contiguous|grouped-masked|weight-gradient] [--groups G]\n"
    "       codesim kernel attention --heads H [--kv-heads K] --q-len Q --kv-len L --head-dim D [--v-head-dim V] [--batch B] [--causal]\n"
    "                                [--pass forward|backward|both] [--backend fa3|flashmla|...]\n"
    "       codesim kernel memory --op rmsnorm|copy|cast|... (--bytes B | --shape 4096x7168 | --elements N | --tokens T --hidden H)\n"
    "       codesim kernel collective --kind all-to-all|all-reduce|all-gather|reduce-scatter --ranks N --bytes B --fabric SCENARIO.json\n"
    "       codesim kernel [KIND] --in CASES.jsonl [--out FILE.csv]   (one JSON object a line, as ../shared/measurements/ has them)\n"
    "Each takes --gpu NAME (H100) and --sms S; --data DIR adds a data folder (a GPU, a GEMM library, an attention backend).\n"
    "Prints the model's time, rate, what bounds it, and its terms; with --in, a CSV with each case's delta to its measured time";

// The flags whose JSON field has another name.
const std::map<std::string, std::string> kFieldOfFlag = {{"kind/gemm", "gemm_kind"}, {"kind/collective", "collective"}};

std::string field_of(const std::string& flag, const std::string& kind) {
  const auto it = kFieldOfFlag.find(flag + "/" + kind);
  if (it != kFieldOfFlag.end()) return it->second;
  std::string field = flag;
  for (char& ch : field)
    if (ch == '-') ch = '_';
  return field;
}

// An error at a field ("/q_len") named as the flag that gave it ("--q-len").
core::InputError as_flag_error(const core::InputError& e, const std::string& kind) {
  const std::string& where = e.where();
  // A case's own field is one level deep; a data file's error ("/path/file.json: /field") stays as it is.
  if (where.size() < 2 || where[0] != '/' || where.find_first_of("/: ", 1) != std::string::npos) return e;
  const std::string field = where.substr(1), message = std::string(e.what()).substr(where.size() + 2);
  for (const auto& [key, value] : kFieldOfFlag)
    if (value == field && key.substr(key.find('/') + 1) == kind)
      return core::InputError("--" + key.substr(0, key.find('/')), message);
  std::string flag = field;
  for (char& ch : flag)
    if (ch == '_') ch = '-';
  return core::InputError("--" + flag, message);
}

nlohmann::json flag_value(const std::string& flag, const std::string& text) {
  static const std::vector<std::string> words = {"precision", "library", "kind", "backend", "pass",
                                                 "op",        "fabric",  "gpu",  "shape"};
  if (std::find(words.begin(), words.end(), flag) != words.end()) return text;
  size_t used = 0;
  double x = 0;
  try {
    x = std::stod(text, &used);
  } catch (const std::exception&) { used = 0; }
  if (used != text.size() || !std::isfinite(x)) throw core::InputError("--" + flag, "'" + text + "' is not a number");
  if (x == std::floor(x) && std::abs(x) < 9e15) return static_cast<long long>(x);
  return x;
}

void print_estimate(const studies::KernelRow& row) {
  const auto& e = *row.estimate;
  std::cout << row.c.kind << ": " << row.c.description << "\n"
            << "  model  " << e.model << "\n"
            << "  time   " << studies::format_number(e.seconds * 1e6) << " us\n"
            << "  rate   " << studies::format_number(e.rate) << " " << e.rate_unit << "\n"
            << "  bound  " << e.bound << "\n"
            << "  terms ";
  for (const auto& [name, value] : e.terms) std::cout << " " << name << "=" << studies::format_number(value);
  std::cout << "\n";
}

}  // namespace

int kernel_command(const Args& args) {
  po::options_description options("options");
  std::string kind, in, out, format = "text";
  std::vector<std::string> data;
  bool causal = false, strict = false;
  studies::KernelDefaults defaults;
  const std::vector<std::pair<std::string, std::string>> flags = {
      {"m", "gemm: rows (per group for the grouped kinds)"},
      {"n", "gemm: columns"},
      {"k", "gemm: the reduced dimension"},
      {"groups", "gemm: groups of the grouped kinds"},
      {"precision", "gemm: fp8 (default), bf16 or fp4 (NVFP4; an FP4 library's constants)"},
      {"library", "gemm: the GEMM library (data/gemm_libraries/); default: the GPU's for the precision"},
      {"kind",
       "gemm: dense, grouped-contiguous, grouped-masked, weight-gradient; collective: all-to-all, all-reduce, all-gather, reduce-scatter"},
      {"sms", "the SMs the kernel runs on (default: all)"},
      {"batch", "attention: sequences (1)"},
      {"heads", "attention: query heads"},
      {"kv-heads", "attention: KV heads (GQA; default: as many as the query heads)"},
      {"q-len", "attention: queries per sequence (default: kv-len)"},
      {"kv-len", "attention: keys per sequence"},
      {"head-dim", "attention: the query and key head dim"},
      {"v-head-dim", "attention: the value head dim (MLA: 128 beside 192)"},
      {"pass", "attention: forward (default), backward or both"},
      {"backend", "attention: fa3 (default), flashmla, or one a data folder adds"},
      {"op",
       "memory: rmsnorm, layernorm, softmax, copy, silu-mul, silu-mul-eager, cast, cast-bf16-fp8, cast-transpose, permute"},
      {"bytes", "memory: bytes moved; collective: what each rank sends in all"},
      {"elements", "memory: elements of the op's input"},
      {"shape", "memory: the op's input shape, as 4096x7168"},
      {"tokens", "memory: rows (with --hidden)"},
      {"hidden", "memory: columns"},
      {"ranks", "collective: GPUs, whole nodes of the fabric"},
      {"fabric", "collective: a scenario file with a fabric of nodes (mpft, mrft)"}};
  std::map<std::string, std::string> given;
  options.add_options()("what", po::value(&kind), "gemm, attention, memory or collective")(
      "gpu", po::value(&defaults.gpu)->default_value("H100"), "the GPU (data/gpus/)")(
      "in", po::value(&in), "a .jsonl file of cases, one JSON object a line")(
      "out", po::value(&out), "with --in: write the CSV here instead of to stdout")(
      "format", po::value(&format)->default_value("text"), "one case: text or json")("causal", po::bool_switch(&causal),
                                                                                     "attention: a causal mask")(
      "strict", po::bool_switch(&strict), "with --in: a case the models refuse is an error (exit 2), not a row")(
      "data", po::value(&data)->composing(), "a data folder searched before the built-in one (repeatable)");
  for (const auto& [flag, what] : flags)
    options.add_options()(flag.c_str(), po::value<std::string>()->notifier([&given, flag = flag](const std::string& v) {
      given[flag] = v;
    }),
                          what.c_str());
  po::positional_options_description positional;
  positional.add("what", 1);
  po::variables_map vm;
  if (!parse_options(args, kUsage, options, positional, vm)) return 0;
  for (const auto& dir : data) core::add_data_dir(dir, "--data");
  check_choice("--format", format, {"text", "json"});
  if (!kind.empty()) check_choice("kernel", kind, {"gemm", "attention", "memory", "collective"});
  if (in.empty()) {  // flags of a file of cases, given for one
    for (const char* flag : {"out", "strict"})
      if (vm.count(flag) && !vm[flag].defaulted())
        throw core::InputError(std::string("--") + flag, "is for --in FILE; one case prints to standard output");
  } else {
    if (!vm["format"].defaulted()) throw core::InputError("--format", "is for one case; --in writes CSV");
    check_path_given(vm, "out", out);
  }
  if (!in.empty()) {
    if (!out.empty()) studies::check_writable_file(out);
    defaults.library = given.count("library") ? given["library"] : "";
    defaults.backend = given.count("backend") ? given["backend"] : "";
    for (const auto& [flag, value] : given)
      if (flag != "library" && flag != "backend")
        throw core::InputError("--" + flag, "is not allowed with --in; the file gives each case's fields");
    studies::check_kernel_defaults(defaults, "--");
    const auto rows = studies::estimate_kernel_file(in, defaults, kind);
    const std::string refusals = studies::kernel_refusals(rows);
    if (strict && !refusals.empty()) throw core::InputError(in, refusals + " (--strict)");
    const std::string csv = studies::kernel_rows_csv(rows);
    if (out.empty())
      std::cout << csv;
    else
      studies::write_file_atomically(out, csv);
    for (const auto& line : studies::kernel_family_summary(rows)) std::cerr << line << "\n";
    if (!refusals.empty()) std::cerr << "codesim kernel: " << refusals << "\n";
    return 0;
  }
  if (kind.empty())
    throw core::InputError("kernel",
                           "is missing; name one of gemm, attention, memory, collective, or give --in FILE.jsonl");
  nlohmann::json object = nlohmann::json::object();
  for (const auto& [flag, value] : given) object[field_of(flag, kind)] = flag_value(flag, value);
  if (causal) object["causal"] = true;
  if (kind != "collective") object["gpu"] = defaults.gpu;
  studies::KernelRow row;
  try {
    row = studies::estimate_kernel(object, "", kind, defaults);
  } catch (const core::InputError& e) { throw as_flag_error(e, kind); }
  if (format == "json")
    std::cout << studies::kernel_rows_json({row})[0].dump(2) << "\n";
  else
    print_estimate(row);
  return 0;
}

}  // namespace cli
