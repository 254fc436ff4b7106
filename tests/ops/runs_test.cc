// ops::list_runs over a real SQLite store: pages by offset and by cursor,
// filters, the loop's goal, and every refusal leaving nothing read.
#include "ops/runs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/ids.h"
#include "support/sqlite_test_store.h"

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z
constexpr DurationMs kMinute = 60'000;

class OpsRuns : public ::testing::Test {
 protected:
  Loop add_loop(const std::string& name) {
    Loop loop;
    std::array<std::uint8_t, 10> bytes{};
    bytes[0] = std::uint8_t(++loops_);
    loop.id = make_id(kNow, bytes);
    loop.name = name;
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = kMinute;
    loop.target.argv = {"/bin/true"};
    loop.next_run_at = kNow + kMinute;
    loop.created_at = loop.updated_at = kNow;
    EXPECT_TRUE(store_->create_loop(loop).ok());
    return loop;
  }

  // A manual run of `loop` at `slot` (unique per loop), created at `at`
  // (the slot itself unless given).
  std::string add_run(const Loop& loop, TimeMs slot, std::optional<TimeMs> at = std::nullopt) {
    auto claimed = store_->claim_slot({loop.id, slot, true}, "test", at.value_or(slot), {});
    EXPECT_TRUE(claimed.ok() && claimed->has_value());
    return claimed.ok() && claimed->has_value() ? (*claimed)->run.id : "";
  }

  Result<ops::RunList> list(const ops::RunQuery& query) {
    return ops::list_runs(*store_, *store_, *store_, query);
  }

  // Every run a query's pages hold, asked for by cursor, with `between`
  // called after each page.
  std::vector<std::string> page_through(ops::RunQuery query, const std::function<void()>& between) {
    std::vector<std::string> seen;
    for (int pages = 0; pages < 100; ++pages) {
      auto listed = list(query);
      EXPECT_TRUE(listed.ok()) << listed.error().message;
      if (!listed) break;
      for (const orrery::Run& run : listed->page.rows) seen.push_back(run.id);
      if (listed->page.next_cursor.empty()) break;
      query.page.cursor = listed->page.next_cursor;
      between();
    }
    return seen;
  }

  testing::SqliteTestStore store_{kNow};
  int loops_ = 0;
};

TEST_F(OpsRuns, PagesByCursorHoldEveryRunOnceWhileRunsAreCreatedBetweenThem) {
  const Loop loop = add_loop("busy");
  for (int i = 0; i < 7; ++i) add_run(loop, kNow + i, kNow + (i < 3 ? 0 : i));  // 3 share one
  TimeMs later = kNow + 1000;
  for (int limit : {1, 2, 3, 7, 8, 100}) {
    SCOPED_TRACE("limit " + std::to_string(limit));
    auto before = list({"busy", {}, {ops::kMaxRunsPage, 0, ""}});
    ASSERT_TRUE(before.ok());
    std::vector<std::string> expected;
    for (const orrery::Run& run : before->page.rows) expected.push_back(run.id);
    const std::vector<std::string> seen =
        page_through({"busy", {}, {limit, 0, ""}}, [&] { add_run(loop, ++later); });
    EXPECT_EQ(seen, expected);
  }
}

TEST_F(OpsRuns, APageByOffsetTellsHowManyRunsFollowIt) {
  const Loop loop = add_loop("counted");
  for (int i = 0; i < 5; ++i) add_run(loop, kNow + i);
  for (int offset = 0; offset <= 6; ++offset) {
    auto listed = list({"", {}, {2, offset, ""}});
    ASSERT_TRUE(listed.ok()) << listed.error().message;
    const int shown = std::max(0, std::min(2, 5 - offset));
    EXPECT_EQ(listed->page.rows.size(), size_t(shown)) << offset;
    EXPECT_EQ(listed->page.place.rest, std::max(0, 5 - offset - shown)) << offset;
    EXPECT_EQ(listed->page.next_cursor.empty(), listed->page.place.rest == 0) << offset;
  }
}

