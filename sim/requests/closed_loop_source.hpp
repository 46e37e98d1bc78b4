#pragma once
// Benchmark clients, as vLLM's `bench serve --max-concurrency`, genai-perf and trtllm-bench drive
// a server: each of N clients sends a request, waits for it to finish, thinks, and sends the next,
// so N requests (fewer while clients think) are in flight. All start at 0 s; none sends at or
// after the workload's duration. Lengths and prefix hits are the generated workload's.
#include <queue>
#include <vector>

#include "requests/request_generator.hpp"
#include "requests/request_source.hpp"

namespace requests {

struct ClientLoop {
  int clients = 1;
  double think_s = 0;              // mean pause between a request's finish and the client's next
  bool exponential_think = false;  // the pause drawn from an exponential with that mean (else fixed)
};

class ClosedLoopSource : public RequestSource {
 public:
  // `workload` is kept by reference (its arrivals unused): it outlives the source.
  ClosedLoopSource(const GeneratedWorkload& workload, const ClientLoop& loop);

  std::optional<Request> next() override;
  bool finished(const Request& request, double t_s) override;
  long long expected_requests() const override { return loop_.clients; }

 private:
  struct Send {
    double t_s;
    int client;
    bool operator>(const Send& o) const { return t_s > o.t_s || (t_s == o.t_s && client > o.client); }
  };
  const GeneratedWorkload& w_;
  ClientLoop loop_;
  LengthDraws lengths_;
  core::FastNormal think_;
  std::priority_queue<Send, std::vector<Send>, std::greater<Send>> sends_;  // clients ready to send, by when
};

}  // namespace requests
