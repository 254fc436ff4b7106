// libFuzzer target: parse_usage, which reads an agent's untrusted stdout.
//
// Each input is parsed as every provider's output. Checked (usage.h): nothing
// crashes or overflows; token counts are non-negative; a cost is finite and
// non-negative.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/usage.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using orrery::AgentProvider;
  for (AgentProvider provider :
       {AgentProvider::kClaude, AgentProvider::kCursor, AgentProvider::kCodewith,
        AgentProvider::kCodex, AgentProvider::kAicopilot, AgentProvider::kOpencode,
        AgentProvider::kGemini}) {
    const orrery::Usage usage = orrery::parse_usage(provider, text);
    if (usage.input_tokens && *usage.input_tokens < 0) __builtin_trap();
    if (usage.output_tokens && *usage.output_tokens < 0) __builtin_trap();
    if (usage.cost_usd && (!std::isfinite(*usage.cost_usd) || *usage.cost_usd < 0)) {
      __builtin_trap();
    }
  }
  return 0;
}
