// Goals from the outside (docs/goals.md): a fake agent CLI on PATH answers
// each turn in its provider's real output format, with usage, and the goal
// is driven through the real binary — plans completed, budgets hit and
// raised, bad updates refused, limits and stalls, usage limits, a supervisor
// killed mid-turn, a step's goal.
#include <signal.h>
#include <sys/stat.h>

#include <fstream>

#include "cli_fixture.h"

namespace orrery {
namespace {

using json = nlohmann::json;

// What a provider prints for a final message and its usage.
std::string claude_output(const std::string& message, int tokens) {
  return json{{"type", "result"},
              {"subtype", "success"},
              {"result", message},
              {"usage", {{"input_tokens", tokens / 2}, {"output_tokens", tokens - tokens / 2}}}}
      .dump();
}

std::string codex_output(const std::string& message, int tokens) {
  return json{{"type", "thread.started"}}.dump() + "\n" +
         json{{"type", "item.completed"},
              {"item", {{"id", "i1"}, {"type", "agent_message"}, {"text", message}}}}
             .dump() +
         "\n" +
         json{{"type", "turn.completed"},
              {"usage", {{"input_tokens", tokens / 2}, {"output_tokens", tokens - tokens / 2}}}}
             .dump();
}

std::string gemini_output(const std::string& message, int tokens) {
  return json{{"response", message},
              {"stats",
               {{"models",
                 {{"gemini-2.5-pro",
                   {{"tokens", {{"prompt", tokens / 2}, {"candidates", tokens - tokens / 2}}}}}}}}}}
      .dump();
}

// A final message holding an update as agents are told to give it.
std::string message_with(const json& update) {
  return "Here is what I did.\n\n```json\n{\"note\": \"not the "
         "update\"}\n```\n\nUpdate:\n```json\n" +
         update.dump() + "\n```\n";
}

class Goals : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    bin_ = tmp_ + "/bin";
    mkdir(bin_.c_str(), 0700);
    env_ = {{"PATH", bin_ + ":" + std::string(std::getenv("PATH"))}, {"AGENT_DIR", tmp_}};
  }

  // A fake agent CLI: it keeps the prompt it was given and prints the reply
  // file, NODE replaced by the node the prompt says to work on.
  void fake(const std::string& name) {
    const std::string path = bin_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n"
                           "cat > \"$AGENT_DIR/prompt\"\n"
                           "node=$(sed -n 's/^Work on this node this turn: \\([^ ]*\\) .*/\\1/p' "
                           "\"$AGENT_DIR/prompt\")\n"
                           "[ -f \"$AGENT_DIR/before\" ] && . \"$AGENT_DIR/before\"\n"
                           "sed \"s/NODE/$node/g\" \"$AGENT_DIR/reply\"\n"
                           "[ -f \"$AGENT_DIR/exit\" ] && exit $(cat \"$AGENT_DIR/exit\")\n"
                           "exit 0\n";
    chmod(path.c_str(), 0700);
  }

