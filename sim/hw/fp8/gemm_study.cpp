#include "hw/fp8/gemm_study.hpp"

#include <chrono>
#include <random>

#include "core/catalogue.hpp"

namespace hw::fp8 {

namespace {
struct NamedData {
  std::string name;
  Data data;
};
const std::vector<NamedData>& gemm_study_catalogue() {
  static const std::vector<NamedData> all = {{"normal", Data::kNormal}, {"positive", Data::kPositive}};
  return all;
}
}  // namespace

std::vector<std::string> data_names() { return core::names_of(gemm_study_catalogue()); }
Data data_by_name(const std::string& name, const std::string& where) {
  return core::find_by_name(gemm_study_catalogue(), name, "data distribution", where).data;
}

Matrix synthetic(Eigen::Index rows, Eigen::Index cols, Data data, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Matrix x(rows, cols);
  for (Eigen::Index i = 0; i < x.size(); ++i) {
    const double v = normal(rng);
    x.data()[i] = data == Data::kPositive ? std::fabs(v) : v;
  }
  return x;
}

GemmStudyResult run_gemm_study(const GemmStudy& s) {
  check_model(s.model, s.k);
  const Matrix a = synthetic(s.m, s.k, s.data, s.seed);
  const Matrix b = synthetic(s.n, s.k, s.data, s.seed + 1);
  const auto qa = quantize(a, kActivationTiles, e4m3());
  const auto qb = quantize(b, kWeightBlocks, e4m3());
  GemmStudyResult r;
  const auto start = std::chrono::steady_clock::now();
  const Matrix c = gemm_limited(qa, qb, s.model);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.multiply_adds_per_s = static_cast<double>(s.m * s.n * s.k) / r.seconds;
  r.accumulation = compare(c, gemm_reference(qa.dequantized(), qb.dequantized()));
  r.total = compare(c, gemm_reference(a, b));
  return r;
}

}  // namespace hw::fp8
