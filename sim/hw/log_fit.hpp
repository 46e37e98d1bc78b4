#pragma once
// The kernel models' fits to published rates: Levenberg-Marquardt (Eigen's, with numeric
// derivatives) over the logs of positive constants, each residual the log of our figure over the
// published one, so every row weighs alike whatever its size.
#include <Eigen/Core>
#include <functional>

namespace hw {

// Fills one residual a row for the constants exp(x).
using LogResiduals = std::function<void(const Eigen::VectorXd& x, Eigen::VectorXd& residuals)>;

// Moves `x` to the least squares of `rows` residuals (left as it is with nothing to fit), and
// returns their RMS there.
double fit_logs(Eigen::VectorXd& x, int rows, const LogResiduals& residuals);

}  // namespace hw
