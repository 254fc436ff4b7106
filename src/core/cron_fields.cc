#include "core/cron_fields.h"

#include <algorithm>
#include <charconv>
#include <vector>

#include "core/civil.h"
#include "core/text.h"

namespace orrery {
namespace {

struct FieldSpec {
  const char* name;
  int min;
  int max;
  // Names for values min.. (month: jan = 1; weekday: sun = 0), or empty.
  std::vector<std::string_view> names;
};

const FieldSpec kMinute{"minute", 0, 59, {}};
const FieldSpec kHour{"hour", 0, 23, {}};
const FieldSpec kDayOfMonth{"day-of-month", 1, 31, {}};
const FieldSpec kMonth{
    "month",
    1,
    12,
    {"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}};
// 7 is accepted as Sunday and folded to 0 after parsing.
const FieldSpec kDayOfWeek{"day-of-week", 0, 7, {"sun", "mon", "tue", "wed", "thu", "fri", "sat"}};

struct Macro {
  std::string_view name;
  std::string_view expansion;
};
constexpr Macro kMacros[] = {{"@yearly", "0 0 1 1 *"},  {"@annually", "0 0 1 1 *"},
                             {"@monthly", "0 0 1 * *"}, {"@weekly", "0 0 * * 0"},
                             {"@daily", "0 0 * * *"},   {"@midnight", "0 0 * * *"},
                             {"@hourly", "0 * * * *"}};

// Parsing one field of one expression; errors quote both.
class FieldParser {
 public:
  FieldParser(const FieldSpec& spec, std::string_view expression)
      : spec_(spec), expression_(expression) {}

  Result<std::uint64_t> parse(std::string_view field) {
    std::uint64_t bits = 0;
    size_t start = 0;
    while (true) {
      const size_t comma = field.find(',', start);
      const std::string_view part = field.substr(start, comma - start);
      auto part_bits = parse_part(part);
      if (!part_bits) return part_bits.error();
      bits |= *part_bits;
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
    return bits;
  }

 private:
  Error error(const std::string& what) const {
    return usage_error(what + " in '" + std::string(expression_) + "'");
  }

  std::string accepted_range() const {
    return std::to_string(spec_.min) + "-" + std::to_string(spec_.max);
  }

  Result<int> parse_value(std::string_view text) const {
    if (text.empty()) return error(std::string(spec_.name) + " has an empty value");
    int value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec == std::errc() && end == text.data() + text.size()) {
      if (value < spec_.min || value > spec_.max) {
        return error(std::string(spec_.name) + " " + std::string(text) + " out of range " +
                     accepted_range());
      }
      return value;
    }
    std::string lower(text);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    for (size_t i = 0; i < spec_.names.size(); ++i) {
      if (spec_.names[i] == lower) return int(i) + (spec_.min == 1 ? 1 : 0);
    }
    std::string expected = "a number " + accepted_range();
    if (!spec_.names.empty()) {
      expected +=
          " or a name " + std::string(spec_.names.front()) + "-" + std::string(spec_.names.back());
    }
    return error(std::string(spec_.name) + " value '" + std::string(text) + "' is not " + expected);
  }

  Result<int> parse_step(std::string_view text) const {
    int step = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), step);
    if (ec != std::errc() || end != text.data() + text.size() || step < 1 || step > spec_.max) {
      return error(std::string(spec_.name) + " step '" + std::string(text) + "' out of range 1-" +
                   std::to_string(spec_.max));
    }
    return step;
  }

  Result<std::uint64_t> parse_part(std::string_view part) const {
    if (part.empty()) return error(std::string(spec_.name) + " has an empty list item");
    const size_t slash = part.find('/');
    const std::string_view range = part.substr(0, slash);
    int step = 1;
    if (slash != std::string_view::npos) {
      auto parsed = parse_step(part.substr(slash + 1));
      if (!parsed) return parsed.error();
      step = *parsed;
    }
    int lo = spec_.min;
    int hi = spec_.max;
    if (range != "*") {
      const size_t dash = range.find('-');
      auto first = parse_value(range.substr(0, dash));
      if (!first) return first.error();
      lo = *first;
      if (dash != std::string_view::npos) {
        auto last = parse_value(range.substr(dash + 1));
        if (!last) return last.error();
        hi = *last;
        if (hi < lo) {
          return error(std::string(spec_.name) + " range " + std::string(range) +
                       " is reversed: write it low-high, e.g. " + std::to_string(hi) + "-" +
                       std::to_string(lo) + ", or as a list");
        }
      } else if (slash == std::string_view::npos) {
        hi = lo;
      }
    }
    std::uint64_t bits = 0;
    for (int value = lo; value <= hi; value += step) bits |= std::uint64_t{1} << value;
    return bits;
  }

  const FieldSpec& spec_;
  std::string_view expression_;
};

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  size_t pos = 0;
  while (pos < text.size()) {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
    const size_t start = pos;
    while (pos < text.size() && text[pos] != ' ' && text[pos] != '\t') ++pos;
    if (pos > start) fields.push_back(text.substr(start, pos - start));
  }
  return fields;
}

Result<std::string_view> expand_macro(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  for (const Macro& macro : kMacros) {
    if (macro.name == lower) return macro.expansion;
  }
  return usage_error("unknown cron macro '" + std::string(text) +
                     "': expected @hourly, @daily, @midnight, @weekly, @monthly, @yearly or "
                     "@annually");
}

// Bits 1..last set.
std::uint32_t days_through(int last) {
  return std::uint32_t(((std::uint64_t{1} << (last + 1)) - 1) & ~std::uint64_t{1});
}

// A day-of-month that no listed month has (31 in February) would never fire.
Status check_day_exists(const CronFields& cron) {
  if (!cron.day_of_week_star && !cron.day_of_month_star) return Ok{};  // OR: weekdays fire
  static constexpr int kLongest[13] = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  for (int month = 1; month <= 12; ++month) {
    if (!(cron.months >> month & 1)) continue;
    const std::uint32_t possible = days_through(kLongest[month]);
    if (cron.days & possible) return Ok{};
  }
  return usage_error("day-of-month " + cron.field_text[2] + " never occurs in month " +
                     cron.field_text[3] + ", so '" + cron.expression + "' never fires");
}

}  // namespace

