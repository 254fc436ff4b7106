// Every document of views/ fits its committed JSON Schema
// (src/views/schemas/): each document is made for every value of each enum
// it shows and with every optional field absent and present, then checked by
// Ajv (tests/integration/js/schema_check.mjs), a validator nobody on this
// project wrote. A schema no document was checked against fails the test, as
// does a document kind without a schema. (Texts are assigned as strings, not
// literals: GCC 12 at -O3 reports a literal's assignment as an overlapping copy.)
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/exact_json.h"
#include "core/goal.h"
#include "core/goal_turn.h"
#include "core/loop.h"
#include "core/merge_entry.h"
#include "core/route.h"
#include "core/run.h"
#include "core/run_feed.h"
#include "core/schedule.h"
#include "core/slot_plan.h"
#include "core/work_item.h"
#include "core/worker.h"
#include "core/workflow.h"
#include "support/temp_dir.h"
#include "views/admission_view.h"
#include "views/error_view.h"
#include "views/goal_view.h"
#include "views/loop_view.h"
#include "views/run_view.h"
#include "views/worker_view.h"
#include "views/workflow_view.h"

namespace orrery {
namespace {

using nlohmann::json;

constexpr TimeMs kAt = 1'700'000'000'123;

// Every value of an enum whose names `name` gives (those it calls
// "unknown" are not values).
template <typename Enum>
std::vector<Enum> every(const char* (*name)(Enum)) {
  std::vector<Enum> values;
  for (int raw = 0; raw < 64; ++raw) {
    if (std::string(name(static_cast<Enum>(raw))) != "unknown") values.push_back(Enum(raw));
  }
  return values;
}

// The documents made, by schema name.
class Documents {
 public:
  void add(const std::string& kind, json document) { kinds_[kind].push_back(std::move(document)); }
  json all() const { return json(kinds_); }

