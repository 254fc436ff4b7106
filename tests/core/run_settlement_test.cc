#include "core/run_settlement.h"

#include <gtest/gtest.h>

#include "core/limits.h"
#include "core/retry_policy.h"
#include "support/time_literals.h"

namespace orrery {
namespace {

using testing::at;

constexpr DurationMs kSecond = 1000;
constexpr DurationMs kMinute = 60 * kSecond;
constexpr DurationMs kDay = 24 * 60 * kMinute;

// Times of day on 2026-01-01.
TimeMs t(const std::string& hh_mm_ss) { return at("2026-01-01T" + hh_mm_ss + "Z"); }

// An active fixed-rate loop every 10 minutes, advanced past the 10:00 slot.
Loop loop_every_ten_minutes() {
  Loop loop;
  loop.id = "0123456789abcdef0123456789abcdef";
  loop.schedule.type = ScheduleType::kInterval;
  loop.schedule.every_ms = 10 * kMinute;
  loop.next_run_at = t("10:10:00");
  loop.max_attempts = 3;
  loop.retry_delay_ms = 30 * kSecond;
  return loop;
}

Loop fixed_delay() {
  Loop loop = loop_every_ten_minutes();
  loop.schedule.anchor = IntervalAnchor::kFixedDelay;
  loop.next_run_at.reset();  // waiting for its run
  return loop;
}

Loop dynamic() {
  Loop loop = fixed_delay();
  loop.schedule.type = ScheduleType::kDynamic;
  loop.schedule.min_ms = 5 * kMinute;
  loop.schedule.max_ms = 60 * kMinute;
  return loop;
}

Loop once() {
  Loop loop = fixed_delay();
  loop.schedule.type = ScheduleType::kOnce;
  loop.schedule.at = t("10:00:00");
  return loop;
}

// The run of the 10:00 slot, finished at 10:02.
Run finished(RunStatus status, int attempt = 1) {
  orrery::Run run;
  run.id = "run";
  run.scheduled_for = t("10:00:00");
  run.attempt = attempt;
  run.status = status;
  run.started_at = t("10:00:01");
  run.finished_at = t("10:02:00");
  run.settled = false;
  return run;
}

ScheduleState settle(const Loop& loop, const orrery::Run& run, SettleInput input = {}) {
  if (input.now == 0) input.now = t("10:02:05");
  auto series = SlotSeries::compile(loop.schedule, loop.id);
  EXPECT_TRUE(series.ok());
  auto state = settle_finished_run(loop, *series, run, input);
  EXPECT_TRUE(state.ok()) << (state ? "" : state.error().message);
  return state ? *state : ScheduleState{};
}

ScheduleState with_next(const Loop& loop, std::optional<TimeMs> next) {
  ScheduleState state = schedule_state(loop);
  state.next_run_at = next;
  return state;
}

TEST(RunSettlement, AFailedSlotWithAttemptsLeftIsRetriedAfterTheFixedDelay) {
  for (RunStatus status : {RunStatus::kFailed, RunStatus::kTimedOut}) {
    for (int attempt : {1, 2}) {
      const Loop loop = loop_every_ten_minutes();
      const ScheduleState state = settle(loop, finished(status, attempt));
      EXPECT_EQ(state.retry_scheduled_for, t("10:00:00")) << run_status_name(status);
      EXPECT_EQ(state.next_run_at, t("10:02:30"));
      EXPECT_EQ(state.status, LoopStatus::kActive);
      EXPECT_EQ(state.missed_count, loop.missed_count);
    }
  }
}

TEST(RunSettlement, ARetryKeepsWhereTheSeriesHadGotTo) {
  for (const char* next : {"10:10:00", "10:20:00", "10:50:00"}) {
    Loop loop = loop_every_ten_minutes();
    loop.next_run_at = t(next);
    const ScheduleState first = settle(loop, finished(RunStatus::kFailed, 1));
    EXPECT_EQ(first.series_resume_at, t(next)) << next;
    // The retry was claimed (the tick left next_run_at at the resume point)
    // and failed again: the position is kept, not the retry's due time.
    Loop retried = loop;
    retried.next_run_at = t(next);
    const ScheduleState second = settle(retried, finished(RunStatus::kFailed, 2));
    EXPECT_EQ(second.series_resume_at, t(next));
    EXPECT_EQ(second.retry_scheduled_for, t("10:00:00"));
  }
}

TEST(RunSettlement, ExponentialRetryDelaysStayWithinBaseAndAGrowingCeiling) {
  Loop loop = loop_every_ten_minutes();
  loop.retry_backoff = RetryBackoff::kExponential;
  loop.max_attempts = 20;
  loop.next_run_at = t("12:00:00");  // the series' next slot after every delay
  const DurationMs base = loop.retry_delay_ms;
  DurationMs previous_ceiling = 0;
  for (int attempt = 1; attempt < 12; ++attempt) {
    DurationMs ceiling = base;
    for (int n = 1; n < attempt; ++n) ceiling = std::min(ceiling * 2, backoff_cap(base));
    EXPECT_GE(ceiling, previous_ceiling);
    previous_ceiling = ceiling;
    for (std::uint64_t random : {std::uint64_t{0}, std::uint64_t(ceiling - base),
                                 std::uint64_t{123456789}, ~std::uint64_t{0}}) {
      SettleInput input;
      input.random = random;
      const ScheduleState state = settle(loop, finished(RunStatus::kFailed, attempt), input);
      ASSERT_TRUE(state.next_run_at);
      const DurationMs delay = *state.next_run_at - t("10:02:00");
      EXPECT_GE(delay, base) << attempt;
      EXPECT_LE(delay, ceiling) << attempt;
      EXPECT_LE(delay, backoff_cap(base));
      if (random == std::uint64_t(ceiling - base)) {
        EXPECT_EQ(delay, ceiling) << attempt;
      }
    }
  }
  EXPECT_EQ(previous_ceiling, backoff_cap(base));
}

TEST(RunSettlement, NoRetryOnceTheAttemptsAreUsedUp) {
  for (int max_attempts : {1, 2, 3}) {
    Loop loop = loop_every_ten_minutes();
    loop.max_attempts = max_attempts;
    for (RunStatus status : {RunStatus::kFailed, RunStatus::kTimedOut}) {
      const ScheduleState state = settle(loop, finished(status, max_attempts));
      EXPECT_EQ(state, schedule_state(loop)) << max_attempts;
    }
  }
}

TEST(RunSettlement, SucceededSkippedAndCancelledSlotsAreNeverRetried) {
  for (RunStatus status : {RunStatus::kSucceeded, RunStatus::kSkipped, RunStatus::kCancelled}) {
    const Loop loop = loop_every_ten_minutes();
    EXPECT_EQ(settle(loop, finished(status)), schedule_state(loop)) << run_status_name(status);
  }
}

TEST(RunSettlement, AUsageLimitedRunIsReattemptedForFreeAtTheEndOfTheCooldown) {
  for (int attempt : {1, 3}) {  // 3 = max_attempts: no ordinary attempt is left
    Loop loop = loop_every_ten_minutes();
    loop.next_run_at = t("10:50:00");  // the series' next slot after the cooldown
    orrery::Run run = finished(RunStatus::kFailed, attempt);
    run.usage_limited = true;
    run.free_reattempts = kMaxFreeReattempts - 1;
    SettleInput input;
    input.cooldown_until = t("10:30:00");
    input.random = 99;
    const ScheduleState state = settle(loop, run, input);
    EXPECT_EQ(state.retry_scheduled_for, t("10:00:00")) << attempt;
    EXPECT_EQ(state.next_run_at, t("10:30:00")) << attempt;  // no backoff on top
    // A cooldown already over, or none known: at once.
    input.cooldown_until = t("10:01:00");
    EXPECT_EQ(settle(loop, run, input).next_run_at, t("10:02:00"));
    input.cooldown_until.reset();
    EXPECT_EQ(settle(loop, run, input).next_run_at, t("10:02:00"));
  }
}

TEST(RunSettlement, FreeReattemptsEndAfterTheirLimit) {
  const Loop loop = loop_every_ten_minutes();
  orrery::Run limited = finished(RunStatus::kFailed, loop.max_attempts);
  limited.usage_limited = true;
  limited.free_reattempts = kMaxFreeReattempts;
  EXPECT_EQ(settle(loop, limited), schedule_state(loop));
  orrery::Run abandoned = finished(RunStatus::kAbandoned, loop.max_attempts);
  abandoned.free_reattempts = kMaxFreeReattempts;
  EXPECT_EQ(settle(loop, abandoned), schedule_state(loop));
  // With ordinary attempts left they are ordinary retries.
  limited.attempt = 1;
  EXPECT_EQ(settle(loop, limited).retry_scheduled_for, t("10:00:00"));
}

TEST(RunSettlement, AnAbandonedRunIsReattemptedForFreeAtOnce) {
  for (int max_attempts : {1, 3}) {
    for (int free : {0, 1, kMaxFreeReattempts - 1}) {
      Loop loop = loop_every_ten_minutes();
      loop.max_attempts = max_attempts;
      orrery::Run run = finished(RunStatus::kAbandoned, max_attempts);
      run.free_reattempts = free;
      const ScheduleState state = settle(loop, run);
      EXPECT_EQ(state.retry_scheduled_for, t("10:00:00")) << free;
      EXPECT_EQ(state.next_run_at, t("10:02:00")) << free;  // its finish: no retry delay
    }
  }
  // Its free re-attempts used, an abandoned slot with attempts left is an
  // ordinary retry, after the delay.
  const Loop loop = loop_every_ten_minutes();
  orrery::Run run = finished(RunStatus::kAbandoned, 1);
  run.free_reattempts = kMaxFreeReattempts;
  EXPECT_EQ(settle(loop, run).next_run_at, t("10:02:30"));
}

TEST(RunSettlement, ARetryIsNeverDueLaterThanTheSeriesNextSlot) {
  // The 10:00 slot failed at 10:02; the retry is due at the earlier of its
  // own time and the series' next slot.
  struct Case {
    DurationMs delay;
    const char* next_slot;
    const char* due;
  };
  const Case cases[] = {
      {30 * kSecond, "10:10:00", "10:02:30"}, {10 * kMinute, "10:10:00", "10:10:00"},
      {8 * kMinute, "10:10:00", "10:10:00"},  {8 * kMinute - 1, "10:10:00", "10:09:59.999"},
      {60 * kMinute, "10:05:00", "10:05:00"}, {kDay, "10:10:00", "10:10:00"},
  };
  for (const Case& c : cases) {
    Loop loop = loop_every_ten_minutes();
    loop.retry_delay_ms = c.delay;
    loop.next_run_at = t(c.next_slot);
    const ScheduleState state = settle(loop, finished(RunStatus::kFailed, 1));
    EXPECT_EQ(state.next_run_at, t(c.due)) << c.delay << " " << c.next_slot;
    EXPECT_EQ(state.series_resume_at, t(c.next_slot));
    EXPECT_EQ(state.retry_scheduled_for, t("10:00:00"));
  }
  // A usage limit's cooldown past the next slot: due at the slot too.
  Loop loop = loop_every_ten_minutes();
  orrery::Run limited = finished(RunStatus::kFailed, 1);
  limited.usage_limited = true;
  SettleInput input;
  input.cooldown_until = t("12:00:00");
  EXPECT_EQ(settle(loop, limited, input).next_run_at, t("10:10:00"));
  // A fixed-delay loop has no next slot while its run is out: nothing to cap.
  Loop waiting = fixed_delay();
  waiting.retry_delay_ms = kDay;
  EXPECT_EQ(settle(waiting, finished(RunStatus::kFailed, 1)).next_run_at, t("10:02:00") + kDay);
}

TEST(RunSettlement, ASecondRetryWaitsNotWhileAnotherIsPending) {
  for (const char* other : {"09:50:00", "09:40:00"}) {
    Loop loop = loop_every_ten_minutes();
    loop.retry_scheduled_for = t(other);
    loop.next_run_at = t("10:05:00");
    EXPECT_EQ(settle(loop, finished(RunStatus::kFailed)), schedule_state(loop)) << other;
  }
  // The same slot pending again is simply rescheduled.
  Loop loop = loop_every_ten_minutes();
  loop.retry_scheduled_for = t("10:00:00");
  EXPECT_EQ(settle(loop, finished(RunStatus::kFailed)).next_run_at, t("10:02:30"));
}

TEST(RunSettlement, AFinishedRunWithoutAFinishTimeCountsFromNow) {
  orrery::Run run = finished(RunStatus::kFailed);
  run.finished_at.reset();
  SettleInput input;
  input.now = t("10:07:00");
  EXPECT_EQ(settle(loop_every_ten_minutes(), run, input).next_run_at, t("10:07:30"));
}

TEST(RunSettlement, AFixedDelayLoopGetsItsNextSlotFromTheFinish) {
  for (RunStatus status : {RunStatus::kSucceeded, RunStatus::kCancelled, RunStatus::kFailed}) {
    Loop loop = fixed_delay();
    loop.max_attempts = 1;
    EXPECT_EQ(settle(loop, finished(status)), with_next(loop, t("10:12:00")))
        << run_status_name(status);
  }
  Loop advanced = fixed_delay();
  advanced.next_run_at = t("10:20:00");  // not waiting for this run
  EXPECT_EQ(settle(advanced, finished(RunStatus::kSucceeded)), schedule_state(advanced));
}

TEST(RunSettlement, ADynamicLoopTakesTheRunsChoiceClampedOrItsMinimum) {
  const Loop loop = dynamic();
  const std::pair<std::optional<DurationMs>, std::string> cases[] = {
      {std::nullopt, "10:07:00"},       {20 * kMinute, "10:22:00"},
      {1 * kSecond, "10:07:00"},        {0, "10:07:00"},
      {60 * kMinute, "11:02:00"},       {5 * 60 * kMinute, "11:02:00"},
      {kMaxDynamicDelayMs, "11:02:00"},
  };
  for (const auto& [choice, next] : cases) {
    orrery::Run run = finished(RunStatus::kSucceeded);
    run.next_in_ms = choice;
    EXPECT_EQ(settle(loop, run), with_next(loop, t(next))) << next;
  }
}

TEST(RunSettlement, AFailedRunOfAFixedDelayLoopIsRetriedBeforeItsNextSlot) {
  const Loop loop = fixed_delay();
  const ScheduleState state = settle(loop, finished(RunStatus::kFailed));
  EXPECT_EQ(state.retry_scheduled_for, t("10:00:00"));
  EXPECT_EQ(state.next_run_at, t("10:02:30"));
}

TEST(RunSettlement, AOnceLoopCompletesWhenItsSlotIsDone) {
  for (RunStatus status : {RunStatus::kSucceeded, RunStatus::kCancelled, RunStatus::kSkipped}) {
    const ScheduleState state = settle(once(), finished(status));
    EXPECT_EQ(state.status, LoopStatus::kCompleted) << run_status_name(status);
    EXPECT_FALSE(state.next_run_at);
    EXPECT_FALSE(state.retry_scheduled_for);
  }
  Loop last_attempt = once();
  last_attempt.retry_scheduled_for = t("10:00:00");
  const ScheduleState failed = settle(last_attempt, finished(RunStatus::kFailed, 3));
  EXPECT_EQ(failed.status, LoopStatus::kCompleted);
  EXPECT_FALSE(failed.retry_scheduled_for);
  // A failure with attempts left is retried first.
  const ScheduleState retried = settle(once(), finished(RunStatus::kFailed, 1));
  EXPECT_EQ(retried.status, LoopStatus::kActive);
  EXPECT_EQ(retried.retry_scheduled_for, t("10:00:00"));
}

TEST(RunSettlement, AOnceLoopIgnoresARunOfAnotherSlot) {
  orrery::Run other = finished(RunStatus::kSucceeded);
  other.scheduled_for = t("10:05:00");
  EXPECT_EQ(settle(once(), other), schedule_state(once()));
}

TEST(RunSettlement,
     APausedOrArchivedLoopKeepsItsStateButAWaitingOneGetsItsNextSlotAndAPausedOnceLoopCompletes) {
  auto pause = [](Loop loop, bool archive) {
    loop.status = LoopStatus::kPaused;
    loop.archived = archive;
    if (archive) loop.archived_from_status = LoopStatus::kActive;
    return loop;
  };
  for (bool archive : {false, true}) {
    const Loop rate = pause(loop_every_ten_minutes(), archive);
    EXPECT_EQ(settle(rate, finished(RunStatus::kFailed)), schedule_state(rate)) << archive;
    const Loop single = pause(once(), archive);
    if (archive) {
      EXPECT_EQ(settle(single, finished(RunStatus::kSucceeded)), schedule_state(single));
    } else {  // a paused once loop completes: resuming it would give it nothing to run
      EXPECT_EQ(settle(single, finished(RunStatus::kSucceeded)).status, LoopStatus::kCompleted);
    }
    const Loop delay = pause(fixed_delay(), archive);
    EXPECT_EQ(settle(delay, finished(RunStatus::kFailed)), with_next(delay, t("10:12:00")));
    const Loop chosen = pause(dynamic(), archive);
    EXPECT_EQ(settle(chosen, finished(RunStatus::kSucceeded)), with_next(chosen, t("10:07:00")));
  }
  for (LoopStatus status : {LoopStatus::kExpired, LoopStatus::kCompleted}) {
    Loop rate = loop_every_ten_minutes();
    rate.status = status;
    EXPECT_EQ(settle(rate, finished(RunStatus::kFailed)), schedule_state(rate));
  }
}

// An expired (or completed) loop will not run again: a run that finishes
// after the loop expired gives it no next slot, whatever it was waiting for.
TEST(RunSettlement, AnExpiredOrCompletedLoopGetsNoNextSlotFromARunThatFinishedLate) {
  for (LoopStatus status : {LoopStatus::kExpired, LoopStatus::kCompleted}) {
    for (Loop loop : {fixed_delay(), dynamic(), once()}) {
      SCOPED_TRACE(std::string(loop_status_name(status)) + " " +
                   schedule_type_name(loop.schedule.type));
      loop.status = status;
      for (RunStatus finish : {RunStatus::kSucceeded, RunStatus::kFailed}) {
        EXPECT_EQ(settle(loop, finished(finish)), schedule_state(loop)) << run_status_name(finish);
      }
    }
  }
}

TEST(RunSettlement, AFixedRateOrCronLoopIsLeftAsPlanned) {
  Loop cron = loop_every_ten_minutes();
  cron.schedule.type = ScheduleType::kCron;
  cron.schedule.expression = "*/10 * * * *";
  cron.schedule.timezone = "UTC";
  for (const Loop& loop : {loop_every_ten_minutes(), cron}) {
    EXPECT_EQ(settle(loop, finished(RunStatus::kSucceeded)), schedule_state(loop));
    Loop empty = loop;  // not waiting for anything: no slot is invented
    empty.next_run_at.reset();
    EXPECT_EQ(settle(empty, finished(RunStatus::kSucceeded)), schedule_state(empty));
  }
}

TEST(RunSettlement, ARunThatHasNotFinishedIsNotSettled) {
  const Loop loop = fixed_delay();
  auto series = SlotSeries::compile(loop.schedule, loop.id);
  ASSERT_TRUE(series.ok());
  for (RunStatus status : {RunStatus::kRunning, RunStatus::kQueued}) {
    orrery::Run run = finished(status);
    run.finished_at.reset();
    auto state = settle_finished_run(loop, *series, run, SettleInput{});
    ASSERT_FALSE(state.ok()) << run_status_name(status);
    EXPECT_EQ(state.error().code, ErrorCode::kInternal);
  }
}

}  // namespace
}  // namespace orrery
