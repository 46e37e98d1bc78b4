#include "hw/low_latency_alltoall.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <stdexcept>

#include "core/data_files.hpp"

namespace hw {

namespace {

// t = latency + bytes / (fraction x link) is linear in the latency and 1 / fraction: a least
// squares over the rows that exercise one path, relative errors weighing every row alike.
LowLatencyPath fit(const std::vector<const LowLatencyMeasurement*>& rows, bool nvlink, double link_Bps) {
  if (rows.size() < 2) throw std::logic_error("data/comm_kernels: fewer than two rows to fit a low-latency path");
  Eigen::MatrixXd a(static_cast<Eigen::Index>(rows.size()), 2);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto row = static_cast<Eigen::Index>(i);
    a(row, 0) = 1 / rows[i]->seconds;
    a(row, 1) = (nvlink ? rows[i]->nvlink_bytes : rows[i]->nic_bytes) / link_Bps / rows[i]->seconds;
  }
  const Eigen::VectorXd x =
      a.colPivHouseholderQr().solve(Eigen::VectorXd::Ones(static_cast<Eigen::Index>(rows.size())));
  return {std::max(0.0, x[0]), 1 / x[1]};
}

}  // namespace

double LowLatencyAllToAll::seconds(double nic_bytes, double nvlink_bytes, double nic_link_Bps,
                                   double nvlink_link_Bps) const {
  return std::max(nic.seconds(nic_bytes, nic_link_Bps), nvlink.seconds(nvlink_bytes, nvlink_link_Bps));
}

const LowLatencyAllToAll& deepep_low_latency() {
  static const LowLatencyAllToAll model = [] {
    LowLatencyAllToAll m;
    for (const auto& [path, doc] : core::read_data_folder("comm_kernels")) {
      core::JsonReader r(doc, path + ": ");
      r.string("name");
      r.string("description");
      m.source = r.string("source");
      const double tokens = r.positive_integer("tokens_per_gpu", 1 << 20);
      const double hidden = r.positive_integer("hidden", 1 << 20);
      const double top_k = r.positive_integer("top_k", 1024);
      const int per_node = static_cast<int>(r.positive_integer("gpus_per_node", 1024));
      m.nic_Bps = r.positive_number("nic_Bps");
      m.nvlink_Bps = r.positive_number("nvlink_Bps");
      core::require_sources(r, {"tokens_per_gpu", "hidden", "top_k", "gpus_per_node", "nic_Bps", "nvlink_Bps"});
      // A selection's message: FP8 token, its scales and 16 bytes of metadata; a BF16 token back.
      const double dispatch_bytes = hidden + hidden / 128 * 4 + 16, combine_bytes = 2 * hidden;
      for (auto& item : r.object_list("rows", "measured kernels")) {
        LowLatencyMeasurement row;
        row.ep = static_cast<int>(item.positive_integer("ep", 1 << 20));
        row.combine = item.one_of("op", {"dispatch", "combine"}) == "combine";
        row.seconds = item.positive_number("us") * 1e-6;
        row.readme = item.string("readme");
        row.nvlink_in_node = item.one_of("path", {"rdma", "nvlink-in-node"}) == "nvlink-in-node";
        item.finish();
        // Uniform routing: a GPU's selections spread evenly over the EP group; its own stay.
        const double total = tokens * top_k * (row.combine ? combine_bytes : dispatch_bytes);
        const int in_node = row.nvlink_in_node ? std::min(row.ep, per_node) : 1;
        row.nic_bytes = total * (row.ep - in_node) / row.ep;
        row.nvlink_bytes = total * (in_node - 1) / row.ep;
        m.rows.push_back(row);
      }
      r.finish();
    }
    std::vector<const LowLatencyMeasurement*> nic_rows, nvlink_rows;
    for (const auto& row : m.rows) {
      if (!row.nvlink_in_node)
        nic_rows.push_back(&row);
      else if (row.nic_bytes == 0)
        nvlink_rows.push_back(&row);
    }
    m.nic = fit(nic_rows, false, m.nic_Bps);
    m.nvlink = fit(nvlink_rows, true, m.nvlink_Bps);
    return m;
  }();
  return model;
}

}  // namespace hw
