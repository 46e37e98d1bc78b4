#include "hw/memory_kernel.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <stdexcept>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"

namespace hw {

namespace {

bool has_kind(const std::vector<MemoryKernelMeasurement>& rows, int k) {
  return std::any_of(rows.begin(), rows.end(), [&](const auto& row) { return static_cast<int>(row.kind) == k; });
}

// Time t = floor + bytes / (fraction_kind x HBM) is linear in the floor and each kind's
// 1 / fraction: one least squares over all rows, relative errors weighing a 4 us kernel as much
// as a 500 us one. One floor for all kinds: a launch's start and end do not depend on what the
// kernel then streams. Kinds without rows (columns of zeros) are left at 0.
std::array<MemoryKernelRate, kMemoryKernelKinds> fit(const std::vector<MemoryKernelMeasurement>& rows) {
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(rows.size()), 1 + kMemoryKernelKinds);
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto row = static_cast<Eigen::Index>(i);
    a(row, 0) = 1 / r.seconds;
    a(row, 1 + static_cast<int>(r.kind)) = r.bytes / r.hbm_Bps / r.seconds;
  }
  const Eigen::VectorXd x =
      a.colPivHouseholderQr().solve(Eigen::VectorXd::Ones(static_cast<Eigen::Index>(rows.size())));
  std::array<MemoryKernelRate, kMemoryKernelKinds> rates{};
  for (int k = 0; k < kMemoryKernelKinds; ++k) rates[k] = {std::max(0.0, x[0]), has_kind(rows, k) ? 1 / x[1 + k] : 0.0};
  return rates;
}

const std::vector<MemoryKernelModel>& model_catalogue() {
  static const std::vector<MemoryKernelModel> models = [] {
    std::vector<MemoryKernelModel> out;
    for (const auto& [path, doc] : core::read_data_folder("memory_kernels")) {
      core::JsonReader r(doc, path + ": ");
      MemoryKernelModel m;
      m.name = r.string("name");
      r.string("description");
      m.source = r.string("source");
      m.runs_on = r.string_list("runs_on", gpu_names());
      if (r.has("scaled_to")) m.scaled_to = r.string_list("scaled_to", gpu_names());
      core::JsonReader peaks = r.object("hbm_Bps");
      std::vector<std::string> gpus;
      for (const auto& [gpu, value] : doc.at("hbm_Bps").items()) gpus.push_back(gpu);
      // A microsecond or two; ten bounds a slip of the exponent.
      m.graph_launch_saving_s = r.number_in("graph_launch_saving_s", 0, 1e-5);
      core::require_sources(r, {"hbm_Bps", "graph_launch_saving_s"});
      for (auto& item : r.object_list("rows", "measured kernels")) {
        MemoryKernelMeasurement row;
        row.kernel = item.string("kernel");
        row.shape = item.string("shape");
        row.gpu = item.one_of("gpu", gpus);
        row.source = item.string("source");
        const std::string kind = item.one_of("kind", memory_kernel_kind_names());
        row.kind = static_cast<MemoryKernelKind>(
            std::find(memory_kernel_kind_names().begin(), memory_kernel_kind_names().end(), kind) -
            memory_kernel_kind_names().begin());
        row.bytes = item.number_in("bytes", 1, 1e15);
        row.seconds = item.number_in("us", 1e-3, 1e9) * 1e-6;
        row.hbm_Bps = peaks.number_in(row.gpu, 1e10, 1e15);
        item.finish();
        m.rows.push_back(row);
      }
      peaks.finish();
      r.finish();
      m.rates = fit(m.rows);
      out.push_back(std::move(m));
    }
    // Hopper's rows span every kind; a generation without rows of a kind takes its fraction.
    const auto hopper = std::find_if(out.begin(), out.end(), [](const auto& m) { return m.name == "hopper"; });
    if (hopper == out.end()) throw std::logic_error("data/memory_kernels has no hopper model");
    for (int k = 0; k < kMemoryKernelKinds; ++k)
      if (!has_kind(hopper->rows, k))
        throw std::logic_error("data/memory_kernels/hopper.json has no " + memory_kernel_kind_names()[k] + " rows");
    for (auto& m : out)
      for (int k = 0; k < kMemoryKernelKinds; ++k)
        if (!has_kind(m.rows, k)) {
          m.borrowed[k] = true;
          m.rates[k].hbm_fraction = hopper->rates[k].hbm_fraction;
        }
    return out;
  }();
  return models;
}

bool names(const std::vector<std::string>& list, const std::string& gpu) {
  return std::find(list.begin(), list.end(), gpu) != list.end();
}

}  // namespace

const std::vector<std::string>& memory_kernel_kind_names() {
  static const std::vector<std::string> names = {"row-reduction", "elementwise", "cast", "cast-transpose", "permute"};
  return names;
}

const MemoryKernelModel& hopper_memory_kernels() { return memory_kernel_model("hopper", "memory kernels"); }

const MemoryKernelModel& memory_kernels_for(const Gpu& gpu) {
  for (const auto& m : model_catalogue())
    if (names(m.runs_on, gpu.name) || names(m.scaled_to, gpu.name)) return m;
  return hopper_memory_kernels();
}

const MemoryKernelModel& memory_kernel_model(const std::string& name, const std::string& where) {
  return core::find_by_name(model_catalogue(), name, "memory-kernel model", where);
}

std::vector<std::string> memory_kernel_model_names() { return core::names_of(model_catalogue()); }

}  // namespace hw
