#include "workload/pipeline/chunk_overlap.hpp"

namespace workload {

core::TaskGraph overlapped_chunk_pair(const ChunkPair& p) {
  core::TaskGraph g;
  const double slow = double(p.sms) / double(p.sms - p.comm_sms);
  const auto& f = p.forward;
  const auto& b = p.backward;
  auto compute = [&](const char* name, double s, std::vector<core::TaskId> deps) {
    return g.add_compute(name, 0, "compute", s * slow, std::move(deps));
  };
  auto comm = [&](const char* name, double s, std::vector<core::TaskId> deps) {
    return g.add_compute(name, 0, "communication", s, std::move(deps));
  };
  // Task creation order is each stream's order; dependencies follow the data.
  const auto attn_f = compute("ATTN (F)", f.attention_s, {});
  const auto combine_b = comm("COMBINE (B)", b.combine_s, {});
  const auto dispatch_f = comm("DISPATCH (F)", f.dispatch_s, {combine_b, attn_f});
  const auto mlp_b = compute("MLP (B)", b.mlp_input_s, {attn_f, combine_b});
  const auto mlp_w = compute("MLP (W)", b.mlp_weight_s, {mlp_b});
  const auto dispatch_b = comm("DISPATCH (B)", b.dispatch_s, {dispatch_f, mlp_b});
  const auto mlp_f = compute("MLP (F)", f.mlp_s, {mlp_w, dispatch_f});
  const auto combine_f = comm("COMBINE (F)", f.combine_s, {dispatch_b, mlp_f});
  const auto attn_b = compute("ATTN (B)", b.attention_input_s, {mlp_f, dispatch_b});
  compute("ATTN (W)", b.attention_weight_s, {attn_b});
  const auto pp_f = comm("PP (F)", f.pp_s, {combine_f});
  comm("PP (B)", b.pp_s, {pp_f, attn_b});
  return g;
}

double serial_chunk_pair_s(const ChunkPair& p) {
  const auto& f = p.forward;
  const auto& b = p.backward;
  return f.attention_s + f.dispatch_s + f.mlp_s + f.combine_s + f.pp_s + b.combine_s + b.mlp_input_s + b.mlp_weight_s +
         b.dispatch_s + b.attention_input_s + b.attention_weight_s + b.pp_s;
}

}  // namespace workload
