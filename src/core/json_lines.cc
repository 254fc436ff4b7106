#include "core/json_lines.h"

#include "core/exact_json.h"

namespace orrery {

std::vector<nlohmann::json> json_documents(std::string_view text) {
  using nlohmann::json;
  std::vector<json> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    json line = read_json(text.substr(start, end - start));
    if (line.is_object()) out.push_back(std::move(line));
    start = end + 1;
  }
  if (out.empty()) {
    json whole = read_json(text);
    if (whole.is_object()) out.push_back(std::move(whole));
  }
  return out;
}

}  // namespace orrery
