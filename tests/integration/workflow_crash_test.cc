// Black-box scenarios of stopping and crashing workflow runs
// (docs/workflows.md):
// - `workflow cancel` mid-run: the running step is stopped (its process
//   group is gone), the pending ones are cancelled, the run ends cancelled;
// - a driver killed outright mid-run: once its engine lease has expired a
//   daemon starts a new driver, which resumes the run without running a
//   finished step again;
// - a step's supervisor killed outright: the step gets a new attempt, the
//   journal says `recovered`, and the run completes;
// - a step that kills its supervisor every time: after the free abandoned
//   attempts (core/retry_policy.h) the step fails and the run ends.
// Steps append a line to a file each time they run, so executions are
// counted from the steps' side, not only from the store.
#include <gtest/gtest.h>

#include <algorithm>

#include "workflow_fixture.h"

namespace orrery {
namespace {

class WorkflowCrash : public WorkflowFixture {
 protected:
  // A shell step in YAML (the command in single quotes).
  static std::string step(const std::string& id, const std::string& depends,
                          const std::string& command) {
    std::string text = "  - id: " + id + "\n";
    if (!depends.empty()) text += "    depends_on: [" + depends + "]\n";
    return text + "    target: {type: command, shell: true, command: '" + command + "'}\n";
  }

  // A command that appends the step's id to the count file.
  std::string count(const std::string& id) const { return "echo " + id + " >> " + tmp_ + "/count"; }

  // Waits (up to 10 s) for the gate file to exist.
  std::string wait_for(const std::string& gate) const {
    return "i=0; while [ ! -e " + gate + " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done";
  }

