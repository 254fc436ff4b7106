// An agent's final message, from what its CLI printed (docs/goals.md, "The
// update"): claude's JSON result ("result"), the last agent message of
// codex's JSON events, gemini's JSON "response"; for the other providers,
// and whenever the expected document is missing, the output itself. Pure;
// the output is untrusted and nothing here fails.
#pragma once

#include <string>
#include <string_view>

#include "core/agent_adapter.h"

namespace orrery {

std::string final_message(AgentProvider provider, std::string_view stdout_text);

}  // namespace orrery
