#include "hw/node.hpp"

#include "core/catalogue.hpp"
#include "core/data_files.hpp"

namespace hw {

namespace {

// data/nodes/*.json, each figure with its source.
const std::vector<Node>& node_catalogue() {
  static const std::vector<Node> nodes = [] {
    std::vector<Node> out;
    for (const auto& [path, doc] : core::read_data_folder("nodes")) {
      core::JsonReader r(doc, path + ": ");
      Node n;
      n.name = r.string("name");
      n.gpu = r.one_of("gpu", gpu_names());
      n.gpus = static_cast<int>(r.positive_integer("gpus", 100'000));
      n.scale_up_nominal_Bps = r.number_in("scale_up_nominal_Bps", 1e8, 1e14);  // 100 MB/s to 100 TB/s a GPU
      n.scale_up_achieved_Bps = r.number_in("scale_up_achieved_Bps", 1e8, 1e14);
      n.scale_up_latency_s = r.number_in("scale_up_latency_s", 0, 1e-2);  // nanoseconds to milliseconds
      n.nics = static_cast<int>(r.positive_integer("nics", 100'000));
      n.nic_Bps = r.number_in("nic_Bps", 1e8, 1e14);
      n.scale_out_latency_s = r.number_in("scale_out_latency_s", 0, 1e-2);
      n.pcie_Bps = r.number_in("pcie_Bps", 1e8, 1e14);
      core::require_sources(r, {"gpus", "scale_up_nominal_Bps", "scale_up_achieved_Bps", "scale_up_latency_s", "nics",
                                "nic_Bps", "scale_out_latency_s", "pcie_Bps"});
      r.finish();
      out.push_back(n);
    }
    return out;
  }();
  return nodes;
}

}  // namespace

std::vector<std::string> node_names() { return core::names_of(node_catalogue()); }

const Node& default_node() {
  static const Node& h800 = node_by_name("h800");
  return h800;
}

const Node& node_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(node_catalogue(), name, "node", where);
}

}  // namespace hw
