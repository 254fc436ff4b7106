#include "core/workflow_progress.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <queue>
#include <unordered_map>

#include "core/text.h"

namespace orrery {
namespace {

std::string json_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (const std::string& item : items) {
    if (out.size() > 1) out += ",";
    out += json_quote(item);
  }
  return out + "]";
}

// A JSON object written member by member, in order.
class JsonObject {
 public:
  JsonObject& raw(std::string_view key, std::string_view json) {
    if (!body_.empty()) body_ += ",";
    body_ += json_quote(key) + ":" + std::string(json);
    return *this;
  }
  JsonObject& text(std::string_view key, std::string_view value) {
    return raw(key, json_quote(value));
  }
  JsonObject& integer(std::string_view key, std::optional<int> value) {
    return raw(key, value ? std::to_string(*value) : "null");
  }
  JsonObject& boolean(std::string_view key, bool value) {
    return raw(key, value ? "true" : "false");
  }
  std::string str() const { return "{" + body_ + "}"; }

 private:
  std::string body_;
};

std::string quoted_id(const std::string& id) { return "'" + id + "'"; }

bool is_failure(StepStatus status) {
  return status == StepStatus::kFailed || status == StepStatus::kTimedOut;
}

// A failure that continue_on_failure allows.
bool is_allowed_failure(const WorkflowStep& step, StepStatus status) {
  return is_failure(status) && step.continue_on_failure;
}

// A finished dependency its dependents may run after.
bool lets_dependents_run(const WorkflowStep& dependency, StepStatus status) {
  return status == StepStatus::kSucceeded || is_allowed_failure(dependency, status);
}

// Why a finished dependency keeps its dependents from ever running, or
// nothing when it does not.
std::optional<std::string> blocking_reason(const WorkflowStep& dependency, StepStatus status) {
  const std::string name = "dependency " + quoted_id(dependency.id);
  switch (status) {
    case StepStatus::kSkipped:
      return name + " was skipped";
    case StepStatus::kCancelled:
      return name + " was cancelled";
    case StepStatus::kFailed:
      if (!dependency.continue_on_failure) return name + " failed";
      return std::nullopt;
    case StepStatus::kTimedOut:
      if (!dependency.continue_on_failure) return name + " timed out";
      return std::nullopt;
    default:
      return std::nullopt;
  }
}

// The sentence that names a step's failure in its run's error.
std::string failure_sentence(const StepRun& step, StepStatus status) {
  const std::string name = "step " + quoted_id(step.step_id);
  const std::string detail = step.error.empty() ? "" : ": " + step.error;
  switch (status) {
    case StepStatus::kTimedOut:
      if (step.error.rfind("timed out", 0) == 0) return name + " " + step.error;
      return name + " timed out" + detail;
    case StepStatus::kCancelled:
      return name + " was cancelled";
    case StepStatus::kSkipped:
      return name + " was skipped" + detail;
    default:
      if (!detail.empty()) return name + " failed" + detail;
      if (step.exit_code) return name + " failed: exit status " + std::to_string(*step.exit_code);
      return name + " failed";
  }
}

// The run as the plan sees it: spec steps, their records and their statuses
// plan decides) and the spec index of every step id.
struct RunView {
  const WorkflowSpec& spec;
  std::vector<const StepRun*> records;  // spec order
  std::vector<StepStatus> status;       // spec order, updated as the plan decides
  std::unordered_map<std::string_view, size_t> index;

