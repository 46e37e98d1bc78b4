// Slim Fly (Besta and Hoefler, SC'14), built with the McKay-Miller-Siran graph over GF(q) for a
// prime q = 4w + delta, delta = +-1. Routers (0, x, y) and (1, m, c); (0,x,y)~(0,x,y') when
// y - y' is in X, (1,m,c)~(1,m,c') when c - c' is in X', and (0,x,y)~(1,m,c) when y = m x + c.
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "net/topology.hpp"

namespace net {

namespace {

bool is_prime(int n) {
  if (n < 2) return false;
  for (int d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

int primitive_root(int q) {
  for (int g = 2; g < q; ++g) {
    bool ok = true;
    long long x = 1;
    for (int e = 1; e < q - 1 && ok; ++e) {
      x = x * g % q;
      ok = x != 1;
    }
    if (ok) return g;
  }
  return 1;  // q = 2
}

int delta_of(long long q) { return q % 4 == 1 ? 1 : q % 4 == 3 ? -1 : 0; }

}  // namespace

TopologyCounts slim_fly_counts(long long q) {
  const long long routers = 2 * q * q;
  const long long radix = (3 * q - delta_of(q)) / 2;
  const long long endpoints_per_router = (radix + 1) / 2;
  return {routers * endpoints_per_router, routers, routers * radix / 2, routers * endpoints_per_router};
}

Graph slim_fly(int q, const std::string& where) {
  if (!is_prime(q) || q % 4 == 2 || q < 5 || q > 97)
    throw core::InputError(
        where + "q",
        std::to_string(q) + " is not allowed; the MMS Slim Fly is built here for a prime q = 4w +- 1 from 5 to 97");
  const int delta = delta_of(q);
  const int w = (q - delta) / 4;
  const int xi = primitive_root(q);
  std::vector<int> power(static_cast<std::size_t>(q));  // xi^e mod q
  power[0] = 1;
  for (int e = 1; e < q; ++e) power[e] = power[e - 1] * xi % q;
  std::vector<bool> in_x(q, false), in_x_prime(q, false);
  if (delta == 1) {
    for (int e = 0; e <= q - 3; e += 2) in_x[power[e]] = true;
    for (int e = 1; e <= q - 2; e += 2) in_x_prime[power[e]] = true;
  } else {
    for (int e = 0; e <= 2 * w - 2; e += 2) in_x[power[e]] = true;
    for (int e = 2 * w - 1; e <= 4 * w - 3; e += 2) in_x[power[e]] = true;
    for (int e = 1; e <= 2 * w - 1; e += 2) in_x_prime[power[e]] = true;
    for (int e = 2 * w; e <= 4 * w - 2; e += 2) in_x_prime[power[e]] = true;
  }
  const int radix = (3 * q - delta) / 2;
  const int endpoints_per_router = (radix + 1) / 2;
  Graph g;
  auto router = [&](int side, int a, int b) { return static_cast<VertexId>((side * q + a) * q + b); };
  for (int side = 0; side < 2; ++side)
    for (int a = 0; a < q; ++a)
      for (int b = 0; b < q; ++b) boost::add_vertex(Vertex{VertexKind::kSwitch, 0, side, a}, g);
  for (int a = 0; a < q; ++a)
    for (int b = 0; b < q; ++b)
      for (int b2 = b + 1; b2 < q; ++b2) {
        const int diff = (b - b2 + q) % q;
        if (in_x[diff]) boost::add_edge(router(0, a, b), router(0, a, b2), g);
        if (in_x_prime[diff]) boost::add_edge(router(1, a, b), router(1, a, b2), g);
      }
  for (int x = 0; x < q; ++x)
    for (int m = 0; m < q; ++m)
      for (int c = 0; c < q; ++c) boost::add_edge(router(0, x, (m * x + c) % q), router(1, m, c), g);
  const auto routers = static_cast<int>(boost::num_vertices(g));
  for (int r = 0; r < routers; ++r)
    for (int e = 0; e < endpoints_per_router; ++e)
      boost::add_edge(boost::add_vertex(Vertex{VertexKind::kEndpoint, 0, 0, 0}, g), static_cast<VertexId>(r), g);
  return g;
}

}  // namespace net
