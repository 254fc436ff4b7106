// The workflow driver with a fake clock, fake processes and a fake launcher
// over a real SQLite store: no supervisor process is started, nothing
// sleeps. A launched "supervisor" is a pipe: the test finishes its attempt
// through the claim ledger, as a supervisor would, and closes the pipe's
// write end, which the driver sees as the supervisor's exit (a pidfd is
// readable when its process ends).
#include "engine/workflow_driver.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/retry_policy.h"
#include "exec/workflow_publish.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_clock.h"
#include "support/fake_probe.h"
#include "support/fake_processes.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

using testing::FakeClock;
using testing::FakeProcesses;

constexpr TimeMs kNow = 1'800'000'000'000;

// What a fake supervisor does when it is launched (FakeLauncher::exit ends it).
using OnLaunch = std::function<void(const WorkLaunch& work, pid_t pid)>;

class FakeLauncher final : public Launcher {
 public:
  Result<StartedSupervisor> launch(const WorkLaunch& work) override {
    launches.push_back(work);
    if (fail) return fail_unstarted(*ledger, work.claim, internal_error("no fork"), kNow);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return internal_error("no pipe");
    const pid_t pid = next_pid++;
    writers[pid] = fds[1];
    if (on_launch) on_launch(work, pid);
    return StartedSupervisor{pid, fds[0], kNow};
  }
  ~FakeLauncher() override {
    for (auto& [pid, fd] : writers) ::close(fd);
  }
  // The supervisor of `pid` exits.
  void exit(pid_t pid) {
    ::close(writers.at(pid));
    writers.erase(pid);
  }
  ClaimLedger* ledger = nullptr;
  bool fail = false;
  OnLaunch on_launch;
  std::vector<WorkLaunch> launches;
  std::map<pid_t, int> writers;
  pid_t next_pid = 5000;
};

class WorkflowDriverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kNow});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    launcher_.ledger = store_.get();
    options_.location = {dir_.path(), ""};
    options_.database_path = dir_.file("orrery.db");
    options_.clock = &clock_;
    options_.processes = &processes_;
    options_.launcher = &launcher_;
  }

  // A workflow of `steps`, each depending on the one before when `chain`;
  // `shape` changes each step before it is stored.
  std::string publish(const std::vector<std::string>& steps, bool chain, int retries = 0,
                      const std::function<void(WorkflowStep&)>& shape = {},
                      int max_parallel = kDefaultParallelSteps) {
    WorkflowSpec spec;
    spec.name = "flow";
    for (const std::string& id : steps) {
      WorkflowStep step;
      step.id = id;
      step.target.argv = {"/bin/true"};
      step.retries = retries;
      if (chain && !spec.steps.empty()) step.depends_on = {spec.steps.back().id};
      if (shape) shape(step);
      spec.steps.push_back(step);
    }
    auto workflow = store_->create_workflow(spec, "01a2000000000000000000000000000a", kNow);
    EXPECT_TRUE(workflow.ok());
    WorkflowRunRequest request;
    request.workflow = *workflow;
    request.cwd = dir_.path();
    request.max_parallel = max_parallel;
    auto published = publish_workflow_run(*store_, dir_.path(), request, kNow);
    EXPECT_TRUE(published.ok()) << published.error().message;
    return published->run.id;
  }

  // A fake supervisor that finishes its attempt as `status` and exits.
  OnLaunch finishing(RunStatus status) {
    return [this, status](const WorkLaunch& work, pid_t pid) {
      RunOutcome outcome;
      outcome.status = status;
      outcome.exit_code = status == RunStatus::kSucceeded ? 0 : 1;
      EXPECT_TRUE(store_->finish_claim(work.claim, outcome, clock_.wall_now()).ok());
      launcher_.exit(pid);  // the supervisor exits once its attempt is finished
    };
  }

  // A fake supervisor that finishes its attempts as `statuses` say, in turn
  // (the last one for every later attempt), and exits.
  OnLaunch finishing_in_turn(std::vector<RunStatus> statuses) {
    auto turn = std::make_shared<size_t>(0);
    return [this, statuses, turn](const WorkLaunch& work, pid_t pid) {
      const RunStatus status = statuses[std::min(*turn, statuses.size() - 1)];
      ++*turn;
      finishing(status)(work, pid);
    };
  }

  StepRun step(const std::string& run_id, const std::string& id) {
    for (const StepRun& one : steps(run_id)) {
      if (one.step_id == id) return one;
    }
    ADD_FAILURE() << "no step " << id;
    return {};
  }

  std::vector<std::string> launched_ids() const {
    std::vector<std::string> ids;
    for (const WorkLaunch& work : launcher_.launches) ids.push_back(work.claim.id);
    return ids;
  }

  std::vector<StepRun> steps(const std::string& run_id) {
    auto listed = store_->list_step_runs(run_id);
    EXPECT_TRUE(listed.ok());
    return *listed;
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::FakeProbe> probe_ = std::make_shared<testing::FakeProbe>();
  std::unique_ptr<SqliteStore> store_;
  FakeClock clock_{kNow};
  FakeProcesses processes_;
  FakeLauncher launcher_;
  DriverOptions options_;
};

