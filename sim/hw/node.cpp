#include "hw/node.hpp"

#include "core/catalogue.hpp"
#include "core/units.hpp"

namespace hw {

namespace {

using core::gbit_per_s_to_Bps;
using core::kGBps;
using core::kMicrosecond;

// PCIe Gen5 x16: 32 GT/s x 16 lanes with 128b/130b encoding = 63 GB/s per direction.
constexpr double kPcieGen5x16_Bps = 32e9 * 16 / 8 * 128.0 / 130.0;

const std::vector<Node>& catalogue() {
  static const std::vector<Node> nodes = {
      // H800 node (ISCA'25 §4.1, §4.3; DeepSeek-V3 report §3.2.2): 8 GPUs on NVLink at 400 GB/s
      // bidirectional = 200 GB/s per direction, about 160 GB/s achieved; 8 x ConnectX-7 400 Gb/s IB,
      // one per GPU. Latencies for 64 B from ISCA'25 Table 5: NVLink 3.33 us, IB cross-leaf 3.7 us.
      {"h800", "H800", 8, 200 * kGBps, 160 * kGBps, 3.33 * kMicrosecond, 8, gbit_per_s_to_Bps(400),
       3.7 * kMicrosecond, kPcieGen5x16_Bps},
      // H100 HGX node: NVLink 4 at 900 GB/s bidirectional = 450 GB/s per direction (NVIDIA H100
      // datasheet); achieved share assumed as on H800 (80%); same NICs and latencies as above.
      {"h100", "H100", 8, 450 * kGBps, 360 * kGBps, 3.33 * kMicrosecond, 8, gbit_per_s_to_Bps(400),
       3.7 * kMicrosecond, kPcieGen5x16_Bps},
      // H200 HGX node: H100's NVLink and NICs (NVIDIA H200 datasheet).
      {"h200", "H200", 8, 450 * kGBps, 360 * kGBps, 3.33 * kMicrosecond, 8, gbit_per_s_to_Bps(400),
       3.7 * kMicrosecond, kPcieGen5x16_Bps},
      // DGX A100: 8 GPUs on NVLink 3 at 600 GB/s bidirectional = 300 GB/s per direction, achieved
      // share assumed as on H800 (80%); 8 x ConnectX-6 200 Gb/s HDR InfiniBand for compute; PCIe
      // Gen4 x16 (half of Gen5's rate); latencies assumed as on H800 (NVIDIA DGX A100 user guide).
      {"dgx-a100", "A100", 8, 300 * kGBps, 240 * kGBps, 3.33 * kMicrosecond, 8, gbit_per_s_to_Bps(200),
       3.7 * kMicrosecond, kPcieGen5x16_Bps / 2},
      // DGX H100: NVLink 4 at 900 GB/s bidirectional, 8 x ConnectX-7 400 Gb/s (NVIDIA DGX H100
      // user guide); the HGX H100 node above with DGX's name.
      {"dgx-h100", "H100", 8, 450 * kGBps, 360 * kGBps, 3.33 * kMicrosecond, 8, gbit_per_s_to_Bps(400),
       3.7 * kMicrosecond, kPcieGen5x16_Bps},
      // H20 HGX node: NVLink 4 at 900 GB/s bidirectional (NVIDIA H20 product brief), 8 x 400 Gb/s
      // NICs as on H100 nodes.
      {"h20", "H20", 8, 450 * kGBps, 360 * kGBps, 3.33 * kMicrosecond, 8, gbit_per_s_to_Bps(400),
       3.7 * kMicrosecond, kPcieGen5x16_Bps},
      // HGX B200: NVLink 5 at 1.8 TB/s bidirectional = 900 GB/s per direction, 8 x ConnectX-7
      // 400 Gb/s (NVIDIA HGX B200 datasheet); achieved share assumed 80%.
      {"hgx-b200", "B200", 8, 900 * kGBps, 720 * kGBps, 3.33 * kMicrosecond, 8, gbit_per_s_to_Bps(400),
       3.7 * kMicrosecond, kPcieGen5x16_Bps},
      // GB200 NVL72 rack as one scale-up domain: 72 GPUs at 900 GB/s unidirectional each (ISCA'25
      // §2.3.2; NVLink 5 is 1.8 TB/s bidirectional). Scale-out: one 400 Gb/s ConnectX-7 per GPU
      // (GB200 NVL72 reference design); latencies assumed as on H800 until measured figures exist.
      {"gb200-nvl72", "GB200", 72, 900 * kGBps, 900 * kGBps, 3.33 * kMicrosecond, 72, gbit_per_s_to_Bps(400),
       3.7 * kMicrosecond, kPcieGen5x16_Bps},
  };
  return nodes;
}

}  // namespace

std::vector<std::string> node_names() { return core::names_of(catalogue()); }

const Node& default_node() { return catalogue().front(); }

const Node& node_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(catalogue(), name, "node", where);
}

}  // namespace hw
