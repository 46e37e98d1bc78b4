#pragma once
// The papers' tables: every scenario of a folder (the shipped scenarios/paper by default) run,
// joined by table id, in the papers' order (ISCA'25 tables and figures, then the V3 report's).
// `codesim tables` prints them; the Python package returns them.
#include <string>
#include <vector>

#include "studies/report/report.hpp"

namespace studies {

// ./scenarios/paper when run from a checkout, else the source tree this was built from.
std::string default_paper_scenarios_dir();

// `only`: one table id (empty: all); an id no scenario gives is an InputError naming `only_field`.
// `workers`: processes that run the scenarios (scenario_workers.hpp); 1: this one alone.
std::vector<Report> paper_tables(const std::string& dir, const std::string& only,
                                 const std::string& only_field = "--only", int workers = 1);

}  // namespace studies
