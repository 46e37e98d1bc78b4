#include "studies/network/study_shared_fabric.hpp"

#include <map>
#include <set>

#include "core/engine.hpp"
#include "core/input_error.hpp"
#include "net/alltoall.hpp"
#include "net/fabric.hpp"
#include "net/ring.hpp"
#include "net/traffic_class.hpp"
#include "studies/config/fabric_config.hpp"

namespace studies {

namespace {

struct Job {
  std::string id, label, traffic_class;
  int first_node = 0, nodes = 1;
  std::string collective;  // alltoall or allreduce
  double size_bytes = 0;   // nccl-tests size per GPU
  double compute_s = 0;    // before each collective
  int iterations = 1;
};

struct IsolationCase {
  std::string id, label;
  std::map<std::string, net::TrafficClass> classes;
};

class SharedFabricStudy : public Study {
 public:
  std::string label;
  net::FabricSpec fabric;
  std::vector<Job> jobs;
  std::vector<IsolationCase> cases;

  // The jobs in `which` on one graph, each starting at 0, and each job's end task.
  struct JobsGraph {
    core::TaskGraph graph;
    std::vector<std::size_t> which;
    std::vector<core::TaskId> ends;
  };
  JobsGraph graph(const std::vector<std::size_t>& which) const {
    core::TaskGraph g;
    std::vector<core::TaskId> ends;
    const int gpn = fabric.gpus_per_node;
    for (std::size_t j : which) {
      const Job& job = jobs[j];
      const int first_gpu = job.first_node * gpn, ranks = job.nodes * gpn;
      core::TaskGraph alltoall;
      std::vector<net::Ring> rings;
      if (job.collective == "alltoall") {
        alltoall = net::alltoall_graph({job.nodes, gpn, job.size_bytes / ranks, true, true, {}});
      } else {
        rings.resize(static_cast<std::size_t>(gpn));  // one per local index, through the job's nodes
        for (int i = 0; i < gpn; ++i)
          for (int n = 0; n < job.nodes; ++n) rings[static_cast<std::size_t>(i)].push_back(first_gpu + n * gpn + i);
      }
      std::vector<core::TaskId> after;
      for (int it = 0; it < job.iterations; ++it) {
        std::vector<core::TaskId> computed;
        for (int r = 0; r < ranks; ++r)
          computed.push_back(g.add_compute("compute", first_gpu + r, "compute", job.compute_s, after));
        const core::TaskId ready = g.add_join("ready", computed);
        const core::TaskId done = job.collective == "alltoall" ? g.append(alltoall, first_gpu, {ready})
                                                               : net::append_ring(g, rings, job.size_bytes, 2, {ready});
        after = {done};
      }
      ends.push_back(after.front());
    }
    return {std::move(g), which, ends};
  }

  // Each of the graph's jobs' iteration time on `platform`.
  std::vector<double> iteration_s(const core::Platform& platform, const JobsGraph& g) const {
    const core::Timeline t = core::simulate(platform, g.graph);
    std::vector<double> out;
    for (std::size_t k = 0; k < g.which.size(); ++k)
      out.push_back(t.span(g.ends[k]).end_s / jobs[g.which[k]].iterations);
    return out;
  }

