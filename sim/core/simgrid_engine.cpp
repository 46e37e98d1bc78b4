#include "core/simgrid_engine.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <map>
#include <set>

#include "core/input_error.hpp"
#include "core/progress_bar.hpp"

namespace core {

namespace {

namespace sg4 = simgrid::s4u;

// Runs the graph with one SimGrid actor per (rank, stream), each executing its tasks in order.
// Dependencies across streams are counted here: a task whose inputs are not all done parks its
// actor on the task's semaphore until the last one ends. Joins are pure bookkeeping. (Starting
// every activity from SimGrid's own DAG machinery instead is quadratic in 3.32: each finished
// Exec scans a list of every activity started so far.)
class Executor {
 public:
  // `delays`: under max-min sharing the links carry no latency (SimGrid would weight flows by
  // it), so each flow starts its route's latency after its task instead; null otherwise.
  Executor(const TaskGraph& graph, const std::vector<sg4::Host*>& hosts, const Network* delays,
           const ComputeSlowdowns& slowdowns)
      : graph_(graph),
        hosts_(hosts),
        delays_(delays),
        slowdowns_(slowdowns),
        spans_(graph.tasks().size()),
        remaining_(graph.tasks().size()),
        waiting_(graph.tasks().size(), false),
        done_(graph.tasks().size(), false),
        successors_(graph.tasks().size()) {
    const auto& tasks = graph.tasks();
    for (std::size_t i = 0; i < tasks.size(); ++i) {
      remaining_[i] = static_cast<int>(tasks[i].deps.size());
      for (TaskId dep : tasks[i].deps) successors_[dep].push_back(static_cast<TaskId>(i));
      if (tasks[i].kind != TaskKind::kJoin)
        streams_[{tasks[i].rank, graph.stream(tasks[i])}].push_back(static_cast<TaskId>(i));
    }
    semaphores_.resize(tasks.size());
  }

  void start_actors() {
    for (const auto& [key, ids] : streams_) {
      const auto* queue = &ids;
      const std::string name = std::to_string(key.first) + "/" + key.second;
      sg4::Actor::create(name, hosts_.at(key.first), [this, queue] { run_stream(*queue); });
    }
    // Joins with no dependency are done at time zero.
    for (std::size_t i = 0; i < graph_.tasks().size(); ++i)
      if (graph_.tasks()[i].kind == TaskKind::kJoin && remaining_[i] == 0) finish(static_cast<TaskId>(i), 0.0, 0.0);
  }

  void show_progress(ProgressBar* bar) { bar_ = bar; }

  std::vector<TaskSpan> spans() const {
    for (std::size_t i = 0; i < done_.size(); ++i)
      if (!done_[i]) throw std::logic_error("task '" + graph_.name(graph_.tasks()[i]) + "' never ran");
    return spans_;
  }

 private:
  void run_stream(const std::vector<TaskId>& ids) {
    for (TaskId id : ids) {
      if (remaining_[id] > 0) {
        waiting_[id] = true;
        semaphores_[id] = sg4::Semaphore::create(0);
        semaphores_[id]->acquire();
      }
      const Task& t = graph_.tasks()[id];
      const double start = sg4::Engine::get_clock();
      if (t.kind == TaskKind::kCompute || t.kind == TaskKind::kDelay) {
        if (t.seconds > 0)
          sg4::this_actor::sleep_until(t.kind == TaskKind::kCompute ? slowdowns_.end_s(t.rank, start, t.seconds)
                                                                    : start + t.seconds);
        advance();
      } else {
        // Each flow's copies, started in order of their delay.
        std::vector<std::pair<double, std::size_t>> starts;  // (delay, flow), a copy each
        for (std::size_t i = 0; i < t.flows.size(); ++i) {
          const auto& f = t.flows[i];
          const double delay = delays_ ? delays_->route_latency_s(delays_->route_of(f.src_rank, f.dst_rank)) : 0.0;
          for (int copy = 0; copy < f.count; ++copy) starts.push_back({delay, i});
        }
        std::vector<std::size_t> order(starts.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return starts[a].first < starts[b].first; });
        std::vector<sg4::CommPtr> comms(starts.size());
        for (std::size_t k : order) {
          const auto [delay, i] = starts[k];
          if (delay > 0 && sg4::Engine::get_clock() < start + delay) sg4::this_actor::sleep_until(start + delay);
          const auto& f = t.flows[i];
          comms[k] =
              sg4::Comm::sendto_async(hosts_[f.src_rank], hosts_[f.dst_rank], static_cast<uint64_t>(f.bytes + 0.5));
        }
        std::size_t waited = 0;
        for (const auto& f : t.flows) {  // progress counts entries, as progress_units does
          for (int copy = 0; copy < f.count; ++copy) comms[waited++]->wait();
          advance();
        }
      }
      finish(id, start, sg4::Engine::get_clock());
    }
  }

  void finish(TaskId id, double start, double end) {
    spans_[id] = {start, end};
    done_[id] = true;
    for (TaskId next : successors_[id]) {
      if (--remaining_[next] > 0) continue;
      if (graph_.tasks()[next].kind == TaskKind::kJoin) {
        finish(next, end, end);
      } else if (waiting_[next]) {
        semaphores_[next]->release();
      }
    }
  }

