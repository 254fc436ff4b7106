// Black-box scenarios of workflow runs on the real binary (docs/workflows.md):
// - a diamond DAG runs its two middle steps at the same time;
// - a failure without continue_on_failure skips the steps after it and fails
//   the run; with it, they run and the run succeeds listing the failure;
// - values pass forward through ORRERY_OUTPUT / ORRERY_STEPS, and
//   ORRERY_INPUT carries --input;
// - an idempotency key returns the existing run;
// - the journal of a finished small DAG, exactly, for a success and a failure.
#include <gtest/gtest.h>

#include <thread>

#include "workflow_fixture.h"

namespace orrery {
namespace {

class WorkflowCli : public WorkflowFixture {};

// A shell step in YAML flow style.
std::string shell_step(const std::string& id, const std::string& depends,
                       const std::string& command, const std::string& extra = "") {
  std::string step = "  - id: " + id + "\n";
  if (!depends.empty()) step += "    depends_on: [" + depends + "]\n";
  if (!extra.empty()) step += "    " + extra + "\n";
  step += "    target: {type: command, shell: true, command: '" + command + "'}\n";
  return step;
}

TEST_F(WorkflowCli, TheMiddleStepsOfADiamondRunAtTheSameTime) {
  // Each middle step announces itself, then waits (up to 5 s) for the other:
  // run one after the other, the first would give up and fail.
  const std::string b_mark = tmp_ + "/b.started";
  const std::string c_mark = tmp_ + "/c.started";
  const auto meet = [](const std::string& mine, const std::string& other) {
    return "touch " + mine + "; i=0; while [ ! -e " + other +
           " ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; test -e " + other +
           "; sleep 0.3";
  };
  create("diamond", "name: diamond\nsteps:\n" + shell_step("top", "", "true") +
                        shell_step("left", "top", meet(b_mark, c_mark)) +
                        shell_step("right", "top", meet(c_mark, b_mark)) +
                        shell_step("bottom", "left, right", "true"));
  const json run = run_wait("diamond");
  ASSERT_EQ(run["status"], "succeeded") << run.dump(1);
  const json left = step_of(run, "left");
  const json right = step_of(run, "right");
  for (const json& step : {left, right}) {
    ASSERT_TRUE(step["started_at"].is_string()) << run.dump(1);
    ASSERT_TRUE(step["finished_at"].is_string()) << run.dump(1);
  }
  // Their intervals overlap, and both lie between the top and the bottom.
  EXPECT_LT(time_ms(left["started_at"]), time_ms(right["finished_at"])) << run.dump(1);
  EXPECT_LT(time_ms(right["started_at"]), time_ms(left["finished_at"])) << run.dump(1);
  for (const json& step : {left, right}) {
    EXPECT_GE(time_ms(step["started_at"]), time_ms(step_of(run, "top")["finished_at"]));
    EXPECT_LE(time_ms(step["finished_at"]), time_ms(step_of(run, "bottom")["started_at"]));
  }
}

TEST_F(WorkflowCli, AtMostMaxParallelStepsRunAtOnce) {
  // Three independent steps; each records how many run beside it.
  const std::string dir = tmp_ + "/running";
  std::filesystem::create_directory(dir);
  const auto busy = [&](const std::string& id) {
    return "touch " + dir + "/" + id + "; ls " + dir + " | wc -l >> " + tmp_ +
           "/seen; sleep 0.2; rm " + dir + "/" + id;
  };
  create("wide", "name: wide\nsteps:\n" + shell_step("a", "", busy("a")) +
                     shell_step("b", "", busy("b")) + shell_step("c", "", busy("c")));
  for (int limit : {1, 2}) {
    SCOPED_TRACE(limit);
    std::filesystem::remove(tmp_ + "/seen");
    const json run = run_wait("wide", 0, {"--max-parallel", std::to_string(limit)});
    ASSERT_EQ(run["status"], "succeeded") << run.dump(1);
    int most = 0;
    for (const std::string& line : lines(read_file(tmp_ + "/seen")))
      most = std::max(most, std::stoi(line));
    EXPECT_LE(most, limit) << read_file(tmp_ + "/seen");
    // Steps in spec order: with one at a time, each starts after the one before ended.
    if (limit == 1) {
      EXPECT_GE(time_ms(step_of(run, "b")["started_at"]),
                time_ms(step_of(run, "a")["finished_at"]));
      EXPECT_GE(time_ms(step_of(run, "c")["started_at"]),
                time_ms(step_of(run, "b")["finished_at"]));
    }
  }
  for (const char* bad : {"0", "257", "-1"}) {
    EXPECT_TRUE(contains(expect_error({"workflow", "run", "wide", "--max-parallel", bad}, 2),
                         "--max-parallel"));
  }
  EXPECT_EQ(json_of({"workflow", "runs"}).size(), 2u);
}

TEST_F(WorkflowCli, AFailingStepRetriesUpToItsRetriesAndATimedOutStepIsStopped) {
  const std::string pid_file = tmp_ + "/slow.pid";
  create("stubborn",
         "name: stubborn\nsteps:\n" +
             shell_step("third-time", "",
                        "echo $ORRERY_ATTEMPT >> " + tmp_ + "/tries; [ $ORRERY_ATTEMPT -ge 3 ]",
                        "retries: 2") +
             shell_step("never", "", "echo x >> " + tmp_ + "/never; exit 7", "retries: 1") +
             shell_step("slow", "third-time", "echo $$ > " + pid_file + "; exec sleep 30",
                        "timeout: 700ms"));
  const json run = run_wait("stubborn", 1);
  EXPECT_EQ(run["status"], "failed") << run.dump(1);
  EXPECT_EQ(step_of(run, "third-time")["status"], "succeeded");
  EXPECT_EQ(step_of(run, "third-time")["attempts"], 3);
  EXPECT_EQ(read_file(tmp_ + "/tries"), "1\n2\n3\n");
  EXPECT_EQ(step_of(run, "never")["status"], "failed");
  EXPECT_EQ(step_of(run, "never")["attempts"], 2);
  EXPECT_EQ(read_file(tmp_ + "/never"), "x\nx\n");
  EXPECT_EQ(step_of(run, "slow")["status"], "timed_out") << run.dump(1);
  EXPECT_EQ(run["error"], "step 'never' failed: exit status 7") << run.dump(1);
  const int slow = std::stoi(read_file(pid_file));
  groups_to_kill_.push_back(slow);
  EXPECT_TRUE(eventually([&] { return !process_alive(slow); }));
  EXPECT_EQ(run["accounting"]["attempts"], 6) << run.dump(1);

  std::vector<std::string> retrying;
  for (const json& event : events(run["id"])) {
    if (event["step_id"] == "third-time" && event["event_type"] == "step_failed")
      retrying.push_back(event["payload"].dump());
    if (event["step_id"] == "slow" && event["event_type"] != "step_started") {
      EXPECT_EQ(event["event_type"], "step_timed_out");
      EXPECT_EQ(event["payload"]["retrying"], false);
    }
    if (event["event_type"] == "failed") {
      EXPECT_EQ(event["payload"]["failed_steps"], json({"never", "slow"})) << event.dump();
    }
  }
  EXPECT_EQ(retrying,
            (std::vector<std::string>{
                R"({"attempt":1,"error":"exit status 1","exit_code":1,"retrying":true})",
                R"({"attempt":2,"error":"exit status 1","exit_code":1,"retrying":true})"}));
}

TEST_F(WorkflowCli, EventsFollowPrintsTheJournalAsItGrowsUntilTheRunEnds) {
  const std::string gate = tmp_ + "/gate";
  const std::string mark = tmp_ + "/started";
  create("gated", "name: gated\nsteps:\n" +
                      shell_step("wait", "",
                                 "touch " + mark + "; i=0; while [ ! -e " + gate +
                                     " ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done") +
                      shell_step("after", "wait", "true"));
  const std::string id = run_detached("gated")["id"];
  ASSERT_TRUE(eventually([&] { return std::filesystem::exists(mark); }));
  RunResult followed;
  std::thread follower([&] { followed = run({"workflow", "events", id, "--follow"}); });
  // Not a synchronisation: the assertions hold whenever the gate opens; the
  // pause only lets the follower start first, so that it sees the journal grow.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  write_file("gate", "");
  follower.join();
  EXPECT_EQ(followed.exit_code, 0) << followed.err;
  const std::vector<std::string> printed = lines(followed.out);
  std::vector<std::string> kinds;
  for (const std::string& line : printed) {
    std::istringstream words(line);
    std::string time, kind;
    words >> time >> kind;
    EXPECT_TRUE(is_time_text(time)) << line;
    kinds.push_back(kind);
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"created", "step_started", "step_succeeded",
                                             "step_started", "step_succeeded", "succeeded"}))
      << followed.out;
  const RunResult both = run({"--json", "workflow", "events", id, "--follow"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "--follow")) << both.err;
}

