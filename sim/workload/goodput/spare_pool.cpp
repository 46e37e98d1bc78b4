#include "workload/goodput/spare_pool.hpp"

namespace workload {

double no_spare_probability(double rate_per_s, double repair_s, int spares) {
  const double load = rate_per_s * repair_s;
  double blocking = 1;  // B(0) = 1; B(k) = load B(k-1) / (k + load B(k-1))
  for (int k = 1; k <= spares; ++k) blocking = load * blocking / (k + load * blocking);
  return blocking;
}

}  // namespace workload