  StudyResult run(const RunOptions& options) const override {
    StudyResult r;
    const net::FabricPlatform fabric_platform(fabric);
    std::vector<std::size_t> all;
    for (std::size_t j = 0; j < jobs.size(); ++j) all.push_back(j);
    const JobsGraph together = options.simulate ? graph(all) : JobsGraph{};
    // The isolation cases run first: an engine that cannot weight flows refuses them before the
    // other runs, not after.
    std::vector<std::vector<double>> isolated;
    for (const auto& c : cases) {
      std::vector<net::TrafficClass> classes;
      std::map<std::string, int> index;
      for (const auto& [name, cls] : c.classes) {
        index[name] = static_cast<int>(classes.size());
        classes.push_back(cls);
      }
      std::vector<int> class_of_gpu(static_cast<std::size_t>(fabric_platform.gpus()), 0);
      for (const auto& job : jobs)
        for (int g = 0; g < job.nodes * fabric.gpus_per_node; ++g)
          class_of_gpu[static_cast<std::size_t>(job.first_node * fabric.gpus_per_node + g)] =
              index.at(job.traffic_class);
      const net::TrafficClassPlatform classed(fabric_platform, classes, class_of_gpu);
      isolated.push_back(options.simulate ? iteration_s(classed, together) : std::vector<double>(jobs.size(), kNotRun));
    }
    std::vector<double> alone(jobs.size(), kNotRun), plain(jobs.size(), kNotRun);
    if (options.simulate) {
      for (std::size_t j = 0; j < jobs.size(); ++j) alone[j] = iteration_s(fabric_platform, graph({j}))[0];
      plain = iteration_s(fabric_platform, together);
    }
    auto slowdown = [&](double s, std::size_t j) { return options.simulate ? 100 * (s / alone[j] - 1) : kNotRun; };
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      r.rows.push_back({jobs[j].id + "/alone", jobs[j].label, "iteration time, alone", "ms", std::nullopt,
                        alone[j] * 1e3, Basis::kSimulated});
      r.rows.push_back({jobs[j].id + "/shared", jobs[j].label, "iteration time, plain sharing", "ms", std::nullopt,
                        plain[j] * 1e3, Basis::kSimulated});
      r.rows.push_back({jobs[j].id + "/shared/slowdown", jobs[j].label, "slowdown, plain sharing", "%", std::nullopt,
                        slowdown(plain[j], j), Basis::kSimulated});
    }
    for (std::size_t k = 0; k < cases.size(); ++k) {
      const auto& c = cases[k];
      for (std::size_t j = 0; j < jobs.size(); ++j) {
        r.rows.push_back({jobs[j].id + "/" + c.id, jobs[j].label, "iteration time, " + c.label, "ms", std::nullopt,
                          isolated[k][j] * 1e3, Basis::kSimulated});
        r.rows.push_back({jobs[j].id + "/" + c.id + "/slowdown", jobs[j].label, "slowdown, " + c.label, "%",
                          std::nullopt, slowdown(isolated[k][j], j), Basis::kSimulated});
      }
      std::string note = label + ", " + c.label + ":";
      for (const auto& [name, cls] : c.classes)
        note += " class " + name + " weight " + format_number(cls.weight) +
                (cls.reserved_share > 0 ? ", " + format_number(100 * cls.reserved_share) + "% of every link reserved"
                                        : "") +
                ";";
      note.back() = '.';
      r.notes.push_back(note);
    }
    std::string note = label + ": " + std::to_string(fabric.nodes * fabric.gpus_per_node) + " GPUs in " +
                       std::to_string(fabric.nodes) + " nodes, " +
                       (fabric.kind == net::FabricKind::kMultiPlane ? "multi-plane" : "multi-rail") +
                       " two-level fat tree of " + std::to_string(fabric.radix) + "-port switches (" +
                       std::to_string(net::fabric_leaves_per_group(fabric)) + " leaves and " +
                       std::to_string(net::fabric_spines_per_group(fabric)) + " spines per plane or rail). Jobs:";
    for (const auto& job : jobs)
      note += " " + job.label + " on nodes " + std::to_string(job.first_node) + "-" +
              std::to_string(job.first_node + job.nodes - 1) + ", " + std::to_string(job.iterations) + " x (" +
              format_number(job.compute_s * 1e3) + " ms of compute, then a " +
              format_number(job.size_bytes / 1048576.0) + " MiB " +
              (job.collective == "alltoall" ? "all-to-all with PXN" : "ring all-reduce") + "), class " +
              job.traffic_class + ";";
    note.back() = '.';
    note +=
        " Plain sharing gives every flow an equal share of each link (max-min); the iteration time is a job's end over its "
        "iterations, all jobs starting together.";
    r.notes.push_back(note);
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_shared_fabric_study(core::JsonReader& root) {
  auto s = std::make_unique<SharedFabricStudy>();
  core::JsonReader f = root.object("fabric");
  s->fabric.kind =
      f.one_of("kind", {"mpft", "mrft"}) == "mpft" ? net::FabricKind::kMultiPlane : net::FabricKind::kMultiRail;
  read_fabric_fields(f, s->fabric, true);
  f.finish();
  net::check_fabric(s->fabric, f.pointer() + "/");
  if (!s->fabric.faults.empty())
    throw core::InputError(f.pointer_of("faults"), "is not allowed in a shared-fabric scenario (not modelled)");
  s->label = root.optional_string("label").value_or(s->fabric.kind == net::FabricKind::kMultiPlane ? "MPFT" : "MRFT");

  std::vector<bool> taken(static_cast<std::size_t>(s->fabric.nodes), false);
  std::map<std::string, std::string> class_where;  // class: the first job's pointer that names it
  std::set<std::string> job_ids;
  for (core::JsonReader& j : root.object_list(
           "jobs", "jobs: {id, label, first_node, nodes, collective, size_bytes, compute_s, iterations, class}")) {
    Job job;
    job.id = j.unique_string("id", job_ids);
    job.label = j.string("label");
    job.first_node = static_cast<int>(j.non_negative_integer("first_node", 0, s->fabric.nodes - 1));
    job.nodes = static_cast<int>(j.positive_integer("nodes", s->fabric.nodes));
    if (job.first_node + job.nodes > s->fabric.nodes)
      throw core::InputError(j.pointer_of("nodes"), std::to_string(job.nodes) + " is not allowed; from node " +
                                                        std::to_string(job.first_node) + " the fabric has " +
                                                        std::to_string(s->fabric.nodes - job.first_node) + " nodes");
    for (int n = job.first_node; n < job.first_node + job.nodes; ++n) {
      if (taken[static_cast<std::size_t>(n)])
        throw core::InputError(
            j.pointer_of("first_node"),
            "node " + std::to_string(n) + " is not allowed; another job holds it (jobs take nodes of their own)");
      taken[static_cast<std::size_t>(n)] = true;
    }
    job.collective = j.one_of("collective", {"alltoall", "allreduce"});
    if (job.collective == "allreduce" && job.nodes < 2)
      throw core::InputError(j.pointer_of("nodes"),
                             "1 is not allowed for an allreduce over the fabric; it needs 2 nodes or more");
    job.size_bytes = j.positive_number("size_bytes");
    job.compute_s = j.non_negative_number("compute_s", 0.0);
    job.iterations = static_cast<int>(j.positive_integer("iterations", 1, 10000));
    job.traffic_class = j.string("class");
    class_where.try_emplace(job.traffic_class, j.pointer_of("class"));
    j.finish();
    s->jobs.push_back(job);
  }
  if (root.has("isolation_cases")) {
    std::set<std::string> case_ids;
    for (core::JsonReader& c : root.object_list("isolation_cases", "cases: {id, label, classes}")) {
      IsolationCase ic;
      ic.id = c.unique_string("id", case_ids);
      ic.label = c.string("label");
      core::JsonReader classes = c.object("classes");
      double reserved = 0;
      for (const auto& [name, where] : class_where) {
        if (!classes.has(name))
          throw core::InputError(classes.pointer(),
                                 "has no class '" + name + "', which " + where + " names; give each job's class");
        core::JsonReader k = classes.object(name);
        net::TrafficClass tc{name, k.positive_number("weight", 1.0), k.non_negative_number("reserved_share", 0.0)};
        reserved += tc.reserved_share;
        if (!(reserved < 1))
          throw core::InputError(k.pointer_of("reserved_share"),
                                 core::describe_number(tc.reserved_share) +
                                     " is not allowed; the classes' reserved shares must sum below 1");
        k.finish();
        ic.classes[name] = tc;
      }
      classes.finish();
      c.finish();
      s->cases.push_back(ic);
    }
  }
  return s;
}

}  // namespace studies