TEST_F(WorkflowCli, UnknownWorkflowsRunsAndStepsAreNotFound) {
  create("known", "name: known\nsteps:\n" + shell_step("only", "", "true"));
  const std::string id = run_wait("known")["id"];
  for (const Args& args :
       {Args{"workflow", "show", "unknown"}, Args{"workflow", "run", "unknown"},
        Args{"workflow", "show-run", "ffffffffffff"}, Args{"workflow", "events", "ffffffffffff"},
        Args{"workflow", "cancel", "ffffffffffff"}, Args{"workflow", "runs", "unknown"},
        Args{"workflow", "show", "known", "--version", "2"}}) {
    SCOPED_TRACE(args[1] + " " + args[2]);
    expect_error(args, 3);
  }
  const std::string message = expect_error({"logs", id, "--step", "other"}, 3);
  EXPECT_TRUE(contains(message, "'other'")) << message;
  EXPECT_TRUE(contains(message, "only")) << message;
  EXPECT_EQ(json_of({"workflow", "runs"}).size(), 1u);
}

TEST_F(WorkflowCli, AFailureSkipsItsDependentsAndFailsTheRun) {
  const std::string ran = tmp_ + "/ran";
  create("breaks", "name: breaks\nsteps:\n" + shell_step("build", "", "exit 3") +
                       shell_step("test", "build", "echo test >> " + ran) +
                       shell_step("ship", "test", "echo ship >> " + ran) +
                       shell_step("lint", "", "echo lint >> " + ran));
  const Args args{"--json", "workflow", "run", "breaks", "--wait"};
  const RunResult result = run(args);
  EXPECT_EQ(result.exit_code, 1) << describe(with_home(args), result);
  const json run = json::parse(result.out);
  EXPECT_EQ(run["status"], "failed");
  EXPECT_TRUE(contains(run["error"].get<std::string>(), "step 'build' failed")) << run.dump(1);
  EXPECT_EQ(step_of(run, "build")["status"], "failed");
  EXPECT_EQ(step_of(run, "build")["exit_code"], 3);
  for (const char* skipped : {"test", "ship"}) {
    EXPECT_EQ(step_of(run, skipped)["status"], "skipped") << skipped;
    EXPECT_EQ(step_of(run, skipped)["attempts"], 0) << skipped;
  }
  EXPECT_EQ(step_of(run, "lint")["status"], "succeeded");  // not a dependent
  EXPECT_EQ(read_file(ran), "lint\n");
  std::vector<std::string> skipped_events;
  for (const json& event : events(run["id"])) {
    if (event["event_type"] == "step_skipped") skipped_events.push_back(event["step_id"]);
  }
  EXPECT_EQ(skipped_events, (std::vector<std::string>{"test", "ship"}));
}

