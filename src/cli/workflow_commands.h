// Workflow commands (docs/workflows.md, docs/cli.md): `orrery workflow
// create | ls | show | run | runs | show-run | cancel | events`, and the
// internal `drive-workflow` and `supervise-step` commands.
#pragma once

#include <optional>
#include <string>

#include "cli/command.h"
#include "core/workflow.h"

namespace orrery::cli {

struct WorkflowArgs {
  std::string file;                  // create
  std::optional<std::string> text;   // create: the spec itself (the API), instead of a file
  std::string workflow;              // show, run, runs
  std::optional<int> version;        // show, run
  bool all_versions = false;         // ls --all
  std::optional<std::string> input;  // run
  bool wait = false;                 // run
  std::string idempotency_key;       // run
  int max_parallel = kDefaultParallelSteps;
  std::string loop_run;  // run (internal): the loop run that starts it
  std::string run;       // show-run, cancel, events, drive-workflow
  std::string status;    // runs
  int limit = 100;       // runs
  int offset = 0;        // runs
  bool follow = false;   // events
  int token_fd = -1;     // supervise-step, drive-workflow
};

Result<int> create_workflow_command(const WorkflowArgs& args, const Context& context);
Result<int> list_workflows_command(const WorkflowArgs& args, const Context& context);
Result<int> show_workflow_command(const WorkflowArgs& args, const Context& context);
Result<int> run_workflow_command(const WorkflowArgs& args, const Context& context);
Result<int> list_workflow_runs_command(const WorkflowArgs& args, const Context& context);
Result<int> show_workflow_run_command(const WorkflowArgs& args, const Context& context);
Result<int> cancel_workflow_run_command(const WorkflowArgs& args, const Context& context);
Result<int> workflow_events_command(const WorkflowArgs& args, const Context& context);
Result<int> drive_workflow_command(const WorkflowArgs& args, const Context& context);
Result<int> supervise_step_command(const WorkflowArgs& args, const Context& context);

// `logs RUN --step ID`: the step's log of a workflow run.
Result<int> show_step_log(const std::string& run, const std::string& step, bool stderr_stream,
                          const Context& context);

}  // namespace orrery::cli
