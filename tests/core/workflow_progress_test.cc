#include "core/workflow_progress.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/text.h"
#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

using nlohmann::json;
using Ids = std::vector<std::string>;

constexpr TimeMs kNow = 1'000'000;

WorkflowStep step(std::string id, Ids depends_on = {}, bool continue_on_failure = false,
                  int retries = 0) {
  WorkflowStep s;
  s.id = std::move(id);
  s.target.argv = {"true"};
  s.depends_on = std::move(depends_on);
  s.continue_on_failure = continue_on_failure;
  s.retries = retries;
  return s;
}

WorkflowSpec spec_of(std::vector<WorkflowStep> steps) {
  WorkflowSpec spec;
  spec.name = "w";
  spec.steps = std::move(steps);
  return spec;
}

std::vector<StepRun> records_of(const WorkflowSpec& spec) {
  std::vector<StepRun> records;
  for (const WorkflowStep& s : spec.steps) {
    StepRun record;
    record.run_id = "run1";
    record.step_id = s.id;
    record.sequence = int(records.size()) + 1;
    record.max_attempts = s.retries + 1;
    records.push_back(record);
  }
  return records;
}

StepRun& record(std::vector<StepRun>& records, const std::string& id) {
  for (StepRun& r : records) {
    if (r.step_id == id) return r;
  }
  ADD_FAILURE() << "no record " << id;
  return records.front();
}

void set(std::vector<StepRun>& records, const std::string& id, StepStatus status,
         std::string error = "", std::optional<int> exit_code = std::nullopt) {
  StepRun& r = record(records, id);
  r.status = status;
  r.error = std::move(error);
  r.exit_code = exit_code;
}

Progress plan(const WorkflowSpec& spec, const std::vector<StepRun>& records, int max_parallel = 4,
              bool cancel = false) {
  Result<Progress> progress = plan_progress(spec, records, max_parallel, cancel, kNow);
  EXPECT_TRUE(progress.ok()) << (progress.ok() ? "" : progress.error().message);
  return progress.ok() ? *progress : Progress{};
}

Ids event_types(const Progress& progress) {
  Ids types;
  for (const JournalEntry& e : progress.events) types.push_back(e.event_type + ":" + e.step_id);
  return types;
}

Ids changed(const Progress& progress) {
  Ids out;
  for (const StepDecision& c : progress.changes)
    out.push_back(c.step_id + ":" + step_status_name(c.to));
  return out;
}

// ---- Ready steps ----

TEST(WorkflowProgress, ChainRunsOneStepAfterAnother) {
  const WorkflowSpec spec = spec_of({step("a"), step("b", {"a"}), step("c", {"b"})});
  auto records = records_of(spec);
  EXPECT_EQ(plan(spec, records).ready, Ids({"a"}));
  set(records, "a", StepStatus::kRunning);
  EXPECT_EQ(plan(spec, records).ready, Ids{});
  set(records, "a", StepStatus::kSucceeded);
  EXPECT_EQ(plan(spec, records).ready, Ids({"b"}));
  set(records, "b", StepStatus::kSucceeded);
  const Progress last = plan(spec, records);
  EXPECT_EQ(last.ready, Ids({"c"}));
  EXPECT_FALSE(last.finish);
  EXPECT_TRUE(last.changes.empty());
  EXPECT_TRUE(last.events.empty());
}

TEST(WorkflowProgress, DiamondRunsItsMiddleStepsTogetherAndJoinsAfterBoth) {
  const WorkflowSpec spec =
      spec_of({step("a"), step("b", {"a"}), step("c", {"a"}), step("d", {"b", "c"})});
  auto records = records_of(spec);
  EXPECT_EQ(plan(spec, records).ready, Ids({"a"}));
  set(records, "a", StepStatus::kSucceeded);
  EXPECT_EQ(plan(spec, records).ready, Ids({"b", "c"}));
  EXPECT_EQ(plan(spec, records, 1).ready, Ids({"b"}));
  set(records, "b", StepStatus::kSucceeded);
  set(records, "c", StepStatus::kRunning);
  EXPECT_EQ(plan(spec, records).ready, Ids{});
  set(records, "c", StepStatus::kPending);
  EXPECT_EQ(plan(spec, records).ready, Ids({"c"}));
  set(records, "c", StepStatus::kSucceeded);
  EXPECT_EQ(plan(spec, records).ready, Ids({"d"}));
  set(records, "d", StepStatus::kSucceeded);
  const Progress done = plan(spec, records);
  ASSERT_TRUE(done.finish);
  EXPECT_EQ(*done.finish, WorkflowRunStatus::kSucceeded);
  EXPECT_EQ(done.error, "");
  EXPECT_EQ(event_types(done), Ids({"succeeded:"}));
  EXPECT_EQ(done.events.back().payload_json, R"({"failed_steps":[],"allowed_failures":[]})");
}

