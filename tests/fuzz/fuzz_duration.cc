// libFuzzer target: parse_duration and format_duration.
//
// Checked (duration.h): a parsed duration is >= 0 (> 0 when zero is rejected),
// and format_duration of it parses back to the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/duration.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  if (size > 256) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const auto zero : {orrery::ZeroDuration::kAllowed, orrery::ZeroDuration::kRejected}) {
    auto parsed = orrery::parse_duration(text, zero);
    if (!parsed) continue;
    if (*parsed < 0) __builtin_trap();
    if (*parsed == 0 && zero == orrery::ZeroDuration::kRejected) __builtin_trap();
    const std::string formatted = orrery::format_duration(*parsed);
    auto again = orrery::parse_duration(formatted, orrery::ZeroDuration::kAllowed);
    if (!again || *again != *parsed) __builtin_trap();
  }
  return 0;
}
