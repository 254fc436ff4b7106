#include "core/workflow_spec.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/spec_tree.h"
#include "core/workflow_graph.h"
#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

using nlohmann::json;

const std::string kBase = "/work/specs";

Result<WorkflowSpec> parse_json(const std::string& text, const std::string& base = kBase) {
  return parse_workflow_spec(text, SpecFormat::kJson, PathBase{base});
}

Result<WorkflowSpec> parse_yaml(const std::string& text, const std::string& base = kBase) {
  return parse_workflow_spec(text, SpecFormat::kYaml, PathBase{base});
}

std::string error_of(const Result<WorkflowSpec>& parsed) {
  EXPECT_FALSE(parsed.ok()) << "should be refused";
  if (parsed) return "";
  EXPECT_EQ(parsed.error().code, ErrorCode::kUsage);
  return parsed.error().message;
}

// A spec with the given steps (a JSON array) around them.
std::string with_steps(const std::string& steps) {
  return R"({"name": "build", "steps": )" + steps + "}";
}

// A JSON array of the given elements (each JSON text), joined by ','.
std::string array_of(const std::vector<std::string>& elements) {
  std::string text = "[";
  for (size_t i = 0; i < elements.size(); ++i) {
    if (i > 0) text += ',';
    text += elements[i];
  }
  text += ']';
  return text;
}

// A spec of one step with the given members beside a `true` command.
std::string one_step(const std::string& members) {
  return with_steps(R"([{"id": "a", "target": {"type": "command", "command": "true"})" +
                    (members.empty() ? "" : ", " + members) + "}]");
}

// A spec of one step with the given target.
std::string one_target(const std::string& target) {
  return with_steps(R"([{"id": "a", "target": )" + target + "}]");
}

WorkflowSpec parsed_or_fail(const Result<WorkflowSpec>& parsed) {
  EXPECT_TRUE(parsed.ok()) << (parsed ? "" : parsed.error().message);
  return parsed ? *parsed : WorkflowSpec{};
}

json chain(int steps) {
  json spec{{"name", "chain"}, {"steps", json::array()}};
  for (int i = 0; i < steps; ++i) {
    json step{{"id", numbered("s", i)}, {"target", {{"type", "command"}, {"command", "true"}}}};
    if (i > 0) step["depends_on"] = {numbered("s", i - 1)};
    spec["steps"].push_back(step);
  }
  return spec;
}

TEST(SpecFormat, ByExtensionThenByFirstByte) {
  EXPECT_EQ(spec_format_of("a.json", "name: x"), SpecFormat::kJson);
  EXPECT_EQ(spec_format_of("dir.yaml/a.JSON", ""), SpecFormat::kJson);
  EXPECT_EQ(spec_format_of("a.yaml", "{}"), SpecFormat::kYaml);
  EXPECT_EQ(spec_format_of("a.yml", "{}"), SpecFormat::kYaml);
  EXPECT_EQ(spec_format_of("a.spec", "  \n {\"name\": 1}"), SpecFormat::kJson);
  EXPECT_EQ(spec_format_of("spec", "name: x"), SpecFormat::kYaml);
  EXPECT_EQ(spec_format_of("specs.json/nightly", "name: x"), SpecFormat::kYaml);
  EXPECT_EQ(spec_format_of("specs.yaml/nightly", "{\"name\": 1}"), SpecFormat::kJson);
  EXPECT_EQ(spec_format_of("spec", ""), SpecFormat::kYaml);
}

TEST(WorkflowSpec, ParsesEveryFieldOfAStep) {
  const WorkflowSpec spec = parsed_or_fail(parse_json(R"({
    "name": "nightly build", "description": "builds", "goal": "ship it",
    "steps": [
      {"id": "fetch", "target": {"type": "command", "command": "git", "args": ["pull", "-q"],
                                 "cwd": "repo", "env": {"B": "2", "A": "1"}}},
      {"id": "build", "target": {"type": "command", "command": "make -j2 && make check",
                                 "shell": true},
       "depends_on": ["fetch"], "continue_on_failure": true, "timeout": "1h30m", "retries": 3,
       "account": "work"}]})"));
  EXPECT_EQ(spec.name, "nightly build");
  EXPECT_EQ(spec.description, "builds");
  EXPECT_EQ(spec.goal, "ship it");
  ASSERT_EQ(spec.steps.size(), 2u);
  const WorkflowStep& fetch = spec.steps[0];
  EXPECT_EQ(fetch.id, "fetch");
  EXPECT_EQ(fetch.target.type, TargetType::kCommand);
  EXPECT_EQ(fetch.target.argv, (std::vector<std::string>{"git", "pull", "-q"}));
  EXPECT_FALSE(fetch.target.shell);
  EXPECT_EQ(fetch.target.cwd, "/work/specs/repo");
  EXPECT_EQ(fetch.target.env, (std::vector<EnvVar>{{"A", "1"}, {"B", "2"}}));
  EXPECT_TRUE(fetch.depends_on.empty());
  EXPECT_FALSE(fetch.continue_on_failure);
  EXPECT_FALSE(fetch.timeout_ms);
  EXPECT_EQ(fetch.retries, 0);
  EXPECT_EQ(fetch.account, "");
  const WorkflowStep& build = spec.steps[1];
  EXPECT_TRUE(build.target.shell);
  EXPECT_EQ(build.target.command_line, "make -j2 && make check");
  EXPECT_TRUE(build.target.argv.empty());
  EXPECT_EQ(build.depends_on, std::vector<std::string>{"fetch"});
  EXPECT_TRUE(build.continue_on_failure);
  EXPECT_EQ(build.timeout_ms, 5'400'000);
  EXPECT_EQ(build.retries, 3);
  EXPECT_EQ(build.account, "work");
}

