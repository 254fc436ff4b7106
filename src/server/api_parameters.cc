#include "server/api_parameters.h"

#include <charconv>
#include <climits>
#include <nlohmann/json.hpp>

#include "core/page_cursor.h"
#include "core/spec_tree.h"
#include "core/text.h"

namespace orrery::server {
namespace {

std::optional<long long> whole_number(const std::string& text) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return {};
  return value;
}

}  // namespace

Result<int> number_parameter(const HttpRequest& request, const std::string& name, int otherwise,
                             int minimum, int maximum) {
  const std::string* text = request.parameter(name);
  if (text == nullptr) return otherwise;
  const auto value = whole_number(*text);
  if (!value || *value < minimum || *value > maximum) {
    return usage_error(name + "=" + visible(*text) + ": expected a whole number from " +
                       std::to_string(minimum) + " to " + std::to_string(maximum));
  }
  return int(*value);
}

Result<bool> flag_parameter(const HttpRequest& request, const std::string& name) {
  const std::string* text = request.parameter(name);
  if (text == nullptr) return false;
  if (*text == "true" || *text == "1" || text->empty()) return true;
  if (*text == "false" || *text == "0") return false;
  return usage_error(name + "=" + visible(*text) + ": expected true or false");
}

Result<std::string> text_parameter(const HttpRequest& request, const std::string& name) {
  const std::string* text = request.parameter(name);
  if (text == nullptr) return std::string();
  if (!is_valid_utf8(*text)) return usage_error(name + ": the value is not valid UTF-8");
  return *text;
}

Result<int> cursor_offset(const HttpRequest& request) {
  const std::string* text = request.parameter("cursor");
  if (text == nullptr) return 0;
  const auto value = whole_number(*text);
  if (!value || *value < 0 || *value > INT_MAX) {
    return usage_error("cursor=" + visible(*text) +
                       ": not a cursor this server gave (use the X-Next-Cursor of a page)");
  }
  return int(*value);
}

Result<std::string> page_cursor(const HttpRequest& request) {
  const std::string* text = request.parameter("cursor");
  if (text == nullptr) return std::string();
  if (!parse_cursor(*text)) {
    return usage_error("cursor=" + visible(*text) +
                       ": not a cursor this server gave (use the X-Next-Cursor of a page)");
  }
  return *text;
}

Result<nlohmann::json> json_body(const HttpRequest& request) {
  if (trim(request.body).empty()) return nlohmann::json::object();
  auto tree = json_spec_tree(request.body);
  if (!tree) return usage_error("the request body: " + tree.error().message);
  if (!tree->is_object()) return usage_error("the request body: expected a JSON object");
  return std::move(*tree);
}

}  // namespace orrery::server
