// The fixture of the workflow part of the Store conformance suite
// (tests/store/workflow_*conformance_test.cc): StoreConformance's stores of
// each backend, with helpers that create specs, publish runs, take engine
// leases and reserve attempts (docs/workflows.md, "Storage").
#pragma once

#include <gtest/gtest.h>

#include "store/store_conformance.h"

namespace orrery::conformance {

inline constexpr DurationMs kLease = 30'000;

// Asserts a Result is ok and gives its value.
template <typename T>
T ok_value(Result<T> result) {
  EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
  return result.ok() ? std::move(*result) : T{};
}

inline bool is_conflict(const Status& status) {
  return !status.ok() && status.error().code == ErrorCode::kConflict;
}
template <typename T>
bool is_conflict(const Result<T>& result) {
  return !result.ok() && result.error().code == ErrorCode::kConflict;
}
template <typename T>
bool is_not_found(const Result<T>& result) {
  return !result.ok() && result.error().code == ErrorCode::kNotFound;
}
inline bool is_lease_lost(const Status& status) {
  return is_conflict(status) && status.error().message == "engine lease lost";
}
template <typename T>
bool is_lease_lost(const Result<T>& result) {
  return is_conflict(result) && result.error().message == "engine lease lost";
}

class WorkflowConformance : public StoreConformance {
 protected:
  // A spec of command steps; each step depends on the ids after its ':'
  // ("b:a" depends on a).
  static WorkflowSpec make_spec(const std::string& name, std::vector<std::string> steps = {"a"}) {
    WorkflowSpec spec;
    spec.name = name;
    spec.description = "about " + name;
    spec.goal = "goal of " + name;
    for (const std::string& text : steps) {
      WorkflowStep step;
      const size_t colon = text.find(':');
      step.id = text.substr(0, colon);
      if (colon != std::string::npos) step.depends_on = {text.substr(colon + 1)};
      step.target.argv = {"/bin/echo", step.id};
      spec.steps.push_back(std::move(step));
    }
    return spec;
  }

  std::string next_id(TimeMs at = kNow) {
    std::array<std::uint8_t, 10> bytes{};
    bytes[0] = std::uint8_t(++ids_);
    bytes[1] = std::uint8_t(ids_ >> 8);
    bytes[9] = 0x77;
    return make_id(at, bytes);
  }

  Workflow add_workflow(const std::string& name, std::vector<std::string> steps = {"a"},
                        TimeMs now = kNow) {
    return ok_value(store_->create_workflow(make_spec(name, std::move(steps)), next_id(now), now));
  }

  static NewWorkflowRun new_run(const Workflow& workflow, const std::string& key = "") {
    NewWorkflowRun published;
    published.run.workflow_id = workflow.id;
    published.run.workflow_name = workflow.name;
    published.run.workflow_version = workflow.version;
    published.run.input_json = R"({"x":"1"})";
    published.run.idempotency_key = key;
    published.run.cwd = "/tmp";
    int sequence = 0;
    for (const WorkflowStep& step : workflow.spec.steps) {
      StepRun run;
      run.step_id = step.id;
      run.sequence = ++sequence;
      run.max_attempts = step.retries + 1;
      published.steps.push_back(run);
    }
    return published;
  }

  WorkflowRun publish(const Workflow& workflow, TimeMs now = kNow, const std::string& key = "") {
    NewWorkflowRun published = new_run(workflow, key);
    published.run.id = next_id(now);
    return ok_value(store_->publish_workflow_run(published, {}, now)).run;
  }

  // A run of a new workflow whose steps allow `max_attempts` each.
  WorkflowRun publish_steps(std::vector<std::string> steps, int max_attempts = 2) {
    Workflow workflow = add_workflow("wf-" + std::to_string(ids_ + 1), std::move(steps));
    NewWorkflowRun published = new_run(workflow);
    published.run.id = next_id();
    for (StepRun& step : published.steps) step.max_attempts = max_attempts;
    return ok_value(store_->publish_workflow_run(published, {}, kNow)).run;
  }

  EngineFence drive(const WorkflowRun& run, const std::string& driver = "drive@a:1",
                    TimeMs now = kNow) {
    auto fence = ok_value(store_->acquire_engine_lease(run.id, driver, kLease, now));
    EXPECT_TRUE(fence.has_value()) << "the engine lease was not acquired";
    return fence.value_or(EngineFence{});
  }

  static StepReserve reserve_of(const WorkflowRun& run, const std::string& step, int attempt,
                                bool holder_dead = false) {
    StepReserve request;
    request.step_id = step;
    request.dispatch_id = dispatch_id(run.id, step, attempt);
    request.claimant = "drive@a:1";
    request.host = "host-a";
    request.lease_ms = kLease;
    request.holder_dead = holder_dead;
    return request;
  }

  Reservation reserve(const EngineFence& fence, const WorkflowRun& run, const std::string& step,
                      int attempt, TimeMs now = kNow, bool holder_dead = false) {
    return ok_value(
        store_->reserve_step_attempt(fence, reserve_of(run, step, attempt, holder_dead), now));
  }

  static Claim claim_of(const StepAttempt& attempt) { return orrery::claim_of(attempt); }

  // Finishes an attempt's claim with these outputs.
  Status finalize_attempt(const Claim& claim, RunOutcome outcome, const std::string& outputs,
                          TimeMs now) {
    outcome.outputs_json = outputs;
    return store_->finish_claim(claim, outcome, now);
  }

  std::vector<WorkflowEvent> events(const std::string& run_id) {
    return ok_value(store_->list_workflow_events(run_id, 0, 1000));
  }

  std::vector<std::string> event_types(const std::string& run_id) {
    std::vector<std::string> types;
    for (const WorkflowEvent& event : events(run_id)) {
      types.push_back(event.event_type + (event.step_id.empty() ? "" : ":" + event.step_id));
    }
    return types;
  }

  WorkflowRun run_now(const std::string& id) {
    auto run = ok_value(store_->get_workflow_run(id));
    EXPECT_TRUE(run.has_value());
    return run.value_or(WorkflowRun{});
  }

  StepRun step_now(const std::string& run_id, const std::string& step_id) {
    for (StepRun& step : ok_value(store_->list_step_runs(run_id))) {
      if (step.step_id == step_id) return step;
    }
    ADD_FAILURE() << "no step " << step_id;
    return StepRun{};
  }

  std::size_t attempt_count(const std::string& run_id) {
    return ok_value(store_->list_step_attempts(run_id)).size();
  }
};

}  // namespace orrery::conformance
