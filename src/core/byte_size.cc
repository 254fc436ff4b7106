#include "core/byte_size.h"

#include <array>
#include <cctype>

#include "core/text.h"

namespace orrery {
namespace {

struct SizeUnit {
  std::string_view name;
  std::int64_t bytes;
};

constexpr std::array<SizeUnit, 10> kSizeUnits{{{"b", 1},
                                               {"kb", 1000},
                                               {"mb", 1000'000},
                                               {"gb", 1000'000'000},
                                               {"tb", 1000'000'000'000},
                                               {"kib", 1LL << 10},
                                               {"mib", 1LL << 20},
                                               {"gib", 1LL << 30},
                                               {"tib", 1LL << 40},
                                               {"", 1}}};

constexpr std::string_view kAccepted =
    "expected a whole number of bytes with an optional unit B, kB, MB, GB, KiB, MiB or GiB "
    "(e.g. 512KiB, 64MiB, 1GB)";

Error invalid(std::string_view text, std::string_view why) {
  return usage_error("invalid size '" + visible(text) + "': " + std::string(why));
}

std::string lower(std::string_view text) {
  std::string out;
  for (char c : text) out += char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<std::int64_t> parse_byte_size(std::string_view raw) {
  const std::string_view text = trim(raw);
  size_t digits = 0;
  std::int64_t number = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    if (__builtin_mul_overflow(number, 10, &number) ||
        __builtin_add_overflow(number, text[digits] - '0', &number)) {
      return invalid(raw, "too large");
    }
    ++digits;
  }
  if (digits == 0) return invalid(raw, kAccepted);
  const std::string unit = lower(trim(text.substr(digits)));
  for (const SizeUnit& candidate : kSizeUnits) {
    if (candidate.name != unit) continue;
    std::int64_t bytes = 0;
    if (__builtin_mul_overflow(number, candidate.bytes, &bytes)) return invalid(raw, "too large");
    if (bytes == 0) return invalid(raw, "must be greater than zero");
    return bytes;
  }
  return invalid(raw,
                 "unknown unit '" + visible(text.substr(digits)) + "'; " + std::string(kAccepted));
}

Result<std::int64_t> parse_byte_size_option(std::string_view text, std::string_view option,
                                            std::int64_t minimum, std::int64_t maximum) {
  auto parsed = parse_byte_size(text);
  if (!parsed) return usage_error(std::string(option) + ": " + parsed.error().message);
  if (*parsed < minimum || *parsed > maximum) {
    return usage_error(std::string(option) + " " + visible(trim(text)) + " is out of range " +
                       format_byte_size(minimum) + " to " + format_byte_size(maximum));
  }
  return parsed;
}

std::string format_byte_size(std::int64_t bytes) {
  constexpr std::array<SizeUnit, 4> kLargestFirst{
      {{"TiB", 1LL << 40}, {"GiB", 1LL << 30}, {"MiB", 1LL << 20}, {"KiB", 1LL << 10}}};
  for (const SizeUnit& unit : kLargestFirst) {
    if (bytes > 0 && bytes % unit.bytes == 0) {
      return std::to_string(bytes / unit.bytes) + std::string(unit.name);
    }
  }
  return std::to_string(bytes) + "B";
}

}  // namespace orrery
