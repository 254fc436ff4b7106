#include "core/item_lines.h"

#include "core/work_item_json.h"

namespace orrery {

ItemLines parse_item_lines(std::string_view text) {
  ItemLines lines;
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    if (int(lines.items.size()) == kMaxItemLines) {
      lines.invalid.push_back({number, "more than " + std::to_string(kMaxItemLines) +
                                           " items in one text; this line was not read"});
      continue;
    }
    auto item = parse_enqueue_object(line);
    if (!item) {
      lines.invalid.push_back({number, item.error().message});
      continue;
    }
    lines.items.push_back({number, std::move(*item)});
  }
  return lines;
}

}  // namespace orrery