TEST(WorkflowProgress, FanOutIsLimitedByMaxParallelCountingRunningSteps) {
  std::vector<WorkflowStep> steps{step("root")};
  Ids middle;
  for (int i = 0; i < 10; ++i) {
    middle.push_back(numbered("m", i));
    steps.push_back(step(middle.back(), {"root"}));
  }
  steps.push_back(step("sink", middle));
  const WorkflowSpec spec = spec_of(steps);
  auto records = records_of(spec);
  set(records, "root", StepStatus::kSucceeded);

  struct Case {
    int max_parallel;
    int running;
    size_t ready;
  };
  for (const Case& c : {Case{1, 0, 1}, Case{4, 0, 4}, Case{4, 3, 1}, Case{4, 4, 0}, Case{4, 6, 0},
                        Case{10, 2, 8}, Case{64, 0, 10}, Case{0, 0, 1}, Case{-3, 0, 1}}) {
    auto r = records;
    for (int i = 0; i < c.running; ++i) set(r, middle[size_t(i)], StepStatus::kRunning);
    const Progress p = plan(spec, r, c.max_parallel);
    EXPECT_EQ(p.ready.size(), c.ready) << c.max_parallel << " " << c.running;
    // In spec order, after the running ones.
    for (size_t i = 0; i < p.ready.size(); ++i)
      EXPECT_EQ(p.ready[i], middle[size_t(c.running) + i]);
  }
  for (const std::string& m : middle) set(records, m, StepStatus::kSucceeded);
  EXPECT_EQ(plan(spec, records).ready, Ids({"sink"}));
}

TEST(WorkflowProgress, MaxParallelIsClampedToTheLimit) {
  std::vector<WorkflowStep> steps;
  for (int i = 0; i < kMaxParallelSteps + 10; ++i) steps.push_back(step(numbered("s", i)));
  const WorkflowSpec spec = spec_of(steps);
  EXPECT_EQ(plan(spec, records_of(spec), 100000).ready.size(), size_t(kMaxParallelSteps));
}

TEST(WorkflowProgress, ReadyStepsComeInSpecOrderWhateverTheDependencyOrder) {
  const WorkflowSpec spec =
      spec_of({step("z", {"y"}), step("y"), step("x"), step("w", {"y"}), step("v")});
  auto records = records_of(spec);
  EXPECT_EQ(plan(spec, records).ready, Ids({"y", "x", "v"}));
  set(records, "y", StepStatus::kSucceeded);
  EXPECT_EQ(plan(spec, records, 10).ready, Ids({"z", "x", "w", "v"}));
}

// ---- continue_on_failure ----

TEST(WorkflowProgress, AnAllowedFailureLetsItsDependentsRunAtEveryPosition) {
  // root -> mid -> leaf, each position failing with continue_on_failure.
  for (const std::string failing : {"root", "mid", "leaf"}) {
    for (const StepStatus failure : {StepStatus::kFailed, StepStatus::kTimedOut}) {
      const WorkflowSpec spec =
          spec_of({step("root", {}, failing == "root"), step("mid", {"root"}, failing == "mid"),
                   step("leaf", {"mid"}, failing == "leaf")});
      auto records = records_of(spec);
      for (const std::string id : {"root", "mid", "leaf"}) {
        const Progress p = plan(spec, records);
        EXPECT_EQ(p.ready, Ids({id})) << failing;
        EXPECT_TRUE(p.changes.empty());
        set(records, id, id == failing ? failure : StepStatus::kSucceeded);
      }
      const Progress done = plan(spec, records);
      ASSERT_TRUE(done.finish);
      EXPECT_EQ(*done.finish, WorkflowRunStatus::kSucceeded) << failing;
      EXPECT_EQ(done.error, "allowed failures: " + failing);
      EXPECT_EQ(done.events.back().payload_json,
                R"({"failed_steps":[],"allowed_failures":[")" + failing + R"("]})");
    }
  }
}

TEST(WorkflowProgress, SeveralAllowedFailuresAreListedInSpecOrder) {
  const WorkflowSpec spec = spec_of({step("test", {}, true), step("lint", {}, true),
                                     step("ship", {"test", "lint"}), step("doc", {}, true)});
  auto records = records_of(spec);
  set(records, "lint", StepStatus::kFailed, "exit status 1", 1);
  set(records, "test", StepStatus::kTimedOut, "timed out after 1s");
  set(records, "doc", StepStatus::kSucceeded);
  EXPECT_EQ(plan(spec, records).ready, Ids({"ship"}));
  set(records, "ship", StepStatus::kSucceeded);
  const Progress done = plan(spec, records);
  EXPECT_EQ(*done.finish, WorkflowRunStatus::kSucceeded);
  EXPECT_EQ(done.error, "allowed failures: test, lint");
  EXPECT_EQ(done.events.back().payload_json,
            R"({"failed_steps":[],"allowed_failures":["test","lint"]})");
}

// ---- Skipping ----

