// Schedule names, request validation and dispatch to the generators.
#include <algorithm>

#include "core/did_you_mean.hpp"
#include "core/input_error.hpp"
#include "workload/pipeline/schedule_generators.hpp"

namespace workload {

std::vector<std::string> schedule_kinds() { return {"1f1b", "1f1b-interleaved", "zb1p", "dualpipe", "dualpipev"}; }

void check_schedule_request(const ScheduleRequest& q, const std::string& where) {
  using core::InputError;
  const auto kinds = schedule_kinds();
  if (std::find(kinds.begin(), kinds.end(), q.kind) == kinds.end())
    throw InputError(where + "kind", "'" + q.kind + "' is unknown; " + core::allowed_list(q.kind, kinds));
  // Sizes past these are not real pipelines, and are refused before anything is allocated.
  constexpr long long kMaxRanks = 4096, kMaxMicroBatches = 1 << 20;
  const std::string pp_name = q.kind == "dualpipev" ? "pp (devices)" : "pp";
  if (q.pp < 1 || q.pp > kMaxRanks)
    throw InputError(where + "pp", std::to_string(q.pp) + " is not allowed; " + pp_name + " must be from 1 to " +
                                       std::to_string(kMaxRanks));
  if (q.micro_batches < 1 || q.micro_batches > kMaxMicroBatches)
    throw InputError(where + "microbatches", std::to_string(q.micro_batches) +
                                                 " is not allowed; micro-batches must be from 1 to " +
                                                 std::to_string(kMaxMicroBatches));
  // Every rank holds every micro-batch's chunks: bound the product too.
  constexpr long long kMaxChunks = 1 << 22;
  const long long v = q.kind == "1f1b-interleaved" ? std::clamp(q.virtual_stages, 1LL, 64LL) : 1;
  if (q.pp * q.micro_batches * v > kMaxChunks)
    throw InputError(where + "microbatches", std::to_string(q.micro_batches) + " micro-batches on " + std::to_string(q.pp) +
                                                 " ranks is not allowed; pp x micro-batches (x virtual stages) must be at most " +
                                                 std::to_string(kMaxChunks));
  const long long pp = q.pp, m = q.micro_batches;
  if (q.kind == "1f1b-interleaved") {
    if (q.virtual_stages < 1 || q.virtual_stages > 64)
      throw InputError(where + "virtual", std::to_string(q.virtual_stages) + " is not allowed; virtual stages must be from 1 to 64");
    if (m % pp != 0)
      throw InputError(where + "microbatches", std::to_string(m) +
                                                   " is not allowed; interleaved 1F1B needs micro-batches divisible by pp (" +
                                                   std::to_string(pp) + ")");
  }
  if (q.kind == "dualpipe") {
    if (pp % 2 != 0)
      throw InputError(where + "pp", std::to_string(pp) + " is odd; DualPipe needs an even number of ranks");
    if (m % 2 != 0)
      throw InputError(where + "microbatches", std::to_string(m) +
                                                   " is odd; DualPipe splits micro-batches evenly over its two directions");
    if (m < 2 * pp)
      throw InputError(where + "microbatches", std::to_string(m) + " is too few; DualPipe on " + std::to_string(pp) +
                                                   " ranks needs at least 2 x pp = " + std::to_string(2 * pp));
  }
  if (q.kind == "dualpipev" && m < 2 * pp)
    throw InputError(where + "microbatches", std::to_string(m) + " is too few; DualPipeV on " + std::to_string(pp) +
                                                 " devices needs at least 2 x devices = " + std::to_string(2 * pp));
}

Schedule schedule_for(const ScheduleRequest& q, const std::string& where) {
  check_schedule_request(q, where);
  const int pp = static_cast<int>(q.pp), m = static_cast<int>(q.micro_batches);
  if (q.kind == "1f1b") return one_f_one_b(pp, m);
  if (q.kind == "zb1p") return zb1p(pp, m);
  if (q.kind == "1f1b-interleaved") return one_f_one_b_interleaved(pp, m, static_cast<int>(q.virtual_stages));
  if (q.kind == "dualpipe") return dualpipe(pp, m);
  return dualpipev(pp, m);
}

}  // namespace workload