TEST(WorkflowSpec, YamlAndJsonGiveTheSameSpec) {
  const std::string json_text = R"({
    "name": "review", "description": "two agents",
    "steps": [
      {"id": "plan", "target": {"type": "agent", "provider": "claude", "prompt": "Plan it.",
                                "model": "opus", "effort": "high", "permission_mode": "plan"},
       "timeout_ms": 90000, "account": {"profile": "team", "tool": "claude"}},
      {"id": "do", "target": {"type": "agent", "provider": "codex", "prompt_file": "do.md",
                              "sandbox": "workspace-write", "add_dirs": ["../shared"],
                              "extra_args": ["--search"], "cwd": "/repo"},
       "depends_on": ["plan", "plan"], "retries": 2, "continue_on_failure": false},
      {"id": "3", "target": {"type": "command", "command": "echo", "args": ["42", "true", ""]},
       "depends_on": ["do"], "timeout": "90s"}]})";
  const std::string yaml_text = R"(# the same spec
name: review
description: "two agents"
steps:
  - id: plan
    target:
      type: agent
      provider: claude
      prompt: |-
        Plan it.
      model: opus
      effort: high
      permission_mode: plan
    timeout_ms: 90000
    account: {profile: team, tool: claude}
  - id: do
    target: {type: agent, provider: codex, prompt_file: do.md, sandbox: workspace-write,
             add_dirs: [../shared], extra_args: [--search], cwd: /repo}
    depends_on: [plan, plan]
    retries: 2
    continue_on_failure: false
  - id: '3'
    target:
      type: command
      command: echo
      args: ['42', 'true', '']
    depends_on:
      - do
    timeout: 90s
)";
  const WorkflowSpec from_json = parsed_or_fail(parse_json(json_text));
  const WorkflowSpec from_yaml = parsed_or_fail(parse_yaml(yaml_text));
  EXPECT_EQ(from_json, from_yaml);
  ASSERT_EQ(from_json.steps.size(), 3u);
  const AgentTarget& plan = *from_json.steps[0].target.agent;
  EXPECT_EQ(plan.provider, AgentProvider::kClaude);
  EXPECT_EQ(plan.prompt, "Plan it.");
  EXPECT_EQ(plan.variant, "high");
  EXPECT_EQ(from_json.steps[0].account, "team");
  EXPECT_EQ(from_json.steps[0].timeout_ms, 90'000);
  const Target& target = from_json.steps[1].target;
  EXPECT_EQ(target.agent->prompt_file, "/work/specs/do.md");
  EXPECT_EQ(target.agent->add_dirs, std::vector<std::string>{"/work/shared"});
  EXPECT_EQ(target.agent->cwd, "/repo");
  EXPECT_EQ(target.cwd, "/repo");
  EXPECT_EQ(from_json.steps[1].depends_on, std::vector<std::string>{"plan"});
  EXPECT_EQ(from_json.steps[2].target.argv, (std::vector<std::string>{"echo", "42", "true", ""}));
}

TEST(WorkflowSpec, YamlPlainScalarsFollowTheCoreSchema) {
  // Plain true/false, null and numbers are typed; quoted ones are text.
  EXPECT_TRUE(parsed_or_fail(parse_yaml("name: x\nsteps:\n- id: a\n  target: {type: command, "
                                        "command: 'true'}\n  continue_on_failure: TRUE\n"))
                  .steps[0]
                  .continue_on_failure);
  EXPECT_EQ(parsed_or_fail(parse_yaml("name: x\ndescription: ~\nsteps:\n- id: a\n  target: "
                                      "{type: command, command: 'true'}\n  retries: +7\n"))
                .steps[0]
                .retries,
            7);
  EXPECT_NE(error_of(parse_yaml("name: x\nsteps:\n- id: 1\n  target: {type: command, "
                                "command: x}\n"))
                .find("steps[0]: id: expected text, got the number 1 (in YAML, quote it: '1')"),
            std::string::npos);
  EXPECT_NE(error_of(parse_yaml("name: x\nsteps:\n- id: a\n  target: {type: command, command: "
                                "x}\n  retries: '3'\n"))
                .find("retries: expected a whole number, got the text '3'"),
            std::string::npos);
  EXPECT_NE(error_of(parse_yaml("name: x\nsteps:\n- id: a\n  target: {type: command, command: "
                                "x}\n  continue_on_failure: yes\n"))
                .find("continue_on_failure: expected true or false, got the text 'yes'"),
            std::string::npos);
  EXPECT_NE(error_of(parse_yaml("name: 1.5e3\nsteps: []\n")).find("got the number 1.5e3"),
            std::string::npos);
}