TEST(WorkflowProgress, AFailureSkipsItsDependentsTransitivelyAndFailsTheRun) {
  const WorkflowSpec spec =
      spec_of({step("build"), step("test", {"build"}), step("deploy", {"test"}), step("other")});
  auto records = records_of(spec);
  set(records, "build", StepStatus::kFailed, "exit status 1", 1);
  set(records, "other", StepStatus::kSucceeded);
  const Progress p = plan(spec, records);
  EXPECT_EQ(changed(p), Ids({"test:skipped", "deploy:skipped"}));
  EXPECT_EQ(p.changes[0].from, StepStatus::kPending);
  EXPECT_EQ(p.changes[0].finished_at, kNow);
  EXPECT_EQ(p.changes[0].error, "dependency 'build' failed");
  EXPECT_EQ(p.changes[1].error, "dependency 'test' was skipped");
  EXPECT_EQ(event_types(p), Ids({"step_skipped:test", "step_skipped:deploy", "failed:"}));
  EXPECT_EQ(p.events[0].payload_json, R"({"reason":"dependency 'build' failed"})");
  EXPECT_EQ(p.events[1].payload_json, R"({"reason":"dependency 'test' was skipped"})");
  EXPECT_EQ(p.events[2].payload_json, R"({"failed_steps":["build"],"allowed_failures":[]})");
  ASSERT_TRUE(p.finish);
  EXPECT_EQ(*p.finish, WorkflowRunStatus::kFailed);
  EXPECT_EQ(p.error, "step 'build' failed: exit status 1");
  EXPECT_TRUE(p.ready.empty());
}

TEST(WorkflowProgress, SkippingNamesWhatTheDependencyBecame) {
  struct Case {
    StepStatus status;
    bool continue_on_failure;
    std::string reason;  // empty: not skipped
  };
  const Case cases[] = {
      {StepStatus::kFailed, false, "dependency 'a' failed"},
      {StepStatus::kTimedOut, false, "dependency 'a' timed out"},
      {StepStatus::kSkipped, false, "dependency 'a' was skipped"},
      {StepStatus::kCancelled, false, "dependency 'a' was cancelled"},
      // continue_on_failure allows failures only: a step that never ran
      // (or was cancelled) still blocks.
      {StepStatus::kSkipped, true, "dependency 'a' was skipped"},
      {StepStatus::kCancelled, true, "dependency 'a' was cancelled"},
      {StepStatus::kFailed, true, ""},
      {StepStatus::kTimedOut, true, ""},
      {StepStatus::kSucceeded, false, ""},
      {StepStatus::kRunning, false, ""},
      {StepStatus::kPending, false, ""},
  };
  for (const Case& c : cases) {
    const WorkflowSpec spec = spec_of({step("a", {}, c.continue_on_failure), step("b", {"a"})});
    auto records = records_of(spec);
    set(records, "a", c.status);
    const Progress p = plan(spec, records);
    if (c.reason.empty()) {
      EXPECT_TRUE(p.changes.empty()) << step_status_name(c.status);
    } else {
      ASSERT_EQ(p.changes.size(), 1u) << step_status_name(c.status);
      EXPECT_EQ(p.changes[0].to, StepStatus::kSkipped);
      EXPECT_EQ(p.changes[0].error, c.reason);
      EXPECT_TRUE(p.ready.empty());
    }
  }
}

TEST(WorkflowProgress, AStepIsSkippedWhileItsOtherDependenciesStillRun) {
  const WorkflowSpec spec =
      spec_of({step("a"), step("b"), step("c", {"a", "b"}), step("d", {"c"})});
  auto records = records_of(spec);
  set(records, "a", StepStatus::kRunning);
  set(records, "b", StepStatus::kFailed, "exit status 2", 2);
  const Progress p = plan(spec, records);
  EXPECT_EQ(changed(p), Ids({"c:skipped", "d:skipped"}));
  EXPECT_EQ(p.changes[0].error, "dependency 'b' failed");
  EXPECT_FALSE(p.finish);  // a still runs
  EXPECT_EQ(event_types(p), Ids({"step_skipped:c", "step_skipped:d"}));
  set(records, "a", StepStatus::kSucceeded);
  apply_decisions(records, p.changes);
  const Progress done = plan(spec, records);
  EXPECT_TRUE(done.changes.empty());
  EXPECT_EQ(*done.finish, WorkflowRunStatus::kFailed);
  EXPECT_EQ(done.error, "step 'b' failed: exit status 2");
}

TEST(WorkflowProgress, AnAllowedFailureThatWasSkippedStillSkipsItsDependents) {
  // a fails (not allowed) -> b (continue_on_failure) is skipped -> c skipped.
  const WorkflowSpec spec = spec_of({step("a"), step("b", {"a"}, true), step("c", {"b"})});
  auto records = records_of(spec);
  set(records, "a", StepStatus::kFailed, "exit status 1", 1);
  const Progress p = plan(spec, records);
  EXPECT_EQ(changed(p), Ids({"b:skipped", "c:skipped"}));
  EXPECT_EQ(p.changes[1].error, "dependency 'b' was skipped");
  EXPECT_EQ(*p.finish, WorkflowRunStatus::kFailed);
}

