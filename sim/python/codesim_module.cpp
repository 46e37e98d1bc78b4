// codesim._codesim: the C++ library's scenario loader, runner and paper tables for Python
// (python/codesim/__init__.py shapes what they return into DataFrames). Reports cross as the
// JSON the CLI's --format json prints, so the package's tables are the CLI's, number for number.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "studies/output_file.hpp"
#include "studies/overrides.hpp"
#include "studies/paper_tables.hpp"
#include "studies/scenario.hpp"

namespace py = pybind11;

namespace {

// A scenario from a file, or from a JSON document given as text (a Python dict dumped).
std::shared_ptr<studies::Scenario> load(const std::string& source, bool is_path, const std::vector<std::string>& sets) {
  if (is_path) return std::make_shared<studies::Scenario>(studies::load_scenario(source, sets));
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(source);
  } catch (const nlohmann::json::exception& e) {
    throw core::InputError("scenario", std::string("not JSON: ") + e.what());
  }
  studies::apply_overrides(document, sets);
  return std::make_shared<studies::Scenario>(studies::parse_scenario(document, "scenario"));
}

std::string run(const studies::Scenario& scenario, const std::string& engine, const std::string& trace_path) {
  if (engine != "fluid" && engine != "simgrid") throw core::InputError("engine", "'" + engine + "' is unknown; allowed: fluid, simgrid");
  if (!trace_path.empty()) studies::check_writable_file(trace_path);
  studies::Report report;
  {
    py::gil_scoped_release release;  // the simulation does not touch Python
    core::set_default_engine(engine == "simgrid" ? core::EngineKind::kSimGrid : core::EngineKind::kFluid);
    studies::RunOptions options;
    options.trace = !trace_path.empty();
    report = scenario.run(options);
  }
  if (!trace_path.empty()) {
    if (!report.trace_json) throw core::InputError("trace", "scenario kind '" + scenario.kind + "' writes no trace");
    studies::write_file_atomically(trace_path, *report.trace_json);
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
  m.def("load", &load, py::arg("source"), py::arg("is_path"), py::arg("sets"));
  m.def("run", &run, py::arg("scenario"), py::arg("engine"), py::arg("trace_path"));
  m.def("tables", &tables, py::arg("only"), py::arg("check"));
}
