#include "hw/all_reduce.hpp"

#include <Eigen/Dense>
#include <algorithm>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "hw/node.hpp"

namespace hw {

namespace {

// t = latency + ring bytes / busbw is linear in the latency and 1 / busbw; each row weighs by its
// relative error, so a 30 us call counts as much as a 700 us one. A held latency leaves 1 / busbw
// alone to fit.
void fit(AllReduceFit& f, bool latency_held) {
  const auto n = static_cast<Eigen::Index>(f.rows.size());
  Eigen::MatrixXd a(n, latency_held ? 1 : 2);
  Eigen::VectorXd b(n);
  for (Eigen::Index row = 0; row < n; ++row) {
    const auto& r = f.rows[static_cast<size_t>(row)];
    const double links = f.fabric == AllReduceFabric::kMesh ? r.ranks - 1.0 : 1.0;
    a(row, a.cols() - 1) = 2.0 * (r.ranks - 1) / r.ranks * r.bytes / links / r.seconds;
    if (!latency_held) a(row, 0) = 1 / r.seconds;
    b[row] = latency_held ? 1 - f.latency_s / r.seconds : 1;
  }
  const Eigen::VectorXd x = a.colPivHouseholderQr().solve(b);
  if (!latency_held) f.latency_s = std::max(0.0, x[0]);
  f.busbw_Bps = 1 / x[a.cols() - 1];
}

const std::vector<AllReduceFit>& catalogue() {
  static const std::vector<AllReduceFit> fits = [] {
    std::vector<AllReduceFit> out;
    // Fits that hold a constant from another come after those they hold it from.
    const auto files = core::read_data_folder("collectives");
    for (const auto* file : core::holders_last(files)) {
      const auto& [path, doc] = *file;
      core::JsonReader r(doc, path + ": ");
      AllReduceFit f;
      f.name = r.string("name");
      f.description = r.string("description");
      f.source = r.string("source");
      if (r.has("fabric"))
        f.fabric = r.one_of("fabric", {"switch", "mesh"}) == "mesh" ? AllReduceFabric::kMesh : AllReduceFabric::kSwitch;
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
      const bool latency_held = r.has("held_constants");
      if (latency_held) {
        core::JsonReader h = r.object("held_constants");
        std::vector<std::string> fitted;
        for (const auto& other : out)
          if (other.latency_held_from.empty()) fitted.push_back(other.name);
        f.latency_held_from = h.one_of("from", fitted);
        h.string_list("constants", {"latency_s"});
        f.latency_held_why = h.string("why");
        h.finish();
        f.latency_s = core::find_by_name(out, f.latency_held_from, "all-reduce fit", h.pointer_of("from")).latency_s;
      }
      r.finish();
      // Fewer rows than constants leave the fit undetermined: say so rather than fit nothing.
      if (const std::size_t constants = latency_held ? 1 : 2; f.rows.size() < constants)
        throw core::InputError(path + ": /rows", std::to_string(f.rows.size()) + " rows is not allowed for " +
                                                     std::to_string(constants) +
                                                     " constants to fit; more rows, or held_constants from "
                                                     "another fit");
      fit(f, latency_held);
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
