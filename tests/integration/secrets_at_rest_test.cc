// Secrets at rest (docs/scrubbing.md, "Files under the home"): a run that
// writes its --secret-env value into every channel it has — stdout, stderr,
// its goal update, its ORRERY_OUTPUT (also one over its limit), the files it
// was handed, a file of its own beside them, its agent's final message —
// leaves it in no file under the home but the loop's secrets file: not in the
// database, not in a log, not in a file of its directory. Generated over
// every channel × every kind of run (a loop's turn of a goal, a step of a
// loop's workflow run), and for a run whose supervisor is killed (-9) once
// it has written them all.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/numbered.h"
#include "workflow_fixture.h"

namespace orrery {
namespace {

constexpr const char* kSecret = "Plain-Secret-4711";

struct Channel {
  std::string name;
  std::string shell;  // writes $TOKEN into the channel
};

// Every channel a run has; a step's only (ORRERY_OUTPUT, ORRERY_STEPS) write
// nothing in a loop's run.
std::vector<Channel> channels() {
  return {
      {"stdout", "echo \"out $TOKEN\""},
      {"stderr", "echo \"err $TOKEN\" >&2"},
      {"the goal update",
       "printf '{\"goal\":{\"summary\":\"%s\"}}' \"$TOKEN\" > \"$ORRERY_GOAL_UPDATE\""},
      {"the goal update, over its limit",
       "{ head -c 400000 /dev/zero | tr '\\0' x; echo \"$TOKEN\"; } > \"$ORRERY_GOAL_UPDATE\""},
      {"the goal document written over", "echo \"$TOKEN\" >> \"$ORRERY_GOAL\""},
      {"a file beside the goal document",
       "echo \"$TOKEN\" > \"$(dirname \"$ORRERY_GOAL\")/notes.txt\""},
      {"ORRERY_OUTPUT",
       "if [ -n \"$ORRERY_OUTPUT\" ]; then printf 'v=%s\\n' \"$TOKEN\" > \"$ORRERY_OUTPUT\"; fi"},
      {"ORRERY_OUTPUT, not KEY=VALUE",
       "if [ -n \"$ORRERY_OUTPUT\" ]; then echo \"$TOKEN\" > \"$ORRERY_OUTPUT\"; fi"},
      {"ORRERY_OUTPUT, over its limit",
       "if [ -n \"$ORRERY_OUTPUT\" ]; then { head -c 300000 /dev/zero | tr '\\0' x; "
       "echo \"=$TOKEN\"; } > \"$ORRERY_OUTPUT\"; fi"},
      {"ORRERY_STEPS written over",
       "if [ -n \"$ORRERY_STEPS\" ]; then echo \"$TOKEN\" >> \"$ORRERY_STEPS\"; fi"},
  };
}

// The whole snippet: every channel at once.
std::string every_channel() {
  std::string shell;
  for (const Channel& channel : channels()) {
    if (channel.name.find("over its limit") != std::string::npos) continue;
    shell += channel.shell + "; ";
  }
  return shell;
}

class SecretsAtRest : public WorkflowFixture {
 protected:
  // Every file under the home holding the secret, but the secrets files.
  std::vector<std::string> files_with_secret() const {
    std::vector<std::string> found;
    const std::filesystem::path secrets = std::filesystem::path(home_) / "secrets";
    for (auto it = std::filesystem::recursive_directory_iterator(home_);
         it != std::filesystem::recursive_directory_iterator(); ++it) {
      if (it->path() == secrets) {
        it.disable_recursion_pending();
        continue;
      }
      if (!it->is_regular_file() || it->is_symlink()) continue;
      if (read_file(it->path().string()).find(kSecret) != std::string::npos)
        found.push_back(std::filesystem::relative(it->path(), home_).string());
    }
    return found;
  }

  // A loop whose shell target runs `shell` with the secret, and a goal of it.
  void add_goal_loop(const std::string& name, const std::string& shell) {
    add(name, {"--every", "1h", "--secret-env", std::string("TOKEN=") + kSecret, "--shell", shell});
    json_of({"goal", "create", "--loop", name, "--objective", "keep the secret"});
  }

  // A workflow of one step running `shell`, a goal of it, and a loop with
  // the secret that runs it.
  void add_workflow_loop(const std::string& name, const std::string& shell) {
    std::string quoted;
    for (char c : shell) {
      if (c == '\\' || c == '"') quoted += '\\';
      quoted += c;
    }
    create(name, "name: " + name +
                     "\nsteps:\n  - id: leak\n    target:\n      type: command\n"
                     "      shell: true\n      command: \"" +
                     quoted + "\"\n");
    json_of({"goal", "create", "--workflow", name, "--objective", "keep the secret"});
    add(name + "-loop",
        {"--every", "1h", "--secret-env", std::string("TOKEN=") + kSecret, "--workflow", name});
  }

