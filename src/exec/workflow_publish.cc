#include "exec/workflow_publish.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/spec_tree.h"
#include "exec/env.h"
#include "exec/fresh_id.h"
#include "store/data_dir.h"
#include "store/home_layout.h"

namespace orrery {
namespace {

std::string manifest_text(const WorkflowRun& run, const std::vector<StepRun>& steps) {
  nlohmann::json step_ids = nlohmann::json::array();
  for (const StepRun& step : steps) step_ids.push_back(step.step_id);
  const nlohmann::json manifest{{"run_id", run.id},
                                {"workflow_id", run.workflow_id},
                                {"workflow_name", run.workflow_name},
                                {"workflow_version", run.workflow_version},
                                {"input", read_json(run.input_json)},
                                {"idempotency_key", run.idempotency_key},
                                {"loop_id", run.loop_id},
                                {"loop_run_id", run.loop_run_id},
                                {"cwd", run.cwd},
                                {"max_parallel", run.max_parallel},
                                {"steps", step_ids},
                                {"created_at", format_time(run.created_at)}};
  return write_json(manifest, 2) + "\n";
}

NewWorkflowRun new_run(const WorkflowRunRequest& request, TimeMs now) {
  NewWorkflowRun fresh;
  WorkflowRun& run = fresh.run;
  run.id = fresh_id(now);
  run.workflow_id = request.workflow.id;
  run.workflow_name = request.workflow.name;
  run.workflow_version = request.workflow.version;
  run.input_json = request.input_json;
  run.idempotency_key = request.idempotency_key;
  run.loop_id = request.loop_id;
  run.loop_run_id = request.loop_run_id;
  run.item_id = request.item_id;
  run.cwd = request.cwd;
  run.max_parallel = request.max_parallel;
  run.created_at = now;
  run.updated_at = now;
  int sequence = 0;
  for (const WorkflowStep& step : request.workflow.spec.steps) {
    StepRun record;
    record.run_id = run.id;
    record.step_id = step.id;
    record.sequence = ++sequence;
    record.max_attempts = step.retries + 1;
    record.updated_at = now;
    fresh.steps.push_back(record);
  }
  return fresh;
}

}  // namespace

Result<std::string> check_workflow_input(std::string_view text) {
  if (std::int64_t(text.size()) > kMaxWorkflowInputBytes) {
    return usage_error("--input is " + std::to_string(text.size()) + " bytes; at most " +
                       std::to_string(kMaxWorkflowInputBytes) + " bytes are accepted");
  }
  // The reading rule of spec files (core/spec_tree.h): a key given twice in
  // an object is refused, naming where, not resolved silently.
  auto tree = json_spec_tree(text);
  if (!tree) {
    return usage_error("--input is not valid JSON (" + tree.error().message +
                       "): expected an object like {\"key\": \"value\"}");
  }
  const nlohmann::json& input = *tree;
  if (!input.is_object())
    return usage_error("--input must be a JSON object like {\"key\": \"value\"}, not " +
                       json_type_name(input));
  return write_json(input);
}

Result<PublishedRun> publish_workflow_run(WorkflowRuns& store, const std::string& home,
                                          const WorkflowRunRequest& request, TimeMs now) {
  const NewWorkflowRun fresh = new_run(request, now);
  const HomeLayout layout(home);
  PublishHooks hooks;
  hooks.before_commit = [&](const WorkflowRun& run) -> Status {
    if (auto made = prepare_data_dir(layout.workflow_run(run.id)); !made) return made;
    if (!request.item_document.empty()) {
      if (auto item = write_file_atomically(system_env(), layout.item_file(run.id),
                                            request.item_document + "\n", 0600);
          !item) {
        return item;
      }
    }
    if (!request.feedback_document.empty()) {
      if (auto feedback = write_file_atomically(system_env(), layout.feedback_file(run.id),
                                                request.feedback_document + "\n", 0600);
          !feedback) {
        return feedback;
      }
    }
    return write_file_atomically(system_env(), layout.manifest(run.id),
                                 manifest_text(run, fresh.steps), 0600);
  };
  hooks.after_rollback = [&](const WorkflowRun& run) {
    ::unlink(layout.item_file(run.id).c_str());
    ::unlink(layout.feedback_file(run.id).c_str());
    ::unlink(layout.manifest(run.id).c_str());
    ::rmdir(layout.workflow_run(run.id).c_str());
  };
  return store.publish_workflow_run(fresh, hooks, now);
}

}  // namespace orrery