TEST(WorkflowProgress, SkippingFollowsDependenciesWhateverTheSpecOrder) {
  // Listed leaf first: one plan still skips the whole chain.
  const WorkflowSpec spec =
      spec_of({step("d", {"c"}), step("c", {"b"}), step("b", {"a"}), step("a")});
  auto records = records_of(spec);
  set(records, "a", StepStatus::kTimedOut, "timed out after 5s");
  const Progress p = plan(spec, records);
  EXPECT_EQ(changed(p), Ids({"b:skipped", "c:skipped", "d:skipped"}));
  EXPECT_EQ(p.changes[0].error, "dependency 'a' timed out");
  EXPECT_EQ(p.error, "step 'a' timed out after 5s");
  EXPECT_EQ(event_types(p).back(), "failed:");
}

TEST(WorkflowProgress, TheRunErrorNamesTheFirstFailedStepInSpecOrder) {
  struct Case {
    StepStatus status;
    std::string error;
    std::optional<int> exit_code;
    std::string expected;
  };
  const Case cases[] = {
      {StepStatus::kFailed, "exit status 3", 3, "step 'x' failed: exit status 3"},
      {StepStatus::kFailed, "", 4, "step 'x' failed: exit status 4"},
      {StepStatus::kFailed, "", std::nullopt, "step 'x' failed"},
      {StepStatus::kFailed, "killed by signal 9 (Killed)", std::nullopt,
       "step 'x' failed: killed by signal 9 (Killed)"},
      {StepStatus::kTimedOut, "timed out after 90s", std::nullopt, "step 'x' timed out after 90s"},
      {StepStatus::kTimedOut, "", std::nullopt, "step 'x' timed out"},
      {StepStatus::kTimedOut, "no output for 1m", std::nullopt,
       "step 'x' timed out: no output for 1m"},
      {StepStatus::kCancelled, "", std::nullopt, "step 'x' was cancelled"},
  };
  for (const Case& c : cases) {
    const WorkflowSpec spec = spec_of({step("ok"), step("x"), step("y")});
    auto records = records_of(spec);
    set(records, "ok", StepStatus::kSucceeded);
    set(records, "x", c.status, c.error, c.exit_code);
    set(records, "y", StepStatus::kFailed, "exit status 1", 1);
    const Progress p = plan(spec, records);
    ASSERT_TRUE(p.finish);
    EXPECT_EQ(*p.finish, WorkflowRunStatus::kFailed);
    EXPECT_EQ(p.error, c.expected);
  }
}

// ---- Cancel ----

TEST(WorkflowProgress, CancelStopsRunningStepsCancelsPendingOnesAndEndsOnceNoneRuns) {
  const WorkflowSpec spec =
      spec_of({step("a"), step("b"), step("c", {"a"}), step("d", {"b"}), step("e", {"c", "d"})});
  auto records = records_of(spec);
  set(records, "a", StepStatus::kRunning);
  set(records, "b", StepStatus::kRunning);
  const Progress p = plan(spec, records, 4, true);
  EXPECT_EQ(changed(p), Ids({"c:cancelled", "d:cancelled", "e:cancelled"}));
  EXPECT_EQ(p.changes[0].error, "the run was cancelled");
  EXPECT_EQ(event_types(p), Ids({"step_cancelled:c", "step_cancelled:d", "step_cancelled:e"}));
  EXPECT_EQ(p.events[0].payload_json, R"({"reason":"the run was cancelled"})");
  EXPECT_EQ(p.stop, Ids({"a", "b"}));
  EXPECT_TRUE(p.ready.empty());
  EXPECT_FALSE(p.finish);

  apply_decisions(records, p.changes);
  set(records, "a", StepStatus::kCancelled);
  const Progress still = plan(spec, records, 4, true);
  EXPECT_TRUE(still.changes.empty());
  EXPECT_EQ(still.stop, Ids({"b"}));
  EXPECT_FALSE(still.finish);

  set(records, "b", StepStatus::kSucceeded);
  const Progress done = plan(spec, records, 4, true);
  ASSERT_TRUE(done.finish);
  EXPECT_EQ(*done.finish, WorkflowRunStatus::kCancelled);
  EXPECT_EQ(done.error, "the run was cancelled");
  EXPECT_EQ(event_types(done), Ids({"cancelled:"}));
}

TEST(WorkflowProgress, CancelWithNothingRunningEndsTheRunInTheSamePlan) {
  const WorkflowSpec spec = spec_of({step("a"), step("b", {"a"}), step("c", {"b"})});
  auto records = records_of(spec);
  set(records, "a", StepStatus::kFailed, "exit status 1", 1);  // b would be skipped
  const Progress p = plan(spec, records, 4, true);
  EXPECT_EQ(changed(p), Ids({"b:cancelled", "c:cancelled"}));
  EXPECT_EQ(event_types(p), Ids({"step_cancelled:b", "step_cancelled:c", "cancelled:"}));
  EXPECT_EQ(p.events.back().payload_json, R"({"failed_steps":["a"],"allowed_failures":[]})");
  EXPECT_EQ(*p.finish, WorkflowRunStatus::kCancelled);
  EXPECT_TRUE(p.stop.empty());
}

