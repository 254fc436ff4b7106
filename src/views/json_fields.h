// The field values every JSON document of views/ is made of: an absent
// value is null, never an empty string or a zero (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/time.h"

namespace orrery {

// An instant as YYYY-MM-DDTHH:MM:SS.mmmZ, or null.
nlohmann::json time_or_null(const std::optional<TimeMs>& time);

// A text, or null when it is empty.
nlohmann::json text_or_null(const std::string& text);

// A value, or null.
template <typename T>
nlohmann::json value_or_null(const std::optional<T>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

// A stored JSON text as the value it holds; a text that does not parse
// (the checks on the way in prevent it) is shown as the string it is.
nlohmann::json stored_json(const std::string& text);

// NAME=VALUE pairs as an object.
nlohmann::json pairs_object(const std::vector<EnvVar>& pairs);

}  // namespace orrery
