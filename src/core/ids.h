// Time-ordered ids: 32 lowercase hex characters, the creation time in
// milliseconds as 12 hex digits followed by 20 hex digits of randomness.
//
// Invariant: ids made at later milliseconds sort after earlier ones as
// strings. Randomness comes from the caller, so the core stays pure.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/time.h"

namespace orrery {

inline constexpr size_t kIdLength = 32;

std::string make_id(TimeMs now, const std::array<std::uint8_t, 10>& random_bytes);
bool is_id(std::string_view text);
// Lowercase hex digits only (an id or an id prefix), and not empty.
bool is_lower_hex(std::string_view text);
// The creation time encoded in an id.
TimeMs id_time(std::string_view id);

}  // namespace orrery
