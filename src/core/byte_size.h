// Sizes in text, for --log-limit: a whole number of bytes with an optional
// unit, decimal (kB, MB, GB, TB: powers of 1000) or binary (KiB, MiB, GiB,
// TiB: powers of 1024), e.g. 65536, 512KiB, 64MiB, 1GB. Units ignore case; a
// space may separate number and unit.
//
// Invariant: a parsed size is a positive int64 (overflow is refused).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

Result<std::int64_t> parse_byte_size(std::string_view text);

// parse_byte_size for an option with a range: errors name the option, the
// value and the accepted range.
Result<std::int64_t> parse_byte_size_option(std::string_view text, std::string_view option,
                                            std::int64_t minimum, std::int64_t maximum);

// The largest binary unit that divides the size exactly: 67108864 -> "64MiB",
// 1000 -> "1000B". Round trips through parse_byte_size.
std::string format_byte_size(std::int64_t bytes);

}  // namespace orrery
