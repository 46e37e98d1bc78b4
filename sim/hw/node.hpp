#pragma once
// One server (or scale-up domain) as data: its GPUs, the scale-up fabric joining them (NVLink),
// the scale-out NICs (one per GPU) and PCIe, read from data/nodes/*.json, where every figure
// carries its source.
#include <string>
#include <vector>

#include "hw/gpu.hpp"

namespace hw {

struct Node {
  std::string name;
  std::string gpu;                   // a name from gpu.hpp
  int gpus = 0;                      // GPUs sharing the scale-up domain
  double scale_up_nominal_Bps = 0;   // per GPU, per direction
  double scale_up_achieved_Bps = 0;  // per GPU, per direction, what collectives reach
  double scale_up_latency_s = 0;     // end-to-end, small message
  int nics = 0;                      // scale-out NICs in the node
  double nic_Bps = 0;                // per NIC, per direction
  double scale_out_latency_s = 0;    // end-to-end through the fabric, small message
  double pcie_Bps = 0;               // per GPU, per direction

  const Gpu& gpu_model() const { return gpu_by_name(gpu); }
};

const Node& node_by_name(const std::string& name, const std::string& where = "");
// The node a scenario or a struct gets when it names none: DeepSeek's H800 node, the papers'
// machine. Its figures are the one source of every default link rate.
const Node& default_node();
std::vector<std::string> node_names();

}  // namespace hw
