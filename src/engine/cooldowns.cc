#include "engine/cooldowns.h"

namespace orrery {

std::optional<TimeMs> cooldown_of(const CooldownMap& cooldowns, const Loop& loop) {
  if (cooldowns.empty()) return std::nullopt;
  const std::string account = cooldown_account(loop.target);
  if (account.empty()) return std::nullopt;
  const auto found = cooldowns.find(account);
  if (found == cooldowns.end()) return std::nullopt;
  return found->second;
}

}  // namespace orrery
