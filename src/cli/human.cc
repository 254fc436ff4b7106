#include "cli/human.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace orrery::cli {

std::string format_wall(TimeMs unclamped, const TimeZone& zone) {
  // Every printed time stays within 1970-9999: a wall time beyond them (the
  // last hours of 9999 east of UTC, the first of 1970 west of it) is shown in
  // UTC instead.
  const TimeMs time = std::clamp(unclamped, kEarliestTime, kLatestTime);
  const DurationMs zone_offset = zone.offset_at(time);
  const DurationMs offset = add_checked(time, zone_offset) ? zone_offset : 0;
  std::string text = format_time(time + offset);  // the wall clock, written as if UTC
  text[10] = ' ';
  text.pop_back();  // the 'Z'
  if (text.substr(16) == ":00.000") {
    text.resize(16);
  } else if (text.substr(19) == ".000") {
    text.resize(19);
  }
  const long minutes = std::labs(long(offset / 60'000));
  char suffix[40];
  std::snprintf(suffix, sizeof suffix, " %c%02ld:%02ld", offset < 0 ? '-' : '+', minutes / 60,
                minutes % 60);
  return text + suffix;
}

void print_fields(std::ostream& out, const std::vector<std::pair<std::string, std::string>>& rows) {
  size_t width = 0;
  for (const auto& row : rows) width = std::max(width, row.first.size());
  for (const auto& [label, value] : rows) {
    out << label << std::string(width - label.size() + 2, ' ') << value << '\n';
  }
}

}  // namespace orrery::cli

namespace orrery::cli {

void print_table(std::ostream& out, const std::vector<std::string>& headers,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(headers.size());
  for (size_t i = 0; i < headers.size(); ++i) widths[i] = headers[i].size();
  for (const auto& row : rows) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], row[i].size());
    }
  }
  const auto print_row = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      line += cells[i];
      if (i + 1 < cells.size()) line += std::string(widths[i] - cells[i].size() + 2, ' ');
    }
    out << line << '\n';
  };
  print_row(headers);
  for (const auto& row : rows) print_row(row);
}

}  // namespace orrery::cli
