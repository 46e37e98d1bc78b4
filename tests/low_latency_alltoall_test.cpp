#include <catch2/catch.hpp>

#include <cmath>

#include "hw/low_latency_alltoall.hpp"

using namespace hw;

TEST_CASE("DeepEP low-latency kernels: two constants per path fit the published rows; mixed rows predicted",
          "[kernels]") {
  const LowLatencyAllToAll& ll = deepep_low_latency();
  REQUIRE(ll.rows.size() == 20);
  // The NIC path: a few microseconds per kernel and about four fifths of the 50 GB/s link, from
  // the twelve rows of the kernels that sent everything over RDMA.
  CHECK(ll.nic.latency_s > 1e-6);
  CHECK(ll.nic.latency_s < 10e-6);
  CHECK(ll.nic.rate_fraction > 0.75);
  CHECK(ll.nic.rate_fraction < 0.9);
  for (const auto& row : ll.rows) {
    INFO("EP" << row.ep << (row.combine ? " combine " : " dispatch ") << row.readme);
    const double ours = ll.seconds(row.nic_bytes, row.nvlink_bytes, ll.nic_Bps, ll.nvlink_Bps);
    const double delta = ours / row.seconds - 1;
    if (!row.nvlink_in_node)
      CHECK(std::abs(delta) < 0.05);  // fitted
    else if (row.nic_bytes == 0)
      CHECK(std::abs(delta) < 0.01);  // fitted (EP8, two rows, two constants)
    else
      CHECK(std::abs(delta) < 0.2);  // predicted: both paths at once
  }
  // Past the rows' 128 tokens the bytes stream at the fitted rate: twice the tokens, twice the
  // streaming time on top of the same fixed part.
  const double one = ll.seconds(7.5e6, 0, 50e9, 160e9), two = ll.seconds(15e6, 0, 50e9, 160e9);
  CHECK(two - one == Approx(7.5e6 / (ll.nic.rate_fraction * 50e9)));
  CHECK(ll.seconds(0, 0, 50e9, 160e9) == 0);
}
