#include "engine/daemon_deadline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace orrery {
namespace {

constexpr TimeMs kWall = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z
const SteadyTime kSteady = SteadyTime{} + std::chrono::hours(5000);
constexpr DaemonNow kNowAt0{kWall, {}};

DaemonNow now_of() { return {kWall, kSteady}; }
SteadyTime steady_at(DurationMs offset) { return kSteady + std::chrono::milliseconds(offset); }

// One generated case: every timer and wake time as an offset from now
// (nothing: not set), and the flags.
struct Case {
  DurationMs heartbeat = 0;
  std::optional<DurationMs> watchdog, claim_retry, tick_retry, next_due, cooldown_end, lease_expiry,
      item_retry;
  std::vector<DurationMs> kills;
  DurationMs lease_check = 0;
  bool more = false, claim_due = false, scheduling = true, once = false;

  std::string describe() const {
    auto text = [](std::optional<DurationMs> v) { return v ? std::to_string(*v) : "-"; };
    std::string kill_text;
    for (DurationMs kill : kills) kill_text += std::to_string(kill) + " ";
    return "heartbeat " + std::to_string(heartbeat) + ", watchdog " + text(watchdog) + ", kills [" +
           kill_text + "], claim_retry " + text(claim_retry) + ", tick_retry " + text(tick_retry) +
           ", lease_check " + std::to_string(lease_check) + ", next_due " + text(next_due) +
           ", cooldown " + text(cooldown_end) + ", item_retry " + text(item_retry) +
           ", lease_expiry " + text(lease_expiry) + ", more " + std::to_string(more) +
           ", claim_due " + std::to_string(claim_due) + ", scheduling " +
           std::to_string(scheduling) + ", once " + std::to_string(once);
  }
};

DaemonTimers timers_of(const Case& c) {
  DaemonTimers timers;
  timers.heartbeat = steady_at(c.heartbeat);
  if (c.watchdog) timers.watchdog = steady_at(*c.watchdog);
  for (DurationMs kill : c.kills) timers.kills.push_back({4242, steady_at(kill)});
  if (c.tick_retry) timers.tick_retry = steady_at(*c.tick_retry);
  if (c.claim_retry) timers.claim_retry = steady_at(*c.claim_retry);
  timers.lease_check = steady_at(c.lease_check);
  return timers;
}

WakeState state_of(const Case& c) {
  WakeState state;
  state.more = c.more;
  state.claim_due = c.claim_due;
  state.scheduling = c.scheduling;
  state.once = c.once;
  const auto wall = [](std::optional<DurationMs> v) -> std::optional<TimeMs> {
    if (!v) return std::nullopt;
    return kWall + *v;
  };
  state.wake = {wall(c.next_due), wall(c.lease_expiry), wall(c.cooldown_end), wall(c.item_retry)};
  return state;
}

// docs/daemon.md, "Wake-ups", written as a list: each source, whether it
// counts in the case's state, and the offset from now it wakes at.
DurationMs expected_offset(const Case& c) {
  if (c.more) return 0;
  const auto timer = [](DurationMs offset) { return std::max<DurationMs>(offset, 0); };
  std::vector<DurationMs> counted = {timer(c.heartbeat)};
  if (c.watchdog) counted.push_back(timer(*c.watchdog));
  for (DurationMs kill : c.kills) counted.push_back(timer(kill));
  if (c.claim_due) counted.push_back(c.claim_retry ? timer(*c.claim_retry) : 0);
  if (!c.scheduling) counted.push_back(timer(c.lease_check));
  if (c.scheduling && c.tick_retry) counted.push_back(timer(*c.tick_retry));
  if (c.scheduling && !c.tick_retry && !c.once) {
    if (c.next_due) counted.push_back(*c.next_due);
    if (c.cooldown_end) counted.push_back(*c.cooldown_end);
    if (c.item_retry) counted.push_back(*c.item_retry);
    if (c.lease_expiry) counted.push_back(std::max(*c.lease_expiry, kLeaseRecheckMs));
  }
  return *std::min_element(counted.begin(), counted.end());
}

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : random_(seed) {}

  Case next() {
    Case c;
    c.heartbeat = offset();
    c.watchdog = maybe();
    c.claim_retry = maybe();
    c.tick_retry = maybe();
    c.next_due = maybe_future();
    c.cooldown_end = maybe_future();
    c.item_retry = maybe_future();
    c.lease_expiry = maybe();
    c.lease_check = offset();
    const int kills = int(random_() % 3);
    for (int i = 0; i < kills; ++i) c.kills.push_back(offset());
    c.more = random_() % 8 == 0;
    c.claim_due = coin();
    c.scheduling = coin();
    c.once = random_() % 4 == 0;
    return c;
  }

 private:
  bool coin() { return random_() % 2 == 0; }
  // Some past, most ahead, up to an hour; a few exactly now.
  DurationMs offset() {
    if (random_() % 10 == 0) return 0;
    return DurationMs(random_() % 3'600'000) - 300'000;
  }
  std::optional<DurationMs> maybe() {
    if (coin()) return std::nullopt;
    return offset();
  }
  // The store's wake times are after now.
  std::optional<DurationMs> maybe_future() {
    if (coin()) return std::nullopt;
    return 1 + DurationMs(random_() % 3'600'000);
  }

  std::mt19937_64 random_;
};

TEST(DaemonDeadline, IsTheEarliestOfTheSourcesThatCountInEachState) {
  Generator generate(20261201);
  for (int i = 0; i < 20'000; ++i) {
    const Case c = generate.next();
    const auto deadline = next_deadline(timers_of(c), state_of(c), now_of());
    ASSERT_TRUE(deadline.has_value()) << c.describe();
    ASSERT_EQ(*deadline - kWall, expected_offset(c)) << c.describe();
  }
}

