#include "core/cron_describe.h"

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
  if (!is_number(value) || names == Names::kNone) {
    if (names == Names::kNone || value.empty()) return value;
    std::string capitalised = value;  // a name as written: mon -> Mon
    capitalised[0] = char(std::toupper(static_cast<unsigned char>(capitalised[0])));
    return capitalised;
  }
  const int number = std::stoi(value);
  return names == Names::kMonth ? kMonthNames[number] : kWeekdayNames[number];
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += i + 1 == items.size() ? " and " : ", ";
    out += items[i];
  }
  return out;
}

// One comma-separated part: "5", "1-5", "*/2", "10-50/10", "5/15".
std::string describe_part(const std::string& part, Names names) {
  const size_t slash = part.find('/');
  const std::string range = part.substr(0, slash);
  std::string text;
  if (range == "*") {
    text = "every";
  } else {
    const size_t dash = range.find('-');
    text = value_name(range.substr(0, dash), names);
    if (dash != std::string::npos) text += " through " + value_name(range.substr(dash + 1), names);
  }
  if (slash == std::string::npos) return text;
  const std::string step = part.substr(slash + 1);
  if (range == "*") return "every " + step + (step == "1" ? "" : " steps");
  return "every " + step + " from " + text + (range.find('-') == std::string::npos ? " on" : "");
}

std::string describe_list(const std::string& field, Names names) {
  std::vector<std::string> parts;
  for (const std::string& part : split(field, ',')) parts.push_back(describe_part(part, names));
  return join(parts);
}

bool plural(const std::string& field) { return field.find_first_of(",-/*") != std::string::npos; }

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
    text = std::string("at minute") + (plural(minute) ? "s " : " ") +
           describe_list(minute, Names::kNone);
  }
  if (hour == "*") return minute == "*" || minute[0] == '*' ? text : text + " past every hour";
  if (hour.rfind("*/", 0) == 0 && hour.find(',') == std::string::npos) {
    return text + " past every " + hour.substr(2) + " hours";
  }
  return text + (minute[0] == '*' ? ", during hour" : " past hour") + (plural(hour) ? "s " : " ") +
         describe_list(hour, Names::kNone);
}

std::string describe_days(const CronFields& cron) {
  const std::string& day_of_month = cron.field_text[2];
  const std::string& day_of_week = cron.field_text[4];
  const std::string days = "day" + std::string(plural(day_of_month) ? "s " : " ") +
                           describe_list(day_of_month, Names::kNone) + " of the month";
  const std::string weekdays = describe_list(day_of_week, Names::kWeekday);
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
    text += " in " + describe_list(cron.field_text[3], Names::kMonth);
  } else if (days.empty() && text.rfind("at ", 0) == 0 && cron.fixed_time()) {
    text += " every day";
  }
  return text;
}

}  // namespace orrery
