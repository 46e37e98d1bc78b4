#include "studies/kernels/study_attention_kernels.hpp"

#include <cmath>

#include "core/input_error.hpp"
#include "studies/report/joined.hpp"
#include "hw/attention_backend.hpp"

namespace studies {

namespace {

struct Case {
  std::string pass;  // forward or backward
  hw::AttentionShape shape;
};

std::string constants_note(const hw::FlashAttentionCalibration& c) {
  return "forward K loop at " + format_number(c.mma_efficiency) + " of the per-SM BF16 peak, softmax " +
         format_number(c.softmax_s_per_score * 1e12) + " ps per score element of a tile (" +
         (c.overlap_softmax ? "overlapped with the tensor cores" : "after the tensor cores, not overlapped") + "), " +
         format_number(c.tile_s * 1e6) + " us per key tile, " + format_number(c.cta_s * 1e6) + " us per CTA, " +
         format_number(c.mask_s_per_score * 1e12) + " ps per score element on diagonal tiles; backward " +
         format_number(c.backward_mma_efficiency) + ", " + format_number(c.backward_tile_s * 1e6) + " us per tile, " +
         format_number(c.backward_cta_s * 1e6) + " us per CTA";
}

class AttentionKernelsStudy : public Study {
 public:
  const hw::Gpu* gpu = nullptr;
  int sms = 0;
  std::vector<Case> cases;
  const hw::AttentionBackend* backend = nullptr;  // a backend's own rows, against its fit

  StudyResult run(const RunOptions&) const override {
    StudyResult r;
    if (backend) {
      backend_rows(r);
      return r;
    }
    for (const auto& [pass, s] : cases) {
      const bool forward = pass == "forward";
      const double seconds = forward ? hw::flash_attention_forward_seconds(*gpu, s, sms)
                                     : hw::flash_attention_backward_seconds(*gpu, s, sms);
      const double flops = s.forward_flops() * (forward ? 1.0 : 2.5);
      const std::string mask = s.causal ? "causal" : "full";
      const std::string dim = format_number(s.qk_dim), seq = format_number(s.keys);
      r.rows.push_back({"fa3-" + pass + "/" + dim + "/" + mask + "/" + seq,
                        "FlashAttention-3 " + pass + ", head dim " + dim + ", " + mask + ", " + seq + " tokens",
                        "BF16 attention rate (" + format_number(s.batch) + " x " + format_number(s.heads) + " heads)",
                        "TFLOPS", std::nullopt, flops / seconds / 1e12, Basis::kSimulated});
    }
    const auto& c = hw::flash_attention_3_on_hopper();
    r.notes.push_back(
        "Batch x sequence = 16,384 tokens and heads x head dim = 2048, as the FlashAttention-3 paper measures, on " +
        std::to_string(sms) + " SMs of an " + gpu->name +
        ". FLOPs as the paper counts them (4 x sequence^2 x heads x head dim "
        "forward, half of it causal; 2.5 times that backward). The kernel model's constants, fitted once to all these rows: " +
        constants_note(c) + ".");
    return r;
  }

  // A decode kernel's rows: shares of the measuring GPU's HBM, its fitted rows and its checks.
  void decode_rows(StudyResult& r) const {
    const hw::AttentionBackend& b = *backend;
    hw::Gpu measuring = *b.measured_on;
    measuring.hbm_bandwidth_Bps = b.rows_hbm_Bps;
    auto add = [&](const hw::DecodeAttentionMeasurement& row, Basis basis) {
      const hw::DecodeAttentionShape& s = row.shape;
      r.rows.push_back({b.name + "/" + format_number(s.sequences) + "/" + format_number(row.heads) + "x" +
                            format_number(s.kv_heads) + "/" + format_number(s.context_tokens),
                        b.name + ", batch " + format_number(s.sequences) + ", " + format_number(s.context_tokens) +
                            " tokens of context (" + b.measured_on->name + ")",
                        std::string(basis == Basis::kFit ? "" : "predicted, ") + "KV read at a share of HBM (" +
                            format_number(row.heads) + " heads on " + format_number(s.kv_heads) + " KV heads of " +
                            format_number(row.head_dim) + ")",
                        "%", row.hbm_share * 100, hw::decode_attention_share(measuring, row, b.decode) * 100, basis});
    };
    for (const auto& row : b.decode_rows) add(row, Basis::kFit);
    for (const auto& row : b.decode_checks) add(row, Basis::kSimulated);
    const std::string fitted = joined(b.fitted, ", "), held = joined(b.held, ", "), scaled = joined(b.scaled_to, ", ");
    const hw::DecodeAttentionCalibration& c = b.decode;
    r.notes.push_back(b.name + ": " + b.description + " Source: " + b.source + ".");
    r.notes.push_back(
        b.name + ": on all " + std::to_string(b.measured_on->sm_count) + " SMs of an " + b.measured_on->name + " at " +
        format_number(b.rows_hbm_Bps / 1e9) +
        " GB/s; a row's share is its keys' and values' bytes (16-bit) over its time. Constants fitted to these " +
        std::to_string(b.decode_rows.size()) + " rows (" + fitted + "; RMS error of the log share " +
        format_number(std::round(b.fit_rms_log_error * 1000) / 1000) + ")" +
        (held.empty() ? "" : ", held from " + b.held_from + "'s fit: " + held + " (" + b.held_why + ")") + ": " +
        format_number(std::round(c.launch_s * 1e8) / 100) + " us a call, " +
        format_number(std::round(c.merge_s * 1e8) / 100) + " us to merge a split call's parts, " +
        format_number(std::round(c.unit_s * 1e8) / 100) +
        " us a unit (a sequence's KV head, or a split of it) and SM, HBM at " +
        format_number(std::round(c.hbm_share * 1000) / 1000) + " of the GPU's, an SM streaming at most " +
        format_number(std::round(c.sm_stream_share * 100) / 100) +
        " times its even share; keys split in chunks of at least " + format_number(c.split_tokens) + " tokens." +
        (scaled.empty() ? "" : " No rows of their own, these constants scaled by the datasheet: " + scaled + "."));
  }

