#include "views/json_fields.h"

#include "core/exact_json.h"

namespace orrery {

nlohmann::json time_or_null(const std::optional<TimeMs>& time) {
  return time ? nlohmann::json(format_time(*time)) : nlohmann::json(nullptr);
}

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

nlohmann::json stored_json(const std::string& text) {
  nlohmann::json value = read_json(text);
  return value.is_discarded() ? nlohmann::json(text) : value;
}

nlohmann::json pairs_object(const std::vector<EnvVar>& pairs) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [key, value] : pairs) json[key] = value;
  return json;
}

}  // namespace orrery