TEST_F(WorkflowDriverTest, AChainRunsEachStepOnceInOrderWithFakeSupervisors) {
  const std::string run = publish({"a", "b", "c"}, /*chain=*/true);
  launcher_.on_launch = finishing(RunStatus::kSucceeded);
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kSucceeded);
  ASSERT_EQ(launcher_.launches.size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const WorkLaunch& work = launcher_.launches[i];
    EXPECT_EQ(work.claim.kind, WorkKind::kStepAttempt);
    EXPECT_EQ(work.claim.id, dispatch_id(run, std::string(1, char('a' + i)), 1));
    EXPECT_TRUE(work.record_forked);
  }
  for (const StepRun& step : steps(run)) EXPECT_EQ(step.status, StepStatus::kSucceeded);
  EXPECT_TRUE(processes_.signals().empty());
}

TEST_F(WorkflowDriverTest, AStepWhoseSupervisorCannotStartFailsTheRunWithTheReason) {
  const std::string run = publish({"a", "b"}, /*chain=*/true);
  launcher_.fail = true;
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kFailed);
  ASSERT_EQ(launcher_.launches.size(), 1u);  // b never starts
  auto attempt = store_->get_step_attempt(dispatch_id(run, "a", 1));
  ASSERT_TRUE(attempt.ok() && attempt->has_value());
  EXPECT_EQ((*attempt)->status, RunStatus::kFailed);
  EXPECT_NE((*attempt)->error.find("the supervisor could not start: no fork"), std::string::npos)
      << (*attempt)->error;
  EXPECT_EQ(steps(run)[1].status, StepStatus::kSkipped);
}

TEST_F(WorkflowDriverTest, ASupervisorThatDiesWithoutFinishingGetsANewAttempt) {
  const std::string run = publish({"a"}, /*chain=*/false, /*retries=*/1);
  int launched = 0;
  launcher_.on_launch = [&](const WorkLaunch& work, pid_t pid) {
    if (++launched == 1) {  // dies at once: nothing finished
      launcher_.exit(pid);
      return;
    }
    finishing(RunStatus::kSucceeded)(work, pid);
  };
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kSucceeded);
  ASSERT_EQ(launcher_.launches.size(), 2u);
  EXPECT_EQ(launcher_.launches[1].claim.id, dispatch_id(run, "a", 2));
  auto first = store_->get_step_attempt(dispatch_id(run, "a", 1));
  ASSERT_TRUE(first.ok() && first->has_value());
  EXPECT_EQ((*first)->status, RunStatus::kAbandoned);
}

TEST_F(WorkflowDriverTest, ACancelRequestedElsewhereStopsTheRunningStepsSupervisor) {
  const std::string run = publish({"a", "b"}, /*chain=*/true);
  launcher_.on_launch = [&](const WorkLaunch& work, pid_t pid) {
    // The supervisor runs (alive, recorded) when another process asks to cancel.
    processes_.start({pid, kNow});
    EXPECT_TRUE(store_->record_supervisor(work.claim, {pid, kNow}, kNow).ok());
    EXPECT_TRUE(store_->request_workflow_cancel(run, kNow).ok());
  };  // SIGTERM to the fake supervisor: it finishes its attempt cancelled and exits.
  auto driven = [&] {
    options_.on_progress = [&] {
      for (const FakeProcesses::Signal& sent : processes_.signals()) {
        const pid_t pid = sent.pid;
        if (sent.signal != SIGTERM || launcher_.writers.count(pid) == 0) continue;
        RunOutcome cancelled;
        cancelled.status = RunStatus::kCancelled;
        EXPECT_TRUE(store_->finish_claim(launcher_.launches[0].claim, cancelled, kNow).ok());
        processes_.stop(pid);
        launcher_.exit(pid);
      }
    };
    return drive_workflow_run(*store_, run, options_);
  }();
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kCancelled);
  ASSERT_EQ(processes_.signals().size(), 1u);
  EXPECT_TRUE(processes_.signalled(5000, SIGTERM));
  ASSERT_EQ(launcher_.launches.size(), 1u);  // b never starts
  EXPECT_EQ(steps(run)[1].status, StepStatus::kCancelled);
}

