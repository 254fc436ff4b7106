// A workflow step's worktree settings (docs/workers.md, "Step fields"):
// whether the step runs in its own git worktree, where the repository and
// the base are, what happens to what it leaves, which files it may change,
// and whether and how its result enters the merge queue.
//
// Invariants (step_worktree_spec.h validates them): without a worktree no
// other field is set; repo, when given, is an absolute path; base and
// target_branch pass core/git_names.h; every allowed glob passes
// core/path_glob.h check_glob; verify, when given, passes
// core/merge_entry.h check_verify_command.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/merge_entry.h"
#include "core/result.h"

namespace orrery {

// off: the step runs in its directory; auto: in a worktree when the
// directory is in a git repository, else in the directory (recorded);
// required: in a worktree, or the step fails saying why.
enum class WorktreeMode { kOff, kAuto, kRequired };
// auto: what the step leaves uncommitted is committed when it reports;
// never: only its own commits count.
enum class CommitMode { kAuto, kNever };
// none: the worker stays reported until `worker enqueue`; queue: it enters
// the merge queue when it reports.
enum class MergeMode { kNone, kQueue };

const char* worktree_mode_name(WorktreeMode mode);
Result<WorktreeMode> parse_worktree_mode(std::string_view text);
const char* commit_mode_name(CommitMode mode);
Result<CommitMode> parse_commit_mode(std::string_view text);
const char* merge_mode_name(MergeMode mode);
Result<MergeMode> parse_merge_mode(std::string_view text);

struct StepWorktree {
  WorktreeMode mode = WorktreeMode::kOff;
  std::string repo;  // "" : the run's working directory
  std::string base;  // "" : HEAD of the repository when the run is published
  CommitMode commit = CommitMode::kAuto;
  std::vector<std::string> allowed_files;  // globs; empty: any file
  MergeMode merge = MergeMode::kNone;
  std::string verify;                     // "" : the queue's command
  std::string target_branch;              // "" : the queue's, else the base's branch
  std::optional<MergeStrategy> strategy;  // none: the queue's
  friend bool operator==(const StepWorktree&, const StepWorktree&) = default;
};

inline bool uses_worktree(const StepWorktree& settings) {
  return settings.mode != WorktreeMode::kOff;
}

}  // namespace orrery
