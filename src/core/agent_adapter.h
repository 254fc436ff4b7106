// Agent targets: the coding-agent CLIs orrery runs (claude, cursor agent,
// codewith, codex, aicopilot, opencode, gemini), which options each accepts,
// and the argv and stdin each is started with.
//
// Invariants: validation refuses every option a provider does not support,
// naming the option, the value and what is accepted; an invocation is built
// only from a valid target; the prompt travels on stdin except for codewith,
// whose durable `agent start` takes it as the last argument.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace orrery {

enum class AgentProvider { kClaude, kCursor, kCodewith, kCodex, kAicopilot, kOpencode, kGemini };

const char* provider_name(AgentProvider provider);
Result<AgentProvider> parse_provider(std::string_view text);

struct AgentTarget {
  AgentProvider provider = AgentProvider::kClaude;
  std::string prompt;       // the text, or empty when prompt_file is used
  std::string prompt_file;  // read when the run starts
  std::string model;
  std::string variant;          // --effort: variant or reasoning effort
  std::string agent;            // a named agent of the provider
  std::string permission_mode;  // default | plan | auto | bypass
  std::string sandbox;
  std::string config_isolation;  // safe (default) | none
  std::vector<std::string> add_dirs;
  std::vector<std::string> extra_args;
  std::string cwd;
  std::string auth_profile;  // codewith only
  friend bool operator==(const AgentTarget&, const AgentTarget&) = default;
};

struct AgentInvocation {
  std::vector<std::string> argv;
  std::optional<std::string> stdin_text;
};

Status validate_agent(const AgentTarget& target);
// `prompt` is the prompt text (the target's own, or its file's contents).
Result<AgentInvocation> build_agent_invocation(const AgentTarget& target,
                                               const std::string& prompt);

}  // namespace orrery
