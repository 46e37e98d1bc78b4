#include <catch2/catch.hpp>

#include "core/input_error.hpp"
#include "hw/gpu.hpp"
#include "hw/node.hpp"

TEST_CASE("H800 and its node carry the paper's figures", "[hw]") {
  const auto& g = hw::gpu_by_name("H800");
  CHECK(g.sm_count == 132);
  CHECK(g.bf16_dense_flops_per_s == 989.4e12);
  CHECK(g.fp8_dense_flops_per_s == 1978.9e12);
  CHECK(g.hbm_bytes == 80e9);
  CHECK(g.hbm_bandwidth_Bps == 3.35e12);
  const auto& n = hw::node_by_name("h800");
  CHECK(n.gpus == 8);
  CHECK(n.scale_up_nominal_Bps == 200e9);
  CHECK(n.scale_up_achieved_Bps == 160e9);
  CHECK(n.nics == 8);
  CHECK(n.nic_Bps == 50e9);
  CHECK(n.gpu_model().name == "H800");
  CHECK(hw::node_by_name("gb200-nvl72").gpus == 72);
  CHECK(hw::node_by_name("gb200-nvl72").scale_up_nominal_Bps == 900e9);
}

TEST_CASE("every node names a known GPU", "[hw]") {
  for (const auto& name : hw::node_names()) CHECK_NOTHROW(hw::node_by_name(name).gpu_model());
  CHECK_THROWS_AS(hw::gpu_by_name("H900"), core::InputError);
  CHECK_THROWS_WITH(hw::node_by_name("h80", "/cluster/node"), Catch::Contains("did you mean 'h800'?"));
}
