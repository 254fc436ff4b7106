// Black-box checks of bad input to the workflow commands (docs/workflows.md,
// docs/cli.md): every invalid spec is exit 2 with one line naming what is
// wrong, and nothing is stored; `--input` that is not a JSON object is exit 2
// and starts no run.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "support/numbered.h"
#include "workflow_fixture.h"

namespace orrery {
namespace {

using testing::numbered;

class WorkflowSpecCli : public WorkflowFixture {
 protected:
  // `workflow create FILE` fails with exit 2; its message.
  std::string refused(const std::string& path) {
    return expect_error({"workflow", "create", path}, 2);
  }

  void expect_nothing_stored() {
    EXPECT_EQ(json_of({"workflow", "ls"}), json::array());
    EXPECT_EQ(json_of({"workflow", "ls", "--all"}), json::array());
  }
};

struct BadSpec {
  const char* what;
  const char* file;
  const char* text;
  std::vector<std::string> message_parts;
};

TEST_F(WorkflowSpecCli, EveryInvalidSpecIsRefusedNamingWhatIsWrongAndNothingIsStored) {
  const std::vector<BadSpec> cases{
      {"a cycle",
       "cycle.yaml",
       "name: w\nsteps:\n"
       "  - {id: a, target: {type: command, command: 'true'}}\n"
       "  - {id: b, depends_on: [a, d], target: {type: command, command: 'true'}}\n"
       "  - {id: c, depends_on: [b], target: {type: command, command: 'true'}}\n"
       "  - {id: d, depends_on: [c], target: {type: command, command: 'true'}}\n",
       {"cycle", "'b'"}},
      {"a two-step cycle in JSON",
       "cycle.json",
       R"({"name": "w", "steps": [
           {"id": "x", "depends_on": ["y"], "target": {"type": "command", "command": "true"}},
           {"id": "y", "depends_on": ["x"], "target": {"type": "command", "command": "true"}}]})",
       {"cycle", "'x'"}},
      {"a missing dependency",
       "missing.yaml",
       "name: w\nsteps:\n"
       "  - {id: a, target: {type: command, command: 'true'}}\n"
       "  - {id: b, depends_on: [a, nowhere], target: {type: command, command: 'true'}}\n",
       {"step 'b'", "'nowhere'"}},
      {"a duplicate id",
       "duplicate.yaml",
       "name: w\nsteps:\n"
       "  - {id: same, target: {type: command, command: 'true'}}\n"
       "  - {id: other, target: {type: command, command: 'true'}}\n"
       "  - {id: same, target: {type: command, command: 'true'}}\n",
       {"steps[2]", "'same'", "unique"}},
      {"a self-dependency",
       "self.yaml",
       "name: w\nsteps:\n"
       "  - {id: a, target: {type: command, command: 'true'}}\n"
       "  - {id: loner, depends_on: [a, loner], target: {type: command, command: 'true'}}\n",
       {"step 'loner'", "depends on itself"}},
      {"an unknown target type",
       "type.yaml",
       "name: w\nsteps:\n  - {id: a, target: {type: rocket, command: 'true'}}\n",
       {"step 'a'", "target.type", "'rocket'"}},
      {"a missing target type",
       "notype.yaml",
       "name: w\nsteps:\n  - {id: a, target: {command: 'true'}}\n",
       {"step 'a'", "type"}},
      {"an unknown provider",
       "provider.yaml",
       "name: w\nsteps:\n  - {id: a, target: {type: agent, provider: hal9000, prompt: hi}}\n",
       {"step 'a'", "provider", "'hal9000'"}},
      {"a bad duration",
       "duration.yaml",
       "name: w\nsteps:\n  - {id: a, timeout: 5 fortnights, target: {type: command, command: "
       "'true'}}\n",
       {"step 'a'", "timeout", "'5 fortnights'"}},
      {"a negative duration",
       "negative.yaml",
       "name: w\nsteps:\n  - {id: a, timeout: -5s, target: {type: command, command: 'true'}}\n",
       {"step 'a'", "timeout"}},
      {"a YAML syntax error",
       "syntax.yaml",
       "name: w\nsteps:\n  - id: a\n   target: [x\n",
       {"YAML syntax error at line 4, column 4"}},
      {"a YAML syntax error on line 2",
       "syntax2.yml",
       "name: w\nsteps: x: y\n",
       {"YAML syntax error at line 2, column 9"}},
      {"a tab in YAML indentation",
       "tab.yaml",
       "name: w\n\tsteps: []\n",
       {"YAML syntax error at line 2, column 1"}},
      {"a JSON syntax error",
       "syntax.json",
       "{\"name\": \"w\",\n \"steps\": [ {\"id\": \"a\",, } ] }",
       {"JSON", "line 2", "column"}},
      {"a truncated JSON file",
       "cut.json",
       "{\"name\": \"w\", \"steps\": [",
       {"JSON", "line 1", "column"}},
      {"no steps", "empty.yaml", "name: w\nsteps: []\n", {"steps"}},
      {"no name",
       "noname.yaml",
       "steps:\n  - {id: a, target: {type: command, command: 'true'}}\n",
       {"name"}},
  };
  for (const BadSpec& bad : cases) {
    SCOPED_TRACE(bad.what);
    const std::string message = refused(write_file(bad.file, bad.text));
    for (const std::string& part : bad.message_parts)
      EXPECT_TRUE(contains(message, part)) << "expected '" << part << "' in: " << message;
  }
  expect_nothing_stored();
}

