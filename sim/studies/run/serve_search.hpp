#pragma once
// A serving configuration search (`codesim serve-search`): a sweep over a serving scenario's
// deployment (GPU, unit size and TP, scheduler, batch caps, engine...), each point's highest
// request rate within the scenario's SLO, and the points ranked by what a million output tokens
// cost at that rate. The search file is a sweep file (sweep.hpp) with the price of a GPU-hour,
// one for all or by the node /cluster/node names:
//   {"base": "../scenarios/serving/llama-3.1-70b-h100-colocated.json",
//    "grid": {"/cluster/node": ["h100", "h200"], "/deployment/scheduler": ["chunked-prefill", "prefill-first"]},
//    "usd_per_gpu_hour": {"h100": 2.0, "h200": 2.6}}
// A point's cost per million output tokens is its GPU-hour's price over the output tokens a GPU
// serves in an hour at its highest rate within the SLO.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "studies/run/sweep.hpp"

namespace studies {

struct ServeSearch {
  Sweep sweep;                           // each point with the SLO search on
  std::vector<double> usd_per_gpu_hour;  // by point
};

// InputError naming the search file's JSON path where a point has no price.
ServeSearch load_serve_search(const std::string& path);

// The points ranked by cost per million output tokens at their highest rate within the SLO (those
// that meet it at no rate, or were refused, last), as a Markdown table. With a load (req/s > 0),
// also what each point needs for it: copies of its deployment (its highest rate divided into the
// load, rounded up), their GPUs, the headroom they leave, and the cost per million output tokens
// at that load; ranked by that cost.
std::string serve_search_ranking(const ServeSearch& search, const std::vector<nlohmann::json>& rows,
                                 double load_per_s = 0);

}  // namespace studies