  void reply(const std::string& output) const { std::ofstream(tmp_ + "/reply") << output << "\n"; }
  void reply_update(const json& update, int tokens) const {
    reply(claude_output(message_with(update), tokens));
  }
  std::string prompt() const { return testing_read(tmp_ + "/prompt"); }
  static std::string testing_read(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  RunResult orrery(const Args& args) const { return run(args, env_); }
  json doc(const Args& args, int exit_code = 0) const { return json_of(args, exit_code, env_); }

  // An agent loop (no daemon runs it) with a goal of the three-node plan.
  std::string agent_goal(const Args& options, const std::string& provider = "claude") {
    fake(provider);
    EXPECT_EQ(orrery({"add", "agent", "--every", "1h", "--agent", provider, "--prompt",
                      "work on the repository"})
                  .exit_code,
              0);
    std::ofstream(tmp_ + "/plan.yaml") << "- key: setup\n  objective: install the tools\n"
                                          "- key: tests\n  objective: make the tests pass\n"
                                          "  depends_on: [setup]\n"
                                          "- key: docs\n  objective: document it\n"
                                          "  depends_on: [tests]\n";
    Args create{"goal",        "create",           "--loop", "agent",
                "--objective", "ship the feature", "--plan", tmp_ + "/plan.yaml"};
    create.insert(create.end(), options.begin(), options.end());
    return doc(create)["id"].get<std::string>();
  }

  // A failure per the contract (exit code, nothing on stdout, one line on
  // stderr), with the fake agent on PATH.
  std::string expect_error_env(const Args& args, int exit_code) const {
    const RunResult result = orrery(args);
    EXPECT_EQ(result.exit_code, exit_code) << result.err;
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(lines(result.err).size(), 1u) << result.err;
    return result.err;
  }
  json trigger_wait(int exit_code = 0) const {
    return doc({"trigger", "agent", "--wait"}, exit_code);
  }
  json goal(const std::string& id) const { return doc({"goal", "show", id}); }
  json turns(const std::string& id) const { return doc({"goal", "turns", id, "--limit", "100"}); }
  std::string loop_status() const { return doc({"show", "agent"})["status"]; }

  static json complete_node() {
    return {{"goal",
             {{"node", "NODE"},
              {"node_status", "complete"},
              {"evidence", {{"done", "NODE"}}},
              {"summary", "finished NODE"}}}};
  }

  std::string bin_;
  EnvVars env_;
};

struct OutputFormat {
  const char* provider;
  std::string (*output)(const std::string& message, int tokens);
};

class GoalFormats : public Goals, public ::testing::WithParamInterface<OutputFormat> {};

TEST_P(GoalFormats, AThreeNodePlanIsDrivenToCompleteOverThreeTurnsAndTheLoopPaused) {
  const OutputFormat& format = GetParam();
  const std::string id = agent_goal({"--budget", "10k"}, format.provider);
  const char* nodes[] = {"setup", "tests", "docs"};
  for (int turn = 0; turn < 3; ++turn) {
    json update = complete_node();
    if (turn == 2) update["goal"]["status"] = "complete";
    reply(format.output(message_with(update), 100));
    trigger_wait();
    EXPECT_TRUE(contains(prompt(), std::string("Work on this node this turn: ") + nodes[turn]))
        << prompt();
    EXPECT_TRUE(contains(prompt(), "goal prompt v1"));
    EXPECT_TRUE(contains(prompt(), "ship the feature"));
  }
  const json done = goal(id);
  EXPECT_EQ(done["status"], "complete");
  EXPECT_EQ(done["turns"], 3);
  EXPECT_EQ(done["tokens_used"], 300);
  EXPECT_EQ(done["rollup"]["complete"], 3);
  for (const json& node : done["plan"]) EXPECT_EQ(node["tokens_used"], 100) << node;
  EXPECT_EQ(loop_status(), "paused");
  // `show` and `runs` of the loop name the goal it served.
  for (const Args& view : {Args{"show", "agent"}, Args{"runs", "agent"}}) {
    const RunResult shown = orrery(view);
    EXPECT_TRUE(shows_handle(shown.out, id, " complete")) << shown.out;
  }
  const json recorded = turns(id);
  ASSERT_EQ(recorded.size(), 3u);
  for (int turn = 0; turn < 3; ++turn) {
    EXPECT_EQ(recorded[turn]["turn"], turn + 1);
    EXPECT_EQ(recorded[turn]["node_key"], nodes[turn]);
    EXPECT_EQ(recorded[turn]["evidence"]["done"], nodes[turn]);
    EXPECT_TRUE(recorded[turn]["loop_run_id"].is_string());
  }
}

INSTANTIATE_TEST_SUITE_P(Providers, GoalFormats,
                         ::testing::Values(OutputFormat{"claude", claude_output},
                                           OutputFormat{"codex", codex_output},
                                           OutputFormat{"gemini", gemini_output}),
                         [](const auto& info) { return std::string(info.param.provider); });

TEST_F(Goals, TheBudgetHitMidPlanPausesTheLoopAndARaisedBudgetResumesItAndThePlanGoesOn) {
  const std::string id = agent_goal({"--budget", "1k"});
  reply_update(complete_node(), 1200);
  trigger_wait();
  json limited = goal(id);
  EXPECT_EQ(limited["status"], "budget_limited");
  EXPECT_TRUE(contains(limited["status_reason"], "1k")) << limited["status_reason"];
  const json loop = doc({"show", "agent"});
  EXPECT_EQ(loop["status"], "paused");
  EXPECT_EQ(loop["paused_by_goal"], id);
  // A final goal takes no other change.
  for (const Args& change : {Args{"goal", "resume", id}, Args{"goal", "pause", id},
                             Args{"goal", "plan", id, "--node", "tests", "--status", "active"}}) {
    EXPECT_TRUE(contains(expect_error_env(change, 4), "budget_limited"));
  }
  const json raised = doc({"goal", "budget", id, "--add", "10k"});
  EXPECT_EQ(raised["status"], "active");
  EXPECT_EQ(raised["token_budget"], 11000);
  EXPECT_EQ(loop_status(), "active");
  reply_update(complete_node(), 100);
  trigger_wait();
  EXPECT_TRUE(contains(prompt(), "Work on this node this turn: tests"));
  EXPECT_EQ(goal(id)["rollup"]["complete"], 2);
}

TEST_F(Goals, AProposedCycleIsRefusedAndRecordedWhileThePlanIsKept) {
  const std::string id = agent_goal({});
  reply_update({{"goal",
                 {{"plan",
                   {{{"key", "x"}, {"objective", "x"}, {"depends_on", {"y"}}},
                    {{"key", "y"}, {"objective", "y"}, {"depends_on", {"x"}}}}}}}},
               10);
  trigger_wait();
  const json after = goal(id);
  ASSERT_EQ(after["plan"].size(), 3u);
  EXPECT_EQ(after["plan"][0]["key"], "setup");
  const json recorded = turns(id);
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_TRUE(contains(recorded[0]["update_error"], "cycle")) << recorded[0];
  // The next prompt tells the agent why.
  reply_update(complete_node(), 10);
  trigger_wait();
  EXPECT_TRUE(contains(prompt(), "Your last update was refused")) << prompt();
}

TEST_F(Goals, MaxTurnsReachedBlocksTheGoal) {
  const std::string id = agent_goal({"--max-turns", "2"});
  for (int turn = 0; turn < 2; ++turn) {
    reply_update(complete_node(), 10);
    trigger_wait();
  }
  const json blocked = goal(id);
  EXPECT_EQ(blocked["status"], "blocked");
  EXPECT_TRUE(contains(blocked["status_reason"], "2 turns")) << blocked;
  EXPECT_EQ(loop_status(), "paused");
}

TEST_F(Goals, ThreeTurnsWithoutProgressBlockTheGoalSayingSo) {
  const std::string id = agent_goal({});
  reply(claude_output("I looked around and changed nothing.", 10));
  for (int turn = 0; turn < 3; ++turn) trigger_wait();
  const json blocked = goal(id);
  EXPECT_EQ(blocked["status"], "blocked");
  EXPECT_EQ(blocked["status_reason"], "no progress in 3 turns");
  EXPECT_EQ(turns(id).size(), 3u);
}

TEST_F(Goals, AUsageLimitReplySpendsNoTurnAndTheGoalIsActiveAgainAfterTheCooldown) {
  const std::string id = agent_goal({});
  reply(
      "{\"type\":\"result\",\"is_error\":true,\"result\":\"Claude AI usage limit reached\","
      "\"resets_in_seconds\": 2}");
  std::ofstream(tmp_ + "/exit") << "1";
  trigger_wait(1);
  const json limited = goal(id);
  EXPECT_EQ(limited["status"], "usage_limited") << limited;
  EXPECT_EQ(limited["turns"], 0);
  const json recorded = turns(id);
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0]["spent"], false);
  // When the cooldown ends, the daemon's tick makes it active again.
  start_daemon();
  json active = goal(id);
  for (int i = 0; i < 750 && active["status"] != "active"; ++i) {
    usleep(20'000);
    active = goal(id);
  }
  EXPECT_EQ(active["status"], "active") << active;
  stop_daemon();
  std::remove((tmp_ + "/exit").c_str());
  reply_update(complete_node(), 10);
  trigger_wait();
  EXPECT_EQ(goal(id)["turns"], 1) << "the next run is the goal's first spent turn";
}

