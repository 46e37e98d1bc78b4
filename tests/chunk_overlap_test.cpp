#include <catch2/catch.hpp>

#include "core/engine.hpp"
#include "net/platform.hpp"
#include "workload/pipeline/chunk_overlap.hpp"

using namespace workload;

namespace {

double overlapped(const ChunkPair& p) {
  return core::simulate(net::StarPlatform(net::ideal_cluster(1)), overlapped_chunk_pair(p)).makespan_s();
}

ChunkPair balanced() {
  ChunkPair p;
  p.forward = {1, 0.5, 1, 0.5, 0.1};
  p.backward = {1, 1, 0.5, 1, 1, 0.5, 0.1};
  p.comm_sms = 0;
  return p;
}

}  // namespace

TEST_CASE("Figure 4 overlap: communication hides behind compute when it is shorter", "[overlap]") {
  const auto p = balanced();
  // Compute stream: 1 + 1 + 1 + 1 + 1 + 1 = 6; COMBINE(B) runs under ATTN(F), DISPATCH(F) under
  // MLP(B)/MLP(W), DISPATCH(B) under MLP(W)/MLP(F), COMBINE(F) and PP(F) under ATTN(B), PP(B)
  // under ATTN(W).
  CHECK(overlapped(p) == Approx(6.0));
  CHECK(serial_chunk_pair_s(p) == Approx(8.2));
}

TEST_CASE("Figure 4 overlap: SMs given to communication slow compute", "[overlap]") {
  auto p = balanced();
  p.sms = 132;
  p.comm_sms = 22;
  CHECK(overlapped(p) == Approx(6.0 * 132 / 110));
}

TEST_CASE("Figure 4 overlap: with no compute the all-to-alls run back to back", "[overlap]") {
  ChunkPair p;
  p.forward = {0, 0.5, 0, 0.5, 0.1};
  p.backward = {0, 0, 0.5, 0, 0, 0.5, 0.1};
  CHECK(overlapped(p) == Approx(2.2));
}