TEST_F(WorkflowCli, AnAllowedFailureLetsItsDependentsRunAndTheRunSucceedListingIt) {
  const std::string ran = tmp_ + "/ran";
  create("tolerant", "name: tolerant\nsteps:\n" +
                         shell_step("lint", "", "exit 4", "continue_on_failure: true") +
                         shell_step("flaky", "", "exit 5", "continue_on_failure: true") +
                         shell_step("build", "lint, flaky", "echo build >> " + ran) +
                         shell_step("ship", "build", "echo ship >> " + ran));
  const json run = run_wait("tolerant", 0);
  EXPECT_EQ(run["status"], "succeeded") << run.dump(1);
  EXPECT_EQ(run["error"], "allowed failures: lint, flaky") << run.dump(1);
  EXPECT_EQ(step_of(run, "lint")["status"], "failed");
  EXPECT_EQ(step_of(run, "flaky")["status"], "failed");
  EXPECT_EQ(step_of(run, "build")["status"], "succeeded");
  EXPECT_EQ(step_of(run, "ship")["status"], "succeeded");
  EXPECT_EQ(read_file(ran), "build\nship\n");
  const json journal = events(run["id"]);
  EXPECT_EQ(journal.back()["event_type"], "succeeded");
  EXPECT_EQ(journal.back()["payload"]["allowed_failures"], json::array({"lint", "flaky"}));
}

