// Goals of workflows and of their steps, from the outside (docs/goals.md,
// "Targets"): each run of a workflow is one turn of the workflow's goal,
// whatever its steps; each attempt of a step is one turn of the step's goal.
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

}  // namespace
}  // namespace orrery
