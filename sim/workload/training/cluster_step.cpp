#include "workload/training/cluster_step.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace workload {

namespace {

std::optional<EpOp> ep_op(const std::string& name) {
  for (EpOp op : ep_ops())
    if (name == ep_op_name(op)) return op;
  return std::nullopt;
}

// Builds each step as its ops (TrainingStep::step_op_graph) on every pipeline's GPU at once, op
// by op: a dispatch or combine is a transfer of each GPU's flows to its EP peers, and ends for
// each of them when the whole group's has (the op's time per micro-batch is its group's too).
class EpStepBuilder {
 public:
  EpStepBuilder(const TrainingStep& step, const EpInStep& ep, std::vector<StepCollective>& collectives)
      : step_(step),
        ep_(ep),
        traffic_(ep.traffic),
        collectives_(&collectives),
        recompute_(step.parallelism().recompute == Recompute::kFull) {
    for (std::size_t g = 0; g < traffic_.groups.size(); ++g)
      for (std::size_t l = 0; l < traffic_.groups[g].size(); ++l)
        member_[traffic_.groups[g][l]] = {g, static_cast<int>(l)};
  }

  std::vector<StepTaskRange> operator()(core::TaskGraph& g, const Step& step, const std::vector<int>& gpus,
                                        const std::vector<std::vector<core::TaskId>>& deps) {
    const auto& ops = op_graph(step);
    const std::size_t n = gpus.size();
    std::vector<std::pair<std::size_t, int>> member(n);
    for (std::size_t p = 0; p < n; ++p) {
      const auto it = member_.find(gpus[p]);
      if (it == member_.end()) throw std::logic_error("GPU " + std::to_string(gpus[p]) + " is in no EP group");
      member[p] = it->second;
    }
    std::vector<StepTaskRange> ranges(n);
    std::vector<std::vector<core::TaskId>> start =
        deps;  // per GPU: what a segment's ops wait for (the one before's end)
    for (const auto& seg : ops.segments) {
      // id[p][k]: the task op k's successors on GPU p wait for (an all-to-all's: its group's end).
      std::vector<std::vector<core::TaskId>> id(n, std::vector<core::TaskId>(seg.ops.size(), -1));
      std::vector<bool> waited_for(seg.ops.size(), false);
      std::map<std::string, std::size_t> last_on_stream;
      for (std::size_t k = 0; k < seg.ops.size(); ++k) {
        const auto& op = seg.ops[k];
        for (int d : op.deps) waited_for[static_cast<std::size_t>(d)] = true;
        if (auto it = last_on_stream.find(op.stream); it != last_on_stream.end()) waited_for[it->second] = true;
        last_on_stream[op.stream] = k;
        const auto kind = ep_op(op.name);
        // Per group: its members' transfers, and (spread evenly) what they waited for and the GPU of the first.
        std::map<std::size_t, std::vector<core::TaskId>> group_transfers, group_waits;
        std::map<std::size_t, int> group_gpu;
        for (std::size_t p = 0; p < n; ++p) {
          std::vector<core::TaskId> waits = start[p];
          for (int d : op.deps) waits.push_back(id[p][static_cast<std::size_t>(d)]);
          const auto [group, local] = member[p];
          core::TaskId task;
          if (kind && op.before_send_s > 0) {  // the kernels before the send, on the op's stream
            task = g.add_compute(op.name, gpus[p], op.stream, op.before_send_s, std::move(waits));
            if (ranges[p].first < 0) ranges[p].first = task;
            waits = {task};
          }
          if (kind) {
            if (!ep_.per_flow) {
              auto& all = group_waits[group];
              all.insert(all.end(), waits.begin(), waits.end());
              group_gpu.try_emplace(group, gpus[p]);
            }
            task = g.add_transfer(op.name, gpus[p], op.stream, flows(group, local, *kind), std::move(waits));
            group_transfers[group].push_back(task);
          } else {
            task = g.add_compute(op.name, gpus[p], op.stream, op.seconds, std::move(waits));
          }
          if (ranges[p].first < 0) ranges[p].first = task;
          id[p][k] = task;
        }
        if (!kind) continue;
        std::map<std::size_t, core::TaskId> group_end;
        for (auto& [group, transfers] : group_transfers) {
          StepCollective collective{-1, transfers, {}, false};
          if (!ep_.per_flow) {  // the op lasts at least its group's time, from when all its members could start it
            auto& waits = group_waits[group];
            std::sort(waits.begin(), waits.end());
            waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
            transfers.push_back(
                g.add_delay(op.name, group_gpu[group], "all-to-all", op_seconds(group, *kind), std::move(waits)));
          }
          group_end[group] = collective.barrier = g.add_join(op.name, std::move(transfers));
          collectives_->push_back(std::move(collective));
        }
        for (std::size_t p = 0; p < n; ++p) id[p][k] = group_end[member[p].first];
      }
      if (seg.ops.empty()) continue;
      for (std::size_t p = 0; p < n; ++p) {
        start[p].clear();
        for (std::size_t k = 0; k < seg.ops.size(); ++k)
          if (!waited_for[k]) start[p].push_back(id[p][k]);
      }
    }
    for (std::size_t p = 0; p < n; ++p) {
      if (ranges[p].first < 0) {  // a step of no time
        ranges[p].first = ranges[p].end = g.add_compute("empty", gpus[p], "compute", 0, deps[p]);
        continue;
      }
      ranges[p].end = start[p].size() == 1 ? start[p][0] : g.add_join("end", start[p]);
    }
    return ranges;
  }