TEST(WorkflowProgress, TheTerminalEventIsAlwaysLast) {
  const WorkflowSpec spec =
      spec_of({step("a"), step("b", {"a"}), step("c", {"a"}, true), step("d", {"c"})});
  for (const bool cancel : {false, true}) {
    auto records = records_of(spec);
    set(records, "a", StepStatus::kFailed);
    const Progress p = plan(spec, records, 4, cancel);
    ASSERT_TRUE(p.finish);
    ASSERT_EQ(p.events.size(), 4u);
    EXPECT_EQ(p.events.back().event_type, workflow_run_status_name(*p.finish));
    for (size_t i = 0; i + 1 < p.events.size(); ++i)
      EXPECT_EQ(p.events[i].event_type.rfind("step_", 0), 0u);
  }
}

// ---- Scale ----

TEST(WorkflowProgress, AThousandStepChainPlansWithoutDeepRecursion) {
  for (const bool reversed : {false, true}) {
    std::vector<WorkflowStep> steps;
    for (int i = 0; i < kMaxWorkflowSteps; ++i)
      steps.push_back(step(numbered("s", i), i == 0 ? Ids{} : Ids{numbered("s", i - 1)}));
    if (reversed) std::reverse(steps.begin(), steps.end());
    const WorkflowSpec spec = spec_of(steps);
    auto records = records_of(spec);
    EXPECT_EQ(plan(spec, records).ready, Ids({"s0"}));
    set(records, "s0", StepStatus::kFailed);
    const Progress p = plan(spec, records);
    ASSERT_EQ(p.changes.size(), size_t(kMaxWorkflowSteps - 1));
    EXPECT_EQ(p.changes.front().step_id, "s1");
    EXPECT_EQ(p.changes.back().step_id, "s999");
    EXPECT_EQ(p.changes.back().error, "dependency 's998' was skipped");
    EXPECT_EQ(*p.finish, WorkflowRunStatus::kFailed);
  }
}

TEST(WorkflowProgress, AThousandStepChainRunsToTheEnd) {
  std::vector<WorkflowStep> steps;
  for (int i = 0; i < kMaxWorkflowSteps; ++i)
    steps.push_back(step(numbered("s", i), i == 0 ? Ids{} : Ids{numbered("s", i - 1)}));
  const WorkflowSpec spec = spec_of(steps);
  auto records = records_of(spec);
  for (int i = 0; i < kMaxWorkflowSteps; ++i) {
    const Progress p = plan(spec, records, 1);
    ASSERT_EQ(p.ready, Ids({numbered("s", i)}));
    ASSERT_FALSE(p.finish);
    records[size_t(i)].status = StepStatus::kSucceeded;
  }
  EXPECT_EQ(*plan(spec, records).finish, WorkflowRunStatus::kSucceeded);
}

// ---- Bad records ----

TEST(WorkflowProgress, RecordsThatDoNotMatchTheSpecAreAnInternalError) {
  const WorkflowSpec spec = spec_of({step("a"), step("b", {"a"})});
  auto missing = records_of(spec);
  missing.pop_back();
  auto unknown = records_of(spec);
  unknown.back().step_id = "zz";
  auto twice = records_of(spec);
  twice.push_back(twice.front());
  for (const auto& records : {missing, unknown, twice}) {
    const Result<Progress> p = plan_progress(spec, records, 4, false, kNow);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.error().code, ErrorCode::kInternal);
  }
  EXPECT_NE(plan_progress(spec, missing, 4, false, kNow).error().message.find("'b'"),
            std::string::npos);
}

// ---- Settling attempts ----

StepRun running_step(int attempts, int max_attempts) {
  StepRun s;
  s.run_id = "run1";
  s.step_id = "build";
  s.status = StepStatus::kRunning;
  s.attempts = attempts;
  s.max_attempts = max_attempts;
  return s;
}

StepAttempt finished_attempt(RunStatus status, int attempt, std::optional<int> exit_code,
                             std::string error = "") {
  StepAttempt a;
  a.run_id = "run1";
  a.step_id = "build";
  a.attempt = attempt;
  a.dispatch_id = dispatch_id("run1", "build", attempt);
  a.status = status;
  a.exit_code = exit_code;
  a.error = std::move(error);
  a.finished_at = 5000;
  a.outputs_json = R"({"k":"v"})";
  return a;
}

