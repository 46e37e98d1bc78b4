// libFuzzer target for what users type: a scenario file and `--set` overrides. An input is
// zero or more lines "--set /pointer=VALUE" followed by the scenario's JSON. Loading must either
// succeed or raise core::InputError, as the command line does; any other
// exception, crash, leak, undefined behaviour or runaway allocation is a finding.
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/input_error.hpp"
#include "studies/config/overrides.hpp"
#include "studies/run/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> sets;
  std::size_t pos = 0;
  while (text.compare(pos, 6, "--set ") == 0) {
    const std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) break;
    sets.push_back(text.substr(pos + 6, end - pos - 6));
    pos = end + 1;
  }
  try {
    nlohmann::json document = core::parse_json_text(text.substr(pos), "fuzz");
    studies::apply_overrides(document, sets);
    studies::parse_scenario(document, "fuzz");
  } catch (const core::InputError&) {}
  return 0;
}