 private:
  std::map<std::string, std::vector<json>> kinds_;
};

Schedule schedule_of(ScheduleType type) {
  Schedule schedule;
  schedule.type = type;
  schedule.expression = std::string("0 9 * * 1-5");
  schedule.timezone = std::string("Europe/Paris");
  schedule.every_ms = 60'000;
  schedule.at = kAt;
  schedule.min_ms = 1'000;
  schedule.max_ms = 3'600'000;
  schedule.jitter_ms = 500;
  return schedule;
}

Target target_of(TargetType type, bool shell) {
  Target target;
  target.type = type;
  target.shell = shell;
  target.command_line = std::string("echo hi");
  target.argv = {"echo", "hi"};
  target.env = {{"A", "1"}};
  target.secret_env = {"TOKEN"};
  if (type == TargetType::kAgent) {
    AgentTarget agent;
    agent.prompt = std::string("fix it");
    agent.model = std::string("m");
    agent.add_dirs = {"/tmp"};
    target.agent = agent;
  }
  if (type == TargetType::kWorkflow) {
    target.workflow_id = std::string("w1");
    target.input_json = std::string(R"({"n": 123456789012345678901234})");
  }
  return target;
}

void add_loops(Documents& documents) {
  for (ScheduleType type : every(schedule_type_name)) {
    documents.add("schedule", schedule_json(schedule_of(type)));
  }
  for (TargetType type : every(target_type_name)) {
    for (bool full : {false, true}) {
      Loop loop;
      loop.id = std::string("l1");
      loop.name = std::string("nightly");
      loop.schedule = schedule_of(ScheduleType::kCron);
      loop.target = target_of(type, full);
      if (full) {
        loop.target.cwd = std::string("/src");
        loop.next_run_at = kAt;
        loop.retry_scheduled_for = kAt;
        loop.catch_up.window = 60'000;
        loop.timeout_ms = 1'000;
        loop.idle_timeout_ms = 1'000;
        loop.feed_route_id = std::string("r1");
        loop.paused_by_goal = std::string("g1");
        loop.expires_at = kAt;
        loop.machine = {{"gpu", "yes"}};
      }
      documents.add("loop", loop_json(loop));
    }
  }
  for (LoopStatus status : every(loop_status_name)) {
    Loop loop;
    loop.status = status;
    documents.add("loop", loop_json(loop));
  }
  for (OverlapPolicy overlap : every(overlap_name)) {
    for (CatchUpMode mode : every(catch_up_mode_name)) {
      Loop loop;
      loop.overlap = overlap;
      loop.catch_up.mode = mode;
      loop.retry_backoff = RetryBackoff::kExponential;
      documents.add("loop", loop_json(loop));
    }
  }
  documents.add("times", times_json({}));
  documents.add("times", times_json({kAt, kAt + 60'000}));
}

void add_runs(Documents& documents) {
  for (RunStatus status : every(run_status_name)) {
    for (bool full : {false, true}) {
      Run run;
      run.id = std::string("r1");
      run.status = status;
      if (full) {
        run.started_at = kAt;
        run.finished_at = kAt + 5;
        run.exit_code = 0;
        run.signal = 9;
        run.duration_ms = 5;
        run.error = std::string("boom");
        run.skip_reason = std::string("overlap");
        run.target = ProcessIdentity{42, 1};
        run.supervisor = ProcessIdentity{41, 1};
        run.host = std::string("h");
        run.claimed_by = std::string("daemon");
        run.usage.input_tokens = 10;
        run.usage.output_tokens = 20;
        run.usage.cost_usd = 0.25;
      }
      documents.add("run", run_json(run, full));
      documents.add("run_document", run_document_json(run, {}, full));
    }
  }
  for (FeedStatus status : every(feed_status_name)) {
    for (bool full : {false, true}) {
      RunFeed feed;
      feed.route_id = std::string("route-id");
      feed.status = status;
      if (full) {
        feed.route_name = std::string("inbox");
        feed.created = 3;
        feed.invalid = 2;
        feed.invalid_lines = {{4, std::string("not JSON")}};
        feed.error = std::string("the route is gone");
        feed.fed_at = kAt;
      }
      RunLinks links;
      links.workflow_run_id = std::string(full ? "w1" : "");
      links.feed = feed;
      documents.add("run_document", run_document_json(Run{}, links, full));
    }
  }
}

void add_workflows(Documents& documents) {
  for (WorkflowStatus status : every(workflow_status_name)) {
    Workflow workflow;
    workflow.status = status;
    documents.add("workflow", workflow_json(workflow, R"([{"id": "a"}])"));
  }
  std::vector<StepRun> steps;
  for (StepStatus status : every(step_status_name)) {
    StepRun step;
    step.step_id = step_status_name(status);
    step.status = status;
    step.outputs_json = std::string(R"({"k": 1})");
    steps.push_back(step);
    step.started_at = kAt;
    step.finished_at = kAt + 1;
    step.exit_code = 1;
    step.error = std::string("failed");
    steps.push_back(step);
  }
  std::vector<PhaseAccounting> phases(1);
  phases[0].phase = std::string("execute");
  phases[0].totals.attempts = 2;
  for (WorkflowRunStatus status : every(workflow_run_status_name)) {
    WorkflowRun run;
    run.status = status;
    documents.add("workflow_run", workflow_run_json(run, {}, {}));
    run.loop_id = std::string("l1");
    run.loop_run_id = std::string("r1");
    run.item_id = std::string("i1");
    run.goal_id = std::string("g1");
    run.idempotency_key = std::string("k");
    run.driver = std::string("drive@h:1");
    run.started_at = kAt;
    run.finished_at = kAt + 10;
    run.error = std::string("step a failed");
    documents.add("workflow_run", workflow_run_json(run, steps, phases));
  }
  WorkflowEvent event;
  documents.add("workflow_event", workflow_event_json(event));
  event.step_id = std::string("a");
  event.event_type = std::string("step_started");
  event.payload_json = std::string(R"({"attempt": 1})");
  documents.add("workflow_event", workflow_event_json(event));
}

void add_goals(Documents& documents) {
  for (GoalStatus status : every(goal_status_name)) {
    for (GoalTargetType type : every(goal_target_type_name)) {
      Goal goal;
      goal.status = status;
      goal.target.type = type;
      documents.add("goal", goal_json(goal));
    }
  }
  for (DriveMode drive : every(drive_mode_name)) {
    Goal goal;
    goal.drive = drive;
    goal.target.loop_id = std::string("l1");
    goal.target.workflow_id = std::string("w1");
    goal.target.workflow_name = std::string("review");
    goal.target.step_id = std::string("a");
    goal.token_budget = 1'000;
    goal.max_turns = 5;
    goal.limited_until = kAt;
    goal.last_summary = std::string("halfway");
    goal.last_update_error = std::string("bad");
    for (NodeStatus status : every(node_status_name)) {
      PlanNode node;
      node.key = node_status_name(status);
      node.objective = std::string("do it");
      node.status = status;
      node.token_budget = 10;
      goal.plan.push_back(node);
    }
    documents.add("goal", goal_json(goal));
  }
  for (RunStatus run_status : every(run_status_name)) {
    GoalTurn turn;
    turn.run_status = run_status;
    documents.add("goal_turn", turn_json(turn));
    turn.loop_run_id = std::string("r1");
    turn.workflow_run_id = std::string("wr1");
    turn.step_id = std::string("a");
    turn.dispatch_id = std::string("d");
    turn.node_key = std::string("n");
    turn.evidence_json = std::string(R"({"tests": "pass"})");
    turn.summary = std::string("ok");
    turn.update_json = std::string("{}");
    turn.update_error = std::string("bad");
    documents.add("goal_turn", turn_json(turn));
  }
}

void add_workers(Documents& documents) {
  for (WorkerState state : every(worker_state_name)) {
    Worker worker;
    worker.state = state;
    documents.add("worker", worker_json(worker));
    worker.base_branch = std::string("main");
    worker.final_revision = std::string("abc");
    worker.lease_owner = std::string("daemon");
    worker.lease_expires_at = kAt;
    worker.heartbeat_at = kAt;
    worker.hold_reason = std::string("held");
    worker.failure_reason = std::string("failed");
    worker.changed_files = {"a.txt"};
    worker.allowed_files = {"*.txt"};
    worker.finished_at = kAt;
    WorkerEvent event;
    event.to_state = worker_state_name(state);
    documents.add("worker", worker_json(worker, {event}));
    event.from_state = std::string("planned");
    event.reason = std::string("why");
    documents.add("worker", worker_json(worker, {event}));
  }
  for (MergeState state : every(merge_state_name)) {
    MergeEntry entry;
    entry.state = state;
    documents.add("merge_entry", merge_entry_json(entry));
    for (MergeStrategy strategy : every(merge_strategy_name)) {
      entry.strategy = strategy;
      entry.parent_revision = std::string("p");
      entry.merge_commit = std::string("m");
      entry.verify = {"make test", 0, 1'200, "ok", "tree"};
      entry.reason = std::string("conflict");
      entry.conflict_files_json = std::string(R"(["a.txt"])");
      entry.finished_at = kAt;
      documents.add("merge_entry", merge_entry_json(entry));
      QueueConfig config;
      config.strategy = strategy;
      documents.add("queue_config", queue_config_json(config));
      config.target = std::string("main");
      config.verify = std::string("make test");
      documents.add("queue_config", queue_config_json(config));
    }
  }
}

void add_admission(Documents& documents) {
  for (RouteStatus status : every(route_status_name)) {
    Route route;
    route.status = status;
    documents.add("route", route_json(route, {}));
    route.retry_backoff = RetryBackoff::kExponential;
    documents.add("route", route_json(route, {{ItemStatus::kRunning, 2}}));
  }
  for (ItemStatus status : every(item_status_name)) {
    WorkItem item;
    item.status = status;
    documents.add("item", item_json(item, "", kAt));
    item.project = std::string("p");
    item.group = std::string("g");
    item.next_attempt_at = kAt;
    item.workflow_run_id = std::string("wr1");
    item.last_reason = std::string("failed");
    item.feedback_json = std::string(R"({"exit_code": 1})");
    item.invocation.source = {"github", "1", "delivery"};
    item.invocation.subject = {"issue", "7", "/src", "https://example.com/7"};
    item.invocation.intent = std::string("fix");
    item.input_json = std::string(R"({"id": 123456789012345678901234})");
    documents.add("item", item_json(item, "next tick", kAt));
  }
}

void add_errors(Documents& documents) {
  for (ErrorCode code : {ErrorCode::kUsage, ErrorCode::kNotFound, ErrorCode::kConflict,
                         ErrorCode::kInternal, ErrorCode::kUnavailable}) {
    documents.add("error", error_json(Error{code, "what was wrong"}));
  }
}

TEST(ViewSchemas, EveryDocumentFitsItsCommittedSchema) {
  Documents documents;
  add_loops(documents);
  add_runs(documents);
  add_workflows(documents);
  add_goals(documents);
  add_workers(documents);
  add_admission(documents);
  add_errors(documents);

  testing::TempDir dir;
  const std::string file = dir.path() + "/documents.json";
  std::ofstream(file) << write_json(documents.all());
  const std::string command =
      std::string("node ") + ORRERY_SCHEMA_CHECK + " " + ORRERY_SCHEMA_DIR + " " + file + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, got);
  const int status = ::pclose(pipe);
  EXPECT_EQ(status, 0) << output;
  EXPECT_EQ(output, "");
}

}  // namespace
}  // namespace orrery