TEST_F(Goals, EveryChangeOfAFinalGoalIsRefusedWithExitFourAndChangesNothing) {
  const std::string complete = agent_goal({});
  reply_update({{"goal", {{"status", "complete"}, {"force", true}}}}, 10);
  trigger_wait();
  ASSERT_EQ(goal(complete)["status"], "complete");
  ASSERT_EQ(orrery({"add", "other", "--every", "1h", "--", "/bin/true"}).exit_code, 0);
  const std::string cancelled =
      doc({"goal", "create", "--loop", "other", "--objective", "x"})["id"];
  doc({"goal", "cancel", cancelled});
  for (const std::string& id : {complete, cancelled}) {
    const json before = goal(id);
    for (const Args& change :
         {Args{"goal", "pause", id}, Args{"goal", "resume", id}, Args{"goal", "cancel", id},
          Args{"goal", "budget", id, "--add", "5k"}, Args{"goal", "budget", id, "--set", "1M"},
          Args{"goal", "plan", id, "--node", "setup", "--status", "pending"}}) {
      expect_error_env(change, 4);
    }
    EXPECT_EQ(goal(id), before);
  }
}

TEST_F(Goals, ACommandTargetWritesItsUpdateToTheFileItIsGiven) {
  ASSERT_EQ(orrery({"add", "job", "--every", "1h", "--shell",
                    "test -s \"$ORRERY_GOAL\" && printf '{\"goal\": {\"plan\": [{\"key\": \"a\", "
                    "\"objective\": \"first\"}], \"evidence\": {\"seen\": 1}}}' > "
                    "\"$ORRERY_GOAL_UPDATE\""})
                .exit_code,
            0);
  const std::string id = doc({"goal", "create", "--loop", "job", "--objective", "plan it"})["id"];
  doc({"trigger", "job", "--wait"});
  const json after = goal(id);
  ASSERT_EQ(after["plan"].size(), 1u);
  EXPECT_EQ(after["plan"][0]["key"], "a");
  EXPECT_EQ(turns(id)[0]["evidence"]["seen"], 1);
}