  // The pid in a run's driver field ("drive@HOST:PID"), 0 when none.
  static int driver_pid(const json& run) {
    if (!run["driver"].is_string()) return 0;
    const std::string driver = run["driver"];
    const size_t colon = driver.rfind(':');
    return colon == std::string::npos ? 0 : std::stoi(driver.substr(colon + 1));
  }
};

TEST_F(WorkflowCrash, CancelStopsTheRunningStepAndCancelsThePendingOnes) {
  const std::string pid_file = tmp_ + "/long.pid";
  create("slow",
         "name: slow\nsteps:\n" + step("long", "", "echo $$ > " + pid_file + "; exec sleep 30") +
             step("after", "long", count("after")) + step("later", "after", count("later")));
  const json started = run_detached("slow");
  const std::string id = started["id"];
  const int target = pid_from_file(pid_file);
  ASSERT_GT(target, 0);
  ASSERT_TRUE(process_alive(target));

  const auto begun = std::chrono::steady_clock::now();
  const json cancelled = json_of({"workflow", "cancel", id});
  EXPECT_LT(std::chrono::steady_clock::now() - begun, std::chrono::seconds(10));
  EXPECT_EQ(cancelled["status"], "cancelled") << cancelled.dump(1);
  EXPECT_TRUE(cancelled["cancel_requested"].get<bool>());
  EXPECT_EQ(step_of(cancelled, "long")["status"], "cancelled") << cancelled.dump(1);
  EXPECT_EQ(step_of(cancelled, "after")["status"], "cancelled") << cancelled.dump(1);
  EXPECT_EQ(step_of(cancelled, "later")["status"], "cancelled") << cancelled.dump(1);
  EXPECT_EQ(step_of(cancelled, "after")["attempts"], 0);
  EXPECT_TRUE(eventually([&] { return !process_alive(target); })) << "target " << target;
  EXPECT_EQ(read_file(tmp_ + "/count"), "");  // nothing after it ran

  const json journal = events(id);
  EXPECT_EQ(journal.back()["event_type"], "cancelled") << journal.dump(1);
  std::vector<std::string> step_cancelled;
  for (const json& event : journal) {
    if (event["event_type"] == "step_cancelled") step_cancelled.push_back(event["step_id"]);
  }
  std::sort(step_cancelled.begin(), step_cancelled.end());
  EXPECT_EQ(step_cancelled, (std::vector<std::string>{"after", "later", "long"}))
      << journal.dump(1);
  // Cancelling again changes nothing and says so.
  const json again = json_of({"workflow", "cancel", id});
  EXPECT_EQ(again["status"], "cancelled");
  EXPECT_EQ(events(id).size(), journal.size());
}

TEST_F(WorkflowCrash, ADriverKilledMidRunIsReplacedAndNoFinishedStepRunsAgain) {
  const std::string gate = tmp_ + "/gate";
  const std::string pid_file = tmp_ + "/second.pid";
  create("resume", "name: resume\nsteps:\n" + step("first", "", count("first")) +
                       step("second", "first",
                            count("second") + "; echo $$ > " + pid_file + "; " + wait_for(gate)) +
                       step("third", "second", count("third")));
  const std::string id = run_detached("resume")["id"];
  const int second = pid_from_file(pid_file);
  ASSERT_GT(second, 0);
  json run = show_workflow_run(id);
  ASSERT_EQ(step_of(run, "first")["status"], "succeeded") << run.dump(1);
  ASSERT_EQ(step_of(run, "second")["status"], "running") << run.dump(1);
  const int driver = driver_pid(run);
  ASSERT_GT(driver, 0) << run.dump(1);
  ASSERT_EQ(::kill(driver, SIGKILL), 0);
  ASSERT_TRUE(eventually([&] { return !process_alive(driver); }));

  // The step runs on under its supervisor and ends; with no driver, the run
  // stays where it was.
  std::ofstream(gate) << "go\n";
  ASSERT_TRUE(eventually([&] { return !process_alive(second); }));
  run = show_workflow_run(id);
  EXPECT_EQ(run["status"], "running") << run.dump(1);
  EXPECT_EQ(step_of(run, "third")["status"], "pending") << run.dump(1);

  // The dead driver's engine lease would expire after 30 s; the test moves
  // that time forward in the database, then a daemon starts a new driver.
  exec_sql("UPDATE workflow_runs SET driver_lease_expires_at = 1 WHERE id = '" + id + "'");
  start_daemon();
  run = workflow_run_finished(id);
  EXPECT_EQ(run["status"], "succeeded") << run.dump(1) << daemon_log();
  EXPECT_NE(driver_pid(run), driver);
  EXPECT_TRUE(contains(daemon_log(), "started a driver for workflow run " + id)) << daemon_log();
  EXPECT_EQ(read_file(tmp_ + "/count"), "first\nsecond\nthird\n");
  for (const char* id_of : {"first", "second", "third"}) {
    EXPECT_EQ(step_of(run, id_of)["attempts"], 1) << id_of << run.dump(1);
  }
  const json journal = events(id);
  EXPECT_EQ(journal.back()["event_type"], "succeeded") << journal.dump(1);
  int started = 0;
  for (const json& event : journal) started += event["event_type"] == "step_started";
  EXPECT_EQ(started, 3) << journal.dump(1);
}

TEST_F(WorkflowCrash, AWaitingDriverKilledMidRunIsResumedByTheSameIdempotentRun) {
  const std::string gate = tmp_ + "/gate";
  const std::string pid_file = tmp_ + "/second.pid";
  create("resume", "name: resume\nsteps:\n" + step("first", "", count("first")) +
                       step("second", "first",
                            count("second") + "; echo $$ > " + pid_file + "; " + wait_for(gate)) +
                       step("third", "second", count("third")));
  const Args args{"workflow", "run", "resume", "--wait", "--idempotency-key", "k1"};
  const pid_t waiting = spawn(args);
  const int second = pid_from_file(pid_file);
  ASSERT_GT(second, 0);
  ASSERT_EQ(::kill(waiting, SIGKILL), 0);
  EXPECT_TRUE(WIFSIGNALED(reap(waiting)));
  const json runs = json_of({"workflow", "runs"});
  ASSERT_EQ(runs.size(), 1u);
  const std::string id = runs[0]["id"];
  EXPECT_EQ(driver_pid(runs[0]), waiting);

  // The dead driver's engine lease would expire after 30 s (moved forward
  // here); then the same command finds the run and drives it to its end.
  std::ofstream(gate) << "go\n";
  ASSERT_TRUE(eventually([&] { return !process_alive(second); }));
  exec_sql("UPDATE workflow_runs SET driver_lease_expires_at = 1 WHERE id = '" + id + "'");
  const json run = json_of(args);
  EXPECT_EQ(run["id"], id);
  EXPECT_EQ(run["status"], "succeeded") << run.dump(1);
  EXPECT_NE(driver_pid(run), waiting);
  EXPECT_EQ(read_file(tmp_ + "/count"), "first\nsecond\nthird\n");
  EXPECT_EQ(run["accounting"]["attempts"], 3) << run.dump(1);
}

TEST_F(WorkflowCrash, SigtermToTheDriverCancelsTheRun) {
  const std::string pid_file = tmp_ + "/long.pid";
  create("slow", "name: slow\nsteps:\n" +
                     step("long", "", "echo $$ > " + pid_file + "; exec sleep 30") +
                     step("after", "long", count("after")));
  const json started = run_detached("slow");
  const std::string id = started["id"];
  const int target = pid_from_file(pid_file);
  ASSERT_GT(target, 0);
  const int driver = driver_pid(show_workflow_run(id));
  ASSERT_GT(driver, 0);
  ASSERT_EQ(::kill(driver, SIGTERM), 0);
  const json run = workflow_run_finished(id);
  EXPECT_EQ(run["status"], "cancelled") << run.dump(1);
  EXPECT_EQ(step_of(run, "long")["status"], "cancelled");
  EXPECT_EQ(step_of(run, "after")["status"], "cancelled");
  EXPECT_TRUE(eventually([&] { return !process_alive(target); })) << "target " << target;
  EXPECT_TRUE(eventually([&] { return !process_alive(driver); })) << "driver " << driver;
  EXPECT_EQ(read_file(tmp_ + "/count"), "");
}

TEST_F(WorkflowCrash, AStepWhoseSupervisorIsKilledGetsANewAttemptAndTheJournalSaysRecovered) {
  const std::string supervisor_file = tmp_ + "/supervisor.pid";
  const std::string target_file = tmp_ + "/target.pid";
  // The first attempt records its supervisor (its parent) and itself, then
  // waits; the second just finishes.
  create("survive",
         "name: survive\nsteps:\n" + step("first", "", count("first")) +
             step("fragile", "first",
                  count("fragile") + "; if [ \"$ORRERY_ATTEMPT\" = 1 ]; then echo $$ > " +
                      target_file + "; echo $PPID > " + supervisor_file + "; exec sleep 30; fi") +
             step("last", "fragile", count("last")));
  const std::string id = run_detached("survive")["id"];
  const int target = pid_from_file(target_file);
  const int supervisor = pid_from_file(supervisor_file);
  ASSERT_GT(target, 0);
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);

