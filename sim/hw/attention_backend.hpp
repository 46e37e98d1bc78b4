#pragma once
// Attention kernels as data (data/attention_kernels/*.json): each a backend a query names
// (fa3, fa2-ampere, flashmla, or one a data folder adds), of one of the models: FlashAttention's
// tile model (hw/flash_attention.hpp) with its constants, FlashMLA's decode rates
// (hw/attention_kernel.hpp), or a decode kernel's (hw/decode_attention.hpp). A backend runs on the
// GPUs of its generation (runs_on); GPUs without rows of their own take a measured generation's
// constants by their datasheet (scaled_to). A backend may carry its published rates and fit its
// constants to them (hw/flash_attention_fit.hpp), starting from, and keeping the rest of, another
// backend's ("base"). A FlashAttention-class backend names the decode kernel its engines run
// decode steps on ("decode"), where one is measured; a base's carries over.
#include <string>
#include <vector>

#include "hw/attention_kernel.hpp"
#include "hw/decode_attention.hpp"
#include "hw/flash_attention.hpp"
#include "hw/flash_attention_fit.hpp"

namespace hw {

enum class AttentionModel { kFlashAttention, kFlashMlaDecode, kDecode };

struct AttentionBackend {
  std::string name, description, source;
  AttentionModel model = AttentionModel::kFlashAttention;
  FlashAttentionCalibration flash;  // kFlashAttention
  FlashMlaRates mla;                // kFlashMlaDecode
  // kDecode: its constants; kFlashAttention: those of the decode kernel it names (`decode_kernel`),
  // invalid where it names none (decode then on the roofline).
  DecodeAttentionCalibration decode;
  std::string decode_kernel;
  std::vector<DecodeAttentionMeasurement> decode_rows;    // kDecode: fitted to
  std::vector<DecodeAttentionMeasurement> decode_checks;  // kDecode: predicted, not fitted
  double rows_hbm_Bps = 0;                                // kDecode: the HBM of the GPU its rows were measured on
  std::string held_from, held_why;                        // kDecode: another decode kernel's constants
  std::vector<std::string> held;
  const Gpu* measured_on = nullptr;
  std::vector<std::string> runs_on, scaled_to;
  std::vector<AttentionMeasurement> rows;  // the published rates its constants were fitted to
  std::vector<std::string> fitted;         // which constants
  double fit_rms_log_error = 0;

  bool runs_on_gpu(const std::string& gpu) const;  // measured there or scaled to it
  bool scaled_for(const std::string& gpu) const;   // only by its datasheet
};

// A decode call on a FlashAttention-class backend's decode kernel (b.decode valid): the kernel's
// time, or its FLOPs on the tensor cores at the backend's forward efficiency where they take
// longer (many query heads to a KV head, or several query tokens a sequence).
DecodeAttentionTime backend_decode_time(const Gpu& gpu, const AttentionBackend& b, const DecodeAttentionShape& shape,
                                        double flops, int sms);

std::vector<std::string> attention_backend_names();
// InputError at `where` for a name not in the data, listing those that are.
const AttentionBackend& attention_backend(const std::string& name, const std::string& where);
// The first FlashAttention-class backend of `preferences` (an engine's, in its order) that runs
// on `gpu`; else the first that runs there at all; else FlashAttention-3 scaled by the GPU's
// datasheet (an assumption).
const AttentionBackend& attention_backend_for(const Gpu& gpu, const std::vector<std::string>& preferences = {});

}  // namespace hw
