// The JSON text in which a workflow's spec is stored (one column,
// docs/workflows.md "Storage"): {name, description, goal, steps: [{id,
// target, depends_on, continue_on_failure, timeout_ms, account, retries}]},
// each target in the form of store/target_codec.h. Stands in for
// core/workflow_spec.h's encode_workflow_spec / decode_workflow_spec, which
// replace it once they exist; the stored form is the same canonical JSON.
#pragma once

#include <string>

#include "core/result.h"
#include "core/workflow.h"

namespace orrery::sql {

std::string encode_stored_spec(const WorkflowSpec& spec);
// A stored text that is not such a spec is a damaged row: an internal error.
Result<WorkflowSpec> decode_stored_spec(const std::string& text);

}  // namespace orrery::sql
