// Provider cooldowns as a tick sees them (docs/daemon.md, "The tick"): the
// accounts whose usage limit was hit, each with the end of its cooldown,
// read once per tick and consulted by settling and planning alike.
//
// Invariant: a loop is held back only by the cooldown of its own target's
// account (core/loop.h cooldown_account); a target without one never is.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "core/loop.h"

namespace orrery {

// Provider account -> the end of its cooldown.
using CooldownMap = std::unordered_map<std::string, TimeMs>;

// The end of the cooldown that holds `loop` back, if one does.
std::optional<TimeMs> cooldown_of(const CooldownMap& cooldowns, const Loop& loop);

}  // namespace orrery