TEST(SettleAttempt, RetriesFailuresWhileAttemptsRemain) {
  struct Case {
    RunStatus status;
    int attempt;
    int max_attempts;
    bool retry;
    StepStatus finished;
    std::string event;
  };
  const Case cases[] = {
      {RunStatus::kSucceeded, 1, 3, false, StepStatus::kSucceeded, "step_succeeded"},
      {RunStatus::kFailed, 1, 3, true, StepStatus::kFailed, "step_failed"},
      {RunStatus::kFailed, 2, 3, true, StepStatus::kFailed, "step_failed"},
      {RunStatus::kFailed, 3, 3, false, StepStatus::kFailed, "step_failed"},
      {RunStatus::kFailed, 1, 1, false, StepStatus::kFailed, "step_failed"},
      {RunStatus::kTimedOut, 1, 2, true, StepStatus::kTimedOut, "step_timed_out"},
      {RunStatus::kTimedOut, 2, 2, false, StepStatus::kTimedOut, "step_timed_out"},
      {RunStatus::kAbandoned, 1, 2, true, StepStatus::kFailed, "step_failed"},
      {RunStatus::kAbandoned, 2, 2, false, StepStatus::kFailed, "step_failed"},
      {RunStatus::kCancelled, 1, 5, false, StepStatus::kCancelled, "step_cancelled"},
      {RunStatus::kSucceeded, 1, 1, false, StepStatus::kSucceeded, "step_succeeded"},
  };
  for (const Case& c : cases) {
    const StepRun s = running_step(c.attempt, c.max_attempts);
    const Result<AttemptSettlement> settled =
        settle_attempt(s, finished_attempt(c.status, c.attempt, 1), false, kNow);
    ASSERT_TRUE(settled.ok()) << settled.error().message;
    EXPECT_EQ(settled->retry, c.retry) << run_status_name(c.status) << " " << c.attempt;
    EXPECT_EQ(settled->change.from, StepStatus::kRunning);
    EXPECT_EQ(settled->change.to, c.retry ? StepStatus::kPending : c.finished);
    EXPECT_EQ(settled->event.event_type, c.event);
    EXPECT_EQ(settled->event.step_id, "build");
  }
}

TEST(SettleAttempt, ARequestedCancelStopsRetries) {
  for (const RunStatus status : {RunStatus::kFailed, RunStatus::kTimedOut, RunStatus::kAbandoned}) {
    const Result<AttemptSettlement> settled =
        settle_attempt(running_step(1, 3), finished_attempt(status, 1, 1), true, kNow);
    ASSERT_TRUE(settled.ok());
    EXPECT_FALSE(settled->retry);
    EXPECT_EQ(settled->change.to, step_status_of(status));
  }
}

TEST(SettleAttempt, UsageLimitedAttemptsRetryAndSaySo) {
  StepAttempt limited = finished_attempt(RunStatus::kFailed, 1, 1, "usage limit reached");
  limited.usage_limited = true;
  const Result<AttemptSettlement> again = settle_attempt(running_step(1, 2), limited, false, kNow);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->retry);
  EXPECT_TRUE(again->usage_limited);
  EXPECT_EQ(again->event.payload_json,
            R"({"attempt":1,"exit_code":1,"error":"usage limit reached","retrying":true,)"
            R"("usage_limited":true})");

  limited.attempt = 2;
  const Result<AttemptSettlement> last = settle_attempt(running_step(2, 2), limited, false, kNow);
  ASSERT_TRUE(last.ok());
  EXPECT_FALSE(last->retry);
  EXPECT_TRUE(last->usage_limited);
  EXPECT_EQ(last->change.to, StepStatus::kFailed);
}

TEST(SettleAttempt, PayloadsAreExact) {
  struct Case {
    StepAttempt attempt;
    int max_attempts;
    std::string payload;
  };
  const Case cases[] = {
      {finished_attempt(RunStatus::kFailed, 2, 1, "exit status 1"), 3,
       R"({"attempt":2,"exit_code":1,"error":"exit status 1","retrying":true})"},
      {finished_attempt(RunStatus::kFailed, 3, 1, "exit status 1"), 3,
       R"({"attempt":3,"exit_code":1,"error":"exit status 1","retrying":false})"},
      {finished_attempt(RunStatus::kSucceeded, 1, 0), 1, R"({"attempt":1,"exit_code":0})"},
      {finished_attempt(RunStatus::kTimedOut, 1, std::nullopt, "timed out after 2s"), 1,
       R"({"attempt":1,"exit_code":null,"error":"timed out after 2s","retrying":false})"},
      {finished_attempt(RunStatus::kCancelled, 1, std::nullopt), 2,
       R"({"attempt":1,"exit_code":null,"retrying":false})"},
  };
  for (const Case& c : cases) {
    const Result<AttemptSettlement> settled =
        settle_attempt(running_step(c.attempt.attempt, c.max_attempts), c.attempt, false, kNow);
    ASSERT_TRUE(settled.ok());
    EXPECT_EQ(settled->event.payload_json, c.payload);
  }
}

TEST(SettleAttempt, PayloadTextIsEscapedAsJson) {
  const std::string errors[] = {
      "say \"hi\"",       "back\\slash",       "two\nlines\r\ttab", std::string("nul\0byte", 8),
      "bell\x07 esc\x1b", "bad \xff\xfe utf8", "ünïcödé ✓",
  };
  for (const std::string& error : errors) {
    const Result<AttemptSettlement> settled = settle_attempt(
        running_step(1, 1), finished_attempt(RunStatus::kFailed, 1, 1, error), false, kNow);
    ASSERT_TRUE(settled.ok());
    const json payload = json::parse(settled->event.payload_json);  // throws when invalid
    EXPECT_EQ(payload["error"], storable_text(error));
  }
}

