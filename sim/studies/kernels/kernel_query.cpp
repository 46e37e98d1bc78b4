#include "studies/kernels/kernel_query.hpp"

#include <algorithm>
#include <cmath>

#include "core/input_error.hpp"
#include "studies/report/joined.hpp"
#include "hw/attention_backend.hpp"
#include "hw/gemm_library.hpp"
#include "hw/memory_kernel.hpp"
#include "studies/report/report.hpp"

namespace studies {

namespace {

std::string integer(double x) { return format_number(x); }

// A GEMM library or attention backend named on a GPU its kernels do not run on.
[[noreturn]] void refuse_other_gpu(const std::string& where, const std::string& name, const hw::Gpu& gpu,
                                   const std::vector<std::string>& runs_on) {
  throw core::InputError(
      where, "'" + name + "' is not allowed on " + gpu.name + "; its kernels run on " + joined(runs_on, ", "));
}

int read_sms(core::JsonReader& r, const hw::Gpu& gpu) {
  return static_cast<int>(r.positive_integer("sms", gpu.sm_count, gpu.sm_count));
}

const hw::Gpu& read_gpu(core::JsonReader& r, const KernelDefaults& d) {
  const std::string name = r.has("gpu") ? r.string("gpu") : d.gpu;
  return hw::gpu_by_name(name, r.pointer_of("gpu"));
}

// A memory-bound op: the kind of kernel it is, the bytes it moves per element of its shape
// (BF16 in and out unless it casts), and its launches.
struct MemoryOp {
  std::string name;
  hw::MemoryKernelKind kind;
  double bytes_per_element;
  int launches;
};

const std::vector<MemoryOp>& memory_ops() {
  using K = hw::MemoryKernelKind;
  static const std::vector<MemoryOp> ops = {
      {"copy", K::kElementwise, 4, 1},  // read and write
      {"rmsnorm", K::kRowReduction, 4, 1},
      {"layernorm", K::kRowReduction, 4, 1},
      {"softmax", K::kRowReduction, 4, 1},
      {"silu-mul", K::kElementwise, 6, 1},          // per output element: gate and up read, one written
      {"silu-mul-eager", K::kElementwise, 10, 2},   // SiLU (read, write), then the product (two reads, a write)
      {"cast-bf16-fp8", K::kElementwise, 3, 1},     // a plain conversion, no scales
      {"cast", K::kCast, 3, 1},                     // to FP8 with per-row (1 x 128) scales
      {"cast-transpose", K::kCastTranspose, 4, 1},  // BF16 in, FP8 out row-wise and column-wise
      {"permute", K::kPermute, 4, 1},               // MoE rows gathered by index
  };
  return ops;
}

}  // namespace

const std::vector<std::string>& kernel_kinds() {
  static const std::vector<std::string> kinds = {"gemm", "grouped_gemm", "attention", "memory", "collective"};
  return kinds;
}

const std::vector<std::string>& memory_op_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& op : memory_ops()) out.push_back(op.name);
    return out;
  }();
  return names;
}

