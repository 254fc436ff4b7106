// Validation of a spec tree into a WorkflowSpec (docs/workflows.md, "Spec
// files"). Every error names where it is: "name: …", "steps[2]: …" until the
// step's id is known, then "step 'build' (steps[2]): target.command: …".
#include "core/workflow_spec.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/duration.h"
#include "core/exact_json.h"
#include "core/limits.h"
#include "core/loop_spec.h"
#include "core/prompt_template.h"
#include "core/spec_fields.h"
#include "core/spec_tree.h"
#include "core/step_worktree_spec.h"
#include "core/text.h"
#include "core/workflow_graph.h"

namespace orrery {
namespace {

using nlohmann::json;

Result<std::vector<EnvVar>> env_field(const json& target, const std::string& where) {
  std::vector<EnvVar> env;
  const json* value = field(target, "env");
  if (!value) return env;
  if (!value->is_object()) return wrong_type(where + "env", "an object of text", *value);
  for (const auto& [key, text] : value->items()) {
    auto checked = text_value(text, where + "env." + visible(key));
    if (!checked) return checked.error();
    // parse_assignment splits at the first '=': a name with one is refused here.
    if (key.empty() || key.find('=') != std::string::npos) {
      return usage_error(where + "env: '" + visible(key) +
                         "' is not a valid environment variable name (letters, digits, _; not "
                         "starting with a digit)");
    }
    auto pair = parse_assignment(key + "=" + *checked, (where + "env").c_str());
    if (!pair) return pair.error();
    env.push_back(std::move(*pair));
  }
  return env;
}

// step.target of type command: an executable and its args, or a shell line.
Result<Target> command_target(const json& given, const PathBase& paths, const std::string& where) {
  if (auto keys = check_keys(given, {"type", "command", "args", "shell", "cwd", "env"},
                             where.substr(0, where.size() - 1));
      !keys) {
    return keys.error();
  }
  Target target;
  const json* shell = field(given, "shell");
  if (shell && !shell->is_boolean()) return wrong_type(where + "shell", "true or false", *shell);
  target.shell = shell && shell->get<bool>();
  auto command = text_field(given, "command", where);
  if (!command) return command.error();
  if (command->empty()) {
    return usage_error(where +
                       "command: required, the executable (or with shell: true, the "
                       "command line)");
  }
  auto args = text_list(given, "args", where);
  if (!args) return args.error();
  if (target.shell) {
    if (!args->empty()) {
      return usage_error(where +
                         "args: a shell command takes no args; write them in the "
                         "command line");
    }
    target.command_line = *command;
  } else {
    if (args->empty() && command->find(' ') != std::string::npos) {
      return usage_error(where + "command '" + visible(*command) +
                         "' contains spaces: put the arguments in args (command: " +
                         visible(command->substr(0, command->find(' '))) +
                         ", args: [...]) or run it through a shell with shell: true");
    }
    target.argv.push_back(*command);
    target.argv.insert(target.argv.end(), args->begin(), args->end());
  }
  auto cwd = text_field(given, "cwd", where);
  if (!cwd) return cwd.error();
  if (auto s = absolutize(*cwd, paths, where + "cwd"); !s) return s.error();
  target.cwd = *cwd;
  auto env = env_field(given, where);
  if (!env) return env.error();
  target.env = std::move(*env);
  return target;
}

// validate_agent speaks of command-line options; a spec has keys.
std::string spec_wording(std::string message) {
  const std::pair<const char*, const char*> names[] = {{"--permission-mode", "permission_mode"},
                                                       {"--config-isolation", "config_isolation"},
                                                       {"--auth-profile", "auth_profile"},
                                                       {"--agent-name", "agent"},
                                                       {"--add-dir", "add_dirs"},
                                                       {"--prompt-file FILE", "prompt_file"},
                                                       {"--prompt TEXT", "prompt"},
                                                       {"--sandbox", "sandbox"},
                                                       {"--effort", "effort"},
                                                       {"--model", "model"}};
  for (const auto& [option, key] : names) {
    for (size_t at = message.find(option); at != std::string::npos; at = message.find(option, at)) {
      message.replace(at, std::string_view(option).size(), key);
      at += std::string_view(key).size();
    }
  }
  return message;
}

Status agent_text_fields(const json& given, const std::string& where, AgentTarget& agent) {
  const std::pair<const char*, std::string*> texts[] = {
      {"prompt", &agent.prompt},   {"prompt_file", &agent.prompt_file},
      {"model", &agent.model},     {"effort", &agent.variant},
      {"agent", &agent.agent},     {"permission_mode", &agent.permission_mode},
      {"sandbox", &agent.sandbox}, {"config_isolation", &agent.config_isolation},
      {"cwd", &agent.cwd},         {"auth_profile", &agent.auth_profile}};
  for (const auto& [key, out] : texts) {
    auto text = text_field(given, key, where);
    if (!text) return text.error();
    *out = std::move(*text);
  }
  auto add_dirs = text_list(given, "add_dirs", where);
  if (!add_dirs) return add_dirs.error();
  agent.add_dirs = std::move(*add_dirs);
  auto extra_args = text_list(given, "extra_args", where);
  if (!extra_args) return extra_args.error();
  agent.extra_args = std::move(*extra_args);
  return Ok{};
}

Result<Target> agent_target(const json& given, const PathBase& paths, const std::string& where) {
  if (auto keys = check_keys(given,
                             {"type", "provider", "prompt", "prompt_file", "model", "effort",
                              "agent", "permission_mode", "sandbox", "config_isolation", "add_dirs",
                              "extra_args", "cwd", "auth_profile", "env"},
                             where.substr(0, where.size() - 1));
      !keys) {
    return keys.error();
  }
  auto provider_text = text_field(given, "provider", where);
  if (!provider_text) return provider_text.error();
  if (provider_text->empty()) return usage_error(where + "provider: required for an agent step");
  auto provider = parse_provider(*provider_text);
  if (!provider) return usage_error(where + "provider: " + provider.error().message);
  AgentTarget agent;
  agent.provider = *provider;
  if (auto s = agent_text_fields(given, where, agent); !s) return s.error();
  if (agent.prompt.empty() == agent.prompt_file.empty()) {
    return usage_error(where.substr(0, where.size() - 1) +
                       ": give exactly one of prompt or prompt_file");
  }
  if (auto s = absolutize(agent.prompt_file, paths, where + "prompt_file"); !s) {
    return s.error();
  }
  if (auto s = absolutize(agent.cwd, paths, where + "cwd"); !s) return s.error();
  for (size_t i = 0; i < agent.add_dirs.size(); ++i) {
    auto s = absolutize(agent.add_dirs[i], paths, where + "add_dirs[" + std::to_string(i) + "]");
    if (!s) return s.error();
  }
  if (auto valid = validate_agent(agent); !valid) {
    return usage_error(where.substr(0, where.size() - 1) + ": " +
                       spec_wording(valid.error().message));
  }
  Target target;
  target.type = TargetType::kAgent;
  target.cwd = agent.cwd;
  auto env = env_field(given, where);
  if (!env) return env.error();
  target.env = std::move(*env);
  target.agent = std::move(agent);
  return target;
}

Result<Target> step_target(const json& step, const PathBase& paths, const std::string& where) {
  const json* given = field(step, "target");
  if (!given) return usage_error(where + "target: required, a command or agent target");
  if (!given->is_object()) return wrong_type(where + "target", "an object", *given);
  auto type = text_field(*given, "type", where + "target.");
  if (!type) return type.error();
  if (*type == "command") return command_target(*given, paths, where + "target.");
  if (*type == "agent") return agent_target(*given, paths, where + "target.");
  if (type->empty()) return usage_error(where + "target.type: required, command or agent");
  if (*type == "workflow") {
    return usage_error(where +
                       "target.type: a step cannot run a workflow; accepted: command, "
                       "agent");
  }
  return usage_error(where + "target.type '" + visible(*type) + "' is not one of command, agent");
}

Result<std::optional<DurationMs>> step_timeout(const json& step, const std::string& where) {
  const json* text = field(step, "timeout");
  const json* ms = field(step, "timeout_ms");
  if (text && ms) return usage_error(where + "give timeout or timeout_ms, not both");
  if (text) {
    if (!text->is_string()) {
      return usage_error(where + "timeout: expected a duration such as \"90s\" or \"1h30m\", got " +
                         described(*text) + "; for milliseconds use timeout_ms");
    }
    auto parsed =
        parse_duration_option(text->get_ref<const std::string&>(), "timeout", kMaxTimeoutMs);
    if (!parsed) return usage_error(where + parsed.error().message);
    return std::optional<DurationMs>(*parsed);
  }
  if (!ms) return std::optional<DurationMs>();
  if (!ms->is_number_integer() || ms->get<std::int64_t>() < 1 ||
      ms->get<std::int64_t>() > kMaxTimeoutMs) {
    if (ms->is_number_integer() || is_whole_number_text(kept_number_text(*ms))) {
      return usage_error(where + "timeout_ms " + write_json(*ms) + " out of range 1-" +
                         std::to_string(kMaxTimeoutMs) + " (365 days)");
    }
    return wrong_type(where + "timeout_ms", "a whole number of milliseconds", *ms);
  }
  return std::optional<DurationMs>(ms->get<std::int64_t>());
}

Result<int> step_retries(const json& step, const std::string& where) {
  const json* retries = field(step, "retries");
  if (!retries) return 0;
  if (!retries->is_number_integer() && !is_whole_number_text(kept_number_text(*retries))) {
    return wrong_type(where + "retries", "a whole number", *retries);
  }
  const bool in_range =
      is_kept_number(*retries) ? false
      : retries->is_number_unsigned()
          ? retries->get<std::uint64_t>() <= std::uint64_t(kMaxStepRetries)
          : retries->get<std::int64_t>() >= 0 && retries->get<std::int64_t>() <= kMaxStepRetries;
  if (!in_range) {
    return usage_error(where + "retries " + write_json(*retries) + " out of range 0-" +
                       std::to_string(kMaxStepRetries));
  }
  return int(retries->get<std::int64_t>());
}

// A profile name, or {profile, tool} where tool must be the agent's provider.
Result<std::string> step_account(const json& step, const Target& target, const std::string& where) {
  const json* account = field(step, "account");
  if (!account) return std::string();
  if (account->is_string()) {
    auto text = text_value(*account, where + "account");
    if (!text) return text.error();
    if (auto valid = check_name(*text, where + "account"); !valid) return valid.error();
    return text;
  }
  if (!account->is_object()) {
    return wrong_type(where + "account", "a profile name or {profile, tool}", *account);
  }
  if (auto keys = check_keys(*account, {"profile", "tool"}, where + "account"); !keys) {
    return keys.error();
  }
  auto profile = text_field(*account, "profile", where + "account.");
  if (!profile) return profile.error();
  if (auto valid = check_name(*profile, where + "account.profile"); !valid) return valid.error();
  auto tool = text_field(*account, "tool", where + "account.");
  if (!tool) return tool.error();
  if (tool->empty()) return profile;
  if (!target.agent) {
    return usage_error(where + "account.tool '" + visible(*tool) +
                       "': a command step has no agent provider to match; give only the profile");
  }
  const char* provider = provider_name(target.agent->provider);
  if (*tool != provider) {
    return usage_error(where + "account.tool '" + visible(*tool) + "' is not the step's provider " +
                       provider);
  }
  return profile;
}

bool valid_step_id(const std::string& id) {
  if (id.empty() || id.size() > kMaxStepIdBytes || id[0] == '.') return false;
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '.' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::string step_label(size_t index) { return "steps[" + std::to_string(index) + "]"; }

std::string step_where(const std::string& id, size_t index) {
  return "step '" + id + "' (" + step_label(index) + "): ";
}

// The ids of every step, checked and unique, before anything refers to them.
Result<std::vector<std::string>> step_ids(const json& steps) {
  std::vector<std::string> ids;
  std::unordered_map<std::string, size_t> seen;
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& step = steps[i];
    if (!step.is_object()) return wrong_type(step_label(i), "an object (a step)", step);
    const json* id = field(step, "id");
    if (!id) return usage_error(step_label(i) + ": id: required");
    if (!id->is_string()) return wrong_type(step_label(i) + ": id", "text", *id);
    const std::string& text = id->get_ref<const std::string&>();
    if (!valid_step_id(text)) {
      return usage_error(step_label(i) + ": id '" + visible(text) + "': a step id is 1 to " +
                         std::to_string(kMaxStepIdBytes) +
                         " of the characters A-Z a-z 0-9 _ . - and does not start with '.'");
    }
    const auto [where, added] = seen.emplace(text, i);
    if (!added) {
      return usage_error(step_label(i) + ": id '" + text + "' is also the id of " +
                         step_label(where->second) + "; step ids must be unique");
    }
    ids.push_back(text);
  }
  return ids;
}

// depends_on: known ids, not the step itself; duplicates are dropped.
Result<std::vector<std::string>> step_dependencies(
    const json& step, const std::string& id, size_t step_count,
    const std::unordered_map<std::string, size_t>& index, const std::string& where) {
  auto listed = text_list(step, "depends_on", where);
  if (!listed) return listed.error();
  if (listed->size() > step_count) {
    return usage_error(where + "depends_on lists " + std::to_string(listed->size()) +
                       " steps; this workflow has " + std::to_string(step_count));
  }
  std::vector<std::string> dependencies;
  std::unordered_set<std::string> seen;
  for (const std::string& dependency : *listed) {
    if (dependency == id) return usage_error(where + "depends on itself");
    if (!index.contains(dependency)) {
      return usage_error(where + "depends on '" + visible(dependency) +
                         "', which is not a step of this workflow");
    }
    if (seen.insert(dependency).second) dependencies.push_back(dependency);
  }
  return dependencies;
}

Result<WorkflowStep> build_step(const json& given, const std::string& id, size_t position,
                                size_t step_count,
                                const std::unordered_map<std::string, size_t>& index,
                                const PathBase& paths) {
  const std::string where = step_where(id, position);
  if (auto keys =
          check_keys(given,
                     {"id", "target", "depends_on", "continue_on_failure", "timeout", "timeout_ms",
                      "retries", "account", "worktree", "repo", "base", "commit", "allowed_files",
                      "merge", "verify", "target_branch", "merge_strategy"},
                     where.substr(0, where.size() - 2));
      !keys) {
    return keys.error();
  }
  WorkflowStep step;
  step.id = id;
  auto target = step_target(given, paths, where);
  if (!target) return target.error();
  step.target = std::move(*target);
  auto dependencies = step_dependencies(given, id, step_count, index, where);
  if (!dependencies) return dependencies.error();
  step.depends_on = std::move(*dependencies);
  if (const json* flag = field(given, "continue_on_failure")) {
    if (!flag->is_boolean())
      return wrong_type(where + "continue_on_failure", "true or false", *flag);
    step.continue_on_failure = flag->get<bool>();
  }
  auto timeout = step_timeout(given, where);
  if (!timeout) return timeout.error();
  step.timeout_ms = *timeout;
  auto retries = step_retries(given, where);
  if (!retries) return retries.error();
  step.retries = *retries;
  auto account = step_account(given, step.target, where);
  if (!account) return account.error();
  step.account = std::move(*account);
  auto worktree = parse_step_worktree(given, id, paths, where);
  if (!worktree) return worktree.error();
  step.worktree = std::move(*worktree);
  return step;
}

Status spec_header(const json& tree, WorkflowSpec& spec) {
  if (auto keys = check_keys(tree, {"name", "description", "goal", "steps"}, ""); !keys) {
    return keys;
  }
  const json* name = field(tree, "name");
  if (!name) return usage_error("name: required, the workflow's name");
  auto text = text_value(*name, "name");
  if (!text) return text.error();
  if (auto valid = check_name(*text, "name"); !valid) return valid;
  spec.name = std::move(*text);
  auto description = text_field(tree, "description", "");
  if (!description) return description.error();
  if (auto s = check_user_text(*description, "description", TextLines::kMany); !s) return s;
  if (auto s = check_length(*description, kMaxDescriptionCharacters, "description"); !s) return s;
  spec.description = std::move(*description);
  auto goal = text_field(tree, "goal", "");
  if (!goal) return goal.error();
  if (auto s = check_user_text(*goal, "goal", TextLines::kMany); !s) return s;
  if (auto s = check_length(*goal, kMaxGoalCharacters, "goal"); !s) return s;
  spec.goal = std::move(*goal);
  return Ok{};
}

// The steps `step` depends on, directly or through others (no cycle).
TemplateScope template_scope(const WorkflowSpec& spec, const WorkflowStep& step) {
  std::unordered_map<std::string, const WorkflowStep*> by_id;
  for (const WorkflowStep& each : spec.steps) by_id.emplace(each.id, &each);
  TemplateScope scope;
  std::vector<std::string> todo = step.depends_on;
  while (!todo.empty()) {
    const std::string id = todo.back();
    todo.pop_back();
    if (!scope.steps.insert(id).second) continue;
    auto found = by_id.find(id);
    if (found == by_id.end()) continue;
    todo.insert(todo.end(), found->second->depends_on.begin(), found->second->depends_on.end());
  }
  return scope;
}

// Every inline agent prompt is a template whose names a step can have
// (core/prompt_template.h); a prompt_file is checked when it is read.
Status check_prompt_templates(const WorkflowSpec& spec) {
  for (size_t i = 0; i < spec.steps.size(); ++i) {
    const WorkflowStep& step = spec.steps[i];
    if (!step.target.agent || step.target.agent->prompt.empty()) continue;
    const std::string where = step_where(step.id, i) + "target.prompt";
    auto names = check_template(step.target.agent->prompt, template_scope(spec, step), where);
    if (!names) return names.error();
  }
  return Ok{};
}

Status spec_steps(const json& tree, const PathBase& paths, WorkflowSpec& spec) {
  const json* steps = field(tree, "steps");
  if (!steps) return usage_error("steps: required, a list of at least one step");
  if (!steps->is_array()) return wrong_type("steps", "a list of steps", *steps);
  if (steps->empty()) return usage_error("steps: a workflow needs at least one step");
  if (steps->size() > size_t(kMaxWorkflowSteps)) {
    return usage_error("steps: " + std::to_string(steps->size()) + " steps; at most " +
                       std::to_string(kMaxWorkflowSteps) + " are allowed");
  }
  auto ids = step_ids(*steps);
  if (!ids) return ids.error();
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < ids->size(); ++i) index.emplace((*ids)[i], i);
  for (size_t i = 0; i < ids->size(); ++i) {
    auto step = build_step((*steps)[i], (*ids)[i], i, ids->size(), index, paths);
    if (!step) return step.error();
    spec.steps.push_back(std::move(*step));
  }
  const std::vector<size_t> cycle = dependency_cycle(spec);
  if (cycle.empty()) return check_prompt_templates(spec);
  std::string path;
  const size_t shown = std::min<size_t>(cycle.size(), 10);
  for (size_t i = 0; i < shown; ++i) path += spec.steps[cycle[i]].id + " → ";
  if (shown < cycle.size()) path += "… (" + std::to_string(cycle.size() - shown) + " more) → ";
  path += spec.steps[cycle.front()].id;
  const std::string where = step_where(spec.steps[cycle.front()].id, cycle.front());
  return usage_error(where.substr(0, where.size() - 2) + " is on a dependency cycle: " + path +
                     " (each step depends on the next)");
}

Result<WorkflowSpec> spec_from_tree(const json& tree, const PathBase& paths) {
  if (!tree.is_object()) {
    return usage_error("a spec is an object (a mapping) with name and steps, not " +
                       described(tree));
  }
  WorkflowSpec spec;
  if (auto header = spec_header(tree, spec); !header) return header.error();
  if (auto steps = spec_steps(tree, paths, spec); !steps) return steps.error();
  return spec;
}

// The stored shape; a newer orrery writes a higher number.
constexpr int kSpecFormat = 1;

void put_text(json& object, const char* key, const std::string& text) {
  if (!text.empty()) object[key] = text;
}

json stored_target(const Target& target) {
  json out{{"type", target_type_name(target.type)}};
  if (target.agent) {
    const AgentTarget& agent = *target.agent;
    out["provider"] = provider_name(agent.provider);
    put_text(out, "prompt", agent.prompt);
    put_text(out, "prompt_file", agent.prompt_file);
    put_text(out, "model", agent.model);
    put_text(out, "effort", agent.variant);
    put_text(out, "agent", agent.agent);
    put_text(out, "permission_mode", agent.permission_mode);
    put_text(out, "sandbox", agent.sandbox);
    put_text(out, "config_isolation", agent.config_isolation);
    if (!agent.add_dirs.empty()) out["add_dirs"] = agent.add_dirs;
    if (!agent.extra_args.empty()) out["extra_args"] = agent.extra_args;
    put_text(out, "auth_profile", agent.auth_profile);
  } else if (target.shell) {
    out["shell"] = true;
    out["command"] = target.command_line;
  } else if (!target.argv.empty()) {
    out["command"] = target.argv.front();
    if (target.argv.size() > 1) {
      out["args"] = std::vector<std::string>(target.argv.begin() + 1, target.argv.end());
    }
  }
  put_text(out, "cwd", target.cwd);
  if (!target.env.empty()) {
    json env = json::object();
    for (const auto& [key, value] : target.env) env[key] = value;
    out["env"] = std::move(env);
  }
  return out;
}

json nullable(const std::string& text) { return text.empty() ? json(nullptr) : json(text); }

// A loop's target as `show --json` prints it (docs/cli.md).
json shown_target(const Target& target) {
  json out{{"type", target_type_name(target.type)}};
  if (target.agent) {
    const AgentTarget& agent = *target.agent;
    out.update({{"provider", provider_name(agent.provider)},
                {"prompt", nullable(agent.prompt)},
                {"prompt_file", nullable(agent.prompt_file)},
                {"model", nullable(agent.model)},
                {"effort", nullable(agent.variant)},
                {"agent", nullable(agent.agent)},
                {"permission_mode", nullable(agent.permission_mode)},
                {"sandbox", nullable(agent.sandbox)},
                {"config_isolation", nullable(agent.config_isolation)},
                {"add_dirs", agent.add_dirs},
                {"extra_args", agent.extra_args},
                {"auth_profile", nullable(agent.auth_profile)}});
  } else if (target.shell) {
    out["shell"] = true;
    out["command"] = target.command_line;
  } else {
    out["shell"] = false;
    out["command"] = target.argv.empty() ? "" : target.argv.front();
    out["args"] = std::vector<std::string>(target.argv.begin() + (target.argv.empty() ? 0 : 1),
                                           target.argv.end());
  }
  out["cwd"] = nullable(target.cwd);
  json env = json::object();
  for (const auto& [key, value] : target.env) env[key] = value;
  out["env"] = std::move(env);
  out["secret_env"] = target.secret_env;
  return out;
}

}  // namespace

