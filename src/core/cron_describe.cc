#include "core/cron_describe.h"

#include <strings.h>

#include <bit>
#include <cstdio>
#include <vector>

namespace orrery {
namespace {

enum class Names { kNone, kMonth, kWeekday };

constexpr const char* kMonthNames[] = {"",        "January",  "February", "March",  "April",
                                       "May",     "June",     "July",     "August", "September",
                                       "October", "November", "December"};
constexpr const char* kWeekdayNames[] = {"Sunday",   "Monday", "Tuesday",  "Wednesday",
                                         "Thursday", "Friday", "Saturday", "Sunday"};

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

bool is_number(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

std::string value_name(const std::string& value, Names names) {
  if (names == Names::kNone) return value;
  int number = 0;
  if (is_number(value)) {
    number = std::stoi(value);
  } else {  // a name as written, "mon" or "JAN": its full form
    const char* const* table = names == Names::kMonth ? kMonthNames : kWeekdayNames;
    const int first = names == Names::kMonth ? 1 : 0;
    for (int i = first; i < first + (names == Names::kMonth ? 12 : 7); ++i) {
      if (strncasecmp(table[i], value.c_str(), 3) == 0) number = i;
    }
  }
  return names == Names::kMonth ? kMonthNames[number] : kWeekdayNames[number];
}

std::string ordinal(const std::string& number) {
  const int n = std::stoi(number);
  if (n == 1) return "";
  const int tens = n % 100;
  const char* suffix = (tens >= 11 && tens <= 13) ? "th"
                       : n % 10 == 1              ? "st"
                       : n % 10 == 2              ? "nd"
                       : n % 10 == 3              ? "rd"
                                                  : "th";
  return number + suffix + " ";
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

// One comma-separated part: "5", "1-5", "*/2", "10-50/10", "5/15"; a step
// reads "every 2nd", "every 10th from 10 through 50", "every 15th from 5".
std::string describe_part(const std::string& part, Names names) {
  const size_t slash = part.find('/');
  const std::string range = part.substr(0, slash);
  std::string text;
  if (range != "*") {
    const size_t dash = range.find('-');
    text = value_name(range.substr(0, dash), names);
    if (dash != std::string::npos) text += " through " + value_name(range.substr(dash + 1), names);
  }
  if (slash == std::string::npos) return text;
  const std::string every = "every " + ordinal(part.substr(slash + 1));
  return range == "*" ? every : every + "from " + text;
}

std::string describe_list(const std::string& field, Names names) {
  std::vector<std::string> parts;
  for (const std::string& part : split(field, ',')) parts.push_back(describe_part(part, names));
  return join(parts);
}

// A field with its unit: "minute 5", "hours 9 through 17", "every 2nd day",
// "every 15th minute from 5". Names (weekdays, months) go without the unit.
std::string field_phrase(const std::string& field, const std::string& unit, Names names) {
  const std::vector<std::string> parts = split(field, ',');
  if (parts.size() == 1 && field.find('/') != std::string::npos) {
    const size_t slash = field.find('/');
    const std::string range = field.substr(0, slash);
    const std::string every = "every " + ordinal(field.substr(slash + 1)) + unit;
    if (range == "*") return every;
    const std::string from = describe_part(range, names);
    return every + (range.find('-') == std::string::npos ? " from " : ", ") + from;
  }
  const std::string list = describe_list(field, names);
  if (names != Names::kNone) return list;
  const bool plural = parts.size() > 1 || field.find('-') != std::string::npos;
  return unit + (plural ? "s " : " ") + list;
}

std::string clock(int hour, int minute) {
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "%02d:%02d", hour, minute);
  return buffer;
}

// "at 09:00" when the job fires at a few listed times of day, else "".
std::string clock_times(const CronFields& cron) {
  const std::string& minute = cron.field_text[0];
  const std::string& hour = cron.field_text[1];
  if (!is_number(minute) || hour.find_first_of("-/*") != std::string::npos) return "";
  const int hours = std::popcount(cron.hours);
  if (hours > 4) return "";
  std::vector<std::string> times;
  for (int h = 0; h < 24; ++h) {
    if (cron.hours >> h & 1) times.push_back(clock(h, std::countr_zero(cron.minutes)));
  }
  return "at " + join(times);
}

std::string describe_time(const CronFields& cron) {
  if (std::string times = clock_times(cron); !times.empty()) return times;
  const std::string& minute = cron.field_text[0];
  const std::string& hour = cron.field_text[1];
  std::string text;
  if (minute == "*") {
    text = "every minute";
  } else if (minute.rfind("*/", 0) == 0 && minute.find(',') == std::string::npos) {
    text = "every " + minute.substr(2) + " minutes";
  } else {
    text = "at " + field_phrase(minute, "minute", Names::kNone);
  }
  if (hour == "*") return cron.minute_star ? text : text + " past every hour";
  if (hour.rfind("*/", 0) == 0 && hour.find(',') == std::string::npos) {
    return text + " past every " + hour.substr(2) + " hours";
  }
  return text + (cron.minute_star ? ", during " : " past ") +
         field_phrase(hour, "hour", Names::kNone);
}

std::string describe_days(const CronFields& cron) {
  const std::string& day_of_month = cron.field_text[2];
  const std::string& day_of_week = cron.field_text[4];
  const std::string days = field_phrase(day_of_month, "day", Names::kNone) + " of the month";
  const std::string weekdays =
      day_of_week.find('/') != std::string::npos && day_of_week.find(',') == std::string::npos
          ? field_phrase(day_of_week, "day of the week", Names::kNone)
          : field_phrase(day_of_week, "", Names::kWeekday);
  const bool month_days = day_of_month != "*";
  const bool week_days = day_of_week != "*";
  if (month_days && week_days) {
    const bool either = !cron.day_of_month_star && !cron.day_of_week_star;
    return " on " + days + (either ? ", or on " : " if it is ") + weekdays;
  }
  if (month_days) return " on " + days;
  if (week_days) return " on " + weekdays;
  return "";
}

}  // namespace

std::string describe_cron(const CronFields& cron) {
  std::string text = describe_time(cron);
  const std::string days = describe_days(cron);
  text += days;
  if (cron.field_text[3] != "*") {
    const std::string& month = cron.field_text[3];
    text += month.find('/') != std::string::npos && month.find(',') == std::string::npos
                ? ", " + field_phrase(month, "month", Names::kNone)
                : " in " + field_phrase(month, "", Names::kMonth);
  } else if (days.empty() && text.rfind("at ", 0) == 0 && cron.fixed_time()) {
    text += " every day";
  }
  return text;
}

}  // namespace orrery
