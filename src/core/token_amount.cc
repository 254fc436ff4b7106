#include "core/token_amount.h"

#include <cctype>

#include "core/text.h"

namespace orrery {
namespace {

Error refused(std::string_view text, std::string_view option, const std::string& why) {
  return usage_error("invalid " + std::string(option) + " '" + visible(text) + "': " + why +
                     "; expected a whole number of tokens from 1 to 1000000000000, optionally "
                     "with k or M (200000, 200k, 1.5M)");
}

}  // namespace

Result<std::int64_t> parse_token_amount(std::string_view text, std::string_view option) {
  std::string_view rest = trim(text);
  if (rest.empty()) return refused(text, option, "it is empty");
  std::int64_t multiplier = 1;
  const char last = rest.back();
  if (last == 'k' || last == 'K') multiplier = 1000;
  if (last == 'm' || last == 'M') multiplier = 1'000'000;
  if (multiplier != 1) rest.remove_suffix(1);
  // Digits, then an optional fraction: whole and fractional parts apart, so
  // that no floating point rounds the amount.
  std::int64_t whole = 0;
  std::int64_t fraction = 0;
  std::int64_t scale = 1;
  size_t at = 0;
  bool digits = false;
  for (; at < rest.size() && std::isdigit(static_cast<unsigned char>(rest[at])); ++at) {
    digits = true;
    whole = whole * 10 + (rest[at] - '0');
    if (whole > kMaxTokenAmount) return refused(text, option, "it is too large");
  }
  if (at < rest.size() && rest[at] == '.') {
    for (++at; at < rest.size() && std::isdigit(static_cast<unsigned char>(rest[at])); ++at) {
      digits = true;
      if (scale >= multiplier) return refused(text, option, "it is not a whole number of tokens");
      fraction = fraction * 10 + (rest[at] - '0');
      scale *= 10;
    }
  }
  if (!digits || at != rest.size()) return refused(text, option, "it is not a number");
  if (whole > kMaxTokenAmount / multiplier) return refused(text, option, "it is too large");
  const std::int64_t fractional = fraction * multiplier;
  if (fractional % scale != 0) return refused(text, option, "it is not a whole number of tokens");
  const std::int64_t amount = whole * multiplier + fractional / scale;
  if (amount <= 0) return refused(text, option, "it is not positive");
  if (amount > kMaxTokenAmount) return refused(text, option, "it is too large");
  return amount;
}

std::string format_token_amount(std::int64_t tokens) {
  for (const auto& [unit, suffix] : {std::pair<std::int64_t, const char*>{1'000'000, "M"},
                                     std::pair<std::int64_t, const char*>{1000, "k"}}) {
    if (tokens < unit) continue;
    // One decimal when it is exact: 1.5M, 200k; otherwise the plain number.
    if (tokens % unit == 0) return std::to_string(tokens / unit) + suffix;
    if (tokens % (unit / 10) == 0) {
      std::string text = std::to_string(tokens / unit);
      text += '.';
      text += std::to_string((tokens % unit) / (unit / 10));
      return text + suffix;
    }
  }
  return std::to_string(tokens);
}

std::string format_count(std::int64_t count) {
  const std::string digits = std::to_string(count);
  const size_t sign = count < 0 ? 1 : 0;
  std::string text;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) text += ',';
    text += digits[i];
  }
  return text;
}

}  // namespace orrery