SpecFormat spec_format_of(std::string_view path, std::string_view text) {
  const std::string_view file = path.substr(path.rfind('/') + 1);  // npos + 1 is 0
  const size_t dot = file.rfind('.');
  std::string extension(dot == std::string_view::npos ? "" : file.substr(dot + 1));
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  if (extension == "json") return SpecFormat::kJson;
  if (extension == "yaml" || extension == "yml") return SpecFormat::kYaml;
  const std::string_view content = trim(text);
  return !content.empty() && content.front() == '{' ? SpecFormat::kJson : SpecFormat::kYaml;
}

Result<WorkflowSpec> parse_workflow_spec(std::string_view text, SpecFormat format,
                                         const PathBase& paths) {
  if (std::int64_t(text.size()) > kMaxWorkflowSpecBytes) {
    return usage_error("the spec is " + std::to_string(text.size()) + " bytes; at most " +
                       std::to_string(kMaxWorkflowSpecBytes) + " (1 MiB) are allowed");
  }
  if (trim(text).empty()) return usage_error("the spec is empty");
  const size_t invalid = invalid_utf8_offset(text);
  if (invalid != std::string_view::npos) {
    return usage_error("the spec is not valid UTF-8 (at " + line_and_column(text, invalid) + ")");
  }
  auto tree = format == SpecFormat::kJson ? json_spec_tree(text) : yaml_spec_tree(text);
  if (!tree) return tree.error();
  return spec_from_tree(*tree, paths);
}

