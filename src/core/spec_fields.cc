#include "core/spec_fields.h"

#include <algorithm>

#include "core/exact_json.h"
#include "core/loop_spec.h"
#include "core/text.h"

namespace orrery {
namespace {

using nlohmann::json;

// A bounded edit distance, for "did you mean" on a mistyped key.
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1])});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

// What a value is, for "expected …, got …" messages.
std::string described(const json& value) {
  switch (value.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return value.get<bool>() ? "true" : "false";
    case json::value_t::string:
      return "the text '" + visible(value.get_ref<const std::string&>()) + "'";
    case json::value_t::array:
      return "a list";
    case json::value_t::object:
      return "an object";
    default:
      return "the number " + write_json(value);
  }
}

Error wrong_type(const std::string& where, const std::string& expected, const json& value) {
  std::string hint;
  if ((value.is_number() || is_kept_number(value)) && expected.find("text") != std::string::npos) {
    hint = " (in YAML, quote it: '" + write_json(value) + "')";
  }
  return usage_error(where + ": expected " + expected + ", got " + described(value) + hint);
}

// Absent and null are "not given".
const json* field(const json& object, const char* key) {
  const auto found = object.find(key);
  if (found == object.end() || found->is_null()) return nullptr;
  return &*found;
}

// Every key of the object is one of `accepted`: a typo is never ignored.
Status check_keys(const json& object, std::initializer_list<const char*> accepted,
                  const std::string& where) {
  for (const auto& [key, value] : object.items()) {
    std::string list;
    std::string closest;
    bool known = false;
    for (const char* name : accepted) {
      known = known || key == name;
      list += (list.empty() ? "" : ", ") + std::string(name);
      if (key.size() <= 64) {
        const size_t distance = edit_distance(key, name);
        if (distance <= 2 && distance * 3 <= std::string_view(name).size()) closest = name;
      }
    }
    if (known) continue;
    return usage_error(where + (where.empty() ? "" : ": ") + "unknown key '" + visible(key) + "'" +
                       (closest.empty() ? "" : " (did you mean '" + closest + "'?)") +
                       "; accepted: " + list);
  }
  return Ok{};
}

// Text: valid UTF-8 without NUL (stored text, docs/storage.md).
Result<std::string> text_value(const json& value, const std::string& where) {
  if (!value.is_string()) return wrong_type(where, "text", value);
  const std::string& text = value.get_ref<const std::string&>();
  if (auto valid = check_utf8(text, where); !valid) return valid.error();
  if (text.find('\0') != std::string::npos) {
    return usage_error(where + ": the text contains a NUL character");
  }
  return text;
}

// An optional text field: "" when absent or null.
Result<std::string> text_field(const json& object, const char* key, const std::string& where) {
  const json* value = field(object, key);
  if (!value) return std::string();
  return text_value(*value, where + key);
}

Result<std::vector<std::string>> text_list(const json& object, const char* key,
                                           const std::string& where) {
  std::vector<std::string> texts;
  const json* value = field(object, key);
  if (!value) return texts;
  if (!value->is_array()) return wrong_type(where + key, "a list of text", *value);
  for (size_t i = 0; i < value->size(); ++i) {
    auto text = text_value((*value)[i], where + key + "[" + std::to_string(i) + "]");
    if (!text) return text.error();
    texts.push_back(std::move(*text));
  }
  return texts;
}

Status check_length(const std::string& text, size_t maximum, const std::string& where) {
  const size_t characters = count_code_points(text);
  if (characters <= maximum) return Ok{};
  return usage_error(where + ": " + std::to_string(characters) + " characters; at most " +
                     std::to_string(maximum) + " are allowed");
}

// A path made absolute (core/user_path.h).
Status absolutize(std::string& path, const PathBase& paths, const std::string& where) {
  if (path.empty()) return Ok{};
  auto absolute = resolve_user_path(path, paths);
  if (!absolute) return usage_error(where + ": " + absolute.error().message);
  path = std::move(*absolute);
  return Ok{};
}
}  // namespace orrery
