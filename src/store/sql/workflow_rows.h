// The columns of the workflow tables (docs/workflows.md, "Storage") and the
// functions that read a row of each: every SELECT of those tables uses
// these lists, so that a column is never read at the wrong position.
#pragma once

#include <string>

#include "core/workflow.h"
#include "store/sql/connection.h"
#include "store/sql/rows.h"  // read_all

namespace orrery::sql {

// "id, name, ..." of each table, in the order its reader reads them.
extern const char* const kWorkflowColumns;
extern const char* const kWorkflowRunColumns;
extern const char* const kStepRunColumns;
extern const char* const kStepAttemptColumns;
extern const char* const kWorkflowEventColumns;

Result<Workflow> read_workflow(const Statement& row);
Result<WorkflowRun> read_workflow_run(const Statement& row);
Result<StepRun> read_step_run(const Statement& row);
Result<StepAttempt> read_step_attempt(const Statement& row);
Result<WorkflowEvent> read_workflow_event(const Statement& row);

}  // namespace orrery::sql
