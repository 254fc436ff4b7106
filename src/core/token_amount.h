// Token amounts in text, for --budget and `goal budget`: a whole number with
// an optional suffix k (thousand) or M (million), or a decimal with a suffix
// that makes it whole: 200000, 200k, 1.5M, 250K.
//
// Invariant: a parsed amount is a positive int64 no larger than
// kMaxTokenAmount (a trillion), so that sums of budgets never overflow.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

inline constexpr std::int64_t kMaxTokenAmount = 1'000'000'000'000;

// The error names `option` and the value, and says what is accepted.
Result<std::int64_t> parse_token_amount(std::string_view text, std::string_view option);

// 200000 -> "200k", 1500000 -> "1.5M", 1234 -> "1234".
std::string format_token_amount(std::int64_t tokens);

// "1,234,567": a count with thousands separators.
std::string format_count(std::int64_t count);

}  // namespace orrery