  void backend_rows(StudyResult& r) const {
    const hw::AttentionBackend& b = *backend;
    if (b.model == hw::AttentionModel::kDecode) return decode_rows(r);
    for (const auto& row : b.rows) {
      const hw::AttentionShape& s = row.shape;
      const std::string mask = s.causal ? "causal" : "full";
      const std::string dim = format_number(s.qk_dim), seq = format_number(s.keys);
      r.rows.push_back({b.name + "-" + row.pass + "/" + dim + "/" + mask + "/" + seq + "/" + format_number(s.batch) +
                            "x" + format_number(s.heads),
                        b.name + " " + row.pass + ", head dim " + dim + ", " + mask + ", " + seq + " tokens (" +
                            b.measured_on->name + ")",
                        "attention rate (" + format_number(s.batch) + " x " + format_number(s.heads) + " heads)",
                        "TFLOPS", row.tflops, hw::attention_rate_tflops(*b.measured_on, row, b.flash), Basis::kFit});
    }
    const std::string fitted = joined(b.fitted, ", "), scaled = joined(b.scaled_to, ", ");
    r.notes.push_back(b.name + ": " + b.description + " Source: " + b.source + ".");
    r.notes.push_back(
        b.name + ": on all " + std::to_string(b.measured_on->sm_count) + " SMs of an " + b.measured_on->name +
        "; FLOPs as the sources count them (4 x sequence^2 x heads x head dim forward, half of it causal; 2.5 times that "
        "backward; a forward+backward row's rate is 3.5 times the forward's FLOPs over both passes' time). Constants fitted to these " +
        std::to_string(b.rows.size()) + " rows (" + fitted + "; RMS error of the log rate " +
        format_number(std::round(b.fit_rms_log_error * 1000) / 1000) +
        "), the rest as its base: " + constants_note(b.flash) + "." +
        (scaled.empty() ? "" : " No rows of their own, these constants scaled by the datasheet: " + scaled + "."));
  }
};

}  // namespace

std::unique_ptr<Study> parse_attention_kernels_study(core::JsonReader& root) {
  auto s = std::make_unique<AttentionKernelsStudy>();
  s->gpu = &hw::gpu_by_name(root.one_of("gpu", hw::gpu_names(), "H100"), root.pointer_of("gpu"));
  core::JsonReader a = root.object("attention_kernels");
  if (a.has("backend")) {
    const hw::AttentionBackend& b = hw::attention_backend(a.string("backend"), a.pointer_of("backend"));
    if (b.rows.empty() && b.decode_rows.empty())
      throw core::InputError(
          a.pointer_of("backend"),
          "'" + b.name + "' is not allowed; it carries no published rates to compare (give cases instead)");
    s->backend = &b;
    a.finish();
    return s;
  }
  s->sms = static_cast<int>(a.positive_integer("sms", s->gpu->sm_count, s->gpu->sm_count));
  const double tokens = static_cast<double>(a.positive_integer("tokens", 16384, 1 << 24));
  const double width = static_cast<double>(a.positive_integer("heads_x_head_dim", 2048, 1 << 20));
  for (auto& item : a.object_list("cases", "attention cases")) {
    Case c;
    c.pass = item.one_of("pass", {"forward", "backward"});
    c.shape.qk_dim = c.shape.v_dim = static_cast<double>(item.positive_integer("head_dim", 512));
    c.shape.causal = item.one_of("mask", {"causal", "full"}) == "causal";
    c.shape.keys = c.shape.queries = static_cast<double>(item.positive_integer("sequence", 1 << 20));
    item.finish();
    if (std::fmod(tokens, c.shape.keys) != 0 || std::fmod(width, c.shape.qk_dim) != 0)
      throw core::InputError(item.pointer(),
                             "the sequence must divide /attention_kernels/tokens and the head dim heads_x_head_dim");
    c.shape.batch = tokens / c.shape.keys;
    c.shape.heads = width / c.shape.qk_dim;
    s->cases.push_back(c);
  }
  a.finish();
  return s;
}

}  // namespace studies