TEST_F(WorkflowDriverTest, ADriverWhoseEngineLeaseIsTakenOverStopsAndChangesNothingMore) {
  const std::string run = publish({"a", "b"}, /*chain=*/true);
  options_.lease_ms = 3000;
  launcher_.on_launch = [&](const WorkLaunch& work, pid_t pid) {
    // The driver stalls past its lease; another driver takes the run over,
    // then this attempt's supervisor finishes.
    clock_.advance(10'000);
    auto other = store_->acquire_engine_lease(run, "drive@other:1", 30'000, clock_.wall_now());
    ASSERT_TRUE(other.ok() && other->has_value());
    RunOutcome outcome;
    outcome.status = RunStatus::kSucceeded;
    EXPECT_TRUE(store_->finish_claim(work.claim, outcome, clock_.wall_now()).ok());
    launcher_.exit(pid);
  };
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_FALSE(driven.ok());
  EXPECT_EQ(driven.error().code, ErrorCode::kConflict);
  EXPECT_NE(driven.error().message.find("engine lease lost"), std::string::npos)
      << driven.error().message;
  EXPECT_EQ(launcher_.launches.size(), 1u);  // b is the new driver's to start
  auto after = store_->get_workflow_run(run);
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->driver, "drive@other:1");
  EXPECT_EQ(steps(run)[1].status, StepStatus::kPending);
}

TEST_F(WorkflowDriverTest, AFailedAttemptIsRetriedUntilOneSucceeds) {
  const std::string run = publish({"a"}, /*chain=*/false, /*retries=*/2);
  launcher_.on_launch =
      finishing_in_turn({RunStatus::kFailed, RunStatus::kTimedOut, RunStatus::kSucceeded});
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kSucceeded);
  EXPECT_EQ(launched_ids(),
            (std::vector<std::string>{dispatch_id(run, "a", 1), dispatch_id(run, "a", 2),
                                      dispatch_id(run, "a", 3)}));
  EXPECT_EQ(step(run, "a").status, StepStatus::kSucceeded);
  EXPECT_EQ(step(run, "a").attempts, 3);
}

TEST_F(WorkflowDriverTest, AStepFailingEveryAttemptFailsTheRunAndSkipsItsDependents) {
  const std::string run = publish({"a", "b"}, /*chain=*/true, /*retries=*/1);
  launcher_.on_launch = finishing(RunStatus::kFailed);
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kFailed);
  EXPECT_NE(driven->error.find("step 'a' failed"), std::string::npos) << driven->error;
  EXPECT_EQ(launcher_.launches.size(), 2u);  // retries + 1 attempts of a, none of b
  EXPECT_EQ(step(run, "a").status, StepStatus::kFailed);
  EXPECT_EQ(step(run, "b").status, StepStatus::kSkipped);
  EXPECT_NE(step(run, "b").error.find("dependency 'a' failed"), std::string::npos)
      << step(run, "b").error;
}

TEST_F(WorkflowDriverTest, ATimedOutLastAttemptLeavesTheStepTimedOut) {
  const std::string run = publish({"a", "b"}, /*chain=*/true, /*retries=*/0,
                                  [](WorkflowStep& s) { s.timeout_ms = 90'000; });
  launcher_.on_launch = finishing(RunStatus::kTimedOut);
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kFailed);
  EXPECT_EQ(step(run, "a").status, StepStatus::kTimedOut);
  EXPECT_NE(step(run, "b").error.find("dependency 'a' timed out"), std::string::npos)
      << step(run, "b").error;
}

TEST_F(WorkflowDriverTest, AnAllowedFailureLetsItsDependentsRunAndTheRunSucceed) {
  const std::string run = publish({"lint", "ship"}, /*chain=*/true, /*retries=*/0,
                                  [](WorkflowStep& s) { s.continue_on_failure = s.id == "lint"; });
  launcher_.on_launch = finishing_in_turn({RunStatus::kFailed, RunStatus::kSucceeded});
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kSucceeded);
  EXPECT_NE(driven->error.find("allowed failures: lint"), std::string::npos) << driven->error;
  EXPECT_EQ(step(run, "lint").status, StepStatus::kFailed);
  EXPECT_EQ(step(run, "ship").status, StepStatus::kSucceeded);
}

