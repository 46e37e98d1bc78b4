#pragma once
// Runs independent scenarios on several cores: worker processes (forked, as the sweep runner's
// are: a process each keeps SimGrid and the allocator single-threaded) take the next scenario not
// yet taken, in order, and send its report back whole (report_wire.hpp). The reports come back
// in the scenarios' order, byte for byte as a run of one after another gives them. A scenario
// that fails in a worker (or whose worker dies) is run again in this process, in order, so its
// error is raised here as it would be, the first in order first.
#include <string>
#include <vector>

#include "studies/report/report.hpp"
#include "studies/run/scenario.hpp"

namespace studies {

// The cores this machine has (at least 1): `tables`' default number of workers.
int available_cores();

// Each scenario's report, run with `workers` processes (1: here, one after another), with a
// progress bar named `what` over the scenarios.
std::vector<Report> run_scenarios(const std::vector<const Scenario*>& scenarios, int workers, const std::string& what);

}  // namespace studies
