// Goals of workflows and of their steps, from the outside (docs/goals.md,
// "Targets"): each run of a workflow is one turn of the workflow's goal,
// whatever its steps; each attempt of a step is one turn of the step's goal.
#include <cstdlib>
#include <filesystem>

#include "workflow_fixture.h"

namespace orrery {
namespace {

using json = nlohmann::json;

class WorkflowGoals : public WorkflowFixture {
 protected:
  json goal(const std::string& id) const { return json_of({"goal", "show", id}); }
  json turns(const std::string& id) const { return json_of({"goal", "turns", id}); }
};

// A step whose shell command writes `update` (JSON, $VARS expanded) to the
// goal's update file, if it was given one.
std::string updating_step(const std::string& id, const std::string& depends,
                          const std::string& update) {
  std::string step = "  - id: " + id + "\n";
  if (!depends.empty()) step += "    depends_on: [" + depends + "]\n";
  step +=
      "    target:\n      type: command\n      shell: true\n      command: >-\n"
      "        test -n \"$ORRERY_GOAL_UPDATE\" && test -s \"$ORRERY_GOAL\" &&\n"
      "        printf '%s' \"" +
      update + "\" > \"$ORRERY_GOAL_UPDATE\"\n";
  return step;
}

TEST_F(WorkflowGoals, EachRunOfAWorkflowIsOneTurnOfItsGoalWhateverItsSteps) {
  create("ship", "name: ship\nsteps:\n" +
                     updating_step("build", "",
                                   "{\\\"goal\\\": {\\\"evidence\\\": {\\\"run\\\": "
                                   "\\\"$ORRERY_WORKFLOW_RUN_ID\\\"}}}") +
                     updating_step("check", "build",
                                   "{\\\"goal\\\": {\\\"evidence\\\": {\\\"checked\\\": "
                                   "\\\"$ORRERY_WORKFLOW_RUN_ID\\\"}}}"));
  const std::string plan = write_file("plan.json", R"([{"key": "all", "objective": "ship it"}])");
  const std::string id = json_of({"goal", "create", "--workflow", "ship", "--objective",
                                  "ship the release", "--plan", plan})["id"];
  std::vector<std::string> run_ids;
  for (int run = 0; run < 2; ++run) run_ids.push_back(run_wait("ship")["id"]);
  const json after = goal(id);
  EXPECT_EQ(after["turns"], 2);
  EXPECT_EQ(after["status"], "active");
  const json recorded = turns(id);
  ASSERT_EQ(recorded.size(), 2u);
  for (int run = 0; run < 2; ++run) {
    EXPECT_EQ(recorded[run]["workflow_run_id"], run_ids[run]);
    EXPECT_TRUE(recorded[run]["step_id"].is_null()) << recorded[run];
    // The last step's update is the run's: both steps shared the file.
    EXPECT_EQ(recorded[run]["evidence"]["checked"], run_ids[run]) << recorded[run];
  }
}

TEST_F(WorkflowGoals, EachAttemptOfAStepIsOneTurnOfTheStepsGoal) {
  create("review",
         "name: review\nsteps:\n"
         "  - id: prepare\n"  // not the goal's step: it is given no goal
         "    target: {type: command, shell: true, command: 'test -z \"$ORRERY_GOAL\"'}\n" +
             updating_step("review", "prepare",
                           "{\\\"goal\\\": {\\\"evidence\\\": {\\\"attempt\\\": "
                           "\\\"$ORRERY_ATTEMPT\\\"}, \\\"summary\\\": \\\"reviewed\\\"}}"));
  const std::string id = json_of({"goal", "create", "--workflow", "review", "--step", "review",
                                  "--objective", "review every change"})["id"];
  for (int run = 0; run < 3; ++run) run_wait("review");
  const json recorded = turns(id);
  ASSERT_EQ(recorded.size(), 3u);
  for (const json& turn : recorded) {
    EXPECT_EQ(turn["step_id"], "review");
    EXPECT_TRUE(turn["dispatch_id"].is_string());
    EXPECT_EQ(turn["summary"], "reviewed");
  }
  EXPECT_EQ(goal(id)["turns"], 3);
  // A step the goal is not on is no turn of it, and an unknown step is refused.
  EXPECT_TRUE(contains(
      expect_error({"goal", "create", "--workflow", "review", "--step", "nope", "--objective", "x"},
                   3),
      "prepare, review"));
}

// A fake claude on PATH that answers each prompt with a final message ending
// in a goal block, and `tokens` of usage.
class AgentWorkflowGoals : public WorkflowGoals {
 protected:
  void SetUp() override {
    WorkflowGoals::SetUp();
    path_ = std::getenv("PATH");
    setenv("PATH", (tmp_ + "/bin:" + path_).c_str(), 1);
    std::filesystem::create_directories(tmp_ + "/bin");
    const json message =
        "Done.\n\n```json\n" +
        json{{"goal", {{"evidence", {{"run", "RUN"}}}, {"summary", "fixed one more"}}}}.dump() +
        "\n```\n";
    const std::string reply = json{{"type", "result"},
                                   {"subtype", "success"},
                                   {"result", message},
                                   {"usage", {{"input_tokens", 500}, {"output_tokens", 100}}}}
                                  .dump();
    write_file("reply.json", reply);
    write_file("bin/claude", "#!/bin/sh\ncat > /dev/null\nsed \"s/RUN/$ORRERY_WORKFLOW_RUN_ID/\" " +
                                 tmp_ + "/reply.json\n");
    std::filesystem::permissions(tmp_ + "/bin/claude", std::filesystem::perms::owner_all);
    create("agentic",
           "name: agentic\nsteps:\n  - id: work\n    target: {type: agent, provider: claude, "
           "prompt: 'fix the next bug'}\n");
  }
  void TearDown() override {
    WorkflowGoals::TearDown();
    setenv("PATH", path_.c_str(), 1);
  }
  std::string path_;
};

TEST_F(AgentWorkflowGoals, TheAgentsFinalMessageIsTheRunsUpdateAndTheBudgetStopsNewRuns) {
  const std::string id = json_of({"goal", "create", "--workflow", "agentic", "--objective",
                                  "fix the reported bugs", "--budget", "1k"})["id"];
  const std::string first = run_wait("agentic")["id"];
  EXPECT_EQ(show_workflow_run(first)["goal_id"], id);
  json recorded = turns(id);
  ASSERT_EQ(recorded.size(), 1u);
  // Read from the final message, as a loop's turn is.
  EXPECT_EQ(recorded[0]["summary"], "fixed one more") << recorded[0];
  EXPECT_EQ(recorded[0]["evidence"]["run"], first) << recorded[0];
  EXPECT_EQ(goal(id)["tokens_used"], 600);
  run_wait("agentic");
  const json spent = goal(id);
  EXPECT_EQ(spent["status"], "budget_limited");
  EXPECT_EQ(spent["tokens_used"], 1200);
  // No run starts without its goal: refused, naming the goal and the way on.
  const std::string refused = expect_error({"workflow", "run", "agentic"}, 4);
  EXPECT_TRUE(contains(refused, "goal " + id + " budget 1,200/1,000 tokens")) << refused;
  EXPECT_TRUE(contains(refused, "orrery goal budget " + id + " --add")) << refused;
  EXPECT_EQ(json_of({"workflow", "runs", "agentic"}).size(), 2u) << "nothing was published";
  json_of({"goal", "budget", id, "--add", "1k"});
  const std::string third = run_wait("agentic")["id"];
  EXPECT_EQ(show_workflow_run(third)["goal_id"], id);
  EXPECT_EQ(goal(id)["turns"], 3);
  // The listing says what each turn was.
  const RunResult listed = run({"goal", "turns", id});
  EXPECT_TRUE(contains(listed.out, "workflow run " + third.substr(0, 8))) << listed.out;
}

}  // namespace
}  // namespace orrery
