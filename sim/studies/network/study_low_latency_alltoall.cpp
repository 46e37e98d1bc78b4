#include "studies/network/study_low_latency_alltoall.hpp"

#include <cstdio>

#include "hw/low_latency_alltoall.hpp"

namespace studies {

namespace {

class LowLatencyAllToAllStudy : public Study {
 public:
  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    const hw::LowLatencyAllToAll& model = hw::deepep_low_latency();
    for (const auto& row : model.rows) {
      const std::string op = row.combine ? "combine" : "dispatch";
      const std::string kernels = row.nvlink_in_node ? "NVLink inside a node" : "all over RDMA";
      // Fitted: the all-RDMA rows (the NIC path) and one node's rows (the NVLink path); the rows
      // that use both paths at once are the model's predictions.
      const bool fitted = !row.nvlink_in_node || row.nic_bytes == 0;
      const double ours = model.seconds(row.nic_bytes, row.nvlink_bytes, model.nic_Bps, model.nvlink_Bps);
      r.rows.push_back(
          {"ep" + std::to_string(row.ep) + "/" + op + "/" + row.readme,
           "DeepEP low-latency, EP" + std::to_string(row.ep) + ", " + kernels + " (README " + row.readme + ")",
           op + " of 128 tokens per GPU", "us", row.seconds * 1e6, ours * 1e6,
           fitted ? Basis::kFit : Basis::kSimulated});
    }
    char fit[256];
    std::snprintf(
        fit, sizeof fit,
        "through the NIC %.1f us + bytes at %.1f%% of %.0f GB/s; over NVLink %.1f us + bytes at %.1f%% of %.0f GB/s",
        model.nic.latency_s * 1e6, 100 * model.nic.rate_fraction, model.nic_Bps / 1e9, model.nvlink.latency_s * 1e6,
        100 * model.nvlink.rate_fraction, model.nvlink_Bps / 1e9);
    r.notes.push_back(
        std::string(
            "DeepEP's low-latency kernels: one message per (token, expert) selection, FP8 with its scales and 16 bytes "
            "of metadata in a dispatch, BF16 in a combine, under uniform routing; the messages to other nodes leave "
            "through the GPU's NIC and those to its own node go over NVLink, both at once. The model (hw/low_latency_alltoall.hpp), "
            "fitted once: ") +
        fit + ". Serving's decode times its all-to-alls with it, by the busiest GPU's messages. Source: " +
        model.source + ".");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_low_latency_alltoall_study(core::JsonReader&) {
  return std::make_unique<LowLatencyAllToAllStudy>();
}

}  // namespace studies
