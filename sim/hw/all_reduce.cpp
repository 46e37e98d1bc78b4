#include "hw/all_reduce.hpp"

#include <Eigen/Dense>
#include <algorithm>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "hw/node.hpp"

namespace hw {

namespace {

// t = latency + ring bytes / busbw is linear in the latency and 1 / busbw; each row weighs by its
// relative error, so a 30 us call counts as much as a 700 us one.
void fit(AllReduceFit& f) {
  Eigen::MatrixXd a(static_cast<Eigen::Index>(f.rows.size()), 2);
  for (size_t i = 0; i < f.rows.size(); ++i) {
    const auto& r = f.rows[i];
    const auto row = static_cast<Eigen::Index>(i);
    a(row, 0) = 1 / r.seconds;
    a(row, 1) = 2.0 * (r.ranks - 1) / r.ranks * r.bytes / r.seconds;
  }
  const Eigen::VectorXd x =
      a.colPivHouseholderQr().solve(Eigen::VectorXd::Ones(static_cast<Eigen::Index>(f.rows.size())));
  f.latency_s = std::max(0.0, x[0]);
  f.busbw_Bps = 1 / x[1];
}

const std::vector<AllReduceFit>& catalogue() {
  static const std::vector<AllReduceFit> fits = [] {
    std::vector<AllReduceFit> out;
    for (const auto& [path, doc] : core::read_data_folder("collectives")) {
      core::JsonReader r(doc, path + ": ");
      AllReduceFit f;
      f.name = r.string("name");
      f.description = r.string("description");
      f.source = r.string("source");
      if (r.has("nodes")) f.nodes = r.string_list("nodes", node_names());
      if (r.has("scaled_to")) f.scaled_to = r.string_list("scaled_to", node_names());
      for (auto& item : r.object_list("rows", "measured all-reduces")) {
        AllReduceMeasurement m;
        m.ranks = static_cast<int>(item.positive_integer("ranks", 1 << 16));
        m.bytes = item.number_in("bytes", 1, 1e13);
        m.seconds = item.number_in("us", 1e-3, 1e9) * 1e-6;
        item.finish();
        f.rows.push_back(m);
      }
      r.finish();
      fit(f);
      out.push_back(std::move(f));
    }
    return out;
  }();
  return fits;
}

bool names(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

}  // namespace

const AllReduceFit* all_reduce_for(const std::string& node) {
  for (const auto& f : catalogue())
    if (names(f.nodes, node) || names(f.scaled_to, node)) return &f;
  return nullptr;
}

const AllReduceFit& all_reduce_fit(const std::string& name, const std::string& where) {
  return core::find_by_name(catalogue(), name, "all-reduce fit", where);
}

std::vector<std::string> all_reduce_fit_names() { return core::names_of(catalogue()); }

}  // namespace hw
