// Publishing a workflow run (docs/workflows.md, "Publication"): the run, its
// steps and its `created` event are written in one transaction, and the
// run's manifest.json ($home/workflow-runs/<run>/manifest.json: what was run,
// with which input) is written by temp + rename before the commit and
// removed when the commit fails, so a manifest exists exactly for the runs
// that exist; so is the item.json of a run a work item starts. A repeated
// idempotency key returns the run published first.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "core/workflow.h"
#include "store/workflow_runs.h"

namespace orrery {

struct WorkflowRunRequest {
  Workflow workflow;
  std::string input_json = "{}";  // checked by check_workflow_input
  std::string idempotency_key;
  std::string cwd;  // the steps' working directory
  int max_parallel = kDefaultParallelSteps;
  std::string loop_id;  // set when a loop's run starts it
  std::string loop_run_id;
  // Set when a work item's admission starts it (docs/admission.md): the
  // item's id, and its document, written as item.json beside the manifest.
  std::string item_id;
  std::string item_document;
  // The item's previous failed attempt (core/attempt_feedback.h), written
  // as feedback.json beside it; "" : none.
  std::string feedback_document;
};

// `--input` as stored: a JSON object of at most kMaxWorkflowInputBytes, in
// compact form; anything else is a usage error saying what was given.
Result<std::string> check_workflow_input(std::string_view text);

Result<PublishedRun> publish_workflow_run(WorkflowRuns& store, const std::string& home,
                                          const WorkflowRunRequest& request, TimeMs now);

}  // namespace orrery
