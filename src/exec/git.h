// Git, as workers and the merge queue use it (docs/workers.md): worktrees
// and branches, commits of what a step left, the files it changed, and the
// steps of a merge — a candidate put on a tip in a scratch worktree and the
// target moved by compare-and-swap.
//
// Invariants: every call is `git -C DIR …` through a CommandRunner, with an
// environment that names no other repository (GIT_DIR, GIT_WORK_TREE and the
// like removed), never prompts, and with the settings orrery depends on
// pinned by `-c` whatever any configuration says (no hooks, no fsmonitor,
// no signing, merge.ff=true, no autostash, no rerere, …; docs/workers.md,
// "Git settings"); revisions and names reach git only after
// core/git_names.h checked them, and after `--end-of-options` where git takes
// one; a failure is an Error naming the command and git's own last line;
// adding, removing and listing worktrees take an exclusive flock on the
// repository's top directory, so that orrery's processes never run two of
// them at once in one repository (git does not guard against it).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/merge_entry.h"
#include "core/result.h"
#include "exec/command_runner.h"

namespace orrery {

// How putting a candidate on a tip ended.
struct Combined {
  bool conflict = false;
  std::vector<std::string> conflict_files;  // with conflict
  std::string commit;                       // without: the commit to verify
  std::string tree;                         // and its tree
};

class Git {
 public:
  explicit Git(CommandRunner& commands, std::vector<EnvVar> env);

  // The repository's top-level directory, or nothing when `dir` is not in one.
  Result<std::optional<std::string>> toplevel(const std::string& dir);
  // The commit a revision names.
  Result<std::string> commit_of(const std::string& repo, const std::string& revision);
  // The tree of a commit.
  Result<std::string> tree_of(const std::string& repo, const std::string& commit);
  // The branch HEAD is on ("" when detached).
  Result<std::string> current_branch(const std::string& dir);
  // The checkout, if any, where `branch` is checked out (a main checkout or
  // a linked worktree).
  Result<std::optional<std::string>> checkout_of(const std::string& repo,
                                                 const std::string& branch);
  // Whether tracked files of a checkout have uncommitted changes.
  Result<bool> dirty(const std::string& checkout);

  // A worktree on `branch`, which is made from `base` unless it exists.
  Status add_worktree(const std::string& repo, const std::string& path, const std::string& branch,
                      const std::string& base);
  Status add_detached_worktree(const std::string& repo, const std::string& path,
                               const std::string& commit);
  // Removes the worktree (forced) and prunes its record; a worktree already
  // gone is not an error, and one git fails to remove has its directory
  // deleted and its record pruned. For orrery's own scratch worktrees only.
  Status remove_worktree(const std::string& repo, const std::string& path);
  // Removes the worktree at `path` only while it is registered with
  // `branch` checked out; a directory that is not (a user's, or another
  // branch's) is left as it is. Whether it was removed (false: left, or
  // already gone — its stale record pruned).
  Result<bool> remove_worktree_of(const std::string& repo, const std::string& path,
                                  const std::string& branch);
  // Deletes `branch` only while it is at `expected` (update-ref -d with the
  // old value); one that does not exist is not an error; one that moved is
  // a conflict naming where it is, and it is kept.
  Status delete_branch_at(const std::string& repo, const std::string& branch,
                          const std::string& expected);
  Result<bool> branch_exists(const std::string& repo, const std::string& branch);

  // Commits everything left in the worktree (new, changed, removed files)
  // with `message`; returns whether there was anything to commit.
  Result<bool> commit_all(const std::string& worktree, const std::string& message);
  // The files changed between two commits, sorted.
  Result<std::vector<std::string>> changed_files(const std::string& repo, const std::string& from,
                                                 const std::string& to);
  // The best common ancestor of two commits.
  Result<std::string> merge_base(const std::string& repo, const std::string& a,
                                 const std::string& b);
  // The files a worktree holds changed against `base`: committed, staged,
  // changed in the working tree or new (untracked, not ignored); sorted.
  Result<std::vector<std::string>> worktree_changes(const std::string& worktree,
                                                    const std::string& base);
  // What a worktree holds that no commit does: files staged, changed in the
  // working tree or new (untracked, not ignored); sorted.
  Result<std::vector<std::string>> uncommitted_files(const std::string& worktree);
  // Whether `ancestor` is an ancestor of (or equal to) `commit`.
  Result<bool> is_ancestor(const std::string& repo, const std::string& ancestor,
                           const std::string& commit);

  // In a scratch worktree detached at `tip`: the candidate put on it by the
  // strategy (rebase: its commits since `base` replayed; merge: a merge
  // commit; squash: one commit). A conflict is aborted and reported, not an
  // error.
  Result<Combined> combine(const std::string& scratch, const std::string& tip,
                           const std::string& base, const std::string& candidate,
                           MergeStrategy strategy, const std::string& message);
  // Moves refs/heads/<branch> from `old_commit` to `new_commit` only if it is
  // still at `old_commit` (git update-ref's compare-and-swap); false when it
  // moved meanwhile.
  Result<bool> swap_branch(const std::string& repo, const std::string& branch,
                           const std::string& new_commit, const std::string& old_commit);
  // Fast-forwards a clean checkout to `new_commit` (its working tree and
  // index follow): "" when done, else why git refused (the branch moved, or
  // a file there would be overwritten).
  Result<std::string> fast_forward_checkout(const std::string& checkout,
                                            const std::string& new_commit);

 private:
  Result<CommandResult> git(const std::string& dir, std::vector<std::string> args);
  Result<std::string> git_line(const std::string& dir, std::vector<std::string> args);
  Result<std::vector<std::string>> identity_args(const std::string& dir);

  CommandRunner& commands_;
  std::vector<EnvVar> env_;
};

// The environment git runs with: `base` without the variables that would
// point git elsewhere, with prompts off and a fixed locale.
std::vector<EnvVar> git_environment(const std::vector<EnvVar>& base);

}  // namespace orrery