  const json run = workflow_run_finished(id);
  EXPECT_EQ(run["status"], "succeeded") << run.dump(1);
  EXPECT_EQ(step_of(run, "fragile")["attempts"], 2) << run.dump(1);
  EXPECT_EQ(step_of(run, "first")["attempts"], 1);
  EXPECT_EQ(step_of(run, "last")["attempts"], 1);
  EXPECT_EQ(read_file(tmp_ + "/count"), "first\nfragile\nfragile\nlast\n");
  // The first attempt's target went with its supervisor's attempt.
  EXPECT_TRUE(eventually([&] { return !process_alive(target); })) << "target " << target;
  const json journal = events(id);
  bool recovered = false;
  for (const json& event : journal) {
    if (event["event_type"] == "recovered" && event["step_id"] == "fragile") recovered = true;
  }
  EXPECT_TRUE(recovered) << journal.dump(1);
  EXPECT_EQ(journal.back()["event_type"], "succeeded") << journal.dump(1);
  EXPECT_EQ(run["accounting"]["attempts"], 4) << run.dump(1);
}

TEST_F(WorkflowCrash, AStepThatAlwaysKillsItsSupervisorFailsAfterItsFreeAttempts) {
  create("doomed", "name: doomed\nsteps:\n" +
                       step("fragile", "", count("fragile") + "; kill -9 $PPID; exec sleep 30") +
                       step("last", "fragile", count("last")));
  const std::string id = run_detached("doomed")["id"];

  const json run = workflow_run_finished(id);
  EXPECT_EQ(run["status"], "failed") << run.dump(1);
  const json fragile = step_of(run, "fragile");
  EXPECT_EQ(fragile["status"], "failed") << run.dump(1);
  // One attempt (no retries) and three free ones.
  EXPECT_EQ(fragile["attempts"], 4) << run.dump(1);
  EXPECT_EQ(fragile["error"], "the attempt's supervisor died") << run.dump(1);
  EXPECT_EQ(step_of(run, "last")["status"], "skipped") << run.dump(1);
  EXPECT_EQ(read_file(tmp_ + "/count"), "fragile\nfragile\nfragile\nfragile\n");
  int recovered = 0;
  for (const json& event : events(id)) {
    if (event["event_type"] == "recovered" && event["step_id"] == "fragile") ++recovered;
  }
  EXPECT_EQ(recovered, 4);
}

}  // namespace
}  // namespace orrery
