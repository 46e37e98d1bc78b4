#pragma once
// A serving scenario's workload, as /workload gives it: a trace, or a generated workload part by
// part (its lengths, its arrivals: a rate, a rate over the run, or every request at 0 s; its
// closed-loop clients; its hours).
// Each field is checked, with an error naming its JSON path; a run's request count is held to
// what it may hold (serving_limits.hpp).
#include <string>
#include <vector>

#include "core/json_reader.hpp"
#include "requests/request_generator.hpp"
#include "studies/serving/serving_run.hpp"
#include "workload/model/model.hpp"

namespace studies::serving_study {

// A value as a message quotes it: numbers as the rows print them, anything else as JSON.
std::string shown(const nlohmann::json& v);

// `key`: a number of tokens, or a distribution ({"distribution": "lognormal", "mean": ...}).
requests::LengthDistribution parse_length(core::JsonReader& w, const std::string& key, int min, int max_tokens);

// A generated workload's arrivals: a rate (Poisson, or gamma with a burstiness), or "inf": `count`
// requests all at 0 s, as a benchmark's throughput mode sends them.
// `streamed`: a fleet's records are streamed, so any number of requests is allowed.
requests::ArrivalProcess parse_arrivals(core::JsonReader& w, double duration_s, bool streamed);

// Closed-loop clients: one number, or a list of them (a concurrency sweep, each level its own run).
std::vector<int> parse_client_levels(core::JsonReader& w);

// The whole of /workload into the study (its run's window and seed are read before): a trace,
// checked against `model`'s context, or a generated workload, with the sentence that describes
// it. `replays`: a search or a plan, which replays a trace up to kMaxReplayScale times faster.
void read_workload(core::JsonReader& w, ServingStudy& s, const workload::Model& model, bool replays);

}  // namespace studies::serving_study