// An update over the limit is refused naming the limit itself, 256 KiB
// (262,144 bytes), whatever its size — never the limit plus the one byte
// read to see that it is over.
TEST_F(Goals, AnUpdateOverTheLimitIsRefusedNamingTheLimit) {
  for (const int bytes : {262'145, 262'146, 300'000, 1'048'576}) {
    const std::string loop = "big-" + std::to_string(bytes);
    ASSERT_EQ(orrery({"add", loop, "--every", "1h", "--shell",
                      "head -c " + std::to_string(bytes) +
                          " /dev/zero | tr '\\0' ' ' > "
                          "\"$ORRERY_GOAL_UPDATE\""})
                  .exit_code,
              0);
    const std::string id = doc({"goal", "create", "--loop", loop, "--objective", "x"})["id"];
    doc({"trigger", loop, "--wait"});
    const json recorded = turns(id);
    ASSERT_EQ(recorded.size(), 1u) << bytes;
    const std::string error = recorded[0]["update_error"].get<std::string>();
    EXPECT_NE(error.find("is larger than 256KiB (262144 bytes), the most accepted"),
              std::string::npos)
        << bytes << ": " << error;
  }
}

TEST_F(Goals, ASupervisorKilledMidTurnCountsTheTurnOnce) {
  const std::string id = agent_goal({});
  reply_update(complete_node(), 10);
  std::ofstream(tmp_ + "/before") << "touch \"$AGENT_DIR/started\"; sleep 30\n";
  const std::string run_id = doc({"trigger", "agent"})["run_id"];
  const json running = started(run_id);
  for (int i = 0; i < 500 && !std::filesystem::exists(tmp_ + "/started"); ++i) usleep(10'000);
  ASSERT_TRUE(running["supervisor_pid"].is_number()) << running;
  ::kill(running["supervisor_pid"].get<int>(), SIGKILL);
  // Recovery finds the dead supervisor, kills its target and ends the run;
  // run again, it finds nothing more to count.
  for (int pass = 0; pass < 2; ++pass) {
    const RunResult recovered = orrery({"recover"});
    EXPECT_EQ(recovered.exit_code, 0) << recovered.err;
  }
  const json ended = finished(run_id);
  EXPECT_EQ(ended["status"], "abandoned") << ended;
  const json recorded = turns(id);
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0]["loop_run_id"], run_id);
  EXPECT_EQ(recorded[0]["run_status"], "abandoned");
  EXPECT_EQ(goal(id)["turns"], 1);
}

}  // namespace
}  // namespace orrery
