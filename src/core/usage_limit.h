// Usage limits (docs/execution.md): a versioned catalogue of the messages agent
// CLIs print when a provider's rate or usage limit stops them, and where the
// reset time is when they give one.
//
// Invariants: classification reads only the run's output, scrubbed or not;
// a reset time in the past is ignored; a reset time is at most
// kMaxCooldownMs (7 days) from now, however large the number in the output;
// the default cooldown is 5 minutes and doubles with every consecutive hit,
// up to 6 hours.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/agent_adapter.h"
#include "core/time.h"

namespace orrery {

inline constexpr int kUsageLimitCatalogueVersion = 1;
// The longest cooldown one usage-limit message can impose.
inline constexpr DurationMs kMaxCooldownMs = 7 * kMsPerDay;

struct UsageLimitHit {
  std::string pattern;             // which catalogue entry matched
  std::optional<TimeMs> reset_at;  // when the provider said the limit resets
};

std::optional<UsageLimitHit> classify_usage_limit(AgentProvider provider, std::string_view output,
                                                  TimeMs now);

// The cooldown when the provider gave no reset time, after `previous_hits`
// consecutive hits on the same account.
DurationMs default_cooldown(int previous_hits);

// The instant a cooldown lasts until: at most now + kMaxCooldownMs.
TimeMs cooldown_until(const UsageLimitHit& hit, int previous_hits, TimeMs now);

}  // namespace orrery
