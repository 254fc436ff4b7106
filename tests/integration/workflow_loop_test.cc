// Black-box scenarios of workflow versions and loops that run workflows
// (docs/workflows.md, "Loops that run workflows"):
// - a loop with a `--workflow` target runs it on schedule under a daemon;
//   each workflow run names its loop and loop run;
// - creating a workflow again makes a new version; a loop keeps the version
//   it was created with until `orrery edit LOOP --workflow W` moves it, which
//   is refused while the loop has a running run.
#include <gtest/gtest.h>

#include <set>

#include "workflow_fixture.h"

namespace orrery {
namespace {

class WorkflowLoop : public WorkflowFixture {
 protected:
  // A one-step workflow whose step appends `word` to the file `record`.
  std::string spec(const std::string& name, const std::string& word) const {
    return "name: " + name + "\ndescription: " + word + "\nsteps:\n  - id: say\n" +
           "    target: {type: command, shell: true, command: 'echo " + word + " >> " + tmp_ +
           "/record'}\n";
  }

  // The workflow runs started by the loop run `run_id`.
  json workflow_runs_of(const std::string& run_id) const {
    json found = json::array();
    for (const json& run : json_of({"workflow", "runs"})) {
      if (run["loop_run_id"] == run_id) found.push_back(run);
    }
    return found;
  }
};

TEST_F(WorkflowLoop, ALoopWithAWorkflowTargetRunsItOnSchedule) {
  create("tick", spec("tick", "tick"));
  const json loop =
      add("ticker", {"--every", "1s", "--workflow", "tick", "--input", R"({"n": 7})"});
  EXPECT_EQ(loop["target"]["type"], "workflow") << loop.dump(1);
  start_daemon();
  json succeeded;
  ASSERT_TRUE(eventually(
      [&] {
        for (const json& run : json_of({"runs", "ticker"})) {
          if (run["status"] == "succeeded") {
            succeeded = run;
            return true;
          }
        }
        return false;
      },
      std::chrono::seconds(15)))
      << json_of({"runs", "ticker"}).dump(1) << daemon_log();
  stop_daemon();
  const json runs = workflow_runs_of(succeeded["id"]);
  ASSERT_EQ(runs.size(), 1u) << json_of({"workflow", "runs"}).dump(1);
  const json& run = runs[0];
  EXPECT_EQ(run["status"], "succeeded");
  EXPECT_EQ(run["workflow_name"], "tick");
  EXPECT_EQ(run["loop_id"], loop["id"]);
  EXPECT_EQ(run["loop_run_id"], succeeded["id"]);
  EXPECT_EQ(run["input"], json({{"n", 7}}));
  EXPECT_TRUE(contains(read_file(tmp_ + "/record"), "tick\n"));
  // The loop's run links to it, in `runs` and in `run show`.
  EXPECT_EQ(show_run(succeeded["id"])["workflow_run_id"], run["id"]);
  for (const json& loop_run : json_of({"runs", "ticker"})) {
    if (loop_run["id"] == succeeded["id"]) {
      EXPECT_EQ(loop_run["workflow_run_id"], run["id"]);
    }
  }
  const RunResult human = this->run({"run", "show", succeeded["id"]});
  EXPECT_TRUE(contains(human.out, run["id"].get<std::string>())) << human.out;
  // Every workflow run of the loop names one of its loop runs.
  std::set<std::string> loop_runs;
  for (const json& loop_run : json_of({"runs", "ticker"})) loop_runs.insert(loop_run["id"]);
  for (const json& workflow_run : json_of({"workflow", "runs", "tick"})) {
    EXPECT_EQ(workflow_run["loop_id"], loop["id"]);
    EXPECT_EQ(loop_runs.count(workflow_run["loop_run_id"]), 1u) << workflow_run.dump(1);
  }
}

TEST_F(WorkflowLoop, CreatingAWorkflowAgainMakesANewVersionAndOldOnesStayReadable) {
  const json first = create("w", spec("w", "one"));
  EXPECT_EQ(first["version"], 1);
  const json second = create("w2", spec("w", "two"));
  EXPECT_EQ(second["version"], 2);
  EXPECT_EQ(second["name"], "w");
  EXPECT_NE(second["id"], first["id"]);
  EXPECT_EQ(json_of({"workflow", "show", "w"})["version"], 2);
  EXPECT_EQ(json_of({"workflow", "show", "w"})["description"], "two");
  const json old = json_of({"workflow", "show", "w", "--version", "1"});
  EXPECT_EQ(old["version"], 1);
  EXPECT_EQ(old["description"], "one");
  EXPECT_EQ(old["id"], first["id"]);
  EXPECT_EQ(create("w3", spec("w", "three"))["version"], 3);
  const json listed = json_of({"workflow", "ls"});
  ASSERT_EQ(listed.size(), 1u) << listed.dump(1);
  EXPECT_EQ(listed[0]["version"], 3);
  EXPECT_EQ(json_of({"workflow", "ls", "--all"}).size(), 3u);
  EXPECT_TRUE(contains(expect_error({"workflow", "show", "w", "--version", "4"}, 3), "4"));
  // A run of an older version runs that version.
  EXPECT_EQ(run_wait("w", 0, {"--version", "1"})["workflow_version"], 1);
  EXPECT_EQ(read_file(tmp_ + "/record"), "one\n");
}

TEST_F(WorkflowLoop, ALoopKeepsItsVersionUntilEditMovesItAndEditWaitsForItsRunningRun) {
  const std::string gate = tmp_ + "/gate";
  // Version 1 waits for the gate (when there is one) so that its run can be
  // caught running.
  create("w",
         "name: w\nsteps:\n  - id: say\n    target: {type: command, shell: true, command: '"
         "echo one >> " +
             tmp_ + "/record; i=0; while [ -e " + tmp_ + "/hold ] && [ ! -e " + gate +
             " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done'}\n");
  const json loop = add("runner", {"--every", "1h", "--workflow", "w"});
  const json version_one = json_of({"workflow", "show", "w"});
  EXPECT_EQ(loop["target"]["workflow_id"], version_one["id"]);
  create("w2", spec("w", "two"));

  const auto run_once = [&]() -> json {
    const std::string run_id = trigger("runner");
    const json finished_run = finished(run_id);
    EXPECT_EQ(finished_run["status"], "succeeded") << finished_run.dump(1);
    const json runs = workflow_runs_of(run_id);
    EXPECT_EQ(runs.size(), 1u);
    return runs.empty() ? json() : runs[0];
  };
  EXPECT_EQ(run_once()["workflow_version"], 1);
  EXPECT_EQ(read_file(tmp_ + "/record"), "one\n");

  // While a run of the loop runs, its workflow cannot move.
  write_file("hold", "");
  const std::string running = trigger("runner");
  ASSERT_TRUE(eventually([&] { return workflow_runs_of(running).size() == 1; }));
  const std::string message = expect_error({"edit", "runner", "--workflow", "w"}, 4);
  EXPECT_TRUE(contains(message, running)) << message;
  EXPECT_EQ(show_loop("runner")["target"]["workflow_id"], version_one["id"]);
  write_file("gate", "");
  EXPECT_EQ(finished(running)["status"], "succeeded");

  const json moved = json_of({"edit", "runner", "--workflow", "w"});
  EXPECT_NE(moved["target"]["workflow_id"], version_one["id"]);
  EXPECT_EQ(moved["target"]["workflow_id"], json_of({"workflow", "show", "w"})["id"]);
  EXPECT_EQ(run_once()["workflow_version"], 2);
  EXPECT_EQ(read_file(tmp_ + "/record"), "one\none\ntwo\n");
  // And back to version 1 by name@version.
  const json back = json_of({"edit", "runner", "--workflow", "w@1"});
  EXPECT_EQ(back["target"]["workflow_id"], version_one["id"]);
}

}  // namespace
}  // namespace orrery