TEST(SettleAttempt, AFinishingAttemptCarriesItsOutcomeToTheStep) {
  StepAttempt a = finished_attempt(RunStatus::kFailed, 1, 7, "exit status 7");
  Result<AttemptSettlement> settled = settle_attempt(running_step(1, 1), a, false, kNow);
  ASSERT_TRUE(settled.ok());
  EXPECT_EQ(settled->change, (StepDecision{"build", StepStatus::kRunning, StepStatus::kFailed, 5000,
                                           7, "exit status 7", R"({"k":"v"})"}));
  StepRun current = running_step(1, 1);
  current.dispatch_id = a.dispatch_id;
  EXPECT_TRUE(settle_attempt(current, a, false, kNow).ok());
  a.finished_at.reset();
  settled = settle_attempt(running_step(1, 1), a, false, kNow);
  EXPECT_EQ(settled->change.finished_at, kNow);

  // A retry only sends the step back to pending.
  settled = settle_attempt(running_step(1, 2), a, false, kNow);
  EXPECT_EQ(settled->change,
            (StepDecision{"build", StepStatus::kRunning, StepStatus::kPending, std::nullopt,
                          std::nullopt, std::nullopt, std::nullopt}));
}

TEST(SettleAttempt, SettlingWhatCannotBeSettledIsAnInternalError) {
  StepRun pending = running_step(1, 2);
  pending.status = StepStatus::kPending;
  StepAttempt other = finished_attempt(RunStatus::kFailed, 1, 1);
  other.step_id = "test";
  StepAttempt other_run = finished_attempt(RunStatus::kFailed, 1, 1);
  other_run.run_id = "run2";
  StepRun newer = running_step(2, 2);
  newer.dispatch_id = dispatch_id("run1", "build", 2);
  const std::pair<StepRun, StepAttempt> cases[] = {
      {newer, finished_attempt(RunStatus::kFailed, 1, 1)},
      {pending, finished_attempt(RunStatus::kFailed, 1, 1)},
      {running_step(1, 2), finished_attempt(RunStatus::kRunning, 1, std::nullopt)},
      {running_step(1, 2), finished_attempt(RunStatus::kQueued, 1, std::nullopt)},
      {running_step(1, 2), other},
      {running_step(1, 2), other_run},
  };
  for (const auto& [s, a] : cases) {
    const Result<AttemptSettlement> settled = settle_attempt(s, a, false, kNow);
    ASSERT_FALSE(settled.ok());
    EXPECT_EQ(settled.error().code, ErrorCode::kInternal);
  }
}

// ---- Driving a run with settlements and plans ----

TEST(WorkflowProgress, ARetriedStepRunsAgainAndItsRunFailsOnceRetriesRunOut) {
  const WorkflowSpec spec = spec_of({step("build", {}, false, 1), step("test", {"build"})});
  auto records = records_of(spec);
  EXPECT_EQ(plan(spec, records).ready, Ids({"build"}));
  StepRun& build = record(records, "build");
  build.status = StepStatus::kRunning;
  build.attempts = 1;

  Result<AttemptSettlement> first = settle_attempt(
      build, finished_attempt(RunStatus::kFailed, 1, 1, "exit status 1"), false, kNow);
  ASSERT_TRUE(first.ok());
  apply_decisions(records, {first->change});
  EXPECT_EQ(plan(spec, records).ready, Ids({"build"}));

  build.status = StepStatus::kRunning;
  build.attempts = 2;
  Result<AttemptSettlement> second = settle_attempt(
      build, finished_attempt(RunStatus::kFailed, 2, 1, "exit status 1"), false, kNow);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->retry);
  apply_decisions(records, {second->change});
  const Progress done = plan(spec, records);
  EXPECT_EQ(event_types(done), Ids({"step_skipped:test", "failed:"}));
  EXPECT_EQ(done.error, "step 'build' failed: exit status 1");
}

// ---- Random runs ----

// Drives random DAGs to their end the way a driver does — plan, start the
// ready steps, end one running attempt at random, settle it — and checks
// the rules on every plan: steps start only after dependencies that let
// them, never more than max_parallel run, every skipped step has a
// blocking dependency, the run ends once and only when every step is
// finished, with the status the rules give, and its terminal event last.
class RandomRun {
 public:
  explicit RandomRun(unsigned seed) : random_(seed) {
    const int n = 1 + int(random_() % 25);
    std::vector<WorkflowStep> steps;
    for (int i = 0; i < n; ++i) {
      Ids depends_on;
      for (int j = 0; j < i; ++j) {
        if (random_() % 4 == 0) depends_on.push_back(numbered("s", j));
      }
      steps.push_back(step(numbered("s", i), depends_on, random_() % 3 == 0, int(random_() % 3)));
    }
    // Any spec order: the rules do not depend on it.
    std::shuffle(steps.begin(), steps.end(), random_);
    spec_ = spec_of(steps);
    records_ = records_of(spec_);
    max_parallel_ = 1 + int(random_() % 5);
    cancel_after_ = random_() % 3 == 0 ? int(random_() % 10) : -1;
  }

  void drive() {
    for (int round = 0; round < 10'000; ++round) {
      const bool cancel = cancel_after_ >= 0 && round >= cancel_after_;
      const Progress p = plan(spec_, records_, max_parallel_, cancel);
      check_skips(p);
      apply_decisions(records_, p.changes);
      check_events(p);
      if (p.finish) {
        check_finish(p, cancel);
        return;
      }
      for (const std::string& id : p.ready) start(id);
      EXPECT_LE(running().size(), size_t(max_parallel_));
      const Ids now_running = running();
      ASSERT_FALSE(now_running.empty()) << "no step runs, none is ready and the run goes on";
      end_attempt(now_running[random_() % now_running.size()], cancel);
    }
    FAIL() << "the run never ended";
  }

