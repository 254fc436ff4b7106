// JSON documents of docs/cli.md for core values (snake_case keys, times as
// YYYY-MM-DDTHH:MM:SS.mmmZ). Fields may be added, never renamed.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "core/run.h"
#include "core/schedule.h"
#include "core/workflow.h"

namespace orrery::cli {

// {type, expression | every_ms, anchor | at | min_ms, max_ms, timezone, jitter_ms}
nlohmann::json schedule_json(const Schedule& schedule);
// The loop document of docs/cli.md.
nlohmann::json loop_json(const Loop& loop);
// The run document of docs/cli.md; with_output adds stdout and stderr.
nlohmann::json run_json(const Run& run, bool with_output);
// The workflow document of docs/workflows.md; `steps_json` is the spec's
// steps as JSON text (core/workflow_spec.h workflow_steps_json).
nlohmann::json workflow_json(const Workflow& workflow, const std::string& steps_json);
// The workflow run document, with its steps and its attempts' accounting.
nlohmann::json workflow_run_json(const WorkflowRun& run, const std::vector<StepRun>& steps,
                                 const std::vector<PhaseAccounting>& phases);
// {sequence, event_type, step_id, payload, created_at}
nlohmann::json workflow_event_json(const WorkflowEvent& event);
nlohmann::json times_json(const std::vector<TimeMs>& times);
// {"error": {"code": …, "message": …}}
nlohmann::json error_json(const Error& error);

// The text of a document as commands print it (indented by two). A stored
// string that is not valid UTF-8 has each bad byte replaced by U+FFFD, so one
// bad row never makes a whole listing fail.
std::string json_text(const nlohmann::json& document);

}  // namespace orrery::cli
