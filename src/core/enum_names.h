// Enums spelled as text: a fixed table of (value, name) pairs per enum, used
// both ways. A name that is not in the table is an error listing every
// accepted name.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "core/result.h"

namespace orrery {

template <typename Enum, size_t N>
using NameTable = std::array<std::pair<Enum, const char*>, N>;

template <typename Enum, size_t N>
Result<Enum> parse_enum_name(std::string_view text, const NameTable<Enum, N>& table,
                             const char* what) {
  std::string accepted;
  for (const auto& [value, name] : table) {
    if (text == name) return value;
    accepted += accepted.empty() ? name : std::string(", ") + name;
  }
  return usage_error("invalid " + std::string(what) + " '" + std::string(text) + "': expected " +
                     accepted);
}

template <typename Enum, size_t N>
const char* enum_name(Enum value, const NameTable<Enum, N>& table) {
  for (const auto& [candidate, name] : table) {
    if (candidate == value) return name;
  }
  return "unknown";
}

}  // namespace orrery
