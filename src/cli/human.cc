#include "cli/human.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "core/text.h"

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
  for (const auto& row : rows) width = std::max(width, display_width(terminal_text(row.first)));
  for (const auto& [label, value] : rows) {
    const std::string shown = terminal_text(label);
    out << shown << std::string(width - display_width(shown) + 2, ' ') << terminal_text(value)
        << '\n';
  }
}

void print_table(std::ostream& out, const std::vector<std::string>& headers,
                 const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::vector<std::string>> shown{headers};
  shown.insert(shown.end(), rows.begin(), rows.end());
  for (auto& row : shown) {
    for (auto& cell : row) cell = terminal_text(cell);
  }
  std::vector<size_t> widths(headers.size());
  for (const auto& row : shown) {
    for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], display_width(row[i]));
    }
  }
  for (const auto& cells : shown) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
      line += cells[i];
      if (i + 1 < cells.size() && i < widths.size()) {
        line += std::string(widths[i] - display_width(cells[i]) + 2, ' ');
      }
    }
    out << line << '\n';
  }
}

}  // namespace orrery::cli
