#include "core/loop_transitions.h"

#include <gtest/gtest.h>

#include "support/time_literals.h"

namespace orrery {
namespace {

using testing::at;

const TimeMs kCreated = at("2026-06-01T12:00:00Z");

Loop hourly() {
  Loop loop;
  loop.id = "0123456789abcdef0123456789abcdef";
  loop.name = "hourly";
  loop.schedule.type = ScheduleType::kCron;
  loop.schedule.expression = "0 * * * *";
  loop.schedule.timezone = "UTC";
  loop.next_run_at = at("2026-06-01T13:00:00Z");
  loop.created_at = loop.updated_at = kCreated;
  return loop;
}

TEST(LoopTransitions, PauseAnActiveLoop) {
  auto paused = pause_loop(hourly(), kCreated + 5);
  ASSERT_TRUE(paused.ok());
  EXPECT_EQ(paused->status, LoopStatus::kPaused);
  EXPECT_EQ(paused->updated_at, kCreated + 5);
  auto again = pause_loop(*paused, kCreated + 6);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().code, ErrorCode::kConflict);
  EXPECT_EQ(again.error().message, "cannot pause loop hourly: it is paused");
}

// A loop paused at 12:00 and resumed at 15:20 does not catch up 13:00-15:00.
TEST(LoopTransitions, ResumeSchedulesTheNextSlotAfterNow) {
  Loop loop = *pause_loop(hourly(), kCreated);
  loop.retry_scheduled_for = at("2026-06-01T12:00:00Z");
  auto resumed = resume_loop(loop, at("2026-06-01T15:20:00Z"));
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(resumed->status, LoopStatus::kActive);
  EXPECT_EQ(resumed->next_run_at, at("2026-06-01T16:00:00Z"));
  EXPECT_FALSE(resumed->retry_scheduled_for.has_value());
  EXPECT_EQ(resume_loop(hourly(), kCreated).error().message,
            "cannot resume loop hourly: it is active");
}

TEST(LoopTransitions, AResumedOnceLoopKeepsItsTimeOrRunsNowIfItPassed) {
  Loop once = hourly();
  once.schedule = {};
  once.schedule.type = ScheduleType::kOnce;
  once.schedule.at = at("2026-06-01T13:00:00Z");
  once.status = LoopStatus::kPaused;
  EXPECT_EQ(resume_loop(once, at("2026-06-01T12:30:00Z"))->next_run_at, at("2026-06-01T13:00:00Z"));
  EXPECT_EQ(resume_loop(once, at("2026-06-01T14:00:00Z"))->next_run_at, at("2026-06-01T14:00:00Z"));
}

TEST(LoopTransitions, AnUnarchivedOnceLoopKeepsItsTimeOrRunsNowIfItPassed) {
  Loop once = hourly();
  once.schedule = {};
  once.schedule.type = ScheduleType::kOnce;
  once.schedule.at = at("2026-06-01T13:00:00Z");
  const Loop archived = *archive_loop(once, kCreated);
  EXPECT_EQ(unarchive_loop(archived, at("2026-06-01T12:59:59Z"))->next_run_at,
            at("2026-06-01T13:00:00Z"));
  EXPECT_EQ(unarchive_loop(archived, at("2026-06-01T13:00:00Z"))->next_run_at,
            at("2026-06-01T13:00:00Z"));
  EXPECT_EQ(unarchive_loop(archived, at("2026-06-03T08:00:00Z"))->next_run_at,
            at("2026-06-03T08:00:00Z"));
  // Archived while paused: it stays paused and keeps its (passed) slot.
  const Loop paused_archived = *archive_loop(*pause_loop(once, kCreated), kCreated);
  auto restored = unarchive_loop(paused_archived, at("2026-06-03T08:00:00Z"));
  EXPECT_EQ(restored->status, LoopStatus::kPaused);
  EXPECT_EQ(restored->next_run_at, at("2026-06-01T13:00:00Z"));
}

TEST(LoopTransitions, AOnceLoopWithoutASlotLeftGetsNoneWhenResumed) {
  Loop once = hourly();
  once.schedule = {};
  once.schedule.type = ScheduleType::kOnce;
  once.schedule.at = at("2026-06-01T13:00:00Z");
  once.status = LoopStatus::kPaused;
  once.next_run_at.reset();
  auto resumed = resume_loop(once, at("2026-06-01T14:00:00Z"));
  ASSERT_TRUE(resumed.ok());
  EXPECT_FALSE(resumed->next_run_at.has_value());
  auto unarchived = unarchive_loop(*archive_loop(*resumed, kCreated), at("2026-06-01T15:00:00Z"));
  ASSERT_TRUE(unarchived.ok());
  EXPECT_FALSE(unarchived->next_run_at.has_value());
}

TEST(LoopTransitions, ArchiveRemembersTheStatusAndUnarchiveRestoresIt) {
  auto archived = archive_loop(hourly(), kCreated + 1);
  ASSERT_TRUE(archived.ok());
  EXPECT_TRUE(archived->archived);
  EXPECT_EQ(archived->status, LoopStatus::kPaused);
  EXPECT_EQ(archived->archived_from_status, LoopStatus::kActive);
  EXPECT_EQ(archive_loop(*archived, kCreated + 2).error().code, ErrorCode::kConflict);
  EXPECT_EQ(resume_loop(*archived, kCreated + 2).error().message,
            "cannot resume loop hourly: it is archived");

  auto restored = unarchive_loop(*archived, at("2026-06-01T18:10:00Z"));
  ASSERT_TRUE(restored.ok());
  EXPECT_FALSE(restored->archived);
  EXPECT_EQ(restored->status, LoopStatus::kActive);
  EXPECT_FALSE(restored->archived_from_status.has_value());
  EXPECT_EQ(restored->next_run_at, at("2026-06-01T19:00:00Z"));
  EXPECT_EQ(unarchive_loop(*restored, kCreated).error().code, ErrorCode::kConflict);
}

TEST(LoopTransitions, APausedLoopArchivedAndUnarchivedStaysPaused) {
  Loop paused = *pause_loop(hourly(), kCreated);
  auto restored = unarchive_loop(*archive_loop(paused, kCreated + 1), kCreated + 2);
  ASSERT_TRUE(restored.ok());
  EXPECT_EQ(restored->status, LoopStatus::kPaused);
  EXPECT_EQ(restored->next_run_at, paused.next_run_at);
}

TEST(LoopTransitions, RenameNeedsANonEmptyName) {
  EXPECT_EQ(rename_loop(hourly(), "nightly", kCreated + 1)->name, "nightly");
  auto empty = rename_loop(hourly(), "", kCreated + 1);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::kUsage);
}

}  // namespace
}  // namespace orrery