TEST_F(WorkflowCli, ValuesPassForwardThroughOutputAndStepsFilesAndInputFromTheCommandLine) {
  create(
      "values",
      "name: values\nsteps:\n" +
          shell_step("make", "", "printf \"version=1.2\\nnote=a = b\\n\" >> \"$ORRERY_OUTPUT\"") +
          shell_step("judge", "", "echo verdict=no >> \"$ORRERY_OUTPUT\"; exit 1",
                     "continue_on_failure: true") +
          shell_step("use", "make, judge",
                     "cat \"$ORRERY_STEPS\" > " + tmp_ +
                         "/steps.json; printf %s \"$ORRERY_INPUT\" > " + tmp_ + "/input.json"));
  const json run = run_wait("values", 0, {"--input", R"({"target": "prod", "n": [1, 2]})"});
  ASSERT_EQ(run["status"], "succeeded") << run.dump(1);
  EXPECT_EQ(step_of(run, "make")["outputs"], json({{"version", "1.2"}, {"note", "a = b"}}));
  EXPECT_EQ(step_of(run, "use")["outputs"], json::object());
  // A failing step's outputs are not kept: none of its values pass on.
  const json steps = json::parse(read_file(tmp_ + "/steps.json"), nullptr, false);
  ASSERT_FALSE(steps.is_discarded()) << read_file(tmp_ + "/steps.json");
  EXPECT_EQ(steps["make"], json({{"status", "succeeded"},
                                 {"exit_code", 0},
                                 {"outputs", {{"version", "1.2"}, {"note", "a = b"}}}}));
  EXPECT_EQ(steps["judge"]["status"], "failed");
  EXPECT_EQ(steps["judge"]["exit_code"], 1);
  EXPECT_FALSE(steps.contains("use"));
  const json input = json::parse(read_file(tmp_ + "/input.json"), nullptr, false);
  EXPECT_EQ(input, json({{"target", "prod"}, {"n", {1, 2}}})) << read_file(tmp_ + "/input.json");
  EXPECT_EQ(run["input"], input);
}

TEST_F(WorkflowCli, AStepSeesOnlyTheStepsFinishedBeforeItStarted) {
  create("chain",
         "name: chain\nsteps:\n" + shell_step("one", "", "echo n=1 >> \"$ORRERY_OUTPUT\"") +
             shell_step("two", "one",
                        "cp \"$ORRERY_STEPS\" " + tmp_ + "/two.json; echo \"$ORRERY_INPUT\"") +
             shell_step("three", "two", "cp \"$ORRERY_STEPS\" " + tmp_ + "/three.json"));
  const json run = run_wait("chain");
  ASSERT_EQ(run["status"], "succeeded") << run.dump(1);
  const json two = json::parse(read_file(tmp_ + "/two.json"), nullptr, false);
  const json three = json::parse(read_file(tmp_ + "/three.json"), nullptr, false);
  EXPECT_EQ(
      two, json({{"one", {{"status", "succeeded"}, {"exit_code", 0}, {"outputs", {{"n", "1"}}}}}}));
  EXPECT_EQ(three.size(), 2u) << three.dump();
  EXPECT_EQ(three["two"],
            json({{"status", "succeeded"}, {"exit_code", 0}, {"outputs", json::object()}}));
  // Without --input, ORRERY_INPUT is the empty object (the step's log shows it).
  const Args logs{"logs", run["id"], "--step", "two"};
  const RunResult logged = this->run(logs);
  EXPECT_EQ(logged.exit_code, 0) << describe(with_home(logs), logged);
  EXPECT_EQ(logged.out, "{}\n");
}

TEST_F(WorkflowCli, AnIdempotencyKeyReturnsTheExistingRun) {
  const std::string ran = tmp_ + "/ran";
  create("once", "name: once\nsteps:\n" + shell_step("only", "", "echo x >> " + ran));
  const json first = run_wait("once", 0, {"--idempotency-key", "deploy-42"});
  ASSERT_EQ(first["status"], "succeeded") << first.dump(1);
  EXPECT_EQ(first["idempotency_key"], "deploy-42");
  // Again, with and without --wait, and with another input: the same run.
  for (const Args& more : {Args{"--wait"}, Args{}, Args{"--wait", "--input", R"({"a": 1})"}}) {
    Args args{"workflow", "run", "once", "--idempotency-key", "deploy-42"};
    args.insert(args.end(), more.begin(), more.end());
    const json again = json_of(args, 0);
    EXPECT_EQ(again["id"], first["id"]) << again.dump(1);
    EXPECT_EQ(again["status"], "succeeded");
  }
  // Human output says so, with the id.
  const RunResult human = run({"workflow", "run", "once", "--idempotency-key", "deploy-42"});
  EXPECT_EQ(human.exit_code, 0);
  EXPECT_TRUE(contains(human.out, "existing workflow run " + first["id"].get<std::string>()))
      << human.out;
  // Another key is another run.
  const json other = run_wait("once", 0, {"--idempotency-key", "deploy-43"});
  EXPECT_NE(other["id"], first["id"]);
  EXPECT_EQ(json_of({"workflow", "runs", "once"}).size(), 2u);
  EXPECT_EQ(read_file(ran), "x\nx\n");
}

