// libFuzzer target for the request-trace readers, built once per format (CODESIM_FUZZ_TRACE_FORMAT:
// kAzureCsv or kMooncakeJsonl). An input is a trace file's text. Reading must either give requests
// or raise core::InputError naming the line; any other exception, crash, leak, undefined
// behaviour or runaway allocation is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/input_error.hpp"
#include "serving/request_trace.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  serving::TraceWindow window;
  window.max_requests = 100000;     // far more lines than an input holds: the limit is not what is tested
  window.max_line_bytes = 1 << 16;  // still past any input's lines; a megabyte buffer each input slows the fuzzer
  try {
    serving::parse_trace(text, serving::TraceFormat::CODESIM_FUZZ_TRACE_FORMAT, "fuzz", window);
  } catch (const core::InputError&) {}
  return 0;
}