KernelEstimate estimate_gemm(core::JsonReader& r, const KernelDefaults& d, KernelCase& c) {
  const hw::Gpu& gpu = read_gpu(r, d);
  const int sms = read_sms(r, gpu);
  const bool grouped_row = c.kind == "grouped_gemm";  // the measurements' grouped GEMMs: m_per_group rows in each group
  hw::GemmShape s;
  s.kind = hw::gemm_kind_from_name(
      r.one_of("gemm_kind", hw::gemm_kind_names(), grouped_row ? "grouped-contiguous" : "dense"));
  s.m = static_cast<double>(r.positive_integer(grouped_row || r.has("m_per_group") ? "m_per_group" : "m", 1 << 24));
  s.n = static_cast<double>(r.positive_integer("n", 1 << 24));
  s.k = static_cast<double>(r.positive_integer("k", 1 << 24));
  s.groups = static_cast<int>(r.positive_integer("groups", 1, 4096));
  const std::string precision = r.one_of("precision", hw::gemm_precision_names(), "fp8");
  s.precision = static_cast<hw::GemmPrecision>(
      std::find(hw::gemm_precision_names().begin(), hw::gemm_precision_names().end(), precision) -
      hw::gemm_precision_names().begin());
  // The kernel model walks the output's tiles wave by wave: an output past 2^40 elements (a
  // million by a million) is no GEMM any layer runs, and would take it minutes.
  if (s.m * s.n * s.groups > double(1LL << 40))
    throw core::InputError(r.pointer_of("n"),
                           integer(s.m) + " x " + integer(s.n) +
                               (s.groups > 1 ? " x " + std::to_string(s.groups) + " groups" : std::string()) +
                               " output elements is not allowed; at most 2^40");
  if (s.kind == hw::GemmKind::kDense && s.groups > 1)
    throw core::InputError(
        r.pointer_of("groups"),
        std::to_string(s.groups) + " is not allowed for a dense GEMM; groups are for the grouped kinds");
  if (s.precision != hw::GemmPrecision::kBf16 && hw::dense_flops_per_s(gpu, s.precision) <= 0)
    throw core::InputError(r.pointer_of("precision"),
                           "'" + precision + "' is not allowed on " + gpu.name + ", which has no " +
                               (s.precision == hw::GemmPrecision::kFp8 ? "FP8" : "FP4") + " tensor cores");
  if (s.precision == hw::GemmPrecision::kFp8 && std::fmod(s.k, 128) != 0)
    throw core::InputError(r.pointer_of("k"),
                           integer(s.k) + " is not allowed; an FP8 GEMM with 1 x 128 scales needs K a multiple of 128");
  if (s.precision == hw::GemmPrecision::kFp4 && std::fmod(s.k, 16) != 0)
    throw core::InputError(
        r.pointer_of("k"),
        integer(s.k) + " is not allowed; an NVFP4 GEMM with a scale per 16 elements needs K a multiple of 16");
  const std::string library_field = r.has("library") ? r.string("library") : d.library;
  const hw::GemmLibrary& lib = library_field.empty() ? hw::default_gemm_library(s.precision, gpu.name)
                                                     : hw::gemm_library(library_field, r.pointer_of("library"));
  // FP4 is timed by an FP4 library's constants: a named one of another precision is refused.
  if (!library_field.empty() && (s.precision == hw::GemmPrecision::kFp4) != (lib.precision == hw::GemmPrecision::kFp4))
    throw core::InputError(r.pointer_of("library"),
                           "'" + lib.name + "' is not allowed with " + precision + "; its rows are " +
                               hw::gemm_precision_names()[static_cast<int>(lib.precision)] + " GEMMs");
  // The default library's constants time any GPU (an assumption, as a scenario's "default" does);
  // a library named runs only where its kernels ran.
  if (!library_field.empty() && !lib.runs_on_gpu(gpu.name))
    refuse_other_gpu(r.pointer_of("library"), lib.name, gpu, lib.runs_on);
  hw::require_gemm_kinds(lib, {s.kind}, r.pointer_of("library"));
  const hw::GemmTime t = hw::gemm_time(gpu, s, sms, lib.constants);
  const std::string kind_name = hw::gemm_kind_names()[static_cast<int>(s.kind)];
  c.description = integer(s.m) + " x " + integer(s.n) + " x " + integer(s.k) +
                  (s.groups > 1 ? ", " + std::to_string(s.groups) + " groups" : "") + " (" + kind_name + ", " +
                  precision + ")";
  if (c.family.empty()) c.family = std::string(s.kind == hw::GemmKind::kDense ? "gemm " : "grouped ") + precision;
  KernelEstimate e;
  e.model = lib.name;
  e.seconds = t.seconds;
  e.rate = s.flops() / t.seconds / 1e12;
  e.rate_unit = "TFLOPS";
  e.bound = t.bound();
  e.terms = {{"sms", sms},
             {"block_m", t.tiling.block_m},
             {"block_n", t.tiling.block_n},
             {"tiles", t.tiling.tiles},
             {"waves", t.tiling.waves},
             {"multicast", t.tiling.multicast},
             {"mma_s", t.mma_s},
             {"l2_s", t.l2_s},
             {"fixed_s", t.fixed_s},
             {"hbm_floor_s", t.hbm_floor_s},
             {"flops", s.flops()}};
  return e;
}

