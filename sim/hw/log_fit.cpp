#include "hw/log_fit.hpp"

#include <cmath>
#include <unsupported/Eigen/NonLinearOptimization>
#include <unsupported/Eigen/NumericalDiff>

namespace hw {

namespace {

// The functor Eigen's solver takes.
struct Functor {
  using Scalar = double;
  using InputType = Eigen::VectorXd;
  using ValueType = Eigen::VectorXd;
  using JacobianType = Eigen::MatrixXd;
  enum { InputsAtCompileTime = Eigen::Dynamic, ValuesAtCompileTime = Eigen::Dynamic };

  const LogResiduals* residuals;
  int constants, rows;

  int inputs() const { return constants; }
  int values() const { return rows; }
  int operator()(const Eigen::VectorXd& x, Eigen::VectorXd& r) const {
    (*residuals)(x, r);
    return 0;
  }
};

}  // namespace

double fit_logs(Eigen::VectorXd& x, int rows, const LogResiduals& residuals) {
  if (rows == 0) return 0;
  const Functor functor{&residuals, static_cast<int>(x.size()), rows};
  if (x.size() > 0) {
    Eigen::NumericalDiff<Functor> differentiated(functor);
    Eigen::LevenbergMarquardt<Eigen::NumericalDiff<Functor>> solver(differentiated);
    solver.minimize(x);
  }
  Eigen::VectorXd r(rows);
  residuals(x, r);
  return std::sqrt(r.squaredNorm() / rows);
}

}  // namespace hw