  const TaskGraph& graph_;
  const std::vector<sg4::Host*>& hosts_;
  const Network* delays_;
  const ComputeSlowdowns& slowdowns_;
  std::vector<TaskSpan> spans_;
  std::vector<int> remaining_;
  std::vector<bool> waiting_;
  std::vector<bool> done_;
  std::vector<std::vector<TaskId>> successors_;
  std::vector<sg4::SemaphorePtr> semaphores_;
  std::map<std::pair<int, std::string>, std::vector<TaskId>> streams_;
  ProgressBar* bar_ = nullptr;
  double finished_ = 0;

  void advance() {
    if (bar_) bar_->update(++finished_);
  }
};

// The platform's network as one SimGrid zone: a host per GPU, a link per network link (each one
// direction, shared max-min), a route per pair.
std::vector<sg4::Host*> build_zone(const Platform& platform, const Network& net) {
  const bool weighted = net.sharing() == Sharing::kLatencyWeighted;
  auto* zone = sg4::create_full_zone("platform");
  std::vector<sg4::Host*> hosts;
  for (int g = 0; g < platform.gpus(); ++g)
    hosts.push_back(zone->create_host("gpu" + std::to_string(g), platform.gpu_flops_per_s()));
  std::vector<sg4::Link*> links;
  for (std::size_t l = 0; l < net.links().size(); ++l)
    links.push_back(zone->create_link("l" + std::to_string(l), net.links()[l].Bps)
                        ->set_latency(weighted ? net.links()[l].latency_s : 0.0));
  for (std::size_t r = 0; r < net.routes(); ++r) {
    std::vector<sg4::LinkInRoute> path;
    for (auto [l, end] = net.route_links(r); l != end; ++l) path.emplace_back(links[static_cast<std::size_t>(*l)]);
    const auto [src, dst] = net.pair(r);
    zone->add_route(hosts[src]->get_netpoint(), hosts[dst]->get_netpoint(), nullptr, nullptr, path, false);
  }
  zone->seal();
  return hosts;
}

std::vector<TaskSpan> run_simgrid(const Platform& platform, const TaskGraph& graph) {
  // CM02 is plain max-min sharing with no bandwidth or latency correction factors, and with
  // cross-traffic off a flow's acknowledgements take no reverse bandwidth: the flow model the
  // papers' bandwidth arithmetic assumes. TCP-gamma 0 removes the window limit. Full
  // optimisation re-solves every share at each change: the default lazy updates leave some
  // flows on stale rates (a flow of a 16-GPU random graph ended 10% early against max-min).
  std::vector<std::string> args = {"codesim",
                                   "--cfg=network/model:CM02",
                                   "--cfg=network/crosstraffic:0",
                                   "--cfg=network/TCP-gamma:0",
                                   "--cfg=network/optim:Full",
                                   "--log=root.thresh:critical"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  sg4::Engine engine(&argc, argv.data());

  const Network net = network_of(platform, graph);
  if (!net.changes().empty())
    throw InputError("--engine",
                     "simgrid is not allowed for a network that changes during the run (faults); the fluid engine "
                     "applies such changes");
  if (net.weighted())
    throw InputError("--engine",
                     "simgrid is not allowed for traffic classes of different weights; the fluid engine weights flows");
  const auto hosts = build_zone(platform, net);

  Executor executor(graph, hosts, net.sharing() == Sharing::kMaxMin ? &net : nullptr, platform.compute_slowdowns());
  ProgressBar bar("simulating " + std::to_string(graph.flow_count()) + " flows", progress_units(graph));
  executor.show_progress(&bar);
  executor.start_actors();
  engine.run();
  return executor.spans();
}

bool write_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::write(fd, p, size);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

std::string read_all(int fd) {
  std::string out;
  char buffer[1 << 16];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
  return out;
}

}  // namespace

Timeline simulate_simgrid(const Platform& platform, const TaskGraph& graph, SimulationStats* stats) {
  const auto started = std::chrono::steady_clock::now();
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("cannot create a pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot fork the simulation: ") + std::strerror(errno));
  if (pid == 0) {
    ::close(fds[0]);
    char status = 0;
    std::string payload;
    try {
      const auto spans = run_simgrid(platform, graph);
      payload.assign(reinterpret_cast<const char*>(spans.data()), spans.size() * sizeof(TaskSpan));
    } catch (const InputError& e) {
      status = 2;  // the input's fault, told as such
      payload = e.what();
    } catch (const std::exception& e) {
      status = 1;
      payload = e.what();
    }
    const bool ok = write_all(fds[1], &status, 1) && write_all(fds[1], payload.data(), payload.size());
    ::close(fds[1]);
    ::_exit(ok ? 0 : 3);
  }
  ::close(fds[1]);
  const std::string reply = read_all(fds[0]);
  ::close(fds[0]);
  int wstatus = 0;
  ::waitpid(pid, &wstatus, 0);
  if (WIFSIGNALED(wstatus))
    throw std::runtime_error("the simulation process died with signal " + std::to_string(WTERMSIG(wstatus)));
  if (reply.empty() || !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
    throw std::runtime_error("the simulation process failed to report its result");
  if (reply[0] == 2) throw InputError("", std::string(reply, 1));
  if (reply[0] != 0) throw std::runtime_error("simulation failed: " + std::string(reply, 1));
  std::vector<TaskSpan> spans(graph.tasks().size());
  if (reply.size() - 1 != spans.size() * sizeof(TaskSpan)) throw std::runtime_error("simulation result is truncated");
  std::memcpy(spans.data(), reply.data() + 1, reply.size() - 1);
  if (stats) {
    stats->wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    stats->tasks = graph.tasks().size();
    stats->flows = graph.flow_count();
  }
  return Timeline(graph, std::move(spans));
}

}  // namespace core
