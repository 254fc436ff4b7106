// ops::enqueue and ops::enqueue_batch over a real SQLite store: an item's
// key makes enqueueing idempotent (created, refreshed while it waits, a
// duplicate once admitted, which changes nothing), a batch stores its valid lines and names
// its invalid ones, and a route not found stores nothing.
#include "ops/items.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/workflow_spec.h"
#include "support/sqlite_test_store.h"

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z

class OpsItems : public ::testing::Test {
 protected:
  OpsItems() {
    WorkflowSpec spec;
    spec.name = "triage";
    WorkflowStep step;
    step.id = "s";
    step.target.argv = {"/bin/true"};
    spec.steps.push_back(step);
    auto workflow = store_->create_workflow(spec, std::string(32, 'a'), kNow);
    EXPECT_TRUE(workflow.ok()) << workflow.error().message;
    Route route;
    route.name = "inbox";
    route.workflow_id = workflow->id;
    route.workflow_name = workflow->name;
    route.workflow_version = workflow->version;
    route.max_running = 1;
    auto created = store_->create_route(route, kNow);
    EXPECT_TRUE(created.ok()) << created.error().message;
  }

  ops::QueuePlace place(TimeMs now = kNow) { return {*store_, *store_, store_.dir().path(), now}; }

  static WorkItem item(const std::string& key, std::int64_t priority = 0) {
    WorkItem made;
    made.key = key;
    made.priority = priority;
    made.invocation.intent = "fix " + key;
    return made;
  }

  std::int64_t items_stored() {
    ItemFilter all;
    return store_->count_items(all).value();
  }

  testing::SqliteTestStore store_{kNow};
};

TEST_F(OpsItems, AKeyIsCreatedOnceRefreshedWhileItWaitsAndADuplicateOnceAdmitted) {
  auto created = ops::enqueue(place(), "inbox", item("issue-7", 1));
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_EQ(created->outcome, EnqueueOutcome::kCreated);
  EXPECT_EQ(created->item.route_name, "inbox");

  auto refreshed = ops::enqueue(place(kNow + 2), "inbox", item("issue-7", 9));
  ASSERT_TRUE(refreshed.ok()) << refreshed.error().message;
  EXPECT_EQ(refreshed->outcome, EnqueueOutcome::kRefreshed);
  EXPECT_EQ(refreshed->item.id, created->item.id);
  EXPECT_EQ(refreshed->item.priority, 9);

  auto admitted = store_->admit_items({created->item.id}, 0, kNow + 3, {});
  ASSERT_TRUE(admitted.ok() && admitted->size() == 1u);
  auto duplicate = ops::enqueue(place(kNow + 4), "inbox", item("issue-7", 5));
  ASSERT_TRUE(duplicate.ok()) << duplicate.error().message;
  EXPECT_EQ(duplicate->outcome, EnqueueOutcome::kDuplicate);
  EXPECT_EQ(duplicate->item.id, created->item.id);
  EXPECT_EQ(duplicate->item.priority, 9) << "a duplicate changes nothing";
  EXPECT_EQ(duplicate->item.updated_at, admitted->front().updated_at);
  EXPECT_EQ(items_stored(), 1);
}

TEST_F(OpsItems, ARouteNotFoundStoresNothing) {
  auto refused = ops::enqueue(place(), "nowhere", item("issue-1"));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kNotFound);
  auto batch = ops::enqueue_batch(place(), "nowhere", R"({"key": "a"})");
  ASSERT_FALSE(batch.ok());
  EXPECT_EQ(batch.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(items_stored(), 0);
}

TEST_F(OpsItems, ABatchStoresItsValidLinesCountsEachOutcomeAndNamesItsInvalidLines) {
  ASSERT_TRUE(ops::enqueue(place(), "inbox", item("old")).ok());
  const std::string lines =
      "{\"key\": \"a\"}\n"
      "not json\n"
      "{\"key\": \"old\", \"intent\": \"fix old\"}\n"
      "\n"
      "{\"key\": \"b\", \"priority\": 3}\n"
      "{\"priority\": 1}\n";
  auto batch = ops::enqueue_batch(place(kNow + 5), "inbox", lines);
  ASSERT_TRUE(batch.ok()) << batch.error().message;
  EXPECT_EQ(batch->counts.created, 2);
  EXPECT_EQ(batch->counts.duplicate + batch->counts.refreshed, 1);
  EXPECT_EQ(batch->ids.size(), 3u);
  std::vector<int> invalid_lines;
  for (const InvalidLine& line : batch->invalid) invalid_lines.push_back(line.line);
  EXPECT_EQ(invalid_lines, (std::vector<int>{2, 6}));
  EXPECT_EQ(items_stored(), 3);
}

}  // namespace
}  // namespace orrery
