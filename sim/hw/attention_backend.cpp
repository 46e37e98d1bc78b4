#include "hw/attention_backend.hpp"

#include <algorithm>
#include <map>

#include "core/catalogue.hpp"
#include "core/data_files.hpp"
#include "core/input_error.hpp"

namespace hw {

namespace {

bool lists(const std::vector<std::string>& list, const std::string& gpu) {
  return std::find(list.begin(), list.end(), gpu) != list.end();
}

AttentionMeasurement read_row(core::JsonReader& item) {
  AttentionMeasurement row;
  row.pass = item.one_of("pass", {"forward", "backward", "forward+backward"});
  AttentionShape& s = row.shape;
  s.qk_dim = s.v_dim = static_cast<double>(item.positive_integer("head_dim", 512));
  s.causal = item.one_of("mask", {"causal", "full"}) == "causal";
  s.keys = s.queries = static_cast<double>(item.positive_integer("sequence", 1 << 20));
  s.batch = static_cast<double>(item.positive_integer("batch", 1 << 20));
  s.heads = static_cast<double>(item.positive_integer("heads", 1024));
  row.tflops = item.number_in("tflops", 1e-3, 1e5);
  item.finish();
  return row;
}

DecodeAttentionMeasurement read_decode_row(core::JsonReader& item) {
  DecodeAttentionMeasurement row;
  row.shape.sequences = static_cast<double>(item.positive_integer("batch", 1 << 20));
  row.heads = static_cast<double>(item.positive_integer("heads", 1024));
  row.shape.kv_heads = static_cast<double>(item.positive_integer("kv_heads", 1024));
  row.head_dim = static_cast<double>(item.positive_integer("head_dim", 1024));
  row.shape.context_tokens = static_cast<double>(item.positive_integer("context", 1 << 24));
  row.hbm_share = item.number_in("hbm_share", 1e-3, 1);
  item.finish();
  // Keys and values, 16 bits each, every sequence and KV head.
  row.shape.kv_bytes = row.shape.sequences * row.shape.kv_heads * row.shape.context_tokens * 2 * row.head_dim * 2;
  return row;
}

// A decode kernel: its constants fitted to its rows, or held from another decode kernel's fit;
// each of them one or the other.
void read_decode(core::JsonReader& r, AttentionBackend& b, const std::vector<AttentionBackend>& loaded) {
  DecodeAttentionCalibration& c = b.decode;
  // Where a fit starts: a memory-bound kernel with microseconds of fixed costs.
  c = {8e-6, 5e-6, 1e-6, 0.85, 2, 256};
  c.split_tokens = static_cast<double>(r.positive_integer("split_tokens", 1 << 20));
  b.rows_hbm_Bps =
      r.has("measured_hbm_Bps") ? r.number_in("measured_hbm_Bps", 1e10, 1e15) : b.measured_on->hbm_bandwidth_Bps;
  for (auto& item : r.object_list("rows", "published rates")) b.decode_rows.push_back(read_decode_row(item));
  if (r.has("checks"))
    for (auto& item : r.object_list("checks", "published rates to predict"))
      b.decode_checks.push_back(read_decode_row(item));
  b.fitted = r.string_list("fit", decode_attention_constant_names());
  if (r.has("held_constants")) {
    core::JsonReader h = r.object("held_constants");
    std::vector<std::string> kernels;
    for (const auto& other : loaded)
      if (other.model == AttentionModel::kDecode) kernels.push_back(other.name);
    b.held_from = h.one_of("from", kernels);
    b.held = h.string_list("constants", decode_attention_constant_names());
    b.held_why = h.string("why");
    const AttentionBackend& from =
        *std::find_if(loaded.begin(), loaded.end(), [&](const auto& o) { return o.name == b.held_from; });
    DecodeAttentionCalibration held = from.decode;
    for (const auto& name : b.held) decode_attention_constant(c, name) = decode_attention_constant(held, name);
    h.finish();
  }
  for (const auto& name : decode_attention_constant_names()) {
    const bool fitted = std::count(b.fitted.begin(), b.fitted.end(), name) > 0,
               held = std::count(b.held.begin(), b.held.end(), name) > 0;
    if (fitted == held)
      throw core::InputError(r.pointer_of("fit"), "'" + name + "' is " +
                                                      (fitted ? "both fitted and held" : "neither fitted nor held") +
                                                      "; each constant of a decode kernel is one or the other");
  }
  if (b.decode_rows.size() < b.fitted.size())
    throw core::InputError(r.pointer_of("rows"), std::to_string(b.decode_rows.size()) + " rows is not allowed for " +
                                                     std::to_string(b.fitted.size()) +
                                                     " constants to fit; more rows, or held_constants from another "
                                                     "decode kernel's fit");
  std::vector<std::string> given = {"split_tokens"};
  if (r.has("measured_hbm_Bps")) given.push_back("measured_hbm_Bps");
  core::require_sources(r, given);
  Gpu measuring = *b.measured_on;
  measuring.hbm_bandwidth_Bps = b.rows_hbm_Bps;
  const DecodeAttentionFit fit = fit_decode_attention(measuring, b.decode_rows, c, b.fitted);
  c = fit.constants;
  b.fit_rms_log_error = fit.rms_log_error;
}

// A FlashAttention-class backend: its constants as given, or those of `base` where it names
// one, then fitted to its rows where it has them.
void read_flash(core::JsonReader& r, AttentionBackend& b, const std::vector<AttentionBackend>& loaded) {
  FlashAttentionCalibration& c = b.flash;
  std::vector<std::string> given;
  if (r.has("base")) {
    std::vector<std::string> names;
    for (const auto& other : loaded)
      if (other.model == AttentionModel::kFlashAttention) names.push_back(other.name);
    const std::string base = r.one_of("base", names);
    const AttentionBackend& from =
        *std::find_if(loaded.begin(), loaded.end(), [&](const auto& o) { return o.name == base; });
    c = from.flash;
    b.decode = from.decode;
    b.decode_kernel = from.decode_kernel;
  }
  if (r.has("decode")) {
    std::vector<std::string> kernels;
    for (const auto& other : loaded)
      if (other.model == AttentionModel::kDecode) kernels.push_back(other.name);
    b.decode_kernel = r.one_of("decode", kernels);
    b.decode =
        std::find_if(loaded.begin(), loaded.end(), [&](const auto& o) { return o.name == b.decode_kernel; })->decode;
  }
  const bool based = r.has("base");
  for (const auto& name : flash_attention_constant_names()) {
    if (based && !r.has(name)) continue;
    double& v = flash_attention_constant(c, name);
    if (name == "mma_efficiency" || name == "backward_mma_efficiency")
      v = r.number_in(name, 1e-3, 1);  // a share of the tensor cores' peak
    else if (name == "hbm_Bps")
      v = r.number_in(name, 1e10, 1e15);
    else if (name == "softmax_s_per_score" || name == "mask_s_per_score")
      v = r.number_in(name, 0, 1e-6);
    else
      v = r.number_in(name, 0, 1e-2);
    given.push_back(name);
  }
  // The tiles and the softmax's overlap: as given, else the base's, else FlashAttention-3's.
  if (r.has("tiles") || !based) {
    const std::string tiles = r.has("tiles") ? r.one_of("tiles", {"fa3", "fa2", "fa4"}) : "fa3";
    c.tiles = tiles == "fa2" ? AttentionTiles::kFa2 : tiles == "fa4" ? AttentionTiles::kFa4 : AttentionTiles::kFa3;
  }
  c.overlap_softmax = r.boolean("overlap_softmax", based ? c.overlap_softmax : true);
  // hbm_Bps is a share of the measuring GPU's bandwidth; a base's share carries over.
  if (!based || r.has("hbm_Bps")) c.measured_hbm_Bps = b.measured_on->hbm_bandwidth_Bps;
  if (r.has("rows")) {
    for (auto& item : r.object_list("rows", "published rates")) b.rows.push_back(read_row(item));
    b.fitted = r.string_list("fit", flash_attention_constant_names());
  }
  if (!given.empty() || r.has("sources")) core::require_sources(r, given);
  if (!b.rows.empty()) {
    const FlashAttentionFit fit = fit_flash_attention(*b.measured_on, b.rows, c, b.fitted);
    c = fit.constants;
    b.fit_rms_log_error = fit.rms_log_error;
  }
}

const std::vector<AttentionBackend>& backend_catalogue() {
  static const std::vector<AttentionBackend> backends = [] {
    std::vector<AttentionBackend> out;
    auto files = core::read_data_folder("attention_kernels");
    std::vector<std::string> order;  // the files' names, in the folder's order
    for (const auto& [path, doc] : files)
      order.push_back(doc.contains("name") && doc["name"].is_string() ? doc["name"].get<std::string>() : "");
    // Backends built on another's constants after it: a pass takes those whose base is loaded.
    while (!files.empty()) {
      const size_t before = files.size();
      for (auto it = files.begin(); it != files.end();) {
        const auto& [path, doc] = *it;
        // What it is built on: its base, its decode kernel, the decode kernel it holds constants from.
        // (Names copied out: a lambda may not capture a structured binding before C++20's clang 16.)
        auto named = [&](const nlohmann::json& d, const char* key) {
          return d.contains(key) && d[key].is_string() ? d[key].get<std::string>() : std::string();
        };
        const std::vector<std::string> needs = {named(doc, "base"), named(doc, "decode"),
                                                doc.contains("held_constants") && doc["held_constants"].is_object()
                                                    ? named(doc["held_constants"], "from")
                                                    : ""};
        if (std::any_of(needs.begin(), needs.end(), [&](const std::string& need) {
              return !need.empty() &&
                     std::none_of(out.begin(), out.end(), [&](const auto& b) { return b.name == need; });
            })) {
          ++it;
          continue;
        }
        core::JsonReader r(doc, path + ": ");
        AttentionBackend b;
        b.name = r.string("name");
        b.description = r.string("description");
        b.source = r.string("source");
        b.measured_on = &gpu_by_name(r.string("measured_on"), r.pointer_of("measured_on"));
        if (r.has("runs_on")) b.runs_on = r.string_list("runs_on", gpu_names());
        if (r.has("scaled_to")) b.scaled_to = r.string_list("scaled_to", gpu_names());
        const std::string model = r.one_of("model", {"flash-attention", "flash-mla-decode", "decode"});
        if (model == "flash-attention") {
          read_flash(r, b, out);
        } else if (model == "decode") {
          b.model = AttentionModel::kDecode;
          read_decode(r, b, out);
        } else {
          b.model = AttentionModel::kFlashMlaDecode;
          b.mla.hbm_share = r.number_in("hbm_Bps", 1e10, 1e15) / b.measured_on->hbm_bandwidth_Bps;
          b.mla.bf16_share = r.number_in("bf16_flops_per_s", 1e12, 1e18) / b.measured_on->bf16_dense_flops_per_s;
          core::require_sources(r, {"hbm_Bps", "bf16_flops_per_s"});
        }
        r.finish();
        out.push_back(b);
        it = files.erase(it);
      }
      if (files.size() == before) {
        core::JsonReader r(files.begin()->second, files.begin()->first + ": ");
        for (const char* key : {"base", "decode"})
          if (r.has(key) &&
              std::none_of(out.begin(), out.end(), [&](const auto& b) { return b.name == r.string(key); }))
            throw core::InputError(
                r.pointer_of(key),
                "'" + r.string(key) + "' is not allowed; no attention backend of that name is loaded");
        core::JsonReader h = r.object("held_constants");
        throw core::InputError(h.pointer_of("from"),
                               "'" + h.string("from") + "' is not allowed; no decode kernel of that name is loaded");
      }
    }
    auto rank = [&](const AttentionBackend& b) {
      return std::find(order.begin(), order.end(), b.name) - order.begin();
    };
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
    return out;
  }();
  return backends;
}

}  // namespace

bool AttentionBackend::runs_on_gpu(const std::string& gpu) const { return lists(runs_on, gpu) || scaled_for(gpu); }
bool AttentionBackend::scaled_for(const std::string& gpu) const { return lists(scaled_to, gpu); }

DecodeAttentionTime backend_decode_time(const Gpu& gpu, const AttentionBackend& b, const DecodeAttentionShape& shape,
                                        double flops, int sms) {
  DecodeAttentionTime t = decode_attention_time(gpu, shape, sms, b.decode);
  if (sms <= 0 || flops <= 0) return t;
  t.compute_s = flops / (gpu.bf16_dense_flops_per_s * sms / gpu.sm_count * b.flash.mma_efficiency);
  t.seconds = std::max(t.seconds, t.compute_s);
  return t;
}

std::vector<std::string> attention_backend_names() { return core::names_of(backend_catalogue()); }

const AttentionBackend& attention_backend(const std::string& name, const std::string& where) {
  return core::find_by_name(backend_catalogue(), name, "attention backend", where);
}

const AttentionBackend& attention_backend_for(const Gpu& gpu, const std::vector<std::string>& preferences) {
  for (const auto& name : preferences) {
    const AttentionBackend& b = attention_backend(name, "attention backend");
    if (b.model == AttentionModel::kFlashAttention && b.runs_on_gpu(gpu.name)) return b;
  }
  for (const auto& b : backend_catalogue())
    if (b.model == AttentionModel::kFlashAttention && b.runs_on_gpu(gpu.name)) return b;
  return attention_backend("fa3", "attention backend");
}

}  // namespace hw
