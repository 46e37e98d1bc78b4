// codesim._codesim: the C++ library's scenario loader, runner and paper tables for Python
// (python/codesim/__init__.py shapes what they return into DataFrames). Reports cross as the
// JSON the CLI's --format json prints, so the package's tables are the CLI's, number for number.
#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/data_files.hpp"
#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "core/progress_bar.hpp"
#include "core/version.hpp"
#include "hw/fp8/gemm.hpp"
#include "hw/fp8/quantize.hpp"
#include "studies/config/output_file.hpp"
#include "studies/config/overrides.hpp"
#include "studies/run/kernel_cases.hpp"
#include "studies/run/layout_plan.hpp"
#include "studies/run/paper_tables.hpp"
#include "studies/run/scenario.hpp"
#include "studies/run/sweep.hpp"
#include "studies/run/sweep_runner.hpp"
#include "workload/pipeline/schedule_check.hpp"
#include "workload/pipeline/schedule_registry.hpp"
#include "workload/profile/kernel_class.hpp"
#include "workload/profile/profile_trace.hpp"

namespace py = pybind11;

namespace {

// A scenario from a file, or from a JSON document given as text (a Python dict dumped).
std::shared_ptr<studies::Scenario> load(const std::string& source, bool is_path, const std::vector<std::string>& sets) {
  if (is_path) return std::make_shared<studies::Scenario>(studies::load_scenario(source, sets));
  nlohmann::json document = core::parse_json_text(source, "scenario");
  studies::apply_overrides(document, sets);
  return std::make_shared<studies::Scenario>(studies::parse_scenario(document, "scenario"));
}

// Thrown out of a simulation by the progress observer when Python has an exception to raise
// (Ctrl-C, or the callback's own): the run unwinds, and the exception is raised in Python.
struct Interrupted {};

std::string run(const studies::Scenario& scenario, const std::string& engine, const std::string& trace_path,
                py::object progress) {
  if (engine != "fluid" && engine != "simgrid")
    throw core::InputError("engine", "'" + engine + "' is unknown; allowed: fluid, simgrid");
  if (!trace_path.empty()) studies::check_writable_file(trace_path);
  // The engine choice and the progress observer are the process's: one run at a time (checked
  // with the GIL held, so a second thread is told rather than left waiting on the first).
  static std::atomic<bool> running{false};
  if (running.exchange(true))
    throw std::runtime_error(
        "a scenario is already running in this process; codesim runs one at a time (codesim.sweep runs many)");
  struct Forget {
    ~Forget() {
      core::set_progress_observer({});
      running = false;
    }
  } forget;
  studies::Report report;
  // Long work reports its progress: the callback hears it, and Ctrl-C is seen there.
  core::set_progress_observer([progress](const std::string& what, double share) {
    py::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) throw Interrupted{};
    if (progress.is_none()) return;
    try {
      progress(what, share);
    } catch (py::error_already_set& e) {
      e.restore();
      throw Interrupted{};
    }
  });
  try {
    py::gil_scoped_release release;  // the simulation does not touch Python
    core::set_default_engine(engine == "simgrid" ? core::EngineKind::kSimGrid : core::EngineKind::kFluid);
    studies::RunOptions options;
    options.trace = !trace_path.empty();
    report = scenario.run(options);
  } catch (const Interrupted&) { throw py::error_already_set(); }
  if (!trace_path.empty()) {
    if (!report.trace_json) throw core::InputError("trace", "scenario kind '" + scenario.kind + "' writes no trace");
    studies::write_file_atomically(trace_path, *report.trace_json);
  }
  nlohmann::json out = nlohmann::json::parse(studies::render_json({report}));
  out["warnings"] = report.warnings;
  return out.dump();
}

// A scenario's step breakdown alone (Scenario::step), as the JSON of a report.
std::string step(const studies::Scenario& scenario, const std::string& engine) {
  if (engine != "fluid" && engine != "simgrid")
    throw core::InputError("engine", "'" + engine + "' is unknown; allowed: fluid, simgrid");
  studies::Report report;
  {
    py::gil_scoped_release release;
    core::set_default_engine(engine == "simgrid" ? core::EngineKind::kSimGrid : core::EngineKind::kFluid);
    report = scenario.step({});
  }
  nlohmann::json out = nlohmann::json::parse(studies::render_json({report}));
  out["warnings"] = report.warnings;
  return out.dump();
}

