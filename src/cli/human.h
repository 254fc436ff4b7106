// Human-readable output: wall times in a zone and aligned label/value lines
// and tables. Every label, value and cell is printed through terminal_text()
// (core/text.h), so stored text cannot break a line or reach the
// terminal as an escape sequence; columns are aligned by code points.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "core/time.h"
#include "core/timezone.h"
#include "core/token_amount.h"  // format_count

namespace orrery::cli {

// "2026-11-30 09:00 +01:00": seconds, then milliseconds, only when non-zero.
std::string format_wall(TimeMs time, const TimeZone& zone);

// Lines of "label  value", the values aligned in one column.
void print_fields(std::ostream& out, const std::vector<std::pair<std::string, std::string>>& rows);

// A table: a header row and aligned columns, two spaces apart.
void print_table(std::ostream& out, const std::vector<std::string>& headers,
                 const std::vector<std::vector<std::string>>& rows);

}  // namespace orrery::cli
