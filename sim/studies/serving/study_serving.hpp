#pragma once
// "serving": requests served by a deployment as it is really run (serving/serving_simulation.hpp):
// a workload (Poisson or bursty arrivals, or a public trace; length distributions; prefix-cache
// hits), prefill and decode units (disaggregated, or colocated with chunked prefill), each with
// its layout (attention TP or DP, EP with redundant experts, the shared expert, micro-batches,
// MTP), continuous batching in KV pages; throughput per node and GPU, per-user speed, TTFT, TPOT
// and end-to-end percentiles, and, given an SLO, goodput and the highest load that meets it.
#include "studies/report/study.hpp"

namespace studies {
std::unique_ptr<Study> parse_serving_study(core::JsonReader& root);
}
