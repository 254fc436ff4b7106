#include "exec/step_supervisor.h"

#include <fcntl.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/attempt_feedback.h"
#include "core/feedback_prompt.h"
#include "core/prompt_values.h"
#include "core/step_values.h"
#include "exec/clock.h"
#include "exec/run_secrets.h"
#include "exec/supervisor.h"
#include "exec/wake.h"
#include "exec/worker_run.h"
#include "store/data_dir.h"
#include "store/home_layout.h"
#include "store/regular_file.h"

namespace orrery {
namespace {

// What a step attempt needs from the store, read before it starts.
struct StepContext {
  StepAttempt attempt;
  WorkflowRun run;
  WorkflowSpec spec;
  WorkflowStep step;
  std::vector<StepRun> steps;
};

Result<StepContext> read_context(Store& store, const StepSuperviseRequest& request) {
  StepContext context;
  auto attempt = store.get_step_attempt(request.dispatch_id);
  if (!attempt) return attempt.error();
  if (!attempt->has_value() || (*attempt)->status != RunStatus::kRunning ||
      (*attempt)->claim_token != request.token) {
    return conflict_error("step attempt " + request.dispatch_id +
                          " is not running under this claim token");
  }
  context.attempt = **attempt;
  auto run = store.get_workflow_run(context.attempt.run_id);
  if (!run) return run.error();
  if (!run->has_value())
    return not_found_error("the workflow run of " + request.dispatch_id + " is gone");
  context.run = **run;
  auto workflow = store.get_workflow(context.run.workflow_id);
  if (!workflow) return workflow.error();
  if (!workflow->has_value())
    return not_found_error("the workflow of " + request.dispatch_id + " is gone");
  const auto& steps = (*workflow)->spec.steps;
  auto step = std::find_if(steps.begin(), steps.end(), [&](const WorkflowStep& candidate) {
    return candidate.id == context.attempt.step_id;
  });
  if (step == steps.end())
    return not_found_error("the step of " + request.dispatch_id + " is gone");
  context.step = *step;
  context.spec = (*workflow)->spec;
  auto step_runs = store.list_step_runs(context.run.id);
  if (!step_runs) return step_runs.error();
  context.steps = std::move(*step_runs);
  return context;
}

SupervisedJob step_job(const StepSuperviseRequest& request, const StepContext& context) {
  const StepAttempt& attempt = context.attempt;
  SupervisedJob job;
  job.claim = Claim{attempt.dispatch_id, attempt.claimed_by, request.token, WorkKind::kStepAttempt};
  job.dir = HomeLayout(request.home).step(attempt.run_id, attempt.step_id).path();
  job.target = context.step.target;
  if (job.target.cwd.empty()) job.target.cwd = context.run.cwd;
  const DurationMs lease =
      attempt.lease_expires_at ? *attempt.lease_expires_at - attempt.started_at : 0;
  job.lease_ms = lease > 0 ? lease : kDefaultStepLeaseMs;
  job.lease_expires_at = attempt.lease_expires_at.value_or(wall_clock_now() + job.lease_ms);
  job.timeout_ms = context.step.timeout_ms;
  job.attempt = attempt.attempt;
  job.started_at = attempt.started_at;
  job.cooldown_account = step_account(context.step);
  job.outputs_path = RunDirectory(job.dir).step_output(attempt.attempt);
  return job;
}

// A file of one attempt, written whole but not synced: an attempt that
// runs again writes its files again.
Status write_scratch_file(Env& env, const std::string& path, const std::string& text) {
  const int fd = env.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) return internal_error("cannot write " + path + ": " + std::strerror(errno));
  Status written = write_all(env, fd, text, path);
  env.close(fd);
  return written;
}

// The values file of the steps finished so far, and an empty ORRERY_OUTPUT.
Status write_step_files(Env& env, const SupervisedJob& job, const StepContext& context,
                        const std::string& steps_path) {
  if (auto made = prepare_data_dir(job.dir); !made) return made;
  if (auto written =
          write_scratch_file(env, steps_path, steps_document(context.spec, context.steps));
      !written)
    return written;
  return write_scratch_file(env, job.outputs_path, "");
}

// The previous failed attempt of the item a run serves, as written at
// publication (docs/fleet.md): "" when there is none.
Result<std::string> item_feedback(const std::string& home, const WorkflowRun& run) {
  if (run.item_id.empty()) return std::string();
  auto file = read_regular_file(HomeLayout(home).feedback_file(run.id), kMaxFeedbackBytes);
  if (!file) return file.error();
  return file->value_or("");
}

// The work item a run serves (docs/admission.md): ORRERY_ITEM_ID, _KEY,
// ORRERY_ROUTE and ORRERY_ITEM, the item.json written at publication, and
// ORRERY_FEEDBACK when its previous attempt failed. An item deleted since
// (its route removed) leaves the id and the files.
Result<std::vector<EnvVar>> item_environment(Store& store, const std::string& home,
                                             const WorkflowRun& run, bool has_feedback) {
  std::vector<EnvVar> vars{{"ORRERY_ITEM_ID", run.item_id},
                           {"ORRERY_ITEM", HomeLayout(home).item_file(run.id)}};
  if (has_feedback) vars.push_back({"ORRERY_FEEDBACK", HomeLayout(home).feedback_file(run.id)});
  auto item = store.get_item(run.item_id);
  if (!item) return item.error();
  if (*item) {
    vars.push_back({"ORRERY_ITEM_KEY", (*item)->key});
    vars.push_back({"ORRERY_ROUTE", (*item)->route_name});
  }
  return vars;
}

// The attempt's worker, when its step runs in a worktree (docs/workers.md).
WorkerAttempt worker_attempt(const StepSuperviseRequest& request, const StepContext& context,
                             const SupervisedJob& job) {
  WorkerAttempt attempt;
  attempt.home = request.home;
  attempt.workflow_name = context.run.workflow_name;
  attempt.run_id = context.attempt.run_id;
  attempt.step_id = context.attempt.step_id;
  attempt.dispatch_id = context.attempt.dispatch_id;
  attempt.attempt = job.attempt;
  attempt.max_attempts = context.step.retries + 1;
  attempt.lease_ms = job.lease_ms;
  attempt.host = context.attempt.host;
  attempt.settings = context.step.worktree;
  return attempt;
}

// What the step's prompt template is filled in from (core/prompt_values.h).
Result<std::string> prompt_values(Store& store, const StepContext& context,
                                  const SupervisedJob& job) {
  const WorkflowRun& run = context.run;
  PromptValuesInput input;
  if (!run.item_id.empty()) {
    auto item = store.get_item(run.item_id);
    if (!item) return item.error();
    input.item = std::move(*item);
  }
  input.run_id = run.id;
  input.step_attempt = job.attempt;
  input.run_input_json = run.input_json;
  input.workflow_name = run.workflow_name;
  if (job.goal) input.goal_document = job.goal->document;
  input.feedback_section = job.prompt_feedback;
  input.steps_document = steps_document(context.spec, context.steps);
  return prompt_values_json(input);
}

}  // namespace