std::string encode_workflow_spec(const WorkflowSpec& spec) {
  json steps = json::array();
  for (const WorkflowStep& step : spec.steps) {
    json out{{"id", step.id},
             {"target", stored_target(step.target)},
             {"depends_on", step.depends_on},
             {"continue_on_failure", step.continue_on_failure},
             {"retries", step.retries}};
    if (step.timeout_ms) out["timeout_ms"] = *step.timeout_ms;
    put_text(out, "account", step.account);
    put_step_worktree(out, step.worktree);
    steps.push_back(std::move(out));
  }
  json out{{"format", kSpecFormat}, {"name", spec.name}, {"steps", std::move(steps)}};
  put_text(out, "description", spec.description);
  put_text(out, "goal", spec.goal);
  return write_json(out);
}

Result<WorkflowSpec> decode_workflow_spec(std::string_view text) {
  const auto damaged = [](const std::string& why) {
    return internal_error("the stored workflow spec cannot be read: " + why);
  };
  auto tree = json_spec_tree(text);
  if (!tree) return damaged(tree.error().message);
  if (!tree->is_object()) return damaged("it is not an object");
  const json* format = field(*tree, "format");
  if (!format || !format->is_number_integer() || format->get<std::int64_t>() != kSpecFormat) {
    return damaged("its format is " + (format ? write_json(*format) : std::string("missing")) +
                   ", this version of orrery reads format " + std::to_string(kSpecFormat) +
                   "; a newer orrery may have written it");
  }
  tree->erase("format");
  auto spec = spec_from_tree(*tree, PathBase{});
  if (!spec) return damaged(spec.error().message);
  return spec;
}

std::string workflow_steps_json(const WorkflowSpec& spec) {
  json steps = json::array();
  for (const WorkflowStep& step : spec.steps) {
    steps.push_back({{"id", step.id},
                     {"target", shown_target(step.target)},
                     {"depends_on", step.depends_on},
                     {"continue_on_failure", step.continue_on_failure},
                     {"timeout_ms", step.timeout_ms ? json(*step.timeout_ms) : json(nullptr)},
                     {"retries", step.retries},
                     {"account", nullable(step.account)}});
    put_step_worktree(steps.back(), step.worktree);
  }
  return write_json(steps);
}

}  // namespace orrery
