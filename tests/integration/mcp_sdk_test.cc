// Black-box tests of `orrery mcp` driven by a client nobody on this project
// wrote: the official MCP TypeScript SDK (@modelcontextprotocol/sdk, pinned
// in tests/integration/js/package-lock.json) over stdio (docs/mcp.md). Each
// tool of a scope is called, its document checked against the CLI's, a
// tool outside the scope is a JSON-RPC error, run logs are resources.
#include <fstream>
#include <sstream>

#include "server_fixture.h"

namespace orrery {
namespace {

class McpSdk : public ServerFixture {
 protected:
  void SetUp() override {
    ServerFixture::SetUp();
    add("nightly", {"--every", "1h", "--", "echo", "hi"});
    run_id_ = trigger("nightly");
    ASSERT_EQ(finished(run_id_)["status"], "succeeded");
    create("work",
           "name: work\nsteps:\n  - id: one\n    target: {type: command, shell: true, "
           "command: \"true\"}\n");
    json_of({"route", "add", "inbox", "--workflow", "work"});
  }

  // The SDK client's report of a session of `scope` making `calls`.
  json session(const std::string& scope, const json& calls) {
    const std::string file = tmp_ + "/calls.json";
    std::ofstream(file) << calls.dump();
    const RunResult ran =
        run_program("/usr/bin/env", {"node", ORRERY_MCP_CLIENT, ORRERY_BINARY, home_, scope, file});
    EXPECT_EQ(ran.exit_code, 0) << ran.err << ran.out;
    json report = json::parse(ran.out, nullptr, false);
    EXPECT_TRUE(report.is_object()) << ran.out << ran.err;
    return report;
  }

  static std::vector<std::string> tool_names(const json& report) {
    std::vector<std::string> names;
    for (const json& tool : report["tools"]) names.push_back(tool["name"]);
    return names;
  }

  std::string run_id_;
};

TEST_F(McpSdk, AReadSessionListsAndShowsAsTheCliDoesAndRefusesToChangeAnything) {
  const json calls = json::array({
      {{"name", "list_loops"}, {"arguments", json::object()}},
      {{"name", "show_loop"}, {"arguments", {{"loop", "nightly"}}}},
      {{"name", "list_runs"}, {"arguments", {{"loop", "nightly"}, {"limit", 5}}}},
      {{"name", "get_run_output"}, {"arguments", {{"run", run_id_}}}},
      {{"name", "goal_status"}, {"arguments", json::object()}},
      {{"name", "show_loop"}, {"arguments", {{"loop", "missing"}}}},
      {{"name", "create_loop"}, {"arguments", {{"spec", {{"name", "x"}}}}}},
      {{"name", "trigger_loop"}, {"arguments", {{"loop", "nightly"}}}},
      {{"name", "show_loop"}, {"arguments", json::object()}},
      {{"name", "list_runs"}, {"arguments", {{"limit", "5"}}}},
      {{"name", "show_loop"}, {"arguments", {{"loop", "nightly"}, {"extra", 1}}}},
  });
  const json report = session("read", calls);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["server"]["name"], "orrery");
  EXPECT_EQ(tool_names(report), (std::vector<std::string>{"list_loops", "show_loop", "list_runs",
                                                          "get_run_output", "goal_status"}));
  for (const json& tool : report["tools"]) {
    EXPECT_EQ(tool["inputSchema"]["type"], "object") << tool.dump();
  }
  const json& got = report["calls"];
  ASSERT_EQ(got.size(), calls.size()) << report.dump(1);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(got[i]["isError"], false) << got[i].dump();
  }
  EXPECT_EQ(got[0]["structuredContent"]["loops"], json_of({"ls"}));
  EXPECT_EQ(got[1]["structuredContent"], json_of({"show", "nightly"}));
  EXPECT_EQ(got[2]["structuredContent"]["runs"], json_of({"runs", "nightly", "--limit", "5"}));
  EXPECT_TRUE(got[2]["structuredContent"]["next_cursor"].is_null()) << "one run: the last page";
  EXPECT_EQ(got[3]["structuredContent"]["text"], "hi\n");
  EXPECT_EQ(got[4]["structuredContent"]["goals"], json::array());
  // A tool's own failure is a result with isError; the CLI's error document.
  EXPECT_EQ(got[5]["isError"], true) << got[5].dump();
  EXPECT_EQ(got[5]["structuredContent"]["error"]["code"], "not_found");
  // Out of scope and bad arguments are JSON-RPC errors: invalid params.
  for (size_t i = 6; i < got.size(); ++i) {
    EXPECT_EQ(got[i]["error"]["code"], -32602) << got[i].dump();
  }
  EXPECT_NE(got[6]["error"]["message"].get<std::string>().find("--allow"), std::string::npos);
  EXPECT_EQ(json_of({"ls"}).size(), 1u);               // nothing was created
  EXPECT_EQ(json_of({"runs", "nightly"}).size(), 1u);  // nor triggered
  // Run logs are resources.
  EXPECT_NE(std::find(report["resources"].begin(), report["resources"].end(),
                      "orrery://runs/" + run_id_ + "/stdout"),
            report["resources"].end());
  EXPECT_EQ(report["read"]["mimeType"], "text/plain");
  EXPECT_EQ(report["badRead"]["code"], -32002);
}

