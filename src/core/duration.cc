#include "core/duration.h"

#include <array>
#include <cstdint>
#include <limits>

#include "core/text.h"

namespace orrery {
namespace {

struct Unit {
  std::string_view suffix;
  DurationMs ms;
};

// Largest first: the order components must follow, and the order of output.
constexpr std::array<Unit, 5> kUnits{
    {{"d", 86'400'000}, {"h", 3'600'000}, {"m", 60'000}, {"s", 1'000}, {"ms", 1}}};

constexpr std::string_view kAccepted =
    "expected a number with a unit ms, s, m, h or d (e.g. 500ms, 30s, 15m, 1h30m) or bare "
    "milliseconds";

Error invalid(std::string_view text, std::string_view why) {
  return usage_error("invalid duration '" + std::string(text) + "': " + std::string(why));
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Index into kUnits of the unit at the start of `rest`, or -1.
int read_unit(std::string_view rest, size_t* length) {
  // "ms" before "m": the longest suffix wins.
  if (rest.substr(0, 2) == "ms") {
    *length = 2;
    return 4;
  }
  for (size_t i = 0; i < kUnits.size(); ++i) {
    if (!rest.empty() && rest.substr(0, 1) == kUnits[i].suffix) {
      *length = 1;
      return int(i);
    }
  }
  return -1;
}

// Whole and fractional digits of one component, as a value in units of
// 10^-fraction_digits.
struct Number {
  std::int64_t scaled = 0;
  int fraction_digits = 0;
};

bool read_number(std::string_view text, size_t* pos, Number* number) {
  const size_t start = *pos;
  bool in_fraction = false;
  while (*pos < text.size() && (is_digit(text[*pos]) || (text[*pos] == '.' && !in_fraction))) {
    if (text[*pos] == '.') {
      in_fraction = true;
    } else {
      if (in_fraction && number->fraction_digits == 9) return false;  // far finer than 1 ms
      if (__builtin_mul_overflow(number->scaled, 10, &number->scaled) ||
          __builtin_add_overflow(number->scaled, text[*pos] - '0', &number->scaled)) {
        return false;
      }
      if (in_fraction) ++number->fraction_digits;
    }
    ++*pos;
  }
  return *pos > start && text[*pos - 1] != '.' && text[start] != '.';
}

}  // namespace

Result<DurationMs> parse_duration(std::string_view raw, ZeroDuration zero) {
  const std::string_view text = trim(raw);
  if (text.empty()) return invalid(raw, kAccepted);
  if (text.front() == '-') return invalid(raw, "a duration cannot be negative");

  DurationMs total = 0;
  size_t pos = 0;
  int previous_unit = -1;
  int components = 0;
  bool had_fraction = false;
  while (pos < text.size()) {
    Number number;
    if (!read_number(text, &pos, &number)) {
      if (pos < text.size() && !is_digit(text[pos]) && text[pos] != '.') {
        return invalid(raw, kAccepted);
      }
      return invalid(raw, "the number is malformed, too precise or too large");
    }
    size_t unit_length = 0;
    int unit =
        pos == text.size() && components == 0 ? 4 : read_unit(text.substr(pos), &unit_length);
    if (unit < 0 && pos == text.size()) {
      return invalid(raw, "the last number has no unit; " + std::string(kAccepted));
    }
    if (unit < 0) {
      return invalid(
          raw, "unknown unit '" + std::string(text.substr(pos)) + "'; " + std::string(kAccepted));
    }
    if (unit <= previous_unit) {
      return invalid(raw, "units must go from largest to smallest, each at most once (e.g. 1h30m)");
    }
    pos += unit_length;
    had_fraction = had_fraction || number.fraction_digits > 0;
    previous_unit = unit;
    ++components;

    std::int64_t divisor = 1;
    for (int i = 0; i < number.fraction_digits; ++i) divisor *= 10;
    DurationMs part = 0;
    if (__builtin_mul_overflow(number.scaled, kUnits[size_t(unit)].ms, &part) ||
        __builtin_add_overflow(total, part / divisor, &total)) {
      return invalid(raw, "too large: at most " +
                              std::to_string(std::numeric_limits<DurationMs>::max()) + "ms");
    }
    if (part % divisor != 0) return invalid(raw, "finer than one millisecond");
  }
  if (had_fraction && components > 1) {
    return invalid(raw, "a decimal is allowed only in a single-unit duration such as 1.5h");
  }
  if (total == 0 && zero == ZeroDuration::kRejected) {
    return invalid(raw, "must be greater than zero");
  }
  return total;
}

Result<DurationMs> parse_duration_option(std::string_view text, std::string_view option,
                                         DurationMs maximum, ZeroDuration zero) {
  auto parsed = parse_duration(text, zero);
  if (!parsed) return usage_error(std::string(option) + ": " + parsed.error().message);
  if (*parsed > maximum) {
    return usage_error(std::string(option) + " " + visible(trim(text)) +
                       " is longer than the maximum of " + format_duration(maximum));
  }
  return parsed;
}

std::string format_duration(DurationMs duration) {
  if (duration == 0) return "0s";
  std::string out;
  if (duration < 0) {
    out = "-";
    duration = duration == std::numeric_limits<DurationMs>::min()
                   ? std::numeric_limits<DurationMs>::max()
                   : -duration;
  }
  for (const Unit& unit : kUnits) {
    const DurationMs count = duration / unit.ms;
    if (count == 0) continue;
    out += std::to_string(count);
    out += unit.suffix;
    duration -= count * unit.ms;
  }
  return out;
}

}  // namespace orrery

namespace orrery {

std::string format_relative(TimeMs time, TimeMs now) {
  const DurationMs delta = time > now ? time - now : now - time;
  if (delta < 1000) return "now";
  // Keep the two largest units, at second precision.
  DurationMs rounded = delta / 1000 * 1000;
  for (size_t i = 0; i + 2 < kUnits.size(); ++i) {
    if (rounded >= kUnits[i].ms) {
      rounded = rounded / kUnits[i + 1].ms * kUnits[i + 1].ms;
      break;
    }
  }
  const std::string text = format_duration(rounded);
  return time > now ? "in " + text : text + " ago";
}

}  // namespace orrery
