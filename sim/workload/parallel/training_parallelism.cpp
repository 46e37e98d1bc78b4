#include "workload/parallel/training_parallelism.hpp"

#include <optional>
#include <stdexcept>

#include "workload/pipeline/schedule_registry.hpp"

namespace workload {

namespace {

// The slots of `order` other than pp, innermost first, sized by `size_of`, with PP (`pp` ranks)
// placed at `stride`, splitting the slot it falls inside; none when it falls at a point of a slot
// that does not divide it.
template <typename SizeOf>
std::optional<std::vector<GridDimension>> with_pipeline(const std::vector<std::string>& order, SizeOf size_of, int pp,
                                                        long long stride) {
  std::vector<GridDimension> dims;
  long long below = 1;  // ranks counted by the slots placed so far
  bool placed = false;
  auto place = [&] {
    dims.push_back({"pp", pp});
    placed = true;
  };
  for (const auto& name : order) {
    if (name == "pp") continue;
    const int size = size_of(name);
    if (!placed && below == stride) place();
    if (!placed && below * size > stride) {
      if (stride % below != 0 || size % (stride / below) != 0) return std::nullopt;
      const int inner = static_cast<int>(stride / below);
      dims.push_back({name, inner});
      place();
      dims.push_back({name, size / inner});
    } else {
      dims.push_back({name, size});
    }
    below *= size;
  }
  if (!placed) place();
  return dims;
}

}  // namespace

int TrainingParallelism::stages() const { return schedule_kind(schedule).stages(pp, vpp); }

int TrainingParallelism::dp_at_ep_slot() const {
  const long long spanned = static_cast<long long>(etp) * ep, group = static_cast<long long>(tp) * cp;
  if (spanned > group && spanned % group == 0 && dp % (spanned / group) == 0) return static_cast<int>(spanned / group);
  return 1;
}

namespace {
// The size of attention's slot `name` (other than pp) in the order: DP split over "ep" and "dp".
int attention_slot(const TrainingParallelism& par, const std::string& name, int dp_at_ep) {
  return name == "tp" ? par.tp : name == "cp" ? par.cp : name == "ep" ? dp_at_ep : par.dp / dp_at_ep;
}
}  // namespace

int TrainingParallelism::pipeline_stride() const {
  const int at_ep = dp_at_ep_slot();
  long long stride = 1;
  for (const auto& name : order) {
    if (name == "pp") break;
    stride *= attention_slot(*this, name, at_ep);
  }
  return static_cast<int>(stride);
}

RankGrid TrainingParallelism::attention_grid() const {
  const int at_ep = dp_at_ep_slot();
  auto dims = *with_pipeline(  // the stride is a product of these slots
      order, [&](const std::string& n) { return attention_slot(*this, n, at_ep); }, pp, pipeline_stride());
  for (auto& d : dims)
    if (d.name == "ep") d.name = "dp";  // attention's DP, in two slots
  return RankGrid(dims);
}

namespace {
std::optional<std::vector<GridDimension>> expert_dims(const TrainingParallelism& par) {
  return with_pipeline(
      par.order,
      [&](const std::string& n) {
        return n == "tp" ? par.etp : n == "cp" ? 1 : n == "ep" ? par.ep : par.expert_dp();
      },
      par.pp, par.pipeline_stride());
}
}  // namespace

bool TrainingParallelism::experts_fit_pipeline_stride() const { return expert_dims(*this).has_value(); }

RankGrid TrainingParallelism::expert_grid() const {
  const auto dims = expert_dims(*this);
  if (!dims) throw std::logic_error("training layout: PP's stride falls inside an expert slot it does not divide");
  return RankGrid(*dims);
}

int TrainingParallelism::members_per_node(const std::string& dim) const {
  return RankGrid::members_per_node(attention_grid().group_of(0, {dim}), gpus_per_node);
}

int TrainingParallelism::expert_members_per_node(const std::string& dim) const {
  return RankGrid::members_per_node(expert_grid().group_of(0, {dim}), gpus_per_node);
}

const std::vector<std::string>& placement_dimensions() {
  static const std::vector<std::string> names = {"tp", "cp", "ep", "dp", "pp"};
  return names;
}

}  // namespace workload