TEST_F(WorkflowSpecCli, AnInvalidNewVersionLeavesTheStoredVersionsAsTheyWere) {
  const json first =
      create("w", "name: w\nsteps:\n  - {id: a, target: {type: command, command: 'true'}}\n");
  for (const char* text :
       {"name: w\nsteps:\n  - {id: a, depends_on: [a], target: {type: command, command: 'true'}}\n",
        "name: w\nsteps: [\n", "{\"name\": \"w\", \"steps\": 5}"}) {
    SCOPED_TRACE(text);
    refused(write_file("again.yaml", text));
  }
  const json listed = json_of({"workflow", "ls", "--all"});
  ASSERT_EQ(listed.size(), 1u) << listed.dump(1);
  EXPECT_EQ(listed[0]["id"], first["id"]);
  EXPECT_EQ(listed[0]["version"], 1);
}

TEST_F(WorkflowSpecCli, AFileThatIsNotARegularFileIsRefusedWithoutHanging) {
  const std::string directory = tmp_ + "/spec.yaml";
  ASSERT_EQ(::mkdir(directory.c_str(), 0700), 0);
  EXPECT_TRUE(contains(refused(directory), "is a directory")) << directory;
  const std::string fifo = tmp_ + "/fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto begun = std::chrono::steady_clock::now();
  EXPECT_TRUE(contains(refused(fifo), "not a regular file"));
  EXPECT_LT(std::chrono::steady_clock::now() - begun, std::chrono::seconds(5));
  EXPECT_TRUE(contains(refused(tmp_ + "/absent.yaml"), "does not exist"));
  EXPECT_TRUE(contains(refused("/dev/null"), "not a regular file"));
  expect_nothing_stored();
}

// A YAML spec padded with a comment to exactly `size` bytes.
std::string padded_spec(size_t size) {
  std::string text =
      "name: padded\nsteps:\n  - {id: a, target: {type: command, command: 'true'}}\n#";
  text.append(size - text.size() - 1, 'x');
  return text + "\n";
}

TEST_F(WorkflowSpecCli, ASpecOver1MiBIsRefusedAndOneOfExactly1MiBIsAccepted) {
  for (size_t size : {(1u << 20) + 1, (1u << 20) + 4096, 3u << 20}) {
    SCOPED_TRACE(size);
    const std::string message = refused(write_file("big.yaml", padded_spec(size)));
    EXPECT_TRUE(contains(message, "larger than 1")) << message;
    EXPECT_TRUE(contains(message, "MiB")) << message;
    EXPECT_FALSE(contains(message, "1048577")) << message;
  }
  expect_nothing_stored();
  const json created =
      json_of({"workflow", "create", write_file("max.yaml", padded_spec(1u << 20))});
  EXPECT_EQ(created["name"], "padded");
}

// A JSON spec of `count` trivial steps.
std::string spec_of_steps(int count) {
  nlohmann::json steps = nlohmann::json::array();
  for (int i = 0; i < count; ++i) {
    steps.push_back(
        {{"id", numbered("s", i)}, {"target", {{"type", "command"}, {"command", "true"}}}});
  }
  return nlohmann::json({{"name", "many"}, {"steps", steps}}).dump();
}

TEST_F(WorkflowSpecCli, ASpecOver1000StepsIsRefusedAndOneOf1000IsAccepted) {
  for (int count : {1001, 1500}) {
    const std::string message = refused(write_file("many.json", spec_of_steps(count)));
    EXPECT_TRUE(contains(message, std::to_string(count) + " steps")) << message;
    EXPECT_TRUE(contains(message, "at most 1000")) << message;
  }
  expect_nothing_stored();
  const json created =
      json_of({"workflow", "create", write_file("many.json", spec_of_steps(1000))});
  EXPECT_EQ(created["steps"].size(), 1000u);
}

TEST_F(WorkflowSpecCli, AnInputThatIsNotAJsonObjectIsRefusedAndStartsNoRun) {
  create("ok", "name: ok\nsteps:\n  - {id: a, target: {type: command, command: 'true'}}\n");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"[1, 2]", "array"}, {"\"text\"", "string"},        {"42", "number"},
      {"null", "null"},    {"{\"a\":", "not valid JSON"}, {"{'a': 1}", "not valid JSON"},
      {"", "empty"},
  };
  for (const auto& [input, part] : cases) {
    for (const Args& wait : {Args{}, Args{"--wait"}}) {
      Args args{"workflow", "run", "ok", "--input", input};
      args.insert(args.end(), wait.begin(), wait.end());
      const std::string message = expect_error(args, 2);
      EXPECT_TRUE(contains(message, "--input")) << message;
      EXPECT_TRUE(contains(message, part)) << message;
    }
  }
  // Over 64 KiB.
  const std::string big = json({{"a", std::string(70'000, 'x')}}).dump();
  const std::string message = expect_error({"workflow", "run", "ok", "--input", big}, 2);
  EXPECT_TRUE(contains(message, "at most 65536 bytes")) << message;
  EXPECT_EQ(json_of({"workflow", "runs"}), json::array());
  EXPECT_FALSE(std::filesystem::exists(home_ + "/workflow-runs") &&
               !std::filesystem::is_empty(home_ + "/workflow-runs"));
}

}  // namespace
}  // namespace orrery
