// The column tables of the workflow tables (docs/workflows.md, "Storage")
// and the functions that read a row of each (store/sql/column_table.h):
// every SELECT of those tables uses these lists, so that a column is named
// once and never read at the wrong position.
#pragma once

#include <string>
#include <string_view>

#include "core/workflow.h"
#include "store/sql/connection.h"
#include "store/sql/rows.h"  // read_all

namespace orrery::sql {

// "id, name, ..." of each table, in the order its reader reads them;
// `qualifier` ("a.") before each name.
std::string workflow_select_list();
std::string workflow_run_select_list();
std::string step_run_select_list();
std::string step_attempt_select_list(std::string_view qualifier = "");
std::string workflow_event_select_list();

Result<Workflow> read_workflow(const Statement& row);
Result<WorkflowRun> read_workflow_run(const Statement& row);
Result<StepRun> read_step_run(const Statement& row);
Result<StepAttempt> read_step_attempt(const Statement& row);
Result<WorkflowEvent> read_workflow_event(const Statement& row);

}  // namespace orrery::sql
