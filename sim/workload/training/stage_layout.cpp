#include "workload/training/stage_layout.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

#include "core/input_error.hpp"
#include "workload/model/layer_cost.hpp"

namespace workload {

std::vector<int> balanced_partition(const std::vector<double>& w, int parts) {
  const int n = static_cast<int>(w.size());
  std::vector<double> prefix(n + 1, 0.0);
  for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + w[i];
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // best[p][i]: the smallest largest sum cutting the first i items into p runs.
  std::vector<std::vector<double>> best(parts + 1, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<int>> cut(parts + 1, std::vector<int>(n + 1, 0));
  best[0][0] = 0;
  const int least = n >= parts ? 1 : 0;  // items per run, when there are enough to go round
  for (int p = 1; p <= parts; ++p)
    for (int i = 0; i <= n; ++i)
      for (int j = 0; j <= i - least; ++j) {
        const double v = std::max(best[p - 1][j], prefix[i] - prefix[j]);
        if (v < best[p][i] || (v == best[p][i] && j > cut[p][i])) {
          best[p][i] = v;
          cut[p][i] = j;
        }
      }
  std::vector<int> sizes(parts);
  for (int p = parts, i = n; p > 0; --p) {
    sizes[p - 1] = i - cut[p][i];
    i = cut[p][i];
  }
  return sizes;
}

namespace {

void check_stages(const Model& model, int stages, const std::string& where) {
  if (stages > model.layers)
    throw core::InputError(where, std::to_string(stages) + " stages is not allowed; " + model.display_name + " has " +
                                      std::to_string(model.layers) + " layers, at least one per stage");
}

}  // namespace

StageLayout balanced_stage_layout(const Model& model, int stages, bool mtp, double sequence_tokens,
                                  const std::string& where) {
  check_stages(model, stages, where);
  const auto costs = layer_costs(model);
  std::vector<double> weights;
  for (const auto& c : costs)
    weights.push_back(c.matmul_flops_per_token +
                      c.attention_flops_per_token(c.mean_attended_tokens(sequence_tokens, AttentionMask::kCausal)));
  // The tail the last stage carries beyond its layers: the head, and the MTP module (a layer,
  // its 2h x h projection and the shared head once more).
  const double head = 2.0 * model.hidden * model.vocab;
  double tail = head;
  if (mtp) tail += weights.back() + 2.0 * 2.0 * model.hidden * model.hidden + head;
  weights.push_back(tail);
  auto sizes = balanced_partition(weights, stages);
  sizes.back() -= 1;  // the tail item is not a layer
  // Every stage must hold a layer; the partition may leave the tail alone on the last stage.
  for (int s = stages - 1; s > 0 && sizes[s] == 0; --s) {
    sizes[s] = 1;
    sizes[s - 1] -= 1;
  }
  return explicit_stage_layout(model, sizes, mtp, where);
}

namespace {

// Stage by stage from counts that sum to the model's layers.
StageLayout from_counts(const std::vector<int>& sizes, int mtp_stage) {
  StageLayout out;
  out.mtp_stage = mtp_stage;
  int next = 0;
  for (int n : sizes) {
    out.first_layer.push_back(next);
    out.layers.push_back(n);
    next += n;
  }
  return out;
}

void check_sum(const Model& model, const std::vector<int>& sizes, const std::string& where) {
  long long sum = 0;
  for (int n : sizes) sum += n;
  if (sum != model.layers)
    throw core::InputError(where, "the stages hold " + std::to_string(sum) + " layers; " + model.display_name +
                                      " has " + std::to_string(model.layers));
}

}  // namespace

StageLayout explicit_stage_layout(const Model& model, const std::vector<int>& sizes, bool mtp,
                                  const std::string& where) {
  check_stages(model, static_cast<int>(sizes.size()), where);
  const std::size_t last = sizes.size() - 1;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const bool end = s == 0 || s == last;
    if (sizes[s] < (end ? 0 : 1))
      throw core::InputError(
          where + "/" + std::to_string(s),
          std::to_string(sizes[s]) + " is not allowed; every stage holds at least one layer" +
              (end ? "" : " but the first and the last, which may hold only the embedding or the head"));
  }
  check_sum(model, sizes, where);
  return from_counts(sizes, mtp ? static_cast<int>(last) : -1);
}

StageLayout megatron_stage_layout(const Model& model, int pp, int virtual_stages, const RankLayerCounts& counts,
                                  bool mtp, const std::string& where) {
  const int stages = pp * virtual_stages;
  check_stages(model, stages, where);
  auto not_whole = [&](const std::string& field, const std::string& what) { throw core::InputError(field, what); };
  std::vector<int> per_rank(static_cast<std::size_t>(pp), 0);
  auto given = [&](int r) {
    return (r == 0 && counts.first >= 0) || (r == pp - 1 && counts.last >= 0);
  };  // a count of its own
  if (counts.first < 0 && counts.last < 0) {
    if (model.layers % stages != 0)
      not_whole(
          where,
          std::to_string(stages) + " stages is not allowed with an even split; they do not divide the " +
              std::to_string(model.layers) + " layers of " + model.display_name +
              " (set first_stage_layers / last_stage_layers, layers_per_stage or pipeline_layout, or split \"balanced\")");
    per_rank.assign(per_rank.size(), model.layers / pp);
  } else {
    int rest = model.layers, others = pp;
    for (const auto& [count, rank, field] :
         {std::tuple{counts.first, 0, counts.first_where}, std::tuple{counts.last, pp - 1, counts.last_where}}) {
      if (count < 0) continue;
      if (pp < 2)
        not_whole(field, std::to_string(count) + " is not allowed; a first or last rank of its own needs PP 2 or more");
      per_rank[static_cast<std::size_t>(rank)] = count;
      rest -= count;
      --others;
    }
    if (rest < 0 || (others == 0 && rest != 0) || (others > 0 && rest % others != 0))
      not_whole(counts.first >= 0 ? counts.first_where : counts.last_where,
                "the first and last ranks' layers leave " + std::to_string(rest) + " of " + model.display_name + "'s " +
                    std::to_string(model.layers) + " layers for " + std::to_string(others) +
                    " other ranks, which is not a whole number each");
    for (int r = 0; r < pp; ++r)
      if (!given(r)) per_rank[static_cast<std::size_t>(r)] = others ? rest / others : 0;
  }
  for (int r = 0; r < pp; ++r)
    if (per_rank[static_cast<std::size_t>(r)] % virtual_stages != 0) {
      not_whole(given(r) ? (r == 0 ? counts.first_where : counts.last_where) : where,
                std::to_string(per_rank[static_cast<std::size_t>(r)]) + " layers on pipeline rank " +
                    std::to_string(r) + " is not allowed; they spread evenly over its " +
                    std::to_string(virtual_stages) + " virtual stages");
    }
  std::vector<int> sizes;
  for (int s = 0; s < stages; ++s) sizes.push_back(per_rank[static_cast<std::size_t>(s % pp)] / virtual_stages);
  for (int s = 1; s + 1 < stages; ++s)
    if (sizes[static_cast<std::size_t>(s)] == 0)
      not_whole(where, "stage " + std::to_string(s) + " holds no layer; only the first and the last stage may");
  return from_counts(sizes, mtp ? stages - 1 : -1);
}

StageLayout string_stage_layout(const Model& model, const std::vector<LayoutStage>& parsed, int stages, bool mtp,
                                const std::string& where) {
  auto refuse = [&](const std::string& rule) { throw core::InputError(where, rule); };
  if (static_cast<int>(parsed.size()) != stages)
    refuse(std::to_string(parsed.size()) + " stages is not allowed; the schedule runs " + std::to_string(stages) +
           " (pp x vpp, or 2 x pp for dualpipev)");
  std::vector<int> sizes;
  int mtp_stage = -1, mtp_layers = 0, layers = 0;
  for (int s = 0; s < stages; ++s) {
    const LayoutStage& st = parsed[static_cast<std::size_t>(s)];
    if (st.embedding != (s == 0))
      refuse(s == 0 ? "the first stage has no E; the embedding sits on the first stage"
                    : "stage " + std::to_string(s) + " has an E; only the first stage holds the embedding");
    if (st.loss != (s == stages - 1))
      refuse(s == stages - 1 ? "the last stage has no L; the output layer and loss sit on the last stage"
                             : "stage " + std::to_string(s) + " has an L; only the last stage holds the loss");
    if (st.mtp_layers > 0) mtp_stage = s;
    mtp_layers += st.mtp_layers;
    layers += st.layers;
    sizes.push_back(st.layers);
  }
  if (layers != model.layers)
    refuse("the stages hold " + std::to_string(layers) + " layers (t); " + model.display_name + " has " +
           std::to_string(model.layers));
  if (mtp_stage >= 0 && std::accumulate(sizes.begin(), sizes.begin() + mtp_stage + 1, 0) < model.layers)
    refuse("stage " + std::to_string(mtp_stage) +
           " has an m before every t; the MTP module follows the model's layers");
  if (mtp_layers != (mtp ? 1 : 0))
    refuse(std::to_string(mtp_layers) + " MTP layers (m) is not allowed; " +
           (mtp ? std::string("the step trains one MTP module (/parallel/mtp)")
                : std::string("the step trains none (/parallel/mtp is false)")));
  return from_counts(sizes, mtp_stage);
}

std::string StageLayout::describe() const {
  std::string out;
  for (std::size_t s = 0; s < layers.size();) {
    std::size_t run = 1;
    while (s + run < layers.size() && layers[s + run] == layers[s] && static_cast<int>(s + run) != mtp_stage &&
           static_cast<int>(s) != mtp_stage)
      ++run;
    if (!out.empty()) out += ", ";
    out += std::to_string(layers[s]) + (run > 1 ? " x " + std::to_string(run) : "");
    if (static_cast<int>(s) == mtp_stage) out += " + MTP";
    s += run;
  }
  return out;
}

}  // namespace workload