std::uint32_t CronFields::matching_days(int first_weekday, int month_length) const {
  const std::uint32_t in_month = days_through(month_length);
  const std::uint32_t by_weekday = weekday_days_by_first[size_t(first_weekday)];
  if (day_of_month_star || day_of_week_star) return days & by_weekday & in_month;
  return (days | by_weekday) & in_month;
}

Result<CronFields> parse_cron_fields(std::string_view raw) {
  CronFields cron;
  cron.expression = std::string(trim(raw));
  std::string_view text = cron.expression;
  if (text.empty()) {
    return usage_error(
        "empty cron expression: expected 5 fields (minute hour day-of-month "
        "month day-of-week) such as '*/5 * * * *', or a macro such as @daily");
  }
  if (text.front() == '@') {
    auto expansion = expand_macro(text);
    if (!expansion) return expansion.error();
    text = *expansion;
  }
  const std::vector<std::string_view> fields = split_fields(text);
  if (fields.size() != 5) {
    return usage_error("cron '" + cron.expression + "' has " + std::to_string(fields.size()) +
                       " fields: expected 5 (minute hour day-of-month month day-of-week) or a "
                       "macro such as @daily");
  }
  const FieldSpec* specs[5] = {&kMinute, &kHour, &kDayOfMonth, &kMonth, &kDayOfWeek};
  std::uint64_t bits[5] = {};
  for (size_t i = 0; i < 5; ++i) {
    cron.field_text[i] = std::string(fields[i]);
    auto parsed = FieldParser(*specs[i], cron.expression).parse(fields[i]);
    if (!parsed) return parsed.error();
    bits[i] = *parsed;
  }
  cron.minutes = bits[0];
  cron.hours = std::uint32_t(bits[1]);
  cron.days = std::uint32_t(bits[2]);
  cron.months = std::uint32_t(bits[3]);
  cron.weekdays = std::uint32_t((bits[4] | (bits[4] >> 7)) & 0x7f);  // 7 -> Sunday
  cron.minute_star = fields[0].front() == '*';
  cron.hour_star = fields[1].front() == '*';
  cron.day_of_month_star = fields[2].front() == '*';
  cron.day_of_week_star = fields[4].front() == '*';
  for (int first = 0; first < 7; ++first) {
    std::uint32_t mask = 0;
    for (int day = 1; day <= 31; ++day) {
      if (cron.weekdays >> ((first + day - 1) % 7) & 1) mask |= std::uint32_t{1} << day;
    }
    cron.weekday_days_by_first[size_t(first)] = mask;
  }
  if (auto exists = check_day_exists(cron); !exists) return exists.error();
  return cron;
}

}  // namespace orrery