// The paper tables, and with `check` the check's lines and its failure count.
py::tuple tables(const std::string& only, bool check) {
  std::vector<studies::Report> t;
  std::vector<std::string> lines;
  int failures = 0;
  {
    py::gil_scoped_release release;
    t = studies::paper_tables(studies::default_paper_scenarios_dir(), only, "only");
    if (check) lines = studies::check_rows(t, failures);
  }
  return py::make_tuple(studies::render_json(t), lines, failures);
}

// A sweep's points run in `jobs` worker processes as `codesim sweep` runs them, every finished
// point appended to `log` (.jsonl, or a .csv with its .jsonl twin): run again with the same log,
// it repeats nothing. Ctrl-C stops the workers and raises KeyboardInterrupt. The rows, as JSON.
std::string run_in_workers(const studies::Sweep& s, const std::string& log, int jobs, const char* what) {
  bool ok = false;
  {
    py::gil_scoped_release release;
    ok = studies::run_sweep(s, log, jobs, 0, 1, what, [] {
      py::gil_scoped_acquire acquire;
      return PyErr_CheckSignals() != 0;
    });
  }
  if (PyErr_Occurred()) throw py::error_already_set();
  if (!ok) throw std::runtime_error(std::string("a ") + what + " worker failed; run again with the same log to resume");
  return nlohmann::json(studies::read_sweep_rows(studies::sweep_log_path(log))).dump();
}

void check_workers(const std::string& log, int jobs) {
  if (jobs < 1 || jobs > 256) throw core::InputError("jobs", std::to_string(jobs) + " is not allowed; from 1 to 256");
  if (!studies::is_csv(log) && std::filesystem::path(log).extension() != ".jsonl")
    throw core::InputError("log", "'" + log + "' is not allowed; a .jsonl or .csv path");
}

// A sweep from a document as a sweep file holds it (a base given as a path is relative to `base_dir`).
std::string sweep(const std::string& document, const std::string& base_dir, const std::string& log, int jobs) {
  check_workers(log, jobs);
  return run_in_workers(studies::parse_sweep(core::parse_json_text(document, "sweep"), "sweep", base_dir), log, jobs,
                        "sweep");
}

// Every layout of a training-step scenario, as `codesim plan` runs them.
std::string plan(const std::string& path, const std::vector<std::string>& sets, const std::string& log, int jobs) {
  check_workers(log, jobs);
  return run_in_workers(studies::plan_sweep(path, sets), log, jobs, "plan");
}

// A PyTorch profiler trace read as `codesim calibrate` reads it: per op and instance, and the
// calibration document a training-step scenario takes.
std::string calibrate(const std::string& trace_path, std::optional<int> device, double micro_batch_tokens,
                      int communication_sms) {
  auto profile = workload::read_profile_trace(trace_path, device);
  profile.workload.micro_batch_tokens = micro_batch_tokens;
  profile.workload.communication_sms = communication_sms;
  nlohmann::json ops = nlohmann::json::array();
  for (const auto& [name, op] : profile.ops) {
    nlohmann::json classes = nlohmann::json::object(), streams = nlohmann::json::object();
    for (const auto& [c, ms] : op.class_ms) classes[workload::kernel_class_name(c)] = ms;
    for (const auto& [stream, ms] : op.stream_ms) streams[std::to_string(stream)] = ms;
    ops.push_back({{"op", name},
                   {"instances", op.instances},
                   {"kernels", op.kernels},
                   {"busy_ms", op.busy_ms},
                   {"span_ms", op.span_ms},
                   {"stream_ms", streams},
                   {"class_ms", classes}});
  }
  return nlohmann::json{{"device", profile.device},
                        {"device_id", profile.device_id},
                        {"sms", profile.sms},
                        {"kernels", profile.kernels},
                        {"unattributed", profile.unattributed},
                        {"span_ms", profile.span_ms},
                        {"ops", ops},
                        {"calibration", workload::calibration_json(profile)}}
      .dump();
}

