#include "exec/goal_handoff.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/agent_message.h"
#include "core/exact_json.h"
#include "core/goal_prompt.h"
#include "core/goal_update.h"
#include "exec/run_files_scrub.h"
#include "store/home_layout.h"
#include "store/regular_file.h"
#include "views/goal_view.h"

namespace orrery {

GoalHandoff goal_handoff(const Goal& goal, const std::string& dir, int attempt) {
  GoalHandoff handoff;
  handoff.goal_id = goal.id;
  handoff.node = node_to_work_on(goal);
  handoff.document = write_json(goal_json(goal));
  handoff.prompt_section = goal_prompt_section(goal);
  handoff.document_path = RunDirectory(dir).goal_document(attempt);
  handoff.update_path = RunDirectory(dir).goal_update(attempt);
  return handoff;
}

GoalHandoff workflow_goal_handoff(const Goal& goal, const std::string& run_dir) {
  GoalHandoff handoff = goal_handoff(goal, run_dir, 1);
  handoff.is_turn = false;
  auto file = read_regular_file(handoff.update_path, std::int64_t(kMaxGoalUpdateBytes));
  if (file && file->has_value()) handoff.shared_update_at_start = std::move(**file);
  return handoff;
}

Result<std::vector<EnvVar>> hand_goal_over(Env& env, const GoalHandoff& handoff) {
  // A step of a workflow goal keeps what an earlier step wrote.
  if (handoff.is_turn && ::unlink(handoff.update_path.c_str()) != 0 && errno != ENOENT) {
    return internal_error("cannot remove the stale goal update " + handoff.update_path + ": " +
                          std::strerror(errno));
  }
  if (auto written = write_file_atomically(env, handoff.document_path, handoff.document, 0600);
      !written) {
    return written.error();
  }
  return std::vector<EnvVar>{{"ORRERY_GOAL", handoff.document_path},
                             {"ORRERY_GOAL_UPDATE", handoff.update_path},
                             {"ORRERY_GOAL_ID", handoff.goal_id}};
}

namespace {

// The last goal block of an agent's final message, scrubbed.
std::optional<std::string> update_in_final_message(const Target& target, const Scrubber& scrubber,
                                                   const RunOutcome& outcome) {
  if (!target.agent) return std::nullopt;
  auto block = goal_update_in_message(final_message(target.agent->provider, outcome.stdout_tail));
  if (!block) return std::nullopt;
  return scrubber.scrub(*block);
}

void fail_step(RunOutcome& outcome, const std::string& why) {
  if (outcome.status == RunStatus::kSucceeded) outcome.status = RunStatus::kFailed;
  if (outcome.error.empty()) outcome.error = why;
}

// A step of a workflow run: the shared file is the run's update; a step
// that left it as it found it but answered with a block writes the block.
void pass_step_update_on(Env& env, const GoalHandoff& handoff, const Target& target,
                         const Scrubber& scrubber, RunOutcome& outcome) {
  // What the step wrote is scrubbed as its own files are.
  if (auto scrubbed = scrub_file_in_place(env, handoff.update_path, scrubber); !scrubbed) {
    fail_step(outcome, scrubbed.error().message);
    return;
  }
  auto file = read_regular_file(handoff.update_path, std::int64_t(kMaxGoalUpdateBytes));
  if (!file) return;  // the run's end reads it and says why
  const std::optional<std::string> now = std::move(*file);
  if (now != handoff.shared_update_at_start) return;  // the step wrote it
  auto block = update_in_final_message(target, scrubber, outcome);
  if (!block) return;
  if (auto written = write_file_atomically(env, handoff.update_path, *block, 0600); !written)
    fail_step(outcome,
              "cannot keep the goal update of the final message: " + written.error().message);
}

}  // namespace

void take_goal_update(Env& env, const GoalHandoff& handoff, const Target& target,
                      const Scrubber& scrubber, RunOutcome& outcome) {
  if (!handoff.is_turn) {
    pass_step_update_on(env, handoff, target, scrubber, outcome);
    return;
  }
  outcome.goal_id = handoff.goal_id;
  outcome.goal_node = handoff.node;
  auto file = read_regular_file(handoff.update_path, std::int64_t(kMaxGoalUpdateBytes));
  if (!file) {
    outcome.goal_update_error = "ORRERY_GOAL_UPDATE: " + file.error().message;
    return;
  }
  if (file->has_value()) {
    outcome.goal_update = scrubber.scrub(**file);
    return;
  }
  outcome.goal_update = update_in_final_message(target, scrubber, outcome);
}

void take_workflow_goal_update(Env& env, const std::string& run_dir, const Scrubber& scrubber,
                               std::optional<std::string>& update, std::string& error) {
  const std::string path = RunDirectory(run_dir).goal_update(1);
  if (auto scrubbed = scrub_file_in_place(env, path, scrubber); !scrubbed) {
    error = "ORRERY_GOAL_UPDATE: " + scrubbed.error().message;
    return;
  }
  auto file = read_regular_file(path, std::int64_t(kMaxGoalUpdateBytes));
  if (!file) {
    error = "ORRERY_GOAL_UPDATE: " + file.error().message;
  } else if (file->has_value()) {
    update = std::move(**file);
  }
}

}  // namespace orrery