 private:
  const WorkflowStep& spec_step(const std::string& id) const {
    for (const WorkflowStep& s : spec_.steps) {
      if (s.id == id) return s;
    }
    return spec_.steps.front();
  }

  Ids running() const {
    Ids ids;
    for (const StepRun& r : records_) {
      if (r.status == StepStatus::kRunning) ids.push_back(r.step_id);
    }
    return ids;
  }

  bool lets_run(const std::string& dependency) {
    const StepStatus status = record(records_, dependency).status;
    return status == StepStatus::kSucceeded ||
           (spec_step(dependency).continue_on_failure &&
            (status == StepStatus::kFailed || status == StepStatus::kTimedOut));
  }

  void start(const std::string& id) {
    StepRun& r = record(records_, id);
    ASSERT_EQ(r.status, StepStatus::kPending) << id;
    for (const std::string& dependency : spec_step(id).depends_on)
      EXPECT_TRUE(lets_run(dependency)) << id << " started after " << dependency;
    r.status = StepStatus::kRunning;
    r.attempts += 1;
    r.dispatch_id = dispatch_id(r.run_id, id, r.attempts);
  }

  void end_attempt(const std::string& id, bool cancel) {
    static constexpr RunStatus kEnds[] = {RunStatus::kSucceeded, RunStatus::kSucceeded,
                                          RunStatus::kFailed,    RunStatus::kTimedOut,
                                          RunStatus::kAbandoned, RunStatus::kCancelled};
    StepRun& r = record(records_, id);
    StepAttempt a;
    a.run_id = r.run_id;
    a.step_id = id;
    a.attempt = r.attempts;
    a.dispatch_id = r.dispatch_id;
    a.status = kEnds[random_() % std::size(kEnds)];
    if (a.status == RunStatus::kFailed) a.exit_code = 1;
    if (a.status == RunStatus::kSucceeded) a.exit_code = 0;
    const Result<AttemptSettlement> settled = settle_attempt(r, a, cancel, kNow);
    ASSERT_TRUE(settled.ok()) << settled.error().message;
    EXPECT_EQ(settled->retry,
              !cancel && r.attempts < r.max_attempts &&
                  (a.status == RunStatus::kFailed || a.status == RunStatus::kTimedOut ||
                   a.status == RunStatus::kAbandoned));
    apply_decisions(records_, {settled->change});
  }

  void check_skips(const Progress& p) {
    auto after = records_;
    for (const StepDecision& change : p.changes) {
      apply_decisions(after, {change});
      if (change.to != StepStatus::kSkipped) continue;
      bool blocked = false;
      for (const std::string& dependency : spec_step(change.step_id).depends_on) {
        const StepStatus status = record(after, dependency).status;
        blocked |= status == StepStatus::kSkipped || status == StepStatus::kCancelled ||
                   ((status == StepStatus::kFailed || status == StepStatus::kTimedOut) &&
                    !spec_step(dependency).continue_on_failure);
      }
      EXPECT_TRUE(blocked) << change.step_id << " skipped without a blocking dependency";
    }
  }

  void check_events(const Progress& p) {
    for (size_t i = 0; i < p.events.size(); ++i) {
      const bool terminal = p.events[i].step_id.empty();
      EXPECT_EQ(terminal, p.finish && i + 1 == p.events.size()) << p.events[i].event_type;
      EXPECT_TRUE(json::accept(p.events[i].payload_json)) << p.events[i].payload_json;
    }
  }

  void check_finish(const Progress& p, bool cancel) {
    bool only_allowed_failures = true;
    for (const StepRun& r : records_) {
      ASSERT_TRUE(is_finished(r.status)) << r.step_id;
      if (r.status != StepStatus::kSucceeded && !lets_run(r.step_id)) only_allowed_failures = false;
    }
    const WorkflowRunStatus expected = cancel                  ? WorkflowRunStatus::kCancelled
                                       : only_allowed_failures ? WorkflowRunStatus::kSucceeded
                                                               : WorkflowRunStatus::kFailed;
    EXPECT_EQ(*p.finish, expected);
    EXPECT_EQ(p.events.back().event_type, workflow_run_status_name(expected));
    // Planning again changes nothing and ends the run the same way.
    const Progress again = plan(spec_, records_, max_parallel_, cancel);
    EXPECT_TRUE(again.changes.empty());
    EXPECT_TRUE(again.ready.empty());
    EXPECT_EQ(again.finish, p.finish);
    EXPECT_EQ(again.error, p.error);
  }

  std::mt19937 random_;
  WorkflowSpec spec_;
  std::vector<StepRun> records_;
  int max_parallel_ = 1;
  int cancel_after_ = -1;
};

TEST(WorkflowProgress, RandomRunsFollowTheRules) {
  for (unsigned seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    RandomRun(seed).drive();
    if (HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace orrery