  // Triggers the loop and waits for its run; trigger's exit code.
  int trigger_wait(const std::string& loop) const {
    return run({"trigger", loop, "--wait"}).exit_code;
  }

  void expect_no_secret_left(const std::string& what) const {
    const std::vector<std::string> found = files_with_secret();
    std::string list;
    for (const std::string& file : found) list += "\n  " + file;
    EXPECT_TRUE(found.empty()) << what << " leaves the secret in:" << list;
  }
};

TEST_F(SecretsAtRest, NoChannelOfALoopsGoalTurnLeavesTheSecretUnderTheHome) {
  int index = 0;
  for (const Channel& channel : channels()) {
    const std::string loop = testing::numbered("turn-", index++);
    add_goal_loop(loop, channel.shell + "; exit 0");
    trigger_wait(loop);
    expect_no_secret_left("a loop's turn writing it to " + channel.name);
  }
  // The runs had the secret: their output says it, scrubbed.
  const json runs = json_of({"runs", "turn-0"});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_NE(show_run(runs[0]["id"]).dump().find("out [SCRUBBED]"), std::string::npos);
}

// An agent whose final message carries the secret in its text and in its
// goal block.
TEST_F(SecretsAtRest, AnAgentsFinalMessageLeavesNoSecretUnderTheHome) {
  std::filesystem::create_directories(tmp_ + "/bin");
  write_file("bin/claude", R"(#!/bin/sh
cat > /dev/null
cat <<JSON
{"type":"result","subtype":"success","result":"Done $TOKEN\n\n\`\`\`json\n{\"goal\": {\"summary\": \"$TOKEN\"}}\n\`\`\`\n","usage":{"input_tokens":5,"output_tokens":1}}
JSON
)");
  std::filesystem::permissions(tmp_ + "/bin/claude", std::filesystem::perms::owner_all);
  const std::string path = std::getenv("PATH");
  setenv("PATH", (tmp_ + "/bin:" + path).c_str(), 1);
  add("agent", {"--every", "1h", "--secret-env", std::string("TOKEN=") + kSecret, "--agent",
                "claude", "--prompt", "keep it"});
  const std::string goal =
      json_of({"goal", "create", "--loop", "agent", "--objective", "keep the secret"})["id"];
  const int exit_code = trigger_wait("agent");
  setenv("PATH", path.c_str(), 1);
  EXPECT_EQ(exit_code, 0);
  expect_no_secret_left("an agent's final message");
  // The block was the turn's update, scrubbed.
  const json turns = json_of({"goal", "turns", goal});
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_EQ(turns[0]["summary"], "[SCRUBBED]") << turns.dump();
}

TEST_F(SecretsAtRest, NoChannelOfALoopsWorkflowStepLeavesTheSecretUnderTheHome) {
  int index = 0;
  for (const Channel& channel : channels()) {
    const std::string name = testing::numbered("step-", index++);
    add_workflow_loop(name, channel.shell + "; exit 0");
    trigger_wait(name + "-loop");
    expect_no_secret_left("a loop's workflow step writing it to " + channel.name);
  }
  // The step was given the loop's secret: its ORRERY_OUTPUT says it, scrubbed.
  const json runs = json_of({"workflow", "runs", "step-6"});
  ASSERT_EQ(runs.size(), 1u);
  const json step = step_of(show_workflow_run(runs[0]["id"]), "leak");
  EXPECT_EQ(step["outputs"]["v"], "[SCRUBBED]") << step.dump();
}

TEST_F(SecretsAtRest, ARunWhoseSupervisorIsKilledLeavesNoSecretOnceRecovered) {
  add_goal_loop("killed-turn", every_channel() + "kill -9 $PPID; exit 0");
  EXPECT_NE(trigger_wait("killed-turn"), 0);
  json_of({"recover"});
  expect_no_secret_left("a loop's turn whose supervisor was killed, once recovered");

  // Its attempt is run again (a step whose supervisor died is reclaimed);
  // the second writes nothing.
  add_workflow_loop("killed-step", "if [ \"$ORRERY_ATTEMPT\" = 1 ]; then " + every_channel() +
                                       "kill -9 $PPID; fi; exit 0");
  EXPECT_EQ(trigger_wait("killed-step-loop"), 0);
  expect_no_secret_left("a workflow step whose supervisor was killed, once its run ended");
}

}  // namespace
}  // namespace orrery
