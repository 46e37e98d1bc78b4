#include "studies/kernels/study_memory_kernels.hpp"

#include <cmath>

#include "hw/memory_kernel.hpp"

namespace studies {

namespace {

class MemoryKernelsStudy : public Study {
 public:
  const hw::MemoryKernelModel* model_ = nullptr;

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    const hw::MemoryKernelModel& model = *model_;
    for (const auto& row : model.rows) {
      const std::string kind = hw::memory_kernel_kind_names()[static_cast<int>(row.kind)];
      std::string id = kind + "/" + row.kernel + "/" + row.shape + "/" + row.gpu;
      for (char& c : id)
        if (c == ' ') c = '-';
      const double ours = model.seconds(row.kind, row.bytes, row.hbm_Bps);
      r.rows.push_back(
          {id, row.kernel + ", " + row.shape + " (" + row.gpu + ")",
           kind + " kernel time (" + format_number(std::round(row.bytes / row.seconds / 1e9)) + " GB/s measured)", "us",
           row.seconds * 1e6, ours * 1e6, Basis::kFit});
    }
    std::string fitted;
    for (int k = 0; k < hw::kMemoryKernelKinds; ++k) {
      const auto& rate = model.rates[k];
      fitted += std::string(k ? "; " : "") + hw::memory_kernel_kind_names()[k] + " " +
                format_number(std::round(rate.floor_s * 1e8) / 100) + " us + bytes at " +
                format_number(std::round(rate.hbm_fraction * 1000) / 1000) + " of HBM" +
                (model.borrowed[k] ? " (no rows: Hopper's fraction)" : "");
    }
    r.notes.push_back(
        "Memory-bound kernels: each row's time is its bytes (the op's minimum traffic, as its source counts them) over "
        "the measured rate; ours is the " +
        model.name + " model fitted once to all these rows, kind by kind (hw/memory_kernel.hpp): " + fitted +
        ". Source: " + model.source + ".");
    return r;
  }
};

}  // namespace

std::unique_ptr<Study> parse_memory_kernels_study(core::JsonReader& root) {
  auto s = std::make_unique<MemoryKernelsStudy>();
  s->model_ = &hw::hopper_memory_kernels();
  if (root.has("memory_kernels")) {
    core::JsonReader m = root.object("memory_kernels");
    s->model_ = &hw::memory_kernel_model(m.one_of("model", hw::memory_kernel_model_names()), m.pointer_of("model"));
    m.finish();
  }
  return s;
}

}  // namespace studies