Status supervise_step(Store& store, const StepSuperviseRequest& request, Env& env) {
  auto context = read_context(store, request);
  if (!context) return context.error();
  SupervisedJob job = step_job(request, *context);
  auto goal = store.goal_of_work(job.claim, wall_clock_now());
  if (!goal) return goal.error();
  if (*goal && (*goal)->target.type == GoalTargetType::kWorkflow) {
    job.goal = workflow_goal_handoff(
        **goal, HomeLayout(request.home).workflow_run(context->attempt.run_id));
  } else if (*goal) {
    job.goal = goal_handoff(**goal, job.dir, job.attempt);
  }
  const std::string steps_path = RunDirectory(job.dir).step_values(job.attempt);
  const WorkflowRun& run = context->run;
  auto feedback = item_feedback(request.home, run);
  if (!feedback) return feedback.error();
  job.prompt_feedback = feedback_prompt_section(*feedback);
  if (job.target.agent) {
    auto values = prompt_values(store, *context, job);
    if (!values) return values.error();
    job.prompt_values = std::move(*values);
  }
  std::optional<Git> git;
  std::optional<WorkerRun> worker;
  if (uses_worktree(context->step.worktree)) {
    job.on_beat = [&]() -> Status { return worker ? worker->heartbeat(wall_clock_now()) : Ok{}; };
    job.before_finish = [&](RunOutcome& outcome) {
      if (!worker) return;
      worker->finish(outcome, wall_clock_now());
      if (worker->enqueued()) notify_daemon(request.home);  // the daemon drives the queue
    };
  }
  const JobSetup setup = [&](const std::vector<EnvVar>& inherited) -> Result<JobEnvironment> {
    if (auto written = write_step_files(env, job, *context, steps_path); !written)
      return written.error();
    JobEnvironment prepared;
    prepared.environment = inherited;
    // A loop's workflow run: its steps have the loop's secrets, and are
    // scrubbed of them, as the loop's run is (docs/workflows.md).
    auto secrets = loop_secrets_of(request.home, run);
    if (!secrets) return secrets.error();
    for (const EnvVar& pair : *secrets) {
      std::erase_if(prepared.environment,
                    [&](const EnvVar& old) { return old.first == pair.first; });
      prepared.environment.push_back(pair);
      prepared.secret_values.push_back(pair.second);
    }
    if (uses_worktree(context->step.worktree)) {
      git.emplace(system_commands(), inherited);
      worker.emplace(store, store, store, *git, worker_attempt(request, *context, job));
      auto cwd = worker->prepare(job.target.cwd, wall_clock_now());
      if (!cwd) return cwd.error();
      prepared.cwd = *cwd;
      prepared.note = worker->note();
    }
    std::vector<EnvVar> own{
        {"ORRERY_HOME", request.home},
        {"ORRERY_WORKFLOW_ID", run.workflow_id},
        {"ORRERY_WORKFLOW_NAME", run.workflow_name},
        {"ORRERY_WORKFLOW_RUN_ID", run.id},
        {"ORRERY_STEP_ID", context->attempt.step_id},
        {"ORRERY_ATTEMPT", std::to_string(job.attempt)},
        {"ORRERY_INPUT", run.input_json},
        {"ORRERY_OUTPUT", job.outputs_path},
        {"ORRERY_STEPS", steps_path},
    };
    if (!run.item_id.empty()) {
      auto item_vars = item_environment(store, request.home, run, !feedback->empty());
      if (!item_vars) return item_vars.error();
      own.insert(own.end(), item_vars->begin(), item_vars->end());
    }
    for (const EnvVar& pair : own) {
      std::erase_if(prepared.environment,
                    [&](const EnvVar& old) { return old.first == pair.first; });
      prepared.environment.push_back(pair);
    }
    return prepared;
  };
  return supervise_job(store, store, job, setup, env);
}

}  // namespace orrery
