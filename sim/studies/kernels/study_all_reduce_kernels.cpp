#include "studies/kernels/study_all_reduce_kernels.hpp"

#include <cmath>

#include "hw/all_reduce.hpp"
#include "hw/node.hpp"

namespace studies {

namespace {

class AllReduceKernelsStudy : public Study {
 public:
  const hw::AllReduceFit* fit = nullptr;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    const hw::AllReduceFit& f = *fit;
    for (const auto& row : f.rows) {
      const std::string size = row.bytes >= 1 << 20
                                   ? format_number(std::round(row.bytes / (1 << 20) * 10) / 10) + " MiB"
                                   : format_number(std::round(row.bytes / 1024 * 10) / 10) + " KiB";
      r.rows.push_back(
          {f.name + "/" + std::to_string(row.ranks) + "/" + std::to_string(static_cast<long long>(row.bytes)),
           f.name + ", " + std::to_string(row.ranks) + " GPUs, " + size,
           "all-reduce time (" +
               format_number(std::round(2.0 * (row.ranks - 1) / row.ranks * row.bytes / row.seconds / 1e8) / 10) +
               " GB/s bus bandwidth measured)",
           "us", row.seconds * 1e6, f.seconds(row.ranks, row.bytes) * 1e6, Basis::kFit});
    }
    std::string nodes;
    for (const auto& n : f.nodes) nodes += (nodes.empty() ? "" : ", ") + n;
    for (const auto& n : f.scaled_to) nodes += (nodes.empty() ? "" : ", ") + n + " (no rows of its own)";
    std::string ring;
    for (const auto& n : f.nodes) {
      const hw::Node& node = hw::node_by_name(n);
      auto ring_us = [&](double bytes) {
        return 2 * (7.0 / 8 * bytes / node.scale_up_achieved_Bps + node.scale_up_latency_s) * 1e6;
      };
      ring += " The ring over " + n + "'s scale-up rate (" + format_number(node.scale_up_achieved_Bps / 1e9) +
              " GB/s, " + format_number(node.scale_up_latency_s * 1e6) + " us a step) it replaces gave 8 GPUs " +
              format_number(std::round(ring_us(1 << 20) * 10) / 10) + " us at 1 MiB and " +
              format_number(std::round(ring_us(1 << 26))) + " us at 64 MiB";
      // On a mesh the scale-up rate is all seven links': a pair has one of them.
      if (f.fabric == hw::AllReduceFabric::kMesh)
        ring += ", and 2 GPUs " +
                format_number(
                    std::round((1.0 / 2 * (1 << 26) / node.scale_up_achieved_Bps + node.scale_up_latency_s) * 2e6)) +
                " us at 64 MiB, where this fit gives " + format_number(std::round(f.seconds(2, 1 << 26) * 1e6));
      ring += ".";
    }
    const bool mesh = f.fabric == hw::AllReduceFabric::kMesh;
    const std::string rate = format_number(std::round(f.busbw_Bps / 1e8) / 10) + " GB/s";
    const std::string held = f.latency_held_from.empty() ? ""
                                                         : " (the per-call time held from " + f.latency_held_from +
                                                               ": " + f.latency_held_why + ")";
    r.notes.push_back(f.name + ": " + f.description + " Source: " + f.source +
                      ". Fitted once to these rows: " + format_number(std::round(f.latency_s * 1e7) / 10) +
                      " us a call" + held + " + 2 (n - 1) / n x bytes at " +
                      (mesh ? "(n - 1) x " + rate + ", a link to each peer (a mesh)" : rate) +
                      "; the tensor-parallel all-reduces of serving on " +
                      (nodes.empty() ? std::string("no node") : nodes) + " take it." + ring);
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_all_reduce_kernels_study(core::JsonReader& root) {
  auto s = std::make_unique<AllReduceKernelsStudy>();
  core::JsonReader a = root.object("all_reduce_kernels");
  s->fit = &hw::all_reduce_fit(a.one_of("fit", hw::all_reduce_fit_names()), a.pointer_of("fit"));
  a.finish();
  return s;
}

}  // namespace studies