TEST(WorkflowSpec, CommandTargets) {
  EXPECT_EQ(parsed_or_fail(parse_json(one_target(R"({"type": "command", "command": "/bin/echo a b",
                                                     "args": ["c"]})")))
                .steps[0]
                .target.argv,
            (std::vector<std::string>{"/bin/echo a b", "c"}));
  for (const char* command : {"echo hi", "ls -la /tmp", " true", "make all"}) {
    const std::string message = error_of(parse_json(
        one_target(std::string(R"({"type": "command", "command": ")") + command + "\"}")));
    EXPECT_NE(message.find("step 'a' (steps[0]): target.command '" + std::string(command) +
                           "' contains spaces: put the arguments in args"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("shell: true"), std::string::npos) << message;
  }
  EXPECT_EQ(error_of(parse_json(one_target(R"({"type": "command", "command": "a b", "shell": true,
                                         "args": ["x"]})"))),
            "step 'a' (steps[0]): target.args: a shell command takes no args; write them in the "
            "command line");
  for (const char* target : {R"({"type": "command"})", R"({"type": "command", "command": ""})",
                             R"({"type": "command", "command": null})"}) {
    EXPECT_NE(error_of(parse_json(one_target(target))).find("target.command: required"),
              std::string::npos)
        << target;
  }
  EXPECT_EQ(error_of(parse_json(one_target(R"({"type": "command", "command": "x",
                                               "env": {"1A": "v"}})"))),
            "step 'a' (steps[0]): target.env '1A=v': '1A' is not a valid environment variable "
            "name (letters, digits, _; not starting with a digit)");
  for (const char* name : {"A=B", "=", "A B"}) {
    EXPECT_NE(error_of(parse_json(one_target(std::string(R"({"type": "command", "command": "x",
                                                             "env": {")") +
                                             name + R"(": "v"}})")))
                  .find("is not a valid environment variable name"),
              std::string::npos)
        << name;
  }
}

TEST(WorkflowSpec, TargetTypes) {
  EXPECT_EQ(error_of(parse_json(one_target(R"({"type": "workflow", "workflow": "w"})"))),
            "step 'a' (steps[0]): target.type: a step cannot run a workflow; accepted: command, "
            "agent");
  for (const char* type : {"shell", "Command", "http", " agent"}) {
    EXPECT_EQ(error_of(parse_json(one_target(std::string(R"({"type": ")") + type + "\"}"))),
              std::string("step 'a' (steps[0]): target.type '") + type +
                  "' is not one of command, agent");
  }
  EXPECT_EQ(error_of(parse_json(one_target(R"({"command": "x"})"))),
            "step 'a' (steps[0]): target.type: required, command or agent");
  EXPECT_EQ(error_of(parse_json(with_steps(R"([{"id": "a"}])"))),
            "step 'a' (steps[0]): target: required, a command or agent target");
  EXPECT_EQ(error_of(parse_json(one_target(R"("true")"))),
            "step 'a' (steps[0]): target: expected an object, got the text 'true'");
}

TEST(WorkflowSpec, AgentTargets) {
  const auto agent_error = [](const std::string& members) {
    return error_of(parse_json(one_target(R"({"type": "agent", )" + members + "}")));
  };
  EXPECT_EQ(agent_error(R"("provider": "claude", "prompt": "p", "prompt_file": "f")"),
            "step 'a' (steps[0]): target: give exactly one of prompt or prompt_file");
  EXPECT_EQ(agent_error(R"("provider": "claude")"),
            "step 'a' (steps[0]): target: give exactly one of prompt or prompt_file");
  EXPECT_EQ(agent_error(R"("prompt": "p")"),
            "step 'a' (steps[0]): target.provider: required for an agent step");
  for (const char* provider : {"chatgpt", "Claude", "openai"}) {
    EXPECT_EQ(agent_error(std::string(R"("provider": ")") + provider + R"(", "prompt": "p")"),
              std::string("step 'a' (steps[0]): target.provider: invalid agent provider '") +
                  provider +
                  "': expected claude, cursor, codewith, codex, aicopilot, opencode, "
                  "gemini");
  }
  // validate_agent's rules, in the spec's words.
  EXPECT_EQ(agent_error(R"("provider": "claude", "prompt": "p", "sandbox": "enabled")"),
            "step 'a' (steps[0]): target: agent claude: sandbox is supported only for codewith, "
            "codex and cursor");
  EXPECT_EQ(agent_error(R"("provider": "opencode", "prompt": "p")"),
            "step 'a' (steps[0]): target: agent opencode: model is required for opencode: pass "
            "a provider/model id such as openrouter/google/gemini-2.5-flash");
  EXPECT_EQ(agent_error(R"("provider": "codex", "prompt": "p", "permission_mode": "plan")"),
            "step 'a' (steps[0]): target: agent codex: permission_mode plan is supported only "
            "for claude and cursor");
  EXPECT_EQ(agent_error(R"("provider": "gemini", "prompt": "p", "effort": "high")"),
            "step 'a' (steps[0]): target: agent gemini: effort is not supported for gemini");
  EXPECT_EQ(agent_error(R"("provider": "claude", "prompt": "p", "shell": true)"),
            "step 'a' (steps[0]): target: unknown key 'shell'; accepted: type, provider, prompt, "
            "prompt_file, model, effort, agent, permission_mode, sandbox, config_isolation, "
            "add_dirs, extra_args, cwd, auth_profile, env");
  EXPECT_EQ(agent_error(R"("provider": "claude", "prompt": "p", "extra_args": "--x")"),
            "step 'a' (steps[0]): target.extra_args: expected a list of text, got the text '--x'");
}

TEST(WorkflowSpec, UnknownKeysAreRefusedNamingTheAcceptedOnes) {
  EXPECT_EQ(error_of(parse_json(one_step(R"("depend_on": ["x"])"))),
            "step 'a' (steps[0]): unknown key 'depend_on' (did you mean 'depends_on'?); "
            "accepted: id, target, depends_on, continue_on_failure, timeout, timeout_ms, "
            "retries, account, worktree, repo, base, commit, allowed_files, merge, verify, "
            "target_branch, merge_strategy");
  EXPECT_EQ(error_of(parse_json(R"({"name": "x", "step": []})")),
            "unknown key 'step' (did you mean 'steps'?); accepted: name, description, goal, "
            "steps");
  EXPECT_EQ(error_of(parse_json(one_target(R"({"type": "command", "command": "x", "arg": []})"))),
            "step 'a' (steps[0]): target: unknown key 'arg' (did you mean 'args'?); accepted: "
            "type, command, args, shell, cwd, env");
  EXPECT_EQ(error_of(parse_json(one_step(R"("account": {"profile": "p", "provider": "x"})"))),
            "step 'a' (steps[0]): account: unknown key 'provider'; accepted: profile, tool");
  EXPECT_NE(error_of(parse_yaml("name: x\nsteps:\n- id: a\n  target: {type: command, command: "
                                "x}\n  timout: 5s\n"))
                .find("unknown key 'timout' (did you mean 'timeout'?)"),
            std::string::npos);
}

TEST(WorkflowSpec, StepIds) {
  const std::string long_id(64, 'x');
  for (const std::string& id :
       {std::string("a"), std::string("build"), std::string("Build_2"), std::string("v1.2-rc"),
        std::string("_x"), std::string("-"), long_id}) {
    EXPECT_TRUE(parse_json(with_steps(R"([{"id": ")" + id +
                                      R"(", "target": {"type": "command", "command": "x"}}])"))
                    .ok())
        << id;
  }
  for (const std::string& id :
       {std::string(""), std::string(".hidden"), std::string("a b"), std::string("a/b"),
        std::string("é"), std::string(65, 'x'), std::string("..")}) {
    EXPECT_NE(
        error_of(parse_json(with_steps(R"([{"id": ")" + id +
                                       R"(", "target": {"type": "command", "command": "x"}}])")))
            .find("': a step id is 1 to 64 of the characters"),
        std::string::npos)
        << id;
  }
  EXPECT_EQ(error_of(parse_json(with_steps(R"([{"target": {}}])"))), "steps[0]: id: required");
  EXPECT_EQ(error_of(parse_json(with_steps(R"([{"id": "a", "target": {}}, {"id": "b"},
                                               {"id": "a"}])"))),
            "steps[2]: id 'a' is also the id of steps[0]; step ids must be unique");
  EXPECT_EQ(error_of(parse_json(with_steps(R"(["a"])"))),
            "steps[0]: expected an object (a step), got the text 'a'");
}

TEST(WorkflowSpec, Dependencies) {
  const std::string target = R"("target": {"type": "command", "command": "x"})";
  EXPECT_EQ(error_of(parse_json(with_steps(R"([{"id": "a", )" + target + R"(},
      {"id": "b", "depends_on": ["a", "x"], )" +
                                           target + "}]"))),
            "step 'b' (steps[1]): depends on 'x', which is not a step of this workflow");
  EXPECT_EQ(
      error_of(parse_json(with_steps(R"([{"id": "a", "depends_on": ["a"], )" + target + "}]"))),
      "step 'a' (steps[0]): depends on itself");
  EXPECT_EQ(error_of(parse_json(with_steps(R"([{"id": "a", "depends_on": "b", )" + target + "}]"))),
            "step 'a' (steps[0]): depends_on: expected a list of text, got the text 'b'");
  EXPECT_EQ(error_of(parse_json(with_steps(R"([{"id": "a", )" + target + R"(},
      {"id": "b", "depends_on": ["a", "a", "a"], )" +
                                           target + "}]"))),
            "step 'b' (steps[1]): depends_on lists 3 steps; this workflow has 2");
  const WorkflowSpec spec = parsed_or_fail(
      parse_json(with_steps(R"([{"id": "a", )" + target + R"(}, {"id": "b", )" + target + R"(},
          {"id": "c", "depends_on": ["b", "a", "b"], )" +
                            target + "}]")));
  EXPECT_EQ(spec.steps[2].depends_on, (std::vector<std::string>{"b", "a"}));
}

TEST(WorkflowSpec, CyclesNameAStepOnThemAndTheirPath) {
  const auto step = [](const std::string& id, const std::string& deps) {
    return R"({"id": ")" + id + R"(", "target": {"type": "command", "command": "x"},
               "depends_on": [)" +
           deps + "]}";
  };
  EXPECT_EQ(error_of(parse_json(with_steps(array_of({step("a", R"("b")"), step("b", R"("a")")})))),
            "step 'a' (steps[0]) is on a dependency cycle: a → b → a (each step depends on the "
            "next)");
  EXPECT_EQ(error_of(parse_json(with_steps(
                array_of({step("start", ""), step("x", R"("start", "z")"), step("y", R"("x")"),
                          step("z", R"("y")"), step("after", R"("z")")})))),
            "step 'x' (steps[1]) is on a dependency cycle: x → z → y → x (each step depends on "
            "the next)");
  // The steps before the cycle in spec order depend on it.
  EXPECT_EQ(error_of(parse_json(with_steps(
                array_of({step("tail", R"("q")"), step("p", R"("q")"), step("q", R"("p")")})))),
            "step 'p' (steps[1]) is on a dependency cycle: p → q → p (each step depends on the "
            "next)");
  json ring = chain(kMaxWorkflowSteps);
  ring["steps"][0]["depends_on"] = {"s999"};
  const std::string message = error_of(parse_json(ring.dump()));
  EXPECT_NE(message.find("step 's0' (steps[0]) is on a dependency cycle: s0 → s999 → s998"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("… (990 more) → s0"), std::string::npos) << message;
}

TEST(WorkflowSpec, Timeouts) {
  const std::pair<const char*, DurationMs> accepted[] = {
      {R"("timeout": "90s")", 90'000},
      {R"("timeout": "1h30m")", 5'400'000},
      {R"("timeout": "500ms")", 500},
      {R"("timeout_ms": 1)", 1},
      {R"("timeout_ms": 31536000000)", 31'536'000'000}};
  for (const auto& [members, ms] : accepted) {
    EXPECT_EQ(parsed_or_fail(parse_json(one_step(members))).steps[0].timeout_ms, ms) << members;
  }
  EXPECT_FALSE(parsed_or_fail(parse_json(one_step(R"("timeout": null)"))).steps[0].timeout_ms);
  EXPECT_EQ(error_of(parse_json(one_step(R"("timeout": "90s", "timeout_ms": 90000)"))),
            "step 'a' (steps[0]): give timeout or timeout_ms, not both");
  for (const char* bad : {"soon", "0s", "-5s", "90x", ""}) {
    EXPECT_NE(error_of(parse_json(one_step(std::string(R"("timeout": ")") + bad + "\"")))
                  .find("step 'a' (steps[0]): timeout"),
              std::string::npos)
        << bad;
  }
  EXPECT_NE(error_of(parse_json(one_step(R"("timeout": "400d")"))).find("365d"), std::string::npos);
  EXPECT_EQ(error_of(parse_json(one_step(R"("timeout": 90)"))),
            "step 'a' (steps[0]): timeout: expected a duration such as \"90s\" or \"1h30m\", got "
            "the number 90; for milliseconds use timeout_ms");
  for (const char* bad : {"0", "-1", "31536000001", "18446744073709551615"}) {
    EXPECT_EQ(error_of(parse_json(one_step(std::string(R"("timeout_ms": )") + bad))),
              std::string("step 'a' (steps[0]): timeout_ms ") + bad +
                  " out of range 1-31536000000 (365 days)");
  }
  for (const char* bad : {"1.5", "\"90s\"", "true"}) {
    EXPECT_NE(error_of(parse_json(one_step(std::string(R"("timeout_ms": )") + bad)))
                  .find("timeout_ms: expected a whole number of milliseconds"),
              std::string::npos)
        << bad;
  }
}

TEST(WorkflowSpec, Retries) {
  for (int retries : {0, 1, 50, kMaxStepRetries}) {
    EXPECT_EQ(parsed_or_fail(parse_json(one_step(R"("retries": )" + std::to_string(retries))))
                  .steps[0]
                  .retries,
              retries);
  }
  for (const char* bad : {"-1", "101", "100000000000", "18446744073709551615"}) {
    EXPECT_EQ(error_of(parse_json(one_step(std::string(R"("retries": )") + bad))),
              std::string("step 'a' (steps[0]): retries ") + bad + " out of range 0-100");
  }
  for (const char* bad : {"1.5", "\"3\"", "true", "[]"}) {
    EXPECT_NE(error_of(parse_json(one_step(std::string(R"("retries": )") + bad)))
                  .find("retries: expected a whole number, got"),
              std::string::npos)
        << bad;
  }
}

TEST(WorkflowSpec, Accounts) {
  const std::string agent =
      R"({"id": "a", "target": {"type": "agent", "provider": "codex", "prompt": "p"}, "account": )";
  EXPECT_EQ(parsed_or_fail(parse_json(with_steps("[" + agent + R"("team"}])"))).steps[0].account,
            "team");
  EXPECT_EQ(parsed_or_fail(parse_json(with_steps("[" + agent + R"({"profile": "team"}}])")))
                .steps[0]
                .account,
            "team");
  EXPECT_EQ(
      parsed_or_fail(parse_json(with_steps("[" + agent + R"({"profile": "t", "tool": "codex"}}])")))
          .steps[0]
          .account,
      "t");
  EXPECT_EQ(
      error_of(parse_json(with_steps("[" + agent + R"({"profile": "t", "tool": "claude"}}])"))),
      "step 'a' (steps[0]): account.tool 'claude' is not the step's provider codex");
  EXPECT_EQ(error_of(parse_json(one_step(R"("account": {"profile": "t", "tool": "claude"})"))),
            "step 'a' (steps[0]): account.tool 'claude': a command step has no agent provider to "
            "match; give only the profile");
  EXPECT_EQ(parsed_or_fail(parse_json(one_step(R"("account": "ops")"))).steps[0].account, "ops");
  EXPECT_NE(error_of(parse_json(one_step(R"("account": {"tool": "claude"})")))
                .find("account.profile cannot be empty"),
            std::string::npos);
  EXPECT_NE(error_of(parse_json(one_step(R"("account": " x")"))).find("white space"),
            std::string::npos);
  EXPECT_EQ(error_of(parse_json(one_step(R"("account": 5)"))),
            "step 'a' (steps[0]): account: expected a profile name or {profile, tool}, got the "
            "number 5");
}

TEST(WorkflowSpec, NameDescriptionAndGoal) {
  const auto named = [](const std::string& name) {
    return R"({"name": )" + json(name).dump() +
           R"(, "steps": [{"id": "a", "target": {"type": "command", "command": "x"}}]})";
  };
  for (const std::string& name :
       {std::string("x"), std::string(100, 'n'), std::string("été 2026"), std::string("a b")}) {
    EXPECT_EQ(parsed_or_fail(parse_json(named(name))).name, name);
  }
  EXPECT_EQ(error_of(parse_json(named(""))), "name cannot be empty");
  EXPECT_NE(error_of(parse_json(named(std::string(101, 'n')))).find("101 characters long"),
            std::string::npos);
  EXPECT_NE(error_of(parse_json(named("a\tb"))).find("control character"), std::string::npos);
  EXPECT_NE(error_of(parse_json(named(" a"))).find("white space"), std::string::npos);
  EXPECT_EQ(error_of(parse_json(R"({"steps": []})")), "name: required, the workflow's name");
  EXPECT_EQ(error_of(parse_json(R"({"name": ["x"], "steps": []})")),
            "name: expected text, got a list");
  const std::string steps =
      R"(, "steps": [{"id": "a", "target": {"type": "command", "command": "x"}}]})";
  EXPECT_TRUE(
      parse_json(R"({"name": "x", "goal": ")" + std::string(4000, 'g') + "\"" + steps).ok());
  EXPECT_EQ(
      error_of(parse_json(R"({"name": "x", "goal": ")" + std::string(4001, 'g') + "\"" + steps)),
      "goal: 4001 characters; at most 4000 are allowed");
  EXPECT_EQ(error_of(parse_json(R"({"name": "x", "description": ")" + std::string(4001, 'd') +
                                "\"" + steps)),
            "description: 4001 characters; at most 4000 are allowed");
}

TEST(WorkflowSpec, TextIsValidUtf8WithoutNul) {
  EXPECT_EQ(error_of(parse_json(one_target(R"({"type": "command", "command": "a\u0000b"})"))),
            "step 'a' (steps[0]): target.command: the text contains a NUL character");
  EXPECT_EQ(error_of(parse_yaml("name: \"x\\0\"\nsteps: []\n")),
            "name: the text contains a NUL character");
  EXPECT_EQ(error_of(parse_yaml("name: x\xff\nsteps: []\n")),
            "the spec is not valid UTF-8 (at line 1, column 8)");
  EXPECT_EQ(error_of(parse_json("{\"name\": \"x\",\n \"goal\": \"\xc3\x28\"}")),
            "the spec is not valid UTF-8 (at line 2, column 11)");
}

TEST(WorkflowSpec, RelativePathsAreResolvedAgainstTheBase) {
  const std::string spec =
      one_target(R"({"type": "agent", "provider": "codewith", "prompt_file": "./p/../prompt.md",
                     "cwd": "work", "add_dirs": ["/abs", "rel/"]})");
  const AgentTarget agent = *parsed_or_fail(parse_json(spec, "/home/u/wf")).steps[0].target.agent;
  EXPECT_EQ(agent.prompt_file, "/home/u/wf/prompt.md");
  EXPECT_EQ(agent.cwd, "/home/u/wf/work");
  EXPECT_EQ(agent.add_dirs, (std::vector<std::string>{"/abs", "/home/u/wf/rel"}));
  EXPECT_EQ(error_of(parse_json(spec, "")),
            "step 'a' (steps[0]): target.prompt_file: path './p/../prompt.md': it is relative "
            "and there is no directory to read it against; give an absolute path");
  EXPECT_EQ(
      error_of(parse_json(one_target(R"({"type": "command", "command": "x", "cwd": "w"})"), "")),
      "step 'a' (steps[0]): target.cwd: path 'w': it is relative and there is no directory to "
      "read it against; give an absolute path");
}

TEST(WorkflowSpec, TheDocumentIsAnObjectWithSteps) {
  EXPECT_EQ(error_of(parse_json("  \n")), "the spec is empty");
  EXPECT_EQ(error_of(parse_yaml("")), "the spec is empty");
  EXPECT_EQ(error_of(parse_json("[1]")),
            "a spec is an object (a mapping) with name and steps, not a list");
  EXPECT_EQ(error_of(parse_yaml("just text")),
            "a spec is an object (a mapping) with name and steps, not the text 'just text'");
  EXPECT_EQ(error_of(parse_yaml("# only a comment\n")), "the spec file holds no YAML document");
  EXPECT_EQ(error_of(parse_yaml("---\n")),
            "a spec is an object (a mapping) with name and steps, not null");
  EXPECT_EQ(error_of(parse_json(R"({"name": "x"})")),
            "steps: required, a list of at least one step");
  EXPECT_EQ(error_of(parse_json(R"({"name": "x", "steps": []})")),
            "steps: a workflow needs at least one step");
  EXPECT_EQ(error_of(parse_json(R"({"name": "x", "steps": {}})")),
            "steps: expected a list of steps, got an object");
}

TEST(WorkflowSpec, JsonSyntaxErrorsGiveLineAndColumn) {
  EXPECT_EQ(error_of(parse_json("{\"name\": \"x\",\n  \"steps\": [,]}")),
            "JSON syntax error at line 2, column 13 (near '\"steps\": [,')");
  EXPECT_EQ(error_of(parse_json("{\"name\": \"x\"\n\n   \"steps\": []}")),
            "JSON syntax error at line 3, column 10 (near '\"steps\"')");
  EXPECT_EQ(error_of(parse_json("{\"name\": tru}")),
            "JSON syntax error at line 1, column 13 (near '{\"name\": tru}')");
  const std::string message = error_of(parse_json("{\"name\": \"x\",\n\"steps\": [\n"));
  EXPECT_EQ(message.rfind("JSON syntax error at line 3, column 1", 0), 0u) << message;
}

TEST(WorkflowSpec, YamlSyntaxErrorsGiveLineAndColumn) {
  std::string message = error_of(parse_yaml("name: x\nsteps:\n  - id: a\n    target: [a, b\n"));
  EXPECT_EQ(message.rfind("YAML syntax error at line 5, column 1: ", 0), 0u) << message;
  message = error_of(parse_yaml("name: x\n  bad: indent\n"));
  EXPECT_EQ(message.rfind("YAML syntax error at line 2, column 6: ", 0), 0u) << message;
  message = error_of(parse_yaml("name: x\nsteps: {a: 1\n\n"));
  EXPECT_EQ(message.rfind("YAML syntax error at line 4, column 1: ", 0), 0u) << message;
}

TEST(WorkflowSpec, YamlRefusesAliasesTagsSeveralDocumentsAndRepeatedKeys) {
  EXPECT_EQ(error_of(parse_yaml("name: &n x\ndescription: *n\nsteps: []\n")),
            "description: YAML aliases (*name) are not accepted in spec files; write the value "
            "out at line 2, column 14");
  EXPECT_EQ(error_of(parse_yaml("name: !!binary eA==\nsteps: []\n")),
            "name: the YAML tag 'tag:yaml.org,2002:binary' is not accepted in spec files at line "
            "1, column 7");
  EXPECT_EQ(error_of(parse_yaml("name: x\nsteps: []\n---\nname: y\n")),
            "the spec file holds more than one YAML document; give one");
  EXPECT_EQ(error_of(parse_yaml("name: x\nname: y\n")),
            "the key 'name' is given twice at line 2, column 1");
  EXPECT_EQ(error_of(parse_yaml("name: x\nsteps:\n- {id: a, id: b}\n")),
            "steps[0]: the key 'id' is given twice at line 3, column 11");
  EXPECT_EQ(error_of(parse_yaml("? [a]\n: x\n")),
            "a key must be text, not a list or a mapping at line 1, column 3");
  EXPECT_EQ(error_of(parse_json(R"({"name": "x", "steps": [{"id": "a", "id": "b"}]})")),
            "steps[0]: the key 'id' is given twice");
}

TEST(WorkflowSpec, DeepNestingIsRefusedWithoutRecursion) {
  for (int depth : {kMaxSpecNesting + 1, 100'000}) {
    const std::string arrays = std::string(size_t(depth), '[') + std::string(size_t(depth), ']');
    EXPECT_EQ(error_of(parse_json(R"({"name": "x", "steps": )" + arrays + "}")),
              "the spec nests arrays and objects more than 64 deep");
    EXPECT_NE(error_of(parse_yaml("name: x\nsteps: " + arrays + "\n"))
                  .find("the spec nests arrays and objects more than 64 deep at line 2"),
              std::string::npos);
    std::string blocks = "steps:\n";
    std::string maps = "name: ";
    for (int i = 0; i < depth; ++i) {
      blocks += "- ";
      maps += "{a: ";
    }
    EXPECT_NE(error_of(parse_yaml(blocks + "x\n")).find("more than 64 deep"), std::string::npos);
    EXPECT_NE(error_of(parse_yaml(maps + "x" + std::string(size_t(depth), '}') + "\n"))
                  .find("more than 64 deep"),
              std::string::npos);
    std::string objects;
    for (int i = 0; i < depth; ++i) objects += "{\"a\": ";
    EXPECT_NE(error_of(parse_json(objects + "1" + std::string(size_t(depth), '}')))
                  .find("more than 64 deep"),
              std::string::npos);
  }
  // Within the limit, the nesting reaches validation.
  const std::string arrays = std::string(61, '[') + std::string(61, ']');
  EXPECT_EQ(
      error_of(parse_json(R"({"name": "x", "steps": [{"id": "a", "x": )" + arrays + "}]}")),
      "step 'a' (steps[0]): unknown key 'x'; accepted: id, target, depends_on, "
      "continue_on_failure, timeout, timeout_ms, retries, account, worktree, repo, base, commit, "
      "allowed_files, merge, verify, target_branch, merge_strategy");
}

TEST(WorkflowSpec, SizeAndStepLimits) {
  const std::string big =
      R"({"name": "x", "description": ")" + std::string(size_t(kMaxWorkflowSpecBytes), 'd') + "\"}";
  EXPECT_EQ(error_of(parse_json(big)), "the spec is " + std::to_string(big.size()) +
                                           " bytes; at most 1048576 (1 MiB) are allowed");
  EXPECT_NE(error_of(parse_yaml(std::string(size_t(kMaxWorkflowSpecBytes) + 1, '['))).find("1 MiB"),
            std::string::npos);
  EXPECT_EQ(error_of(parse_json(chain(kMaxWorkflowSteps + 1).dump())),
            "steps: 1001 steps; at most 1000 are allowed");
}

// How long these take is measured in bench/workflow_spec_bench.cc.
TEST(WorkflowSpec, AThousandStepChainFanInAndDenseGraphParse) {
  const WorkflowSpec spec = parsed_or_fail(parse_json(chain(kMaxWorkflowSteps).dump()));
  ASSERT_EQ(spec.steps.size(), size_t(kMaxWorkflowSteps));
  EXPECT_EQ(topological_order(spec).back(), "s999");
  json fan_in = chain(kMaxWorkflowSteps);
  json all = json::array();
  for (int i = 0; i < kMaxWorkflowSteps - 1; ++i) {
    fan_in["steps"][size_t(i)].erase("depends_on");
    all.push_back(numbered("s", i));
  }
  fan_in["steps"][size_t(kMaxWorkflowSteps - 1)]["depends_on"] = all;
  const WorkflowSpec wide = parsed_or_fail(parse_yaml(fan_in.dump()));  // JSON is YAML too
  EXPECT_EQ(wide.steps.back().depends_on.size(), size_t(kMaxWorkflowSteps - 1));
  // 500 steps, each depending on every step before it: 124,750 edges.
  json dense = chain(500);
  for (int i = 1; i < 500; ++i) {
    json before = json::array();
    for (int j = 0; j < i; ++j) before.push_back(numbered("s", j));
    dense["steps"][size_t(i)]["depends_on"] = before;
  }
  const std::string text = dense.dump();
  ASSERT_LE(text.size(), size_t(kMaxWorkflowSpecBytes));
  EXPECT_EQ(parsed_or_fail(parse_json(text)).steps.back().depends_on.size(), 499u);
}

TEST(WorkflowSpec, TopologicalOrderTakesReadyStepsInSpecOrder) {
  const auto step = [](const std::string& id, const std::string& deps) {
    return R"({"id": ")" + id + R"(", "target": {"type": "command", "command": "x"},
               "depends_on": [)" +
           deps + "]}";
  };
  const WorkflowSpec diamond = parsed_or_fail(parse_json(
      with_steps(array_of({step("end", R"("left", "right")"), step("right", R"("start")"),
                           step("left", R"("start")"), step("start", ""), step("alone", "")}))));
  EXPECT_EQ(topological_order(diamond),
            (std::vector<std::string>{"start", "right", "left", "end", "alone"}));
  const WorkflowSpec reversed = parsed_or_fail(
      parse_json(with_steps(array_of({step("c", R"("b")"), step("b", R"("a")"), step("a", "")}))));
  EXPECT_EQ(topological_order(reversed), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(WorkflowSpec, EncodeDecodeRoundTrips) {
  const std::string specs[] = {
      one_step(""),
      one_step(R"("timeout": "2h", "retries": 100, "continue_on_failure": true, "account": "x")"),
      one_target(R"({"type": "command", "command": "a b", "shell": true, "cwd": "/x",
                     "env": {"K": "v=1\nz", "A": ""}})"),
      one_target(R"({"type": "command", "command": "echo", "args": ["", "\u00e9\u2028", "\"\\"]})"),
      one_target(R"({"type": "agent", "provider": "codewith", "prompt_file": "p.md",
                     "model": "m", "effort": "e", "sandbox": "read-only",
                     "permission_mode": "bypass", "add_dirs": ["a", "/b"],
                     "extra_args": ["--x"], "cwd": "c", "auth_profile": "work",
                     "env": {"X": "1"}})"),
      one_target(R"({"type": "agent", "provider": "claude", "prompt": "multi\nline",
                     "agent": "reviewer", "config_isolation": "none"})"),
      R"({"name": "all", "description": "d", "goal": "g", "steps": [
          {"id": "a", "target": {"type": "command", "command": "x"}},
          {"id": "b", "target": {"type": "command", "command": "x"}, "depends_on": ["a"]},
          {"id": "c", "target": {"type": "command", "command": "x"}, "depends_on": ["b", "a"],
           "timeout_ms": 1}]})"};
  for (const std::string& text : specs) {
    const WorkflowSpec spec = parsed_or_fail(parse_json(text));
    const std::string encoded = encode_workflow_spec(spec);
    auto decoded = decode_workflow_spec(encoded);
    ASSERT_TRUE(decoded.ok()) << decoded.error().message << "\n" << encoded;
    EXPECT_EQ(*decoded, spec) << encoded;
    EXPECT_EQ(encode_workflow_spec(*decoded), encoded);
  }
  const WorkflowSpec big = parsed_or_fail(parse_json(chain(kMaxWorkflowSteps).dump()));
  EXPECT_EQ(*decode_workflow_spec(encode_workflow_spec(big)), big);
}

