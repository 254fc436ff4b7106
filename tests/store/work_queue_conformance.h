// The fixture of the admission part of the Store conformance suite
// (tests/store/work_queue_*_test.cc: routes, items, admission): WorkflowConformance's stores of
// each backend, with helpers that add routes, enqueue items and move them through admission
// (docs/admission.md).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/sql/sql_store.h"
#include "store/workflow_conformance.h"

namespace orrery::conformance {

// The rows of the invocations table, whatever items refer to them.
inline std::int64_t invocation_rows(Store& store) {
  auto* sql = dynamic_cast<SqlStore*>(&store);
  auto query = sql->connection().prepare("SELECT COUNT(*) FROM invocations");
  EXPECT_TRUE(query.ok());
  if (!query) return -1;
  auto row = (*query)->step();
  EXPECT_TRUE(row.ok() && *row);
  return (*query)->int64(0);
}

class WorkQueueConformance : public WorkflowConformance {
 protected:
  Route make_route(const std::string& name, int max_running = 1) {
    if (workflow_.id.empty()) workflow_ = add_workflow("triage");
    Route route;
    route.name = name;
    route.description = "about " + name;
    route.workflow_id = workflow_.id;
    route.workflow_name = workflow_.name;
    route.workflow_version = workflow_.version;
    route.max_running = max_running;
    return route;
  }

  Route add_route(const std::string& name, int max_running = 1) {
    return ok_value(store_->create_route(make_route(name, max_running), kNow));
  }

  static WorkItem make_item(const Route& route, const std::string& key, std::int64_t priority = 0,
                            const std::string& project = "") {
    WorkItem item;
    item.route_id = route.id;
    item.key = key;
    item.priority = priority;
    item.project = project;
    item.invocation.source = {"github", "issue-" + key, ""};
    item.invocation.subject = {"issue", key, "", "https://example.com/" + key};
    item.invocation.intent = "fix " + key;
    return item;
  }

  Enqueued enqueue(const Route& route, const std::string& key, std::int64_t priority = 0,
                   const std::string& project = "", TimeMs now = kNow) {
    return ok_value(store_->enqueue_item(make_item(route, key, priority, project), now));
  }

  WorkItem item_now(const std::string& id) {
    auto item = ok_value(store_->get_item(id));
    EXPECT_TRUE(item.has_value()) << "no item " << id;
    return item.value_or(WorkItem{});
  }

  std::vector<std::string> admit(const std::vector<std::string>& ids, int global_max = 0,
                                 TimeMs now = kNow, const Fence& fence = {}) {
    std::vector<std::string> admitted;
    for (const WorkItem& item : ok_value(store_->admit_items(ids, global_max, now, fence))) {
      admitted.push_back(item.id);
    }
    return admitted;
  }

  // The daemon's read (store/admission.h AdmissionRead).
  AdmissionQueue read_queue(TimeMs now, int limit = 100, int global_max = 0,
                            const std::vector<std::string>& held = {}, const Fence& fence = {}) {
    return ok_value(store_->read_admission_queue({now, limit, global_max, held}, fence));
  }

  // Admits the item and starts a new run of the route's workflow for it.
  WorkflowRun start(const WorkItem& item, TimeMs now = kNow) {
    EXPECT_EQ(admit({item.id}, 0, now), std::vector<std::string>{item.id});
    const std::string id = next_id(now);
    NewWorkflowRun published = new_run(workflow_, "item:" + item.id + ":" + id);
    published.run.id = id;
    published.run.item_id = item.id;
    const WorkflowRun run = ok_value(store_->publish_workflow_run(published, {}, now)).run;
    const Status started = store_->start_item(item.id, run.id, now, {});
    EXPECT_TRUE(started.ok()) << (started.ok() ? "" : started.error().message);
    return run;
  }

  // Ends a workflow run with a status, as its driver would.
  void end_run(const WorkflowRun& run, WorkflowRunStatus status, const std::string& error = "") {
    const EngineFence fence = drive(run);
    WorkflowAdvance advance;
    advance.events = {{std::string("run_") + workflow_run_status_name(status), "", "{}"}};
    advance.finish = status;
    advance.error = error;
    const Status ended = store_->advance_workflow_run(fence, advance, kNow + 10);
    ASSERT_TRUE(ended.ok()) << ended.error().message;
  }

  Workflow workflow_;
};

}  // namespace orrery::conformance