// A pipeline schedule's op order per rank, in `codesim schedule`'s tokens; checked sound.
py::dict schedule(const std::string& kind, long long pp, long long micro_batches, long long virtual_stages) {
  const auto s = workload::schedule_for({kind, pp, micro_batches, virtual_stages}, "");
  if (const auto problems = workload::check_schedule(s); !problems.empty())
    throw std::logic_error("generated schedule is unsound: " + problems.front());
  std::vector<std::vector<std::string>> ranks;
  for (const auto& steps : s.steps) {
    ranks.emplace_back();
    for (const auto& step : steps) ranks.back().push_back(workload::token(step, s.show_lane));
  }
  py::dict out;
  out["kind"] = s.kind;
  out["ranks"] = ranks;
  out["parameter_copies"] = s.stages_per_rank;
  return out;
}

// Round-to-nearest-even codes of `values` in `format`, and what they decode to: the CLI's
// `codesim fp8 cast`, element by element.
py::tuple fp8_cast(const py::array_t<double, py::array::c_style | py::array::forcecast>& values,
                   const std::string& format, bool saturate) {
  const auto& f = hw::fp8::format_by_name(format, "to");
  py::array_t<std::uint32_t> codes(values.request().shape);
  py::array_t<double> decoded(values.request().shape);
  const double* in = values.data();
  auto* c = codes.mutable_data();
  auto* d = decoded.mutable_data();
  const auto overflow = saturate ? hw::fp8::Overflow::kSaturate : hw::fp8::Overflow::kNonSaturate;
  for (py::ssize_t i = 0; i < values.size(); ++i) {
    c[i] = hw::fp8::encode(f, in[i], overflow);
    d[i] = hw::fp8::decode(f, c[i]);
  }
  return py::make_tuple(codes, decoded);
}

hw::fp8::Tiling tiling(const std::pair<int, int>& tile) {
  if (tile.first < 1 || tile.second < 1)
    throw core::InputError("tile", "(" + std::to_string(tile.first) + ", " + std::to_string(tile.second) +
                                       ") is not allowed; rows and columns at least 1");
  return {tile.first, tile.second};
}

// Fine-grained quantisation: the values on the format's grid and one scale per tile.
py::tuple fp8_quantize(const hw::fp8::Matrix& x, const std::string& format, const std::pair<int, int>& tile,
                       bool power_of_two_scales) {
  hw::fp8::QuantizeOptions options;
  options.power_of_two_scales = power_of_two_scales;
  const auto q = hw::fp8::quantize(x, tiling(tile), hw::fp8::format_by_name(format, "format"), options);
  return py::make_tuple(q.values, q.scales);
}

// C = A B^T with A in 1x128 tiles and B in 128x128 blocks, accumulated as Hopper's tensor cores
// do (hw/fp8/gemm.hpp), promoted to FP32 every `promote_every` (0: never).
hw::fp8::Matrix fp8_gemm(const hw::fp8::Matrix& a, const hw::fp8::Matrix& b, const std::string& format,
                         int accumulator_bits, int product_fraction_bits, int group, int promote_every,
                         bool power_of_two_scales) {
  if (a.cols() != b.cols())
    throw core::InputError(
        "b", "has " + std::to_string(b.cols()) + " columns; A x B^T needs A's " + std::to_string(a.cols()));
  hw::fp8::AccumulatorModel model{accumulator_bits, product_fraction_bits, group, promote_every};
  hw::fp8::check_model(model, a.cols());
  hw::fp8::QuantizeOptions options;
  options.power_of_two_scales = power_of_two_scales;
  const auto& f = hw::fp8::format_by_name(format, "format");
  hw::fp8::Matrix c;
  {
    py::gil_scoped_release release;
    c = hw::fp8::gemm_limited(hw::fp8::quantize(a, hw::fp8::kActivationTiles, f, options),
                              hw::fp8::quantize(b, hw::fp8::kWeightBlocks, f, options), model);
  }
  return c;
}

// Kernel cases (a JSON array, or a .jsonl file) timed by the models, as `codesim kernel --in`
// times them: the rows as JSON.
studies::KernelDefaults kernel_defaults(const std::string& gpu, const std::string& library,
                                        const std::string& backend) {
  studies::KernelDefaults d;
  d.gpu = gpu;
  d.library = library;
  d.backend = backend;
  return d;
}