TEST_F(McpSdk, AManageSessionCreatesUpToItsCapPausesResumesTriggersAndEnqueues) {
  const json spec = {{"name", "agent-made"}, {"every", "1h"}, {"command", {"true"}}};
  json second = spec;
  second["name"] = "agent-made-2";
  const json calls = json::array({
      {{"name", "create_loop"}, {"arguments", {{"spec", spec}}}},
      {{"name", "create_loop"}, {"arguments", {{"spec", second}}}},
      {{"name", "pause_loop"}, {"arguments", {{"loop", "nightly"}}}},
      {{"name", "resume_loop"}, {"arguments", {{"loop", "agent-made"}}}},
      {{"name", "trigger_loop"}, {"arguments", {{"loop", "agent-made"}}}},
      {{"name", "enqueue_item"},
       {"arguments", {{"route", "inbox"}, {"item", {{"key", "web#9"}, {"priority", 3}}}}}},
      {{"name", "schedule_next_run"}, {"arguments", {{"duration", "20m"}}}},
      {{"name", "update_goal"}, {"arguments", {{"status", "complete"}}}},
      {{"name", "create_loop"}, {"arguments", {{"spec", {{"name", "bad"}}}}}},
  });
  const json report = session("manage", calls);
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(tool_names(report).size(), 12u) << report["tools"].dump();
  const json& got = report["calls"];
  ASSERT_EQ(got.size(), calls.size()) << report.dump(1);
  EXPECT_EQ(got[0]["isError"], false) << got[0].dump();
  EXPECT_EQ(got[0]["structuredContent"]["name"], "agent-made");
  // --max-created-loops 1 (the client's): the second is refused.
  EXPECT_EQ(got[1]["isError"], true) << got[1].dump();
  EXPECT_NE(got[1]["text"].get<std::string>().find("--max-created-loops"), std::string::npos);
  EXPECT_EQ(json_of({"show", "nightly"})["status"], "paused");
  EXPECT_EQ(got[3]["isError"], true) << got[3].dump();  // it was not paused
  EXPECT_EQ(got[4]["isError"], false) << got[4].dump();
  const std::string triggered = got[4]["structuredContent"]["run_id"];
  EXPECT_EQ(show_run(triggered)["loop_name"], "agent-made");
  EXPECT_EQ(got[5]["isError"], false) << got[5].dump();
  EXPECT_EQ(json_of({"item", "show", "inbox/web#9"})["priority"], 3);
  // Outside a run, the run's tools say so.
  EXPECT_EQ(got[6]["isError"], true) << got[6].dump();
  EXPECT_EQ(got[7]["isError"], true) << got[7].dump();
  EXPECT_NE(got[7]["text"].get<std::string>().find("ORRERY_GOAL_UPDATE"), std::string::npos);
  EXPECT_EQ(got[8]["isError"], true) << got[8].dump();
  EXPECT_FALSE(json_of({"ls"}).empty());
  finished(triggered);
}

// The stdio framing, scripted without a client: lines are answered in order,
// blank lines and a CR before the LF are allowed, a line over 4 MiB is
// answered with an error and skipped, and the end of input exits 0.
TEST_F(McpSdk, ScriptedLinesAreAnsweredInOrderAndTheEndOfInputExitsZero) {
  const std::string file = tmp_ + "/script";
  {
    std::ofstream script(file, std::ios::binary);
    script
        << R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})"
        << "\n\n   \n"
        << R"({"jsonrpc":"2.0","id":2,"method":"ping"})"
        << "\r\n"
        << "garbage\n"
        << std::string(5 * 1024 * 1024, 'x') << "\n"
        << R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
        << "\n"
        << R"({"jsonrpc":"2.0","id":"three","method":"tools/list"})";  // no final LF
  }
  const RunResult ran = run_program(
      "/bin/sh", {"-c", "exec \"$0\" --home \"$1\" mcp < \"$2\"", ORRERY_BINARY, home_, file});
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  std::vector<json> answers;
  std::istringstream lines(ran.out);
  for (std::string line; std::getline(lines, line);) answers.push_back(json::parse(line));
  ASSERT_EQ(answers.size(), 5u) << ran.out.substr(0, 2000);
  EXPECT_EQ(answers[0]["id"], 1);
  EXPECT_EQ(answers[1]["id"], 2);
  EXPECT_EQ(answers[2]["error"]["code"], -32700);
  EXPECT_EQ(answers[3]["error"]["code"], -32600);
  EXPECT_EQ(answers[4]["id"], "three");
  EXPECT_EQ(answers[4]["result"]["tools"].size(), 5u);
}

TEST_F(McpSdk, ABadScopeOrCapIsRefusedWithExitTwo) {
  for (const Args& bad :
       {Args{"mcp", "--allow", "everything"}, Args{"mcp", "--allow", ""},
        Args{"mcp", "--max-created-loops", "-1"}, Args{"mcp", "--max-created-loops", "10001"}}) {
    Args full{"--home", home_};
    full.insert(full.end(), bad.begin(), bad.end());
    const RunResult ran = run_orrery(full);
    EXPECT_EQ(ran.exit_code, 2) << describe(full, ran);
    EXPECT_EQ(ran.out, "") << describe(full, ran);
  }
}

}  // namespace
}  // namespace orrery
