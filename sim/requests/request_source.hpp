#pragma once
// Where a serving simulation's requests come from, pulled one at a time as the run reaches them:
// a workload drawn as it goes (generated_source), a list read before the run (listed_source), or
// clients that send a request when their last one ends (closed_loop_source). A day of a fleet's
// requests is never held at once.
#include <optional>

#include "requests/request.hpp"

namespace requests {

class RequestSource {
 public:
  virtual ~RequestSource() = default;

  // The next request this source sends, or none for now. Its arrival is at or after the arrival
  // of the one given before and at or after the finish last reported by finished(); an open-loop
  // source gives its requests in order of arrival, and none once it has run out.
  virtual std::optional<Request> next() = 0;

  // A request this source gave finished at `t_s` (as given: its times, lengths and client; its
  // prefix blocks are not kept past its arrival). True when that made a request to send (a
  // closed-loop client's next), which next() then gives.
  virtual bool finished(const Request& /*request*/, double /*t_s*/) { return false; }

  // About how many requests the run will take (0: not known), to size its records.
  virtual long long expected_requests() const { return 0; }
};

}  // namespace requests
