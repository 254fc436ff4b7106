// The workflow, workflow run and journal event documents of
// docs/workflows.md: one source for `workflow` commands, the HTTP API and
// MCP. Fields may be added, never renamed.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/workflow.h"

namespace orrery {

// The workflow document; `steps_json` is the spec's steps as JSON text
// (core/workflow_spec.h workflow_steps_json).
nlohmann::json workflow_json(const Workflow& workflow, const std::string& steps_json);

// The workflow run document, with its steps and its attempts' accounting.
nlohmann::json workflow_run_json(const WorkflowRun& run, const std::vector<StepRun>& steps,
                                 const std::vector<PhaseAccounting>& phases);

// {sequence, event_type, step_id, payload, created_at}
nlohmann::json workflow_event_json(const WorkflowEvent& event);

}  // namespace orrery