 private:
  const StepOpGraph& op_graph(const Step& step) {
    std::vector<std::pair<int, int>> key;
    for (const auto& c : step.chunks) key.push_back({static_cast<int>(c.pass), c.position});
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(key, step_.step_op_graph(step)).first;
    return it->second;
  }

  // A GPU's flows of an op: as routed, or at its group's mean size per stage.
  std::vector<core::Flow> flows(std::size_t group, int local, EpOp op) {
    auto f = ep_op_flows(traffic_, group, local, op, recompute_);
    if (!ep_.per_flow) {
      const auto [ib_bytes, nvlink_bytes] = mean_bytes(group, op);
      for (auto& flow : f.ib) flow.bytes = ib_bytes;
      for (auto& flow : f.nvlink) flow.bytes = nvlink_bytes;
    }
    f.ib.insert(f.ib.end(), f.nvlink.begin(), f.nvlink.end());
    return std::move(f.ib);
  }

  // The mean flow of each stage of an op over a group's members (groups of one routing alike).
  std::pair<double, double> mean_bytes(std::size_t group, EpOp op) {
    const std::size_t routing = group % traffic_.forward.size();
    const auto key = std::make_pair(routing, static_cast<int>(op));
    if (auto it = means_.find(key); it != means_.end()) return it->second;
    double ib = 0, nvlink = 0;
    std::size_t ib_flows = 0, nvlink_flows = 0;
    for (std::size_t l = 0; l < traffic_.groups[routing].size(); ++l) {
      const auto f = ep_op_flows(traffic_, routing, static_cast<int>(l), op, recompute_);
      for (const auto& flow : f.ib) ib += flow.bytes;
      for (const auto& flow : f.nvlink) nvlink += flow.bytes;
      ib_flows += f.ib.size();
      nvlink_flows += f.nvlink.size();
    }
    return means_[key] = {ib / std::max<std::size_t>(ib_flows, 1), nvlink / std::max<std::size_t>(nvlink_flows, 1)};
  }

  // A group's time of an op in the per-micro-batch run (with its forward's rerun, under full recompute).
  double op_seconds(std::size_t group, EpOp op) const {
    const auto& t = ep_.times.group_op_s.at(group);
    double s = t[static_cast<std::size_t>(op)];
    if (recompute_ && op == EpOp::kCombineBackward) s += t[static_cast<std::size_t>(EpOp::kCombineForward)];
    if (recompute_ && op == EpOp::kDispatchBackward) s += t[static_cast<std::size_t>(EpOp::kDispatchForward)];
    return s;
  }