TEST_F(WorkflowCli, TheJournalOfASucceededRunIsExact) {
  // `right` ends only once the journal holds left's end, so that the order
  // of their events is known (they run at the same time).
  const std::string left_done = std::string(ORRERY_BINARY) +
                                " workflow events \"$ORRERY_WORKFLOW_RUN_ID\" | grep -q "
                                "\"step_succeeded  *left\"";
  create("small",
         "name: small\nsteps:\n" + shell_step("top", "", "true") +
             shell_step("left", "top", "true") +
             shell_step("right", "top",
                        "i=0; until " + left_done +
                            "; do [ $i -lt 100 ] || exit 9; sleep 0.05; i=$((i+1)); done") +
             shell_step("bottom", "left, right", "exit 0"));
  const json run = run_wait("small");
  ASSERT_EQ(run["status"], "succeeded") << run.dump(1);
  const std::string id = run["id"];
  const json journal = events(id);
  const std::vector<std::pair<std::string, std::string>> expected{{"created", ""},
                                                                  {"step_started", "top"},
                                                                  {"step_succeeded", "top"},
                                                                  {"step_started", "left"},
                                                                  {"step_started", "right"},
                                                                  {"step_succeeded", "left"},
                                                                  {"step_succeeded", "right"},
                                                                  {"step_started", "bottom"},
                                                                  {"step_succeeded", "bottom"},
                                                                  {"succeeded", ""}};
  EXPECT_EQ(event_list(journal), expected) << journal.dump(1);
  for (size_t i = 0; i < journal.size(); ++i) {
    EXPECT_EQ(journal[i]["sequence"], i + 1);
    EXPECT_TRUE(is_time_text(journal[i]["created_at"]));
  }
  EXPECT_EQ(journal[0]["payload"], json({{"workflow", "small"}, {"version", 1}}));
  EXPECT_EQ(journal[1]["payload"], json({{"attempt", 1}, {"dispatch_id", id + "/top/1"}}));
  EXPECT_EQ(journal[2]["payload"], json({{"attempt", 1}, {"exit_code", 0}}));
  EXPECT_EQ(journal.back()["payload"],
            json({{"failed_steps", json::array()}, {"allowed_failures", json::array()}}));
}

TEST_F(WorkflowCli, TheJournalOfAFailedRunIsExact) {
  create("small", "name: small\nsteps:\n" + shell_step("top", "", "true") +
                      shell_step("middle", "top", "exit 3") +
                      shell_step("below", "middle", "true") +
                      shell_step("bottom", "below", "true"));
  const json run = run_wait("small", 1);
  ASSERT_EQ(run["status"], "failed") << run.dump(1);
  EXPECT_EQ(run["error"], "step 'middle' failed: exit status 3");
  const std::string id = run["id"];
  const json journal = events(id);
  const std::vector<std::pair<std::string, std::string>> expected{{"created", ""},
                                                                  {"step_started", "top"},
                                                                  {"step_succeeded", "top"},
                                                                  {"step_started", "middle"},
                                                                  {"step_failed", "middle"},
                                                                  {"step_skipped", "below"},
                                                                  {"step_skipped", "bottom"},
                                                                  {"failed", ""}};
  EXPECT_EQ(event_list(journal), expected) << journal.dump(1);
  for (size_t i = 0; i < journal.size(); ++i) EXPECT_EQ(journal[i]["sequence"], i + 1);
  EXPECT_EQ(
      journal[4]["payload"],
      json({{"attempt", 1}, {"exit_code", 3}, {"error", "exit status 3"}, {"retrying", false}}));
  EXPECT_EQ(journal[5]["payload"], json({{"reason", "dependency 'middle' failed"}}));
  EXPECT_EQ(journal[6]["payload"], json({{"reason", "dependency 'below' was skipped"}}));
  EXPECT_EQ(journal.back()["payload"],
            json({{"failed_steps", {"middle"}}, {"allowed_failures", json::array()}}));
}

}  // namespace
}  // namespace orrery
