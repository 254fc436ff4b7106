// Cooldowns: provider accounts waiting out a usage limit
// (docs/execution.md, "Usage limits"). Recording extends the account's
// cooldown to the reset time, or to a default that grows with consecutive
// hits, never past now + kMaxCooldownMs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"
#include "core/usage_limit.h"  // kMaxCooldownMs: the cap of every cooldown

namespace orrery {

struct Cooldown {
  std::string account;  // provider, or provider:auth-profile
  TimeMs until_at = 0;
  int hits = 0;  // consecutive limits hit
  std::string reason;
  TimeMs updated_at = 0;
};

class Cooldowns {
 public:
  virtual ~Cooldowns() = default;

  virtual Result<Cooldown> record_cooldown(const std::string& account,
                                           std::optional<TimeMs> reset_at,
                                           const std::string& reason, TimeMs now) = 0;
  // Cooldowns still in force at `now`.
  virtual Result<std::vector<Cooldown>> active_cooldowns(TimeMs now) = 0;
};

}  // namespace orrery
