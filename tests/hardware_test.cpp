#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "hw/gpu.hpp"
#include "hw/node.hpp"

// The catalogue's figures are datasheet numbers; these tests derive them again from the
// architecture (SMs, clock, tensor-core rate, line rates), so a mistyped figure shows.
TEST_CASE("Hopper peaks follow from SMs, the boost clock and the tensor cores' rate", "[hw]") {
  // A Hopper SM has 4 tensor cores, each 512 dense BF16 FMAs (1024 FLOPs) per clock; FP8 doubles it.
  constexpr double kBf16FlopsPerClockPerSm = 4 * 1024;
  for (const char* name : {"H800", "H100", "H200"}) {
    INFO(name);
    const auto& g = hw::gpu_by_name(name);
    CHECK(g.bf16_dense_flops_per_s == Approx(g.sm_count * g.boost_clock_Hz * kBf16FlopsPerClockPerSm).epsilon(1e-4));
    CHECK(g.fp8_dense_flops_per_s == Approx(2 * g.bf16_dense_flops_per_s).epsilon(1e-4));
  }
  // Ampere: 4 tensor cores per SM, each 256 dense BF16 FMAs (512 FLOPs) per clock, no FP8.
  const auto& a100 = hw::gpu_by_name("A100");
  CHECK(a100.bf16_dense_flops_per_s == Approx(a100.sm_count * a100.boost_clock_Hz * 4 * 512).epsilon(1e-3));
  CHECK(a100.fp8_dense_flops_per_s == 0);
  // Hopper's H20 and Blackwell also double FP8 over BF16.
  for (const char* name : {"H20", "B200", "GB200"}) {
    INFO(name);
    const auto& g = hw::gpu_by_name(name);
    CHECK(g.fp8_dense_flops_per_s == Approx(2 * g.bf16_dense_flops_per_s));
  }
}

TEST_CASE("node link rates follow from their line rates", "[hw]") {
  const auto& n = hw::node_by_name("h800");
  CHECK(n.nic_Bps * 8 == Approx(400e9));               // ConnectX-7, 400 Gb/s
  CHECK(n.scale_up_nominal_Bps * 2 == Approx(400e9));  // H800 NVLink: 400 GB/s both ways
  CHECK(n.scale_up_achieved_Bps < n.scale_up_nominal_Bps);
  CHECK(n.nics == n.gpus);  // one NIC per GPU, one plane or rail each
  // PCIe Gen5 x16: 16 lanes at 32 GT/s with 128b/130b encoding.
  CHECK(n.pcie_Bps == Approx(16 * 32e9 / 8 * 128 / 130));
  CHECK(hw::node_by_name("h100").scale_up_nominal_Bps * 2 == Approx(900e9));  // NVLink 4
  CHECK(hw::node_by_name("gb200-nvl72").gpus == 72);
  CHECK(hw::node_by_name("dgx-a100").nic_Bps * 8 == Approx(200e9));                   // HDR InfiniBand
  CHECK(hw::node_by_name("dgx-a100").scale_up_nominal_Bps * 2 == Approx(600e9));      // NVLink 3
  CHECK(hw::node_by_name("dgx-a100").pcie_Bps == Approx(16 * 16e9 / 8 * 128 / 130));  // Gen4 x16
  CHECK(hw::node_by_name("hgx-b200").scale_up_nominal_Bps * 2 == Approx(1800e9));     // NVLink 5
  CHECK(&hw::default_node() == &hw::node_by_name("h800"));
}

TEST_CASE("every node names a known GPU", "[hw]") {
  for (const auto& name : hw::node_names()) CHECK_NOTHROW(hw::node_by_name(name).gpu_model());
  CHECK_THROWS_AS(hw::gpu_by_name("H900"), core::InputError);
  CHECK_THROWS_WITH(hw::node_by_name("h8000", "/cluster/node"), Catch::Contains("did you mean 'h800'?"));
}

TEST_CASE("Ada, the A10G and MI300X: peaks from their units and clocks, FP8 where they have it", "[hw]") {
  // Ada (L40S, L4): 4 tensor cores per SM, 1,024 dense BF16 FLOPs per SM per clock; FP8 doubles it.
  for (const char* name : {"L40S", "L4"}) {
    INFO(name);
    const auto& g = hw::gpu_by_name(name);
    CHECK(g.bf16_dense_flops_per_s == Approx(g.sm_count * g.boost_clock_Hz * 1024).epsilon(2e-3));
    CHECK(g.fp8_dense_flops_per_s == Approx(2 * g.bf16_dense_flops_per_s).epsilon(2e-2));  // 733 against 2 x 362.05
    CHECK(g.fp4_dense_flops_per_s == 0);
  }
  // The A10G: GA102 at 512 FLOPs per SM per clock, no FP8 tensor cores.
  const auto& a10g = hw::gpu_by_name("A10G");
  CHECK(a10g.bf16_dense_flops_per_s == Approx(a10g.sm_count * a10g.boost_clock_Hz * 512).epsilon(1e-3));
  CHECK(a10g.fp8_dense_flops_per_s == 0);
  // MI300X: 2,048 dense BF16 FLOPs per CU per clock, FP8 twice that.
  const auto& mi300x = hw::gpu_by_name("MI300X");
  CHECK(mi300x.bf16_dense_flops_per_s == Approx(mi300x.sm_count * mi300x.boost_clock_Hz * 2048).epsilon(1e-3));
  CHECK(mi300x.fp8_dense_flops_per_s == Approx(2 * mi300x.bf16_dense_flops_per_s).epsilon(1e-3));
  CHECK(mi300x.hbm_bytes == 192e9);
  // Blackwell's FP4 doubles its FP8; Hopper has none.
  for (const char* name : {"B200", "GB200"}) {
    INFO(name);
    CHECK(hw::gpu_by_name(name).fp4_dense_flops_per_s == Approx(2 * hw::gpu_by_name(name).fp8_dense_flops_per_s));
  }
  CHECK(hw::gpu_by_name("H100").fp4_dense_flops_per_s == 0);
}

TEST_CASE("PCIe nodes scale up over PCIe, MI300X's over its Infinity Fabric mesh", "[hw]") {
  for (const char* name : {"g6e-l40s", "g6-l4", "g5-a10g"}) {
    INFO(name);
    const auto& n = hw::node_by_name(name);
    CHECK(n.scale_up_nominal_Bps == Approx(16 * 16e9 / 8 * 128 / 130));  // PCIe Gen4 x16, no NVLink
    CHECK(n.pcie_Bps == n.scale_up_nominal_Bps);
    CHECK(n.gpus == 8);
  }
  CHECK(hw::node_by_name("g6e-l40s").nic_Bps * 8 * 8 == Approx(400e9));  // 400 Gb/s per instance
  CHECK(hw::node_by_name("g5-a10g").nic_Bps * 8 * 8 == Approx(100e9));
  const auto& mi = hw::node_by_name("mi300x");
  CHECK(mi.scale_up_nominal_Bps == Approx(7 * 128e9 / 2));  // 7 links of 128 GB/s both ways
  CHECK(mi.gpu == "MI300X");
  CHECK_THROWS_WITH(hw::gpu_by_name("L40", "/cluster/gpu"), Catch::Contains("did you mean 'L40S'?") ||
                                                                Catch::Contains("did you mean 'L4'?") ||
                                                                Catch::Contains("did you mean 'A40'?"));
  CHECK_THROWS_WITH(hw::gpu_by_name("MI300", "/cluster/gpu"), Catch::Contains("did you mean 'MI300X'?"));
}
