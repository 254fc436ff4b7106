#include "store/home_layout.h"

namespace orrery {
namespace {

std::string joined(std::string_view dir, std::string_view name) {
  std::string path(dir);
  path += '/';
  path += name;
  return path;
}

}  // namespace

std::string RunDirectory::supervisor_log() const { return joined(path_, "supervisor.log"); }

std::string RunDirectory::log(std::string_view stream) const {
  return joined(path_, std::string(stream) + ".log");
}

std::string RunDirectory::kept_outcome() const { return joined(path_, "outcome.json"); }

std::string RunDirectory::step_values(int attempt) const {
  return joined(path_, "steps." + std::to_string(attempt) + ".json");
}

std::string RunDirectory::step_output(int attempt) const {
  return joined(path_, "output." + std::to_string(attempt));
}

std::string RunDirectory::prompt(int attempt) const {
  return joined(path_, "prompt." + std::to_string(attempt) + ".txt");
}

std::string RunDirectory::goal_document(int attempt) const {
  return joined(path_, "goal." + std::to_string(attempt) + ".json");
}

std::string RunDirectory::goal_update(int attempt) const {
  return joined(path_, "goal-update." + std::to_string(attempt) + ".json");
}

std::string RunDirectory::rotated_log(std::string_view log) { return std::string(log) + ".1"; }

bool RunDirectory::is_log(std::string_view name) {
  if (name.ends_with(".1")) name.remove_suffix(2);
  return name == "stdout.log" || name == "stderr.log" || name == "supervisor.log" ||
         name == "driver.log";
}

HomeLayout::HomeLayout(std::string_view home) {
  std::string_view trimmed = home;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.remove_suffix(1);
  prefix_ = std::string(trimmed);
  home_ = trimmed.empty() && !home.empty() ? "/" : prefix_;
}

std::string HomeLayout::below(std::string_view relative) const { return joined(prefix_, relative); }

std::string HomeLayout::database() const { return below("orrery.db"); }

std::string HomeLayout::secrets_directory() const { return below("secrets"); }

std::string HomeLayout::loop_secrets(const std::string& loop_id) const {
  return joined(secrets_directory(), loop_id + ".env");
}

RunDirectory HomeLayout::run(const std::string& run_id) const {
  return RunDirectory(below(relative_run(run_id)));
}

std::string HomeLayout::workflow_run(const std::string& run_id) const {
  return below("workflow-runs/" + run_id);
}

std::string HomeLayout::manifest(const std::string& run_id) const {
  return joined(workflow_run(run_id), "manifest.json");
}

std::string HomeLayout::item_file(const std::string& run_id) const {
  return joined(workflow_run(run_id), "item.json");
}

std::string HomeLayout::feedback_file(const std::string& run_id) const {
  return joined(workflow_run(run_id), "feedback.json");
}

std::string HomeLayout::worktrees() const { return below("worktrees"); }

std::string HomeLayout::worktree(const std::string& run_id, const std::string& step_id) const {
  return joined(worktrees(), run_id + "/" + step_id);
}

std::string HomeLayout::queue_scratch(const std::string& entry_id) const {
  return joined(worktrees(), "queue/" + entry_id);
}

std::string HomeLayout::driver_log(const std::string& run_id) const {
  return joined(workflow_run(run_id), "driver.log");
}

RunDirectory HomeLayout::step(const std::string& run_id, const std::string& step_id) const {
  return RunDirectory(joined(workflow_steps(run_id), step_id));
}

std::string HomeLayout::workflow_steps(const std::string& run_id) const {
  return joined(workflow_run(run_id), "steps");
}

std::string HomeLayout::daemon_socket() const { return below(kDaemonSocketName); }

std::string HomeLayout::relative_run(const std::string& run_id) { return "runs/" + run_id; }

std::string HomeLayout::relative_run_log(const std::string& run_id, std::string_view stream) {
  return RunDirectory(relative_run(run_id)).log(stream);
}

}  // namespace orrery
