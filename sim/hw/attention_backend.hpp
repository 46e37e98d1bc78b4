#pragma once
// Attention kernels as data (data/attention_kernels/*.json): each a backend a query names
// (fa3, flashmla, or one a data folder adds), of one of the models: FlashAttention's tile model
// (hw/flash_attention.hpp) with its constants, or FlashMLA's decode rates (hw/attention_kernel.hpp).
#include <string>
#include <vector>

#include "hw/attention_kernel.hpp"
#include "hw/flash_attention.hpp"

namespace hw {

enum class AttentionModel { kFlashAttention, kFlashMlaDecode };

struct AttentionBackend {
  std::string name, description, source;
  AttentionModel model = AttentionModel::kFlashAttention;
  FlashAttentionCalibration flash;  // kFlashAttention
  FlashMlaRates mla;                // kFlashMlaDecode
};

std::vector<std::string> attention_backend_names();
// InputError at `where` for a name not in the data, listing those that are.
const AttentionBackend& attention_backend(const std::string& name, const std::string& where);

}  // namespace hw
