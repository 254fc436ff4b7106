// libFuzzer target: classify_usage_limit and cooldown_until, which read an
// agent's untrusted output.
//
// Each input is classified for every provider at a fixed now. Checked
// (usage_limit.h): nothing crashes or overflows; a reset time lies in
// (now, now + kMaxCooldownMs]; a cooldown ends after now and at most
// kMaxCooldownMs later, whatever the number of previous hits.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/usage_limit.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  constexpr orrery::TimeMs kNow = 1'780'000'000'000;  // 2026-05-28T20:26:40Z
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using orrery::AgentProvider;
  for (AgentProvider provider :
       {AgentProvider::kClaude, AgentProvider::kCursor, AgentProvider::kCodewith,
        AgentProvider::kCodex, AgentProvider::kAicopilot, AgentProvider::kOpencode,
        AgentProvider::kGemini}) {
    const auto hit = orrery::classify_usage_limit(provider, text, kNow);
    if (!hit) continue;
    if (hit->reset_at &&
        (*hit->reset_at <= kNow || *hit->reset_at > kNow + orrery::kMaxCooldownMs)) {
      __builtin_trap();
    }
    for (int previous_hits : {0, 1, 30, 1 << 30}) {
      const orrery::TimeMs until = orrery::cooldown_until(*hit, previous_hits, kNow);
      if (until <= kNow || until > kNow + orrery::kMaxCooldownMs) __builtin_trap();
    }
  }
  return 0;
}
