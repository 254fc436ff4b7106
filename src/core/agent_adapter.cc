#include "core/agent_adapter.h"

#include <algorithm>
#include <array>

#include "core/enum_names.h"

namespace orrery {
namespace {

constexpr NameTable<AgentProvider, 7> kProviders{{
    {AgentProvider::kClaude, "claude"},
    {AgentProvider::kCursor, "cursor"},
    {AgentProvider::kCodewith, "codewith"},
    {AgentProvider::kCodex, "codex"},
    {AgentProvider::kAicopilot, "aicopilot"},
    {AgentProvider::kOpencode, "opencode"},
    {AgentProvider::kGemini, "gemini"},
}};

using Names = std::vector<std::string>;

const Names kPermissionModes = {"default", "plan", "auto", "bypass"};
const Names kCodexSandboxes = {"read-only", "workspace-write", "danger-full-access"};
const Names kCursorSandboxes = {"enabled", "disabled"};
// codewith agent steps use durable `agent start`; these belong to exec mode.
const Names kUnsafeCodewithArgs = {"e",
                                   "exec",
                                   "agent",
                                   "start",
                                   "--ephemeral",
                                   "--ignore-rules",
                                   "--skip-git-repo-check",
                                   "--json",
                                   "--output-last-message",
                                   "-o",
                                   "--output-schema",
                                   "--dangerously-bypass-approvals-and-sandbox"};

bool contains(const Names& names, const std::string& value) {
  return std::find(names.begin(), names.end(), value) != names.end();
}

std::string list(const Names& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

const Names& sandboxes_of(AgentProvider provider) {
  static const Names kNone;
  if (provider == AgentProvider::kCodex || provider == AgentProvider::kCodewith) {
    return kCodexSandboxes;
  }
  if (provider == AgentProvider::kCursor) return kCursorSandboxes;
  return kNone;
}

Error refuse(const AgentTarget& target, const std::string& what) {
  return usage_error(std::string("agent ") + provider_name(target.provider) + ": " + what);
}

Status validate_permission_mode(const AgentTarget& target) {
  const std::string& mode = target.permission_mode;
  if (mode.empty()) return Ok{};
  if (!contains(kPermissionModes, mode)) {
    return refuse(target,
                  "--permission-mode '" + mode + "' is not one of " + list(kPermissionModes));
  }
  const AgentProvider p = target.provider;
  if (mode == "plan" && p != AgentProvider::kClaude && p != AgentProvider::kCursor) {
    return refuse(target, "--permission-mode plan is supported only for claude and cursor");
  }
  if (mode == "auto" && p != AgentProvider::kClaude) {
    return refuse(target, "--permission-mode auto is supported only for claude");
  }
  return Ok{};
}

Status validate_provider_options(const AgentTarget& target) {
  const AgentProvider p = target.provider;
  if (!target.auth_profile.empty() && p != AgentProvider::kCodewith) {
    return refuse(target, "--auth-profile is supported only for codewith");
  }
  if (p == AgentProvider::kOpencode && target.model.empty()) {
    return refuse(target,
                  "--model is required for opencode: pass a provider/model id such as "
                  "openrouter/google/gemini-2.5-flash");
  }
  if ((p == AgentProvider::kCursor || p == AgentProvider::kGemini) && !target.variant.empty()) {
    return refuse(target, std::string("--effort is not supported for ") + provider_name(p));
  }
  // codewith and gemini have no isolated configuration to choose.
  if ((p == AgentProvider::kCodewith || p == AgentProvider::kGemini) &&
      !target.config_isolation.empty()) {
    return refuse(target,
                  std::string("--config-isolation is not supported for ") + provider_name(p));
  }
  if ((p == AgentProvider::kCodex || p == AgentProvider::kCodewith ||
       p == AgentProvider::kGemini) &&
      !target.agent.empty()) {
    return refuse(target, std::string("--agent-name is not supported for ") + provider_name(p));
  }
  if (p == AgentProvider::kCodewith) {
    for (const std::string& arg : target.extra_args) {
      if (contains(kUnsafeCodewithArgs, arg)) {
        return refuse(target, "extra argument '" + arg +
                                  "' is refused: codewith runs use durable agent start, not "
                                  "exec or ephemeral flags");
      }
    }
  }
  if (!target.add_dirs.empty() && p != AgentProvider::kCodewith && p != AgentProvider::kCodex) {
    return refuse(target, "--add-dir is supported only for codewith and codex");
  }
  return Ok{};
}

// codex and codewith: an explicit sandbox, else full access for bypass, else workspace-write.
std::string codex_sandbox(const AgentTarget& target) {
  if (!target.sandbox.empty()) return target.sandbox;
  return target.permission_mode == "bypass" ? "danger-full-access" : "workspace-write";
}

void append(std::vector<std::string>& argv, std::initializer_list<std::string> args) {
  argv.insert(argv.end(), args);
}

void append_if(std::vector<std::string>& argv, const char* flag, const std::string& value) {
  if (!value.empty()) append(argv, {flag, value});
}

std::string json_string(const std::string& value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

AgentInvocation claude(const AgentTarget& t, bool safe, const std::string& prompt) {
  std::vector<std::string> argv{"claude"};
  if (safe) append(argv, {"--safe-mode", "--setting-sources", "local", "--no-session-persistence"});
  if (!t.permission_mode.empty() && t.permission_mode != "default") {
    append(argv, {"--permission-mode",
                  t.permission_mode == "bypass" ? "bypassPermissions" : t.permission_mode});
  }
  append(argv, {"-p", "--output-format", "json"});
  append_if(argv, "--model", t.model);
  append_if(argv, "--effort", t.variant);
  append_if(argv, "--agent", t.agent);
  argv.insert(argv.end(), t.extra_args.begin(), t.extra_args.end());
  return {argv, prompt};
}

AgentInvocation cursor(const AgentTarget& t, bool safe, const std::string& prompt) {
  std::vector<std::string> argv{"agent", "-p"};
  if (t.permission_mode == "plan") append(argv, {"--mode", "plan"});
  if (t.permission_mode == "bypass") argv.push_back("--force");
  const std::string sandbox = !t.sandbox.empty() ? t.sandbox : (safe ? "enabled" : "");
  append_if(argv, "--sandbox", sandbox);
  append_if(argv, "--model", t.model);
  append_if(argv, "--agent", t.agent);
  argv.insert(argv.end(), t.extra_args.begin(), t.extra_args.end());
  return {argv, prompt};
}

AgentInvocation codewith(const AgentTarget& t, const std::string& prompt) {
  std::vector<std::string> argv{"codewith"};
  append_if(argv, "--auth-profile", t.auth_profile);
  if (!t.variant.empty()) append(argv, {"-c", "model_reasoning_effort=" + json_string(t.variant)});
  append(argv, {"--ask-for-approval", "never", "--sandbox", codex_sandbox(t)});
  append_if(argv, "--cd", t.cwd);
  for (const std::string& dir : t.add_dirs) append(argv, {"--add-dir", dir});
  append_if(argv, "--model", t.model);
  argv.insert(argv.end(), t.extra_args.begin(), t.extra_args.end());
  append(argv, {"agent", "start"});
  append_if(argv, "--cwd", t.cwd);
  argv.push_back(prompt);
  return {argv, std::nullopt};
}

AgentInvocation codex(const AgentTarget& t, bool safe, const std::string& prompt) {
  std::vector<std::string> argv{"codex"};
  if (!t.variant.empty()) append(argv, {"-c", "model_reasoning_effort=" + json_string(t.variant)});
  append(argv, {"--ask-for-approval", "never", "exec", "--json", "--ephemeral", "--sandbox",
                codex_sandbox(t), "--skip-git-repo-check"});
  if (safe) argv.push_back("--ignore-rules");
  append_if(argv, "--cd", t.cwd);
  for (const std::string& dir : t.add_dirs) append(argv, {"--add-dir", dir});
  append_if(argv, "--model", t.model);
  argv.insert(argv.end(), t.extra_args.begin(), t.extra_args.end());
  return {argv, prompt};
}

AgentInvocation opencode_like(const AgentTarget& t, bool safe, const std::string& prompt) {
  std::vector<std::string> argv{provider_name(t.provider), "run", "--format", "json"};
  if (safe) argv.push_back("--pure");
  if (t.permission_mode == "bypass") argv.push_back("--dangerously-skip-permissions");
  append_if(argv, "--dir", t.cwd);
  append_if(argv, "--model", t.model);
  append_if(argv, "--variant", t.variant);
  append_if(argv, "--agent", t.agent);
  argv.insert(argv.end(), t.extra_args.begin(), t.extra_args.end());
  return {argv, prompt};
}

// Gemini CLI reads the prompt on stdin in non-interactive mode.
AgentInvocation gemini(const AgentTarget& t, const std::string& prompt) {
  std::vector<std::string> argv{"gemini", "--output-format", "json"};
  if (t.permission_mode == "bypass") argv.push_back("--yolo");
  append_if(argv, "--model", t.model);
  argv.insert(argv.end(), t.extra_args.begin(), t.extra_args.end());
  return {argv, prompt};
}

}  // namespace

const char* provider_name(AgentProvider provider) { return enum_name(provider, kProviders); }

Result<AgentProvider> parse_provider(std::string_view text) {
  return parse_enum_name(text, kProviders, "agent provider");
}

Status validate_agent(const AgentTarget& target) {
  if (target.prompt.empty() == target.prompt_file.empty()) {
    return refuse(target, "give exactly one of --prompt TEXT or --prompt-file FILE");
  }
  if (!target.config_isolation.empty() && target.config_isolation != "safe" &&
      target.config_isolation != "none") {
    return refuse(target,
                  "--config-isolation '" + target.config_isolation + "' is not one of safe, none");
  }
  if (auto mode = validate_permission_mode(target); !mode) return mode;
  if (!target.sandbox.empty()) {
    const Names& accepted = sandboxes_of(target.provider);
    if (accepted.empty()) {
      return refuse(target, "--sandbox is supported only for codewith, codex and cursor");
    }
    if (!contains(accepted, target.sandbox)) {
      return refuse(target, "--sandbox '" + target.sandbox + "' is not one of " + list(accepted));
    }
  }
  return validate_provider_options(target);
}

Result<AgentInvocation> build_agent_invocation(const AgentTarget& target,
                                               const std::string& prompt) {
  if (auto valid = validate_agent(target); !valid) return valid.error();
  if (prompt.empty()) return refuse(target, "the prompt is empty");
  const bool safe = target.config_isolation != "none";
  switch (target.provider) {
    case AgentProvider::kClaude:
      return claude(target, safe, prompt);
    case AgentProvider::kCursor:
      return cursor(target, safe, prompt);
    case AgentProvider::kCodewith:
      return codewith(target, prompt);
    case AgentProvider::kCodex:
      return codex(target, safe, prompt);
    case AgentProvider::kAicopilot:
    case AgentProvider::kOpencode:
      return opencode_like(target, safe, prompt);
    case AgentProvider::kGemini:
      return gemini(target, prompt);
  }
  return internal_error("unknown agent provider");
}

}  // namespace orrery