  const WorkflowStep& dependency(const std::string& id) const { return spec.steps[index.at(id)]; }
  StepStatus status_of(const std::string& id) const { return status[index.at(id)]; }
};

Result<RunView> view_of(const WorkflowSpec& spec, const std::vector<StepRun>& steps) {
  RunView view{spec,
               std::vector<const StepRun*>(spec.steps.size()),
               std::vector<StepStatus>(spec.steps.size()),
               {}};
  view.index.reserve(spec.steps.size());
  for (size_t i = 0; i < spec.steps.size(); ++i) view.index.emplace(spec.steps[i].id, i);
  std::vector<bool> seen(spec.steps.size(), false);
  for (const StepRun& step : steps) {
    const auto found = view.index.find(step.step_id);
    if (found == view.index.end())
      return internal_error("workflow run step " + quoted_id(step.step_id) + " is not in its spec");
    if (seen[found->second])
      return internal_error("workflow run step " + quoted_id(step.step_id) + " has two records");
    seen[found->second] = true;
    view.records[found->second] = &step;
    view.status[found->second] = step.status;
  }
  for (size_t i = 0; i < spec.steps.size(); ++i) {
    if (!seen[i])
      return internal_error("workflow run has no record of step " + quoted_id(spec.steps[i].id));
  }
  for (const WorkflowStep& step : spec.steps) {
    for (const std::string& dependency : step.depends_on) {
      if (!view.index.contains(dependency))
        return internal_error("step " + quoted_id(step.id) + " depends on unknown step " +
                              quoted_id(dependency));
    }
  }
  return view;
}

// Spec indexes in an order where every step comes after its dependencies,
// ties broken by spec order (so a spec written in dependency order keeps
// its order). Iterative: a long chain needs no deep recursion.
std::vector<size_t> dependency_order(const RunView& view) {
  const size_t n = view.spec.steps.size();
  std::vector<int> waiting_on(n, 0);
  std::vector<std::vector<size_t>> dependents(n);
  for (size_t i = 0; i < n; ++i) {
    for (const std::string& dependency : view.spec.steps[i].depends_on) {
      dependents[view.index.at(dependency)].push_back(i);
      ++waiting_on[i];
    }
  }
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> unblocked;
  for (size_t i = 0; i < n; ++i) {
    if (waiting_on[i] == 0) unblocked.push(i);
  }
  std::vector<size_t> order;
  order.reserve(n);
  while (!unblocked.empty()) {
    const size_t i = unblocked.top();
    unblocked.pop();
    order.push_back(i);
    for (const size_t dependent : dependents[i]) {
      if (--waiting_on[dependent] == 0) unblocked.push(dependent);
    }
  }
  return order;  // a validated spec has no cycle, so every step is here
}

void finish_step(RunView& view, Progress& progress, size_t i, StepStatus to,
                 const std::string& reason, TimeMs now) {
  const std::string& id = view.spec.steps[i].id;
  progress.changes.push_back(
      StepDecision{id, view.status[i], to, now, std::nullopt, reason, std::nullopt});
  progress.events.push_back(JournalEntry{std::string("step_") + step_status_name(to), id,
                                         JsonObject().text("reason", reason).str()});
  view.status[i] = to;
}

bool blocks_any(const RunView& view) {
  for (size_t i = 0; i < view.status.size(); ++i) {
    if (blocking_reason(view.spec.steps[i], view.status[i])) return true;
  }
  return false;
}

void skip_blocked_steps(RunView& view, Progress& progress, TimeMs now) {
  if (!blocks_any(view)) return;
  for (const size_t i : dependency_order(view)) {
    if (view.status[i] != StepStatus::kPending) continue;
    for (const std::string& dependency : view.spec.steps[i].depends_on) {
      const std::optional<std::string> reason =
          blocking_reason(view.dependency(dependency), view.status_of(dependency));
      if (reason) {
        finish_step(view, progress, i, StepStatus::kSkipped, *reason, now);
        break;
      }
    }
  }
}

void cancel_pending_steps(RunView& view, Progress& progress, TimeMs now) {
  for (size_t i = 0; i < view.status.size(); ++i) {
    if (view.status[i] == StepStatus::kPending)
      finish_step(view, progress, i, StepStatus::kCancelled, "the run was cancelled", now);
    else if (view.status[i] == StepStatus::kRunning)
      progress.stop.push_back(view.spec.steps[i].id);
  }
}

void choose_ready_steps(const RunView& view, Progress& progress, int max_parallel) {
  const auto running = std::count(view.status.begin(), view.status.end(), StepStatus::kRunning);
  auto room = max_parallel - running;
  for (size_t i = 0; i < view.status.size() && room > 0; ++i) {
    if (view.status[i] != StepStatus::kPending) continue;
    const std::vector<std::string>& dependencies = view.spec.steps[i].depends_on;
    const bool ready = std::all_of(dependencies.begin(), dependencies.end(), [&](const auto& id) {
      return lets_dependents_run(view.dependency(id), view.status_of(id));
    });
    if (!ready) continue;
    progress.ready.push_back(view.spec.steps[i].id);
    --room;
  }
}

void finish_run(const RunView& view, Progress& progress, bool cancel_requested) {
  std::vector<std::string> failed;
  std::vector<std::string> allowed;
  std::optional<size_t> first_failure;
  std::optional<size_t> first_skip;
  for (size_t i = 0; i < view.status.size(); ++i) {
    const StepStatus status = view.status[i];
    const std::string& id = view.spec.steps[i].id;
    if (is_allowed_failure(view.spec.steps[i], status)) {
      allowed.push_back(id);
      continue;
    }
    if (is_failure(status)) failed.push_back(id);
    if (!first_failure && (is_failure(status) || status == StepStatus::kCancelled))
      first_failure = i;
    if (!first_skip && status == StepStatus::kSkipped) first_skip = i;
  }
  if (cancel_requested) {
    progress.finish = WorkflowRunStatus::kCancelled;
    progress.error = "the run was cancelled";
  } else if (first_failure || first_skip) {
    progress.finish = WorkflowRunStatus::kFailed;
    const size_t i = first_failure ? *first_failure : *first_skip;
    progress.error = failure_sentence(*view.records[i], view.status[i]);
  } else {
    progress.finish = WorkflowRunStatus::kSucceeded;
    std::string list;
    for (const std::string& id : allowed) list += (list.empty() ? "" : ", ") + id;
    if (!list.empty()) progress.error = "allowed failures: " + list;
  }
  progress.events.push_back(JournalEntry{workflow_run_status_name(*progress.finish), "",
                                         JsonObject()
                                             .raw("failed_steps", json_list(failed))
                                             .raw("allowed_failures", json_list(allowed))
                                             .str()});
}

}  // namespace