std::string kernel_cases(const std::string& cases, const std::string& kind, const std::string& gpu,
                         const std::string& library, const std::string& backend) {
  const auto document = core::parse_json_text(cases, "cases");
  std::vector<studies::KernelRow> rows;
  {
    py::gil_scoped_release release;
    rows = studies::estimate_kernel_list(document, kind, kernel_defaults(gpu, library, backend));
  }
  return studies::kernel_rows_json(rows).dump();
}

std::string kernel_file(const std::string& path, const std::string& gpu, const std::string& library,
                        const std::string& backend) {
  std::vector<studies::KernelRow> rows;
  {
    py::gil_scoped_release release;
    rows = studies::estimate_kernel_file(path, kernel_defaults(gpu, library, backend));
  }
  return studies::kernel_rows_json(rows).dump();
}

// The files of a data folder in search order (added folders first).
std::vector<std::string> data_files(const std::string& folder) {
  std::vector<std::string> paths;
  for (const auto& [path, doc] : core::read_data_folder(folder)) paths.push_back(path);
  return paths;
}

}  // namespace

PYBIND11_MODULE(_codesim, m) {
  m.doc() = "codesim's C++ library; use the codesim package";
  // Bad input: where (a JSON pointer, a file or an argument) and what is allowed, as the CLI says it.
  static py::exception<core::InputError> input_error(m, "InputError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const core::InputError& e) {
      PyErr_SetObject(input_error.ptr(), py::make_tuple(e.what(), e.where()).ptr());
    }
  });
  py::class_<studies::Scenario, std::shared_ptr<studies::Scenario>>(m, "Scenario")
      .def_readonly("kind", &studies::Scenario::kind)
      .def_readonly("title", &studies::Scenario::title)
      .def_readonly("table_id", &studies::Scenario::table_id)
      .def_readonly("origin", &studies::Scenario::origin);
  m.attr("source_dir") = CODESIM_SOURCE_DIR;
  m.attr("version") = core::kVersion;
  m.def("metric_column", &studies::metric_column, py::arg("id"), py::arg("unit"));
  m.def("load", &load, py::arg("source"), py::arg("is_path"), py::arg("sets"));
  m.def("run", &run, py::arg("scenario"), py::arg("engine"), py::arg("trace_path"), py::arg("progress"));
  m.def("tables", &tables, py::arg("only"), py::arg("check"));
  m.def("plan", &plan, py::arg("path"), py::arg("sets"), py::arg("log"), py::arg("jobs"));
  m.def("calibrate", &calibrate, py::arg("trace_path"), py::arg("device"), py::arg("micro_batch_tokens"),
        py::arg("communication_sms"));
  m.def("schedule", &schedule, py::arg("kind"), py::arg("pp"), py::arg("micro_batches"), py::arg("virtual_stages"));
  m.def("fp8_cast", &fp8_cast, py::arg("values"), py::arg("format"), py::arg("saturate"));
  m.def("fp8_quantize", &fp8_quantize, py::arg("x"), py::arg("format"), py::arg("tile"),
        py::arg("power_of_two_scales"));
  m.def("fp8_gemm", &fp8_gemm, py::arg("a"), py::arg("b"), py::arg("format"), py::arg("accumulator_bits"),
        py::arg("product_fraction_bits"), py::arg("group"), py::arg("promote_every"), py::arg("power_of_two_scales"));
  m.def("step", &step, py::arg("scenario"), py::arg("engine"));
  m.def("kernel_cases", &kernel_cases, py::arg("cases"), py::arg("kind"), py::arg("gpu"), py::arg("library"),
        py::arg("backend"));
  m.def("kernel_file", &kernel_file, py::arg("path"), py::arg("gpu"), py::arg("library"), py::arg("backend"));
  m.def(
      "add_data_dir", [](const std::string& dir) { core::add_data_dir(dir, "data"); }, py::arg("dir"));
  m.def("add_data_dirs_from_environment", &core::add_data_dirs_from_environment);
  m.def("set_install_prefix", &core::set_install_prefix, py::arg("prefix"));
  m.def("data_files", &data_files, py::arg("folder"));
  m.def("sweep", &sweep, py::arg("document"), py::arg("base_dir"), py::arg("log"), py::arg("jobs"));
}