KernelEstimate estimate_attention(core::JsonReader& r, const KernelDefaults& d, KernelCase& c) {
  const hw::Gpu& gpu = read_gpu(r, d);
  const int sms = read_sms(r, gpu);
  hw::AttentionShape s;
  s.batch = static_cast<double>(r.positive_integer("batch", 1, 1 << 24));
  s.heads = static_cast<double>(r.positive_integer("heads", 4096));
  s.kv_heads = static_cast<double>(r.positive_integer("kv_heads", static_cast<long long>(s.heads), 4096));
  if (std::fmod(s.heads, s.kv_heads) != 0)
    throw core::InputError(
        r.pointer_of("kv_heads"),
        integer(s.kv_heads) + " is not allowed; KV heads must divide the " + integer(s.heads) + " query heads");
  if (r.has("seq")) {
    s.queries = s.keys = static_cast<double>(r.positive_integer("seq", 1 << 24));
  } else {
    s.keys = static_cast<double>(r.positive_integer("kv_len", 1 << 24));
    s.queries = static_cast<double>(r.positive_integer("q_len", static_cast<long long>(s.keys), 1 << 24));
  }
  s.qk_dim = static_cast<double>(r.positive_integer("head_dim", 1024));
  s.v_dim = static_cast<double>(r.positive_integer("v_head_dim", static_cast<long long>(s.qk_dim), 1024));
  s.causal = r.boolean("causal", false);
  if (s.causal && s.queries > s.keys)
    throw core::InputError(r.pointer_of("q_len"),
                           integer(s.queries) +
                               " is not allowed under a causal mask; the queries are the last of the " +
                               integer(s.keys) + " keys");
  const std::string pass_key = r.has("pass_") ? "pass_" : "pass";
  std::string pass = r.one_of(pass_key, {"forward", "backward", "both", "forward+backward"}, "forward");
  if (pass == "both") pass = "forward+backward";
  const std::optional<std::string> row_backend = r.optional_string("backend");
  const std::string named_backend = !d.backend.empty() ? d.backend : row_backend.value_or("");
  const hw::AttentionBackend& b = hw::attention_backend(
      !named_backend.empty() ? named_backend : hw::attention_backend_for(gpu).name, r.pointer_of("backend"));
  // The GPU's own backend times it; a backend named runs only where its kernels ran or where its
  // datasheet scales them to.
  if (!named_backend.empty() && !b.runs_on_gpu(gpu.name)) {
    std::vector<std::string> on = b.runs_on;
    on.insert(on.end(), b.scaled_to.begin(), b.scaled_to.end());
    refuse_other_gpu(r.pointer_of("backend"), b.name, gpu, on);
  }
  // FlashAttention-class kernels (and the decode kernels beside them) are built for head dims in
  // multiples of 8 up to 256; FlashMLA's latent is its own (checked below).
  if (b.model != hw::AttentionModel::kFlashMlaDecode)
    for (const auto& [key, dim] : {std::pair{"head_dim", s.qk_dim}, std::pair{"v_head_dim", s.v_dim}})
      if (std::fmod(dim, 8) != 0 || dim > 256)
        throw core::InputError(r.pointer_of(key), integer(dim) + " is not allowed with " + b.name +
                                                      "; its kernels take head dims in multiples of 8, at most 256");
  // A decode kernel named alone reads each sequence's KV cache for one new token: a longer query
  // runs on a FlashAttention-class backend.
  if (b.model == hw::AttentionModel::kDecode && s.queries != 1)
    throw core::InputError(r.pointer_of(r.has("seq") ? "seq" : "q_len"),
                           integer(s.queries) + " is not allowed with " + b.name +
                               "; a decode kernel times one query token a sequence (q_len 1)");
  c.description = "batch " + integer(s.batch) + ", " + integer(s.heads) + " heads (" + integer(s.kv_heads) + " KV), " +
                  integer(s.queries) + " x " + integer(s.keys) + ", head dim " + integer(s.qk_dim) +
                  (s.v_dim != s.qk_dim ? "/" + integer(s.v_dim) : "") + (s.causal ? ", causal" : "") + ", " + pass;
  if (c.family.empty()) c.family = "attention " + row_backend.value_or(b.name) + " " + pass;
  const double flops = s.forward_flops() * (pass == "forward" ? 1.0 : pass == "backward" ? 2.5 : 3.5);
  KernelEstimate e;
  e.model = b.name;
  e.rate_unit = "TFLOPS";
  if (b.model == hw::AttentionModel::kFlashMlaDecode) {
    if (pass != "forward")
      throw core::InputError(r.pointer_of(pass_key),
                             "'" + pass + "' is not allowed; " + b.name + " times the decode forward pass only");
    // Its kernel is MLA's absorbed decode: every query head over one latent of 512 + 64 RoPE dims.
    if (s.kv_heads != 1 || s.qk_dim != 576)
      throw core::InputError(
          r.pointer_of(s.kv_heads != 1 ? "kv_heads" : "head_dim"),
          integer(s.kv_heads) + " KV heads of head dim " + integer(s.qk_dim) + " is not allowed with " + b.name +
              "; it times MLA's decode: one KV head (the latent) of head dim 576 (512 + 64 RoPE), value head dim 512");
    // The cache: each KV head's latent (head_dim wide, its values inside it) read once.
    const double kv_bytes = 2 * s.batch * s.kv_heads * s.keys * s.qk_dim;
    e.seconds = hw::flash_mla_decode_seconds(gpu, kv_bytes, flops, b.mla);
    const double memory_s = kv_bytes / (gpu.hbm_bandwidth_Bps * b.mla.hbm_share);
    e.bound = memory_s >= e.seconds ? "memory" : "compute";
    e.terms = {{"kv_bytes", kv_bytes},
               {"memory_s", memory_s},
               {"compute_s", flops / (gpu.bf16_dense_flops_per_s * b.mla.bf16_share)},
               {"flops", flops}};
  } else if (b.model == hw::AttentionModel::kDecode ||
             (b.decode.valid() && pass == "forward" && hw::queries_fit_one_tile(s, b.flash))) {
    // Decode: the queries of a KV head fit one query tile (FlashAttention's own test), so the
    // engine's decode kernel runs it; a decode kernel named alone times nothing else.
    if (pass != "forward")
      throw core::InputError(r.pointer_of(pass_key),
                             "'" + pass + "' is not allowed; " + b.name + " times the decode forward pass only");
    const double kv_bytes = 2 * s.batch * s.kv_heads * s.keys * (s.qk_dim + s.v_dim);  // 16-bit keys and values
    const hw::DecodeAttentionShape shape{s.batch, s.kv_heads, s.keys, kv_bytes};
    const hw::DecodeAttentionTime t = b.model == hw::AttentionModel::kDecode
                                          ? hw::decode_attention_time(gpu, shape, sms, b.decode)
                                          : hw::backend_decode_time(gpu, b, shape, flops, sms);
    if (b.model != hw::AttentionModel::kDecode) e.model = b.name + " (decode: " + b.decode_kernel + ")";
    e.seconds = t.seconds;
    e.bound = t.bound();
    e.terms = {{"sms", sms},
               {"units", t.units},
               {"splits", t.splits},
               {"waves", t.waves},
               {"stream_s", t.stream_s},
               {"fixed_s", t.fixed_s},
               {"compute_s", t.compute_s},
               {"kv_bytes", kv_bytes},
               {"flops", flops}};
  } else {
    const bool forward = pass != "backward", backward = pass != "forward";
    hw::AttentionTime f, g;
    if (forward) f = hw::flash_attention_time(gpu, s, sms, false, b.flash);
    if (backward) g = hw::flash_attention_time(gpu, s, sms, true, b.flash);
    e.seconds = f.seconds + g.seconds;
    const hw::AttentionTime& main = g.seconds > f.seconds ? g : f;
    e.bound = main.bound();
    e.terms = {{"sms", sms},
               {"ctas", main.ctas},
               {"waves", main.waves},
               {"key_tiles", main.key_tiles},
               {"splits", main.splits},
               {"packed_gqa", main.packed_gqa ? 1 : 0},
               {"mma_s", f.mma_s + g.mma_s},
               {"softmax_s", f.softmax_s + g.softmax_s},
               {"fixed_s", f.fixed_s + g.fixed_s},
               {"hbm_floor_s", f.hbm_floor_s + g.hbm_floor_s},
               {"flops", flops}};
    if (forward && backward) e.terms.insert(e.terms.begin(), {{"forward_s", f.seconds}, {"backward_s", g.seconds}});
  }
  e.rate = flops / e.seconds / 1e12;
  return e;
}