  const TrainingStep& step_;
  const EpInStep& ep_;
  const EpTraffic& traffic_;
  std::vector<StepCollective>* collectives_;
  bool recompute_;
  std::map<std::pair<std::size_t, int>, std::pair<double, double>> means_;
  std::unordered_map<int, std::pair<std::size_t, int>> member_;  // GPU: its EP group and rank in it
  std::map<std::vector<std::pair<int, int>>, StepOpGraph> cache_;
};

}  // namespace

ClusterStepGraph cluster_step_graph(const TrainingStep& step, const OptimizerSetup& optimizer, const Roofline& roofline,
                                    const EpInStep* ep) {
  const auto& par = step.parallelism();
  const auto& schedule = step.schedule();
  ClusterStepGraph out;
  out.pipelines = par.attention_grid().groups({"pp"});  // sorted: a pipeline's GPUs by pipeline rank
  StepBuilder build = compute_steps([&step](const Step& s) { return step.step_seconds(s); });
  if (ep) build = EpStepBuilder(step, *ep, out.collectives);
  out.steps = append_pipelines(out.graph, schedule, build, step.pp_transfer_bytes(), out.pipelines);

  const net::FabricSpec rates;  // the rings' rates come from the platform the graph runs on
  for (int rank = 0; rank < schedule.ranks; ++rank) {
    std::vector<int> gpus;
    std::vector<core::TaskId> ready, last;
    for (std::size_t p = 0; p < out.pipelines.size(); ++p) {
      const auto& tasks = out.steps[p].step_ends[static_cast<std::size_t>(rank)];
      if (tasks.empty()) throw std::logic_error("pipeline rank " + std::to_string(rank) + " runs no step");
      gpus.push_back(out.pipelines[p][static_cast<std::size_t>(rank)]);
      last.push_back(tasks.back());
      // Overlapped, the gradients go out behind the last chunk: from its start (the end of the one before).
      ready.push_back(par.dp_comm_overlap && tasks.size() > 1 ? tasks[tasks.size() - 2] : tasks.back());
    }
    DataParallelSetup setup{step.rank_parameters(rank), par, optimizer, rates, true};
    out.data_parallel.push_back(append_data_parallel_sync(out.graph, setup, roofline, gpus, ready, last));
    out.collectives.push_back({out.data_parallel.back().start, ready, gpus, true});
  }
  return out;
}

ClusterStepResult cluster_step_result(const ClusterStepGraph& g, const TrainingStep& step,
                                      const core::Timeline& timeline) {
  ClusterStepResult r;
  for (std::size_t p = 0; p < g.steps.size(); ++p)
    for (const auto& ends : g.steps[p].step_ends)
      for (auto id : ends)
        if (timeline.span(id).end_s > r.pipeline_s) {
          r.pipeline_s = timeline.span(id).end_s;
          r.pipeline = static_cast<int>(p);
        }
  r.step_s = r.pipeline_s;
  double latest = -1;
  for (std::size_t rank = 0; rank < g.data_parallel.size(); ++rank) {
    const auto& dp = g.data_parallel[rank];
    double end_s = timeline.span(dp.end()).end_s;
    if (step.parallelism().dp_comm_overlap && step.parallelism().zero > 0) {
      // The weights' all-gather runs behind the next step's first chunk, when that is a forward.
      const Step& first = step.schedule().steps[rank].front();
      const double hidden_s =
          first.chunks.size() == 1 && first.chunks[0].pass == Pass::kForward ? step.step_seconds(first) : 0;
      double optimizer_end_s = end_s;
      for (const auto& [phase, id] : dp.phases)
        if (phase == DataParallelPhase::kOptimizer) optimizer_end_s = timeline.span(id).end_s;
      end_s = std::max(optimizer_end_s, end_s - hidden_s);
    }
    r.step_s = std::max(r.step_s, end_s);
    if (end_s > latest) {
      latest = end_s;
      r.dp_rank = static_cast<int>(rank);
      r.dp = dp.times(timeline);
    }
  }
  return r;
}

PipelineGraph pipeline_view(const ClusterStepGraph& g, int pipeline) {
  PipelineGraph view;
  static_cast<PipelineSteps&>(view) = g.steps.at(static_cast<std::size_t>(pipeline));
  return view;
}

}  // namespace workload
