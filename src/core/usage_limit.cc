#include "core/usage_limit.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <vector>

namespace orrery {
namespace {

struct Entry {
  const char* name;
  std::vector<AgentProvider> providers;  // empty: every provider
  const char* pattern;
};

// Version 1 of the catalogue. Patterns are case-insensitive.
const std::vector<Entry>& catalogue() {
  static const std::vector<Entry> entries = {
      {"claude-usage-limit", {AgentProvider::kClaude}, R"re(claude ai usage limit reached)re"},
      {"claude-hit-limit", {AgentProvider::kClaude}, R"re(you've hit your (?:\w+ )?limit)re"},
      {"claude-hour-limit", {AgentProvider::kClaude}, R"re(\d+-hour limit reached)re"},
      {"anthropic-rate-limit", {AgentProvider::kClaude}, R"re(rate_limit_error)re"},
      {"codex-usage-limit",
       {AgentProvider::kCodex, AgentProvider::kCodewith},
       R"re(usage_limit_reached|you've hit your usage limit)re"},
      {"openai-rate-limit",
       {AgentProvider::kCodex, AgentProvider::kCodewith},
       R"re(rate limit reached for|rate_limit_exceeded)re"},
      {"cursor-usage-limit",
       {AgentProvider::kCursor},
       R"re(you've hit your usage limit|usage limit)re"},
      {"gemini-quota", {AgentProvider::kGemini}, R"re(resource_exhausted|quota exceeded)re"},
      {"generic-usage-limit", {}, R"re(usage limit (?:reached|exceeded))re"},
      {"generic-rate-limit", {}, R"re(rate limit exceeded|429 too many requests)re"},
  };
  return entries;
}

bool applies(const Entry& entry, AgentProvider provider) {
  return entry.providers.empty() || std::find(entry.providers.begin(), entry.providers.end(),
                                              provider) != entry.providers.end();
}

const RE2& compiled(const Entry& entry) {
  static std::vector<std::unique_ptr<RE2>> patterns = [] {
    std::vector<std::unique_ptr<RE2>> out;
    RE2::Options options;
    options.set_case_sensitive(false);
    for (const Entry& e : catalogue()) out.push_back(std::make_unique<RE2>(e.pattern, options));
    return out;
  }();
  return *patterns[size_t(&entry - catalogue().data())];
}

// The number the digits spell, saturated at `ceiling` (the output is untrusted:
// any number of digits may follow).
std::int64_t capped_number(const std::string& digits, std::int64_t ceiling) {
  std::int64_t value = 0;
  for (char c : digits) {
    value = value * 10 + (c - '0');
    if (value >= ceiling) return ceiling;
  }
  return value;
}

// now + count * unit, at most now + kMaxCooldownMs.
TimeMs capped_delay(TimeMs now, const std::string& count, DurationMs unit) {
  const std::int64_t units = capped_number(count, kMaxCooldownMs / unit + 1);
  return add_saturating(now, std::min(units * unit, kMaxCooldownMs));
}

// The reset time the output states, in one of the forms providers use.
std::optional<TimeMs> reset_time(std::string_view output, TimeMs now) {
  static const RE2 epoch(R"re(limit reached\|(\d{10}))re", RE2::Quiet);
  static const RE2 seconds_field(R"re(resets_in_seconds"?\s*[:=]\s*(\d+))re", RE2::Quiet);
  static const RE2 retry_in(
      R"re((?i)try again in (\d+)\s*(s|sec|secs|seconds|m|min|mins|minutes|h|hr|hrs|hours)\b)re");
  static const RE2 retry_after(R"re((?i)retry-after:?\s*(\d+))re");
  const re2::StringPiece text(output.data(), output.size());
  std::string value;
  std::string unit;
  if (RE2::PartialMatch(text, epoch, &value)) {
    const std::int64_t seconds = capped_number(value, kLatestTime / 1000);
    return std::min(seconds * 1000, add_saturating(now, kMaxCooldownMs));
  }
  if (RE2::PartialMatch(text, seconds_field, &value)) return capped_delay(now, value, 1000);
  if (RE2::PartialMatch(text, retry_in, &value, &unit)) {
    const char first = char(std::tolower(static_cast<unsigned char>(unit[0])));
    return capped_delay(now, value, first == 'h' ? 3'600'000 : first == 'm' ? 60'000 : 1000);
  }
  if (RE2::PartialMatch(text, retry_after, &value)) return capped_delay(now, value, 1000);
  return std::nullopt;
}

}  // namespace

std::optional<UsageLimitHit> classify_usage_limit(AgentProvider provider, std::string_view output,
                                                  TimeMs now) {
  const re2::StringPiece text(output.data(), output.size());
  for (const Entry& entry : catalogue()) {
    if (!applies(entry, provider) || !RE2::PartialMatch(text, compiled(entry))) continue;
    UsageLimitHit hit{entry.name, reset_time(output, now)};
    if (hit.reset_at && *hit.reset_at <= now) hit.reset_at.reset();
    return hit;
  }
  return std::nullopt;
}

DurationMs default_cooldown(int previous_hits) {
  constexpr DurationMs kFirst = 5 * 60'000;
  constexpr DurationMs kLongest = 6 * 3'600'000;
  DurationMs cooldown = kFirst;
  for (int i = 0; i < previous_hits && cooldown < kLongest; ++i) cooldown *= 2;
  return std::min(cooldown, kLongest);
}

TimeMs cooldown_until(const UsageLimitHit& hit, int previous_hits, TimeMs now) {
  const TimeMs latest = add_saturating(now, kMaxCooldownMs);
  return std::min(
      hit.reset_at ? *hit.reset_at : add_saturating(now, default_cooldown(previous_hits)), latest);
}

}  // namespace orrery