Result<Progress> plan_progress(const WorkflowSpec& spec, const std::vector<StepRun>& steps,
                               int max_parallel, bool cancel_requested, TimeMs now) {
  Result<RunView> view = view_of(spec, steps);
  if (!view) return view.error();
  max_parallel = std::clamp(max_parallel, 1, kMaxParallelSteps);
  Progress progress;
  if (cancel_requested) {
    cancel_pending_steps(*view, progress, now);
  } else {
    skip_blocked_steps(*view, progress, now);
    choose_ready_steps(*view, progress, max_parallel);
  }
  const bool all_finished = std::all_of(view->status.begin(), view->status.end(),
                                        [](StepStatus status) { return is_finished(status); });
  if (all_finished) finish_run(*view, progress, cancel_requested);
  return progress;
}

Result<AttemptSettlement> settle_attempt(const StepRun& step, const StepAttempt& attempt,
                                         bool cancel_requested, TimeMs now) {
  if (step.status != StepStatus::kRunning)
    return internal_error("step " + quoted_id(step.step_id) + " is " +
                          step_status_name(step.status) + ", not running: no attempt settles it");
  if (attempt.step_id != step.step_id || attempt.run_id != step.run_id)
    return internal_error("attempt " + attempt.dispatch_id + " is not one of step " +
                          quoted_id(step.step_id));
  if (!step.dispatch_id.empty() && attempt.dispatch_id != step.dispatch_id)
    return internal_error("attempt " + attempt.dispatch_id + " is not the current attempt " +
                          step.dispatch_id + " of step " + quoted_id(step.step_id));
  if (!is_terminal(attempt.status))
    return internal_error("attempt " + attempt.dispatch_id + " is " +
                          run_status_name(attempt.status) + ": it has not finished");
  const StepStatus finished = step_status_of(attempt.status);
  const bool retryable = attempt.status == RunStatus::kFailed ||
                         attempt.status == RunStatus::kTimedOut ||
                         attempt.status == RunStatus::kAbandoned;
  const int attempts_made = std::max(step.attempts, attempt.attempt);

  AttemptSettlement settlement;
  settlement.retry = retryable && attempts_made < step.max_attempts && !cancel_requested;
  settlement.usage_limited = attempt.usage_limited;
  settlement.change.step_id = step.step_id;
  settlement.change.from = StepStatus::kRunning;
  if (settlement.retry) {
    settlement.change.to = StepStatus::kPending;
  } else {
    settlement.change.to = finished;
    settlement.change.finished_at = attempt.finished_at.value_or(now);
    settlement.change.exit_code = attempt.exit_code;
    settlement.change.error = attempt.error;
    settlement.change.outputs_json = attempt.outputs_json;
  }

  JsonObject payload;
  payload.integer("attempt", attempt.attempt).integer("exit_code", attempt.exit_code);
  if (!attempt.error.empty()) payload.text("error", attempt.error);
  if (finished != StepStatus::kSucceeded) payload.boolean("retrying", settlement.retry);
  if (attempt.usage_limited) payload.boolean("usage_limited", true);
  settlement.event =
      JournalEntry{std::string("step_") + step_status_name(finished), step.step_id, payload.str()};
  return settlement;
}

void apply_decisions(std::vector<StepRun>& steps, const std::vector<StepDecision>& changes) {
  std::unordered_map<std::string_view, StepRun*> by_id;
  for (StepRun& step : steps) by_id.emplace(step.step_id, &step);
  for (const StepDecision& change : changes) {
    const auto found = by_id.find(change.step_id);
    if (found == by_id.end()) continue;
    StepRun& step = *found->second;
    step.status = change.to;
    if (change.finished_at) step.finished_at = change.finished_at;
    if (change.exit_code) step.exit_code = change.exit_code;
    if (change.error) step.error = *change.error;
    if (change.outputs_json) step.outputs_json = *change.outputs_json;
  }
}

}  // namespace orrery