TEST_F(OpsRuns, AStatusAndALoopSelectTheirRunsAndTheLoopsGoalComesWithThem) {
  const Loop mine = add_loop("mine");
  const Loop other = add_loop("other");
  for (int i = 0; i < 4; ++i) add_run(mine, kNow + i);
  add_run(other, kNow + 10);
  Goal goal;
  goal.objective = "pass";
  goal.target.type = GoalTargetType::kLoop;
  goal.target.loop_id = mine.id;
  ASSERT_TRUE(store_->create_goal(goal, kNow).ok());

  auto of_mine = list({"mine", RunStatus::kRunning, {100, 0, ""}});
  ASSERT_TRUE(of_mine.ok()) << of_mine.error().message;
  EXPECT_EQ(of_mine->page.rows.size(), 4u);
  for (const orrery::Run& run : of_mine->page.rows) EXPECT_EQ(run.loop_id, mine.id);
  ASSERT_TRUE(of_mine->loop.has_value());
  EXPECT_EQ(of_mine->loop->id, mine.id);
  ASSERT_TRUE(of_mine->goal.has_value());
  EXPECT_EQ(of_mine->goal->target.loop_id, mine.id);

  auto of_other = list({other.id, {}, {100, 0, ""}});
  ASSERT_TRUE(of_other.ok());
  EXPECT_EQ(of_other->page.rows.size(), 1u);
  EXPECT_FALSE(of_other->goal.has_value());

  auto none = list({"", RunStatus::kSucceeded, {100, 0, ""}});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->page.rows.empty());
  EXPECT_FALSE(none->loop.has_value());
}

TEST_F(OpsRuns, ABadPageCursorOrLoopIsRefusedNamingIt) {
  add_run(add_loop("there"), kNow);
  struct Refused {
    ops::RunQuery query;
    ErrorCode code;
    std::string names;
  };
  const std::string cursor = "1." + std::string(32, 'a');
  const std::vector<Refused> refused{
      {{"", {}, {0, 0, ""}}, ErrorCode::kUsage, "limit 0"},
      {{"", {}, {ops::kMaxRunsPage + 1, 0, ""}}, ErrorCode::kUsage, "limit 10001"},
      {{"", {}, {10, -1, ""}}, ErrorCode::kUsage, "offset -1"},
      {{"", {}, {10, 3, cursor}}, ErrorCode::kUsage, "offset 3 and a cursor"},
      {{"", {}, {10, 0, "7"}}, ErrorCode::kUsage, "'7' is not a cursor"},
      {{"", {}, {10, 0, std::string("\xff", 1)}}, ErrorCode::kUsage, "is not a cursor"},
      {{"nowhere", {}, {10, 0, ""}}, ErrorCode::kNotFound, "nowhere"},
  };
  for (const Refused& r : refused) {
    auto listed = list(r.query);
    ASSERT_FALSE(listed.ok()) << r.names;
    EXPECT_EQ(listed.error().code, r.code) << listed.error().message;
    EXPECT_NE(listed.error().message.find(r.names), std::string::npos) << listed.error().message;
  }
}

TEST_F(OpsRuns, ARunsLinksAreNoneUntilItStartsAWorkflowOrFeedsARoute) {
  const Loop loop = add_loop("plain");
  const std::string run = add_run(loop, kNow);
  const RunLinks links = ops::run_links(*store_, *store_, run);
  EXPECT_TRUE(links.workflow_run_id.empty());
  EXPECT_FALSE(links.feed.has_value());
  const nlohmann::json document = run_document_json(*store_->get_run(run).value(), links, false);
  EXPECT_TRUE(document["workflow_run_id"].is_null());
  EXPECT_TRUE(document["feed"].is_null());
  EXPECT_EQ(document["id"], run);
}

}  // namespace
}  // namespace orrery
