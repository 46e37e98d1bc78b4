#pragma once
// One GEMM accuracy study on seeded synthetic data: quantise A (1x128 tiles) and B (128x128
// blocks) to E4M3, multiply with the limited-accumulation model, and compare with double
// precision on the same quantised operands (the accumulation error) and on the original data
// (accumulation + quantisation).
#include <cstdint>
#include <string>
#include <vector>

#include "hw/fp8/gemm.hpp"

namespace hw::fp8 {

enum class Data {
  kNormal,    // N(0, 1): outputs near zero make element-wise relative errors large
  kPositive,  // |N(0, 1)|: every product adds, the case where the accumulator's range matters most
};

Data data_by_name(const std::string& name, const std::string& where = "");
std::vector<std::string> data_names();

Matrix synthetic(Eigen::Index rows, Eigen::Index cols, Data data, std::uint64_t seed);

struct GemmStudy {
  Eigen::Index m = 64, n = 64, k = 4096;
  AccumulatorModel model;
  Data data = Data::kPositive;
  std::uint64_t seed = 1;
};

struct GemmStudyResult {
  GemmError accumulation;  // limited vs double, same quantised operands
  GemmError total;         // limited vs double on the original data
  double seconds = 0;      // time of the limited GEMM alone
  double multiply_adds_per_s = 0;
};

GemmStudyResult run_gemm_study(const GemmStudy& study);

}  // namespace hw::fp8
