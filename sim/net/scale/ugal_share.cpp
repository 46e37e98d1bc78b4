#include "net/scale/ugal_share.hpp"

#include <cmath>

namespace net {

UgalShare ugal_valiant_share(const std::function<double(double)>& completion_s) {
  UgalShare best;
  auto at = [&](double share) {
    const double t = completion_s(share);
    if (best.tried++ == 0 || t < best.completion_s) {
      best.valiant_share = share;
      best.completion_s = t;
    }
    return t;
  };
  at(0);
  at(1);
  const double golden = (std::sqrt(5.0) - 1) / 2;
  double lo = 0, hi = 1;
  double a = hi - golden * (hi - lo), b = lo + golden * (hi - lo);
  double ta = at(a), tb = at(b);
  while (hi - lo > kUgalShareTolerance) {
    if (ta <= tb) {  // the least lies left of b
      hi = b;
      b = a, tb = ta;
      a = hi - golden * (hi - lo);
      ta = at(a);
    } else {
      lo = a;
      a = b, ta = tb;
      b = lo + golden * (hi - lo);
      tb = at(b);
    }
  }
  return best;
}

}  // namespace net
