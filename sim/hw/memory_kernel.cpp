#include "hw/memory_kernel.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <stdexcept>

#include "core/data_files.hpp"

namespace hw {

namespace {

// Time t = floor + bytes / (fraction_kind x HBM) is linear in the floor and each kind's
// 1 / fraction: one least squares over all rows, relative errors weighing a 4 us kernel as much
// as a 500 us one. One floor for all kinds: a launch's start and end do not depend on what the
// kernel then streams.
std::array<MemoryKernelRate, kMemoryKernelKinds> fit(const std::vector<MemoryKernelMeasurement>& rows) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), 1 + kMemoryKernelKinds);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto row = static_cast<Eigen::Index>(i);
    a(row, 0) = 1 / r.seconds;
    a(row, 1 + static_cast<int>(r.kind)) = r.bytes / r.hbm_Bps / r.seconds;
  }
  const Eigen::VectorXd x = a.colPivHouseholderQr().solve(Eigen::VectorXd::Ones(static_cast<Eigen::Index>(rows.size())));
  std::array<MemoryKernelRate, kMemoryKernelKinds> rates{};
  for (int k = 0; k < kMemoryKernelKinds; ++k) rates[k] = {std::max(0.0, x[0]), 1 / x[1 + k]};
  return rates;
}

}  // namespace

const std::vector<std::string>& memory_kernel_kind_names() {
  static const std::vector<std::string> names = {"row-reduction", "elementwise", "cast", "cast-transpose", "permute"};
  return names;
}

const MemoryKernelModel& hopper_memory_kernels() {
  static const MemoryKernelModel model = [] {
    MemoryKernelModel m;
    for (const auto& [path, doc] : core::read_data_folder("memory_kernels")) {
      core::JsonReader r(doc, path + ": ");
      r.string("name");
      r.string("description");
      m.source = r.string("source");
      core::JsonReader peaks = r.object("hbm_Bps");
      std::vector<std::string> gpus;
      for (const auto& [gpu, value] : doc.at("hbm_Bps").items()) gpus.push_back(gpu);
      core::require_sources(r, {"hbm_Bps"});
      for (auto& item : r.object_list("rows", "measured kernels")) {
        MemoryKernelMeasurement row;
        row.kernel = item.string("kernel");
        row.shape = item.string("shape");
        row.gpu = item.one_of("gpu", gpus);
        row.source = item.string("source");
        const std::string kind = item.one_of("kind", memory_kernel_kind_names());
        row.kind = static_cast<MemoryKernelKind>(std::find(memory_kernel_kind_names().begin(), memory_kernel_kind_names().end(), kind) -
                                                 memory_kernel_kind_names().begin());
        row.bytes = item.number_in("bytes", 1, 1e15);
        row.seconds = item.number_in("us", 1e-3, 1e9) * 1e-6;
        row.hbm_Bps = peaks.number_in(row.gpu, 1e10, 1e15);
        item.finish();
        m.rows.push_back(row);
      }
      peaks.finish();
      r.finish();
    }
    for (int k = 0; k < kMemoryKernelKinds; ++k)
      if (std::none_of(m.rows.begin(), m.rows.end(), [&](const auto& row) { return static_cast<int>(row.kind) == k; }))
        throw std::logic_error("data/memory_kernels has no " + memory_kernel_kind_names()[k] + " rows");
    m.rates = fit(m.rows);
    return m;
  }();
  return model;
}

}  // namespace hw
