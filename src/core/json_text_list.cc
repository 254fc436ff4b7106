#include "core/json_text_list.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"

namespace orrery {

using nlohmann::json;

std::string text_list_json(const std::vector<std::string>& texts) {
  return write_json(json(texts));
}

Result<std::vector<std::string>> text_list_from_json(std::string_view text) {
  const json parsed = read_json(text);
  if (parsed.is_discarded() || !parsed.is_array())
    return internal_error("a stored list is not a JSON array");
  std::vector<std::string> texts;
  for (const json& item : parsed) {
    if (!item.is_string()) return internal_error("a stored list holds something but text");
    texts.push_back(item.get<std::string>());
  }
  return texts;
}

}  // namespace orrery