KernelEstimate estimate_memory(core::JsonReader& r, const KernelDefaults& d, KernelCase& c) {
  const hw::Gpu& gpu = read_gpu(r, d);
  const std::string name = r.one_of("op", memory_op_names());
  const MemoryOp& op =
      *std::find_if(memory_ops().begin(), memory_ops().end(), [&](const MemoryOp& o) { return o.name == name; });
  double bytes = 0;
  std::string shape;
  // One of the ways to give the op's size: two would disagree.
  int sizes = 0;
  for (const char* key : {"bytes", "bytes_moved", "shape", "elements"}) sizes += r.has(key) ? 1 : 0;
  if (sizes > 1)
    throw core::InputError(
        r.pointer_of(r.has("shape") ? "shape" : "elements"),
        "is not allowed beside bytes (or another size); give the op's size one way: bytes, shape, elements, or tokens and hidden");
  if (r.has("bytes") || r.has("bytes_moved")) {
    const std::string key = r.has("bytes") ? "bytes" : "bytes_moved";
    bytes = r.number_in(key, 1, 1e15);  // a PB: past any GPU's memory
    if (bytes != std::floor(bytes))
      throw core::InputError(r.pointer_of(key), format_number(bytes) + " is not allowed; whole bytes");
    shape = format_number(bytes) + " bytes";
  } else if (r.has("shape")) {  // "4096x7168": elements of the op's input
    const std::string text = r.string("shape");
    double elements = 1;
    size_t start = 0;
    for (size_t end = 0; end != std::string::npos; start = end + 1) {
      end = text.find('x', start);
      const std::string part = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
      if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 9 ||
          std::stod(part) < 1)
        throw core::InputError(r.pointer_of("shape"),
                               "'" + text + "' is not allowed; dimensions of at least 1 joined by x, as 4096x7168");
      elements *= std::stod(part);
    }
    if (elements > double(1LL << 40))
      throw core::InputError(r.pointer_of("shape"), "'" + text + "' is not allowed: " + format_number(elements) +
                                                        " elements; at most 2^40 (as elements)");
    bytes = elements * op.bytes_per_element;
    shape = text;
  } else if (r.has("elements")) {
    const double elements = static_cast<double>(r.positive_integer("elements", 1LL << 40));
    bytes = elements * op.bytes_per_element;
    shape = integer(elements) + " elements";
  } else {
    if (!r.has("tokens"))
      throw core::InputError(r.pointer_of("bytes"),
                             "missing; give the op's size: bytes, shape, elements, or tokens and hidden");
    const double tokens = static_cast<double>(r.positive_integer("tokens", 1 << 24));
    const std::string width = r.has("ffn") ? "ffn" : "hidden";
    const double columns = static_cast<double>(r.positive_integer(width, 1 << 24));
    bytes = tokens * columns * op.bytes_per_element;
    shape = integer(tokens) + " x " + integer(columns);
  }
  const hw::MemoryKernelModel& model = hw::memory_kernels_for(gpu);
  const hw::MemoryKernelRate& rate = model.rate(op.kind);
  const std::string kind_name = hw::memory_kernel_kind_names()[static_cast<int>(op.kind)];
  KernelEstimate e;
  e.model =
      kind_name + " (" + model.name + (model.borrowed[static_cast<int>(op.kind)] ? ", Hopper's fraction" : "") + ")";
  e.seconds = model.seconds(op.kind, bytes, gpu.hbm_bandwidth_Bps, op.launches);
  e.rate = bytes / e.seconds / 1e9;
  e.rate_unit = "GB/s";
  const double floor_s = op.launches * rate.floor_s;
  e.bound = floor_s > e.seconds / 2 ? "launch" : "memory";
  e.terms = {{"bytes", bytes}, {"launches", op.launches}, {"floor_s", floor_s}, {"hbm_fraction", rate.hbm_fraction}};
  c.description = name + ", " + shape;
  if (c.family.empty()) c.family = "memory " + name;
  return e;
}

}  // namespace studies
