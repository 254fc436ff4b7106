#include "views/admission_view.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace orrery {
namespace {

// Built apart from the test (GCC 12 at -O3 reads the inlined string copies
// of a local item as uninitialized).
[[gnu::noinline]] WorkItem waiting_item() {
  WorkItem item;
  item.id = "i1";
  item.route_id = "r1";
  item.route_name = "triage";
  item.key = "12";
  item.priority = 3;
  item.priority_aging_ms = 60'000;
  item.queued_at = 0;
  item.max_attempts = 3;
  item.input_json = R"({"a":1})";
  return item;
}

TEST(ItemDocument, HasEveryFieldWithNoneAsNull) {
  const nlohmann::json json = item_json(waiting_item(), "next tick", 120'000);
  for (const char* field :
       {"id", "route_id", "route_name", "key", "status", "priority", "effective_priority",
        "project", "group", "attempts", "max_attempts", "next_attempt_at", "workflow_run_id",
        "last_reason", "waiting_on", "invocation", "input", "created_at", "updated_at"}) {
    EXPECT_TRUE(json.contains(field)) << field;
  }
  EXPECT_EQ(json["effective_priority"], 5);
  EXPECT_TRUE(json["project"].is_null());
  EXPECT_EQ(json["waiting_on"], "next tick");
  EXPECT_EQ(json["input"]["a"], 1);
  EXPECT_TRUE(json["invocation"]["subject"]["kind"].is_null());
  EXPECT_TRUE(json["invocation"]["scope"].is_object());
}

TEST(RouteDocument, CountsEveryStatus) {
  Route route;
  route.name = "triage";
  const nlohmann::json json = route_json(route, {{ItemStatus::kRunning, 2}});
  EXPECT_EQ(json["counts"].size(), 8u);
  EXPECT_EQ(json["counts"]["running"], 2);
  EXPECT_EQ(json["counts"]["dead_letter"], 0);
  EXPECT_EQ(json["workflow"]["version"], 1);
  EXPECT_EQ(json["retry_backoff"], "fixed");
}

}  // namespace
}  // namespace orrery
