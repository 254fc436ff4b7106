// Token usage and cost an agent CLI reports in its own output (docs/execution.md):
// claude's `-p --output-format json` result object, codex's `exec --json`
// events (summed over turns), gemini's `--output-format json` stats.
// Output that carries none gives an empty Usage; nothing here fails. The
// output is untrusted: token counts are non-negative and saturate at the
// int64 maximum instead of overflowing; a cost is finite and non-negative.
#pragma once

#include <string_view>

#include "core/agent_adapter.h"
#include "core/run.h"

namespace orrery {

Usage parse_usage(AgentProvider provider, std::string_view stdout_text);

}  // namespace orrery