TEST(WorkflowSpec, DecodeRefusesWhatItCannotRead) {
  const WorkflowSpec spec = parsed_or_fail(parse_json(one_step("")));
  json stored = json::parse(encode_workflow_spec(spec));
  EXPECT_EQ(stored["format"], 1);
  const auto decode_error = [](const std::string& text) {
    auto decoded = decode_workflow_spec(text);
    EXPECT_FALSE(decoded.ok()) << text;
    if (decoded) return std::string();
    EXPECT_EQ(decoded.error().code, ErrorCode::kInternal);
    return decoded.error().message;
  };
  json newer = stored;
  newer["format"] = 2;
  EXPECT_EQ(decode_error(newer.dump()),
            "the stored workflow spec cannot be read: its format is 2, this version of orrery "
            "reads format 1; a newer orrery may have written it");
  json unversioned = stored;
  unversioned.erase("format");
  EXPECT_NE(decode_error(unversioned.dump()).find("its format is missing"), std::string::npos);
  json unknown = stored;
  unknown["steps"][0]["target"]["type"] = "container";
  EXPECT_NE(decode_error(unknown.dump()).find("target.type 'container' is not one of"),
            std::string::npos);
  json extra = stored;
  extra["steps"][0]["priority"] = 1;
  EXPECT_NE(decode_error(extra.dump()).find("unknown key 'priority'"), std::string::npos);
  EXPECT_NE(decode_error("{not json").find("JSON syntax error"), std::string::npos);
  EXPECT_NE(decode_error("[]").find("not an object"), std::string::npos);
  json relative = stored;
  relative["steps"][0]["target"]["cwd"] = "rel";
  EXPECT_NE(decode_error(relative.dump()).find("is relative"), std::string::npos);
}