TEST(DaemonDeadline, EachSourceAloneDecidesExactlyInTheStatesWhereItCounts) {
  // Every other timer an hour away; the source under test 5 s away.
  enum Source {
    kHeartbeat,
    kWatchdog,
    kKill,
    kClaim,
    kClaimRetry,
    kLeaseCheck,
    kTickRetry,
    kNextDue,
    kCooldown,
    kLeaseExpiry,
    kItemRetry,
    kSources
  };
  for (int source = 0; source < kSources; ++source) {
    for (int flags = 0; flags < 32; ++flags) {
      Case c;
      c.heartbeat = c.lease_check = 3'600'000;
      c.more = flags & 1;
      c.claim_due = flags & 2;
      c.scheduling = flags & 4;
      c.once = flags & 8;
      if (flags & 16) c.tick_retry = 3'600'000;
      const DurationMs soon = 5'000;
      switch (Source(source)) {
        case kHeartbeat:
          c.heartbeat = soon;
          break;
        case kWatchdog:
          c.watchdog = soon;
          break;
        case kKill:
          c.kills = {3'600'000, soon};
          break;
        case kClaim:
          c.claim_due = true;
          break;  // no retry: now
        case kClaimRetry:
          c.claim_due = true;
          c.claim_retry = soon;
          break;
        case kLeaseCheck:
          c.lease_check = soon;
          break;
        case kTickRetry:
          c.tick_retry = soon;
          break;
        case kNextDue:
          c.next_due = soon;
          break;
        case kCooldown:
          c.cooldown_end = soon;
          break;
        case kLeaseExpiry:
          c.lease_expiry = soon;
          break;
        case kItemRetry:
          c.item_retry = soon;
          break;
        case kSources:
          break;
      }
      const auto deadline = next_deadline(timers_of(c), state_of(c), now_of());
      ASSERT_TRUE(deadline.has_value());
      EXPECT_EQ(*deadline - kWall, expected_offset(c))
          << "source " << source << ": " << c.describe();
      // Sanity of the table itself: the source either decides or is ignored.
      const DurationMs got = *deadline - kWall;
      EXPECT_TRUE(got == 0 || got == soon || got == 3'600'000) << c.describe();
    }
  }
}

TEST(DaemonDeadline, LaterTimersNeverMakeItEarlier) {
  Generator generate(7);
  for (int i = 0; i < 5'000; ++i) {
    const Case c = generate.next();
    const TimeMs before = *next_deadline(timers_of(c), state_of(c), now_of());
    Case later = c;
    const DurationMs by = 1 + DurationMs(i % 90'000);
    later.heartbeat += by;
    later.lease_check += by;
    for (DurationMs& kill : later.kills) kill += by;
    for (auto* timer : {&later.watchdog, &later.claim_retry, &later.tick_retry, &later.next_due,
                        &later.cooldown_end, &later.lease_expiry, &later.item_retry}) {
      if (*timer) **timer += by;
    }
    const TimeMs after = *next_deadline(timers_of(later), state_of(later), now_of());
    ASSERT_GE(after, before) << c.describe();
    ASSERT_LE(after - before, by) << c.describe();
  }
}

TEST(DaemonDeadline, TimersThatPassedWakeItNowAndNeverBefore) {
  Case c;
  c.heartbeat = -10'000;
  c.watchdog = -1;
  c.kills = {-2'000};
  c.lease_check = -5;
  for (bool scheduling : {true, false}) {
    c.scheduling = scheduling;
    EXPECT_EQ(next_deadline(timers_of(c), state_of(c), now_of()), kWall);
  }
}

TEST(DaemonDeadline, WorkLeftWakesItAtOnceWhateverElseIsSet) {
  Generator generate(11);
  for (int i = 0; i < 1'000; ++i) {
    Case c = generate.next();
    c.more = true;
    ASSERT_EQ(next_deadline(timers_of(c), state_of(c), now_of()), kWall) << c.describe();
  }
}

TEST(DaemonDeadline, ARunLeaseEndThatPassedIsLookedAtASecondLaterNotInATightLoop) {
  Case c;
  c.heartbeat = c.lease_check = 3'600'000;
  for (DurationMs expiry : {-60'000, -1, 0, 1, 999, 1'000, 1'001, 30'000}) {
    c.lease_expiry = expiry;
    EXPECT_EQ(*next_deadline(timers_of(c), state_of(c), now_of()) - kWall,
              std::max<DurationMs>(expiry, kLeaseRecheckMs))
        << expiry;
  }
}

TEST(DaemonDeadline, SteadyTimersAreCountedFromTheSteadyReadingWhateverItsEpoch) {
  DaemonTimers timers;
  timers.heartbeat = SteadyTime{} + std::chrono::milliseconds(1'500);
  timers.lease_check = timers.heartbeat;
  const auto deadline = next_deadline(timers, WakeState{}, kNowAt0);
  EXPECT_EQ(deadline, kWall + 1'500);
}

TEST(LeaseCheckDelay, IsTheIntervalOrJustAfterTheHeldLeaseEndsIfSooner) {
  for (DurationMs interval : {1'000, 10'000, 1'200'000}) {
    EXPECT_EQ(lease_check_delay(interval, std::nullopt, kWall), interval);
    for (DurationMs left = -5'000; left <= 2 * interval; left += 7) {
      const DurationMs delay = lease_check_delay(interval, kWall + left, kWall);
      ASSERT_GE(delay, 0) << left;
      ASSERT_LE(delay, interval) << left;
      ASSERT_EQ(delay, std::clamp<DurationMs>(left + kLeaseCheckSlackMs, 0, interval)) << left;
    }
  }
}

}  // namespace
}  // namespace orrery
