// HomeLayout: where every file and directory under the data directory (the
// home) is (docs/architecture.md, "Home directory layout"). RunDirectory:
// the files of one supervised job's directory, a loop run's or a step's.
//
// Invariants: every path either type gives is below the home it was made
// from (a RunDirectory is made from a directory a HomeLayout gave, passed on
// as text); no other file builds a path under the home. Ids are used as
// given. Trailing slashes of the home are dropped, so "/h/" and "/h" give
// the same paths.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace orrery {

// The directory of one supervised job: runs/<run> or
// workflow-runs/<run>/steps/<step>.
class RunDirectory {
 public:
  explicit RunDirectory(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  // The supervisor's own stdout and stderr.
  std::string supervisor_log() const;
  // The captured output of `stream` ("stdout" or "stderr"): <stream>.log.
  std::string log(std::string_view stream) const;
  std::string stdout_log() const { return log("stdout"); }
  std::string stderr_log() const { return log("stderr"); }
  // The outcome a supervisor could not write to the store.
  std::string kept_outcome() const;
  // A step attempt's ORRERY_STEPS and ORRERY_OUTPUT files.
  std::string step_values(int attempt) const;
  std::string step_output(int attempt) const;
  // The prompt an agent step's attempt was given, rendered and scrubbed.
  std::string prompt(int attempt) const;
  // A goal's turn (docs/goals.md): ORRERY_GOAL, the goal and its plan as the
  // attempt was given them, and ORRERY_GOAL_UPDATE, where it may write its
  // update.
  std::string goal_document(int attempt) const;
  std::string goal_update(int attempt) const;

  // The older part of a log after a rotation: <log>.1 (a path or a name).
  static std::string rotated_log(std::string_view log);
  // Whether a file named `name` is one of the logs orrery writes (scrubbed
  // as they are written): stdout.log, stderr.log, supervisor.log, a
  // workflow run's driver.log, or the rotated part of one.
  static bool is_log(std::string_view name);

 private:
  std::string path_;
};

class HomeLayout {
 public:
  explicit HomeLayout(std::string_view home);

  // The home as given, without trailing slashes ("/" stays "/").
  const std::string& home() const { return home_; }
  // The SQLite database when --db names none.
  std::string database() const;
  std::string secrets_directory() const;
  std::string loop_secrets(const std::string& loop_id) const;
  RunDirectory run(const std::string& run_id) const;
  std::string workflow_run(const std::string& run_id) const;
  std::string manifest(const std::string& run_id) const;
  // The work item a run serves, with its invocation (ORRERY_ITEM).
  std::string item_file(const std::string& run_id) const;
  // The item's previous attempt, when it failed (ORRERY_FEEDBACK).
  std::string feedback_file(const std::string& run_id) const;
  std::string driver_log(const std::string& run_id) const;
  RunDirectory step(const std::string& run_id, const std::string& step_id) const;
  // The directory of a workflow run's steps' directories.
  std::string workflow_steps(const std::string& run_id) const;
  // The daemon's wake-up socket.
  std::string daemon_socket() const;
  // worktrees/: a step's worker (docs/workers.md) and the merge queue's
  // scratch checkouts (worktrees/queue/<entry>).
  std::string worktrees() const;
  std::string worktree(const std::string& run_id, const std::string& step_id) const;
  std::string queue_scratch(const std::string& entry_id) const;
  static constexpr const char* kDaemonSocketName = "daemon.sock";

  // Paths relative to a home, for messages about another host's home.
  static std::string relative_run(const std::string& run_id);
  static std::string relative_run_log(const std::string& run_id, std::string_view stream);

 private:
  std::string below(std::string_view relative) const;

  std::string home_;
  std::string prefix_;  // home_ without its last slash: "" for "/"
};

}  // namespace orrery