TEST(WorkflowSpec, StepsJsonHasTheShapeOfTheCli) {
  const WorkflowSpec spec = parsed_or_fail(parse_json(with_steps(R"([
      {"id": "a", "target": {"type": "command", "command": "echo", "args": ["hi"]}},
      {"id": "b", "target": {"type": "command", "command": "x | y", "shell": true},
       "depends_on": ["a"], "timeout": "1m", "retries": 2, "continue_on_failure": true,
       "account": "ops"},
      {"id": "c", "target": {"type": "agent", "provider": "claude", "prompt": "p"}}])")));
  const json steps = json::parse(workflow_steps_json(spec));
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[0], json::parse(R"({"id": "a", "depends_on": [], "continue_on_failure": false,
      "timeout_ms": null, "retries": 0, "account": null,
      "target": {"type": "command", "shell": false, "command": "echo", "args": ["hi"],
                 "cwd": null, "env": {}, "secret_env": []}})"));
  EXPECT_EQ(steps[1], json::parse(R"({"id": "b", "depends_on": ["a"], "continue_on_failure": true,
      "timeout_ms": 60000, "retries": 2, "account": "ops",
      "target": {"type": "command", "shell": true, "command": "x | y", "cwd": null, "env": {},
                 "secret_env": []}})"));
  EXPECT_EQ(steps[2]["target"], json::parse(R"({"type": "agent", "provider": "claude",
      "prompt": "p", "prompt_file": null, "model": null, "effort": null, "agent": null,
      "permission_mode": null, "sandbox": null, "config_isolation": null, "add_dirs": [],
      "extra_args": [], "auth_profile": null, "cwd": null, "env": {}, "secret_env": []})"));
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

// An agent step `id` after `depends_on` (JSON list text) with `prompt`.
std::string agent_step(const std::string& id, const std::string& depends_on,
                       const std::string& prompt) {
  return json{{"id", id},
              {"depends_on", json::parse(depends_on)},
              {"target", {{"type", "agent"}, {"provider", "claude"}, {"prompt", prompt}}}}
      .dump();
}

TEST(WorkflowSpec, APromptTemplateIsCheckedAtCreationAgainstTheStepsItDependsOn) {
  const std::string plan = agent_step("plan", "[]", "Plan {{ item.key }}: {{ item.title? }}");
  const std::string build = agent_step("build.linux", R"(["plan"])", "x");
  const std::string fix =
      agent_step("fix", R"(["build.linux"])",
                 "{{ steps.plan.outputs.file }} {{ steps.build.linux.status }} {{ feedback? }}");
  EXPECT_TRUE(parse_json(with_steps("[" + plan + "," + build + "," + fix + "]")).ok());

  const std::string unknown = agent_step("plan", "[]", "Plan {{ item.titel }}");
  const std::string message = error_of(parse_json(with_steps("[" + unknown + "]")));
  EXPECT_EQ(message.rfind("step 'plan' (steps[0]): target.prompt: {{ item.titel }} at byte 5 "
                          "names nothing a step has; known: item.id",
                          0),
            0u)
      << message;
  // A step it does not depend on has no values yet.
  const std::string early = agent_step("plan", "[]", "{{ steps.fix.status }}");
  const std::string later = agent_step("fix", R"(["plan"])", "x");
  EXPECT_NE(error_of(parse_json(with_steps("[" + early + "," + later + "]")))
                .find("{{ steps.fix.status }}"),
            std::string::npos);
  const std::string unclosed = agent_step("plan", "[]", "Plan {{ item.key");
  EXPECT_NE(error_of(parse_json(with_steps("[" + unclosed + "]"))).find("is not closed by }}"),
            std::string::npos);
}

}  // namespace
}  // namespace orrery