TEST_F(WorkflowDriverTest, IndependentStepsStartTogetherUpToTheParallelLimit) {
  const std::string run = publish({"a", "b", "c"}, /*chain=*/false, 0, {}, /*max_parallel=*/2);
  std::vector<std::pair<WorkLaunch, pid_t>> running;
  std::vector<size_t> running_at_launch;
  launcher_.on_launch = [&](const WorkLaunch& work, pid_t pid) {
    running.emplace_back(work, pid);
    running_at_launch.push_back(running.size());
    if (running.size() < 2 && launcher_.launches.size() < 3) return;  // wait for the second
    for (const auto& [started, started_pid] : running)
      finishing(RunStatus::kSucceeded)(started, started_pid);
    running.clear();
  };
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kSucceeded);
  // a and b start before either ends; c only once they did (the limit is 2).
  EXPECT_EQ(running_at_launch, (std::vector<size_t>{1, 2, 1}));
  EXPECT_EQ(launched_ids(),
            (std::vector<std::string>{dispatch_id(run, "a", 1), dispatch_id(run, "b", 1),
                                      dispatch_id(run, "c", 1)}));
}

TEST_F(WorkflowDriverTest, ACancelRequestedBeforeTheDriverStartsLaunchesNothing) {
  const std::string run = publish({"a", "b"}, /*chain=*/false);
  ASSERT_TRUE(store_->request_workflow_cancel(run, kNow).ok());
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kCancelled);
  EXPECT_TRUE(launcher_.launches.empty());
  for (const StepRun& each : steps(run)) EXPECT_EQ(each.status, StepStatus::kCancelled);
}

TEST_F(WorkflowDriverTest, AStepWhoseSupervisorsKeepDyingFailsAfterItsFreeReattempts) {
  const std::string run = publish({"a", "b"}, /*chain=*/true, /*retries=*/0);
  launcher_.on_launch = [&](const WorkLaunch&, pid_t pid) { launcher_.exit(pid); };
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kFailed);
  // One counted attempt, and the free ones before it.
  ASSERT_EQ(launcher_.launches.size(), size_t(1 + kMaxFreeReattempts));
  EXPECT_EQ(step(run, "a").status, StepStatus::kFailed);
  EXPECT_NE(step(run, "a").error.find("supervisor died"), std::string::npos)
      << step(run, "a").error;
  EXPECT_EQ(step(run, "b").status, StepStatus::kSkipped);
}

TEST_F(WorkflowDriverTest, ARunAnotherDriverLeftIsResumedWhereItStopped) {
  const std::string run = publish({"a", "b"}, /*chain=*/true);
  // A first driver ran a to success, then stalled past its lease before b.
  options_.lease_ms = 3000;
  launcher_.on_launch = [&](const WorkLaunch& work, pid_t pid) {
    finishing(RunStatus::kSucceeded)(work, pid);
    clock_.advance(10'000);
    auto other = store_->acquire_engine_lease(run, "drive@crashed:1", 3000, clock_.wall_now());
    ASSERT_TRUE(other.ok() && other->has_value());
  };
  ASSERT_FALSE(drive_workflow_run(*store_, run, options_).ok());
  ASSERT_EQ(launcher_.launches.size(), 1u);
  // That driver died holding the lease; once it expires, a new driver goes on.
  clock_.advance(10'000);
  launcher_.on_launch = finishing(RunStatus::kSucceeded);
  auto driven = drive_workflow_run(*store_, run, options_);
  ASSERT_TRUE(driven.ok()) << driven.error().message;
  EXPECT_EQ(driven->status, WorkflowRunStatus::kSucceeded);
  EXPECT_EQ(launched_ids(),
            (std::vector<std::string>{dispatch_id(run, "a", 1), dispatch_id(run, "b", 1)}))
      << "a is not run again";
}

}  // namespace
}  // namespace orrery
