#include "exec/git.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>

#include "core/text.h"

namespace orrery {
namespace {

constexpr DurationMs kGitTimeoutMs = 10 * 60 * 1000;

// The settings every git command orrery runs has pinned, whatever the
// repository's, the user's or the system's configuration says
// (docs/workers.md, "Git settings"): what orrery reads from git and how a
// merge, a rebase or a commit behaves must not depend on them.
constexpr const char* kPinnedSettings[] = {
    "core.hooksPath=/dev/null",  // no hook runs for orrery's own commands
    "core.fsmonitor=false",      // nor a file-system monitor program
    "core.autocrlf=false",       // files are committed as the step left them
    "core.safecrlf=false",
    "core.quotePath=false",
    "color.ui=never",  // output is parsed
    "diff.external=",
    "diff.renames=false",  // a rename is the old path and the new one
    "merge.ff=true",       // squash and --no-ff as orrery asks, never "only"
    "merge.autoStash=false",
    "merge.renormalize=false",
    "merge.verifySignatures=false",
    "merge.conflictStyle=merge",
    "merge.log=false",
    "rerere.enabled=false",  // a conflict is never resolved from a record
    "rebase.autoStash=false",
    "rebase.autoSquash=false",
    "rebase.updateRefs=false",  // a rebase moves no branch but the one it is on
    "commit.gpgSign=false",
    "commit.cleanup=strip",
    "tag.gpgSign=false",
    "worktree.guessRemote=false",  // a worker's branch never tracks a remote's
    "submodule.recurse=false",
    "gc.auto=0",  // no collection in the middle of a merge
    "maintenance.auto=false",
};

// Variables that point git at another repository, index or configuration.
constexpr const char* kRemoved[] = {"GIT_DIR",
                                    "GIT_WORK_TREE",
                                    "GIT_INDEX_FILE",
                                    "GIT_OBJECT_DIRECTORY",
                                    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
                                    "GIT_COMMON_DIR",
                                    "GIT_NAMESPACE",
                                    "GIT_CEILING_DIRECTORIES",
                                    "GIT_PREFIX",
                                    "GIT_EDITOR",
                                    "GIT_SEQUENCE_EDITOR"};

// The last non-empty line of git's output, for a message.
std::string last_line(const std::string& text) {
  const std::string_view trimmed = trim(text);
  const size_t newline = trimmed.rfind('\n');
  return std::string(newline == std::string_view::npos ? trimmed : trimmed.substr(newline + 1));
}

std::vector<std::string> split_nul(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\0', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) parts.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

// An exclusive flock on the repository's top directory while its list of
// worktrees changes or is read: git does not guard `worktree add` against
// another at once (one reads the other's half-made record), so orrery's
// processes take turns. Released when it goes out of scope; a directory
// that cannot be opened is not locked (the git command then fails itself).
class WorktreeLock {
 public:
  explicit WorktreeLock(const std::string& repo)
      : fd_(::open(repo.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
    if (fd_ < 0) return;
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  WorktreeLock(const WorktreeLock&) = delete;
  WorktreeLock& operator=(const WorktreeLock&) = delete;
  ~WorktreeLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  int fd_;
};

std::string first_line(const std::string& text) {
  const size_t newline = text.find('\n');
  return text.substr(0, newline);
}

using Worktrees = std::vector<std::pair<std::string, std::string>>;

// The paths of the registered worktrees and what each has checked out
// ("refs/heads/B", or "" when detached), from `worktree list --porcelain -z`.
Result<Worktrees> worktrees_listed(const Result<CommandResult>& listed, const std::string& repo) {
  if (!listed) return listed.error();
  if (!listed->succeeded()) {
    return internal_error("git worktree list in " + repo +
                          " failed: " + visible(last_line(listed->tail)));
  }
  Worktrees worktrees;
  for (const std::string& line : split_nul(listed->stdout_text)) {
    if (line.rfind("worktree ", 0) == 0) {
      worktrees.emplace_back(line.substr(9), "");
    } else if (line.rfind("branch ", 0) == 0 && !worktrees.empty()) {
      worktrees.back().second = line.substr(7);
    }
  }
  return worktrees;
}

}  // namespace

std::vector<EnvVar> git_environment(const std::vector<EnvVar>& base) {
  std::vector<EnvVar> env;
  for (const EnvVar& pair : base) {
    const bool removed = std::any_of(std::begin(kRemoved), std::end(kRemoved),
                                     [&](const char* name) { return pair.first == name; });
    if (!removed && pair.first != "LC_ALL" && pair.first != "GIT_TERMINAL_PROMPT") {
      env.push_back(pair);
    }
  }
  env.push_back({"LC_ALL", "C"});
  env.push_back({"GIT_TERMINAL_PROMPT", "0"});
  env.push_back({"GIT_EDITOR", "true"});
  env.push_back({"GIT_SEQUENCE_EDITOR", "true"});
  return env;
}

Git::Git(CommandRunner& commands, std::vector<EnvVar> env)
    : commands_(commands), env_(git_environment(env)) {}

Result<CommandResult> Git::git(const std::string& dir, std::vector<std::string> args) {
  // git runs from / (docs/paths.md): a relative directory would be read
  // against it, not against where the user typed it.
  if (dir.empty() || dir.front() != '/') {
    std::string message("git needs an absolute directory, got '");
    message += visible(dir);
    message += "'";
    return internal_error(message);
  }
  std::vector<std::string> argv{"git"};
  for (const char* setting : kPinnedSettings) argv.insert(argv.end(), {"-c", setting});
  argv.insert(argv.end(), {"-C", dir});
  argv.insert(argv.end(), args.begin(), args.end());
  CommandRequest request;
  request.argv = std::move(argv);
  request.env = env_;
  request.cwd = "/";
  request.timeout_ms = kGitTimeoutMs;
  auto result = commands_.run(request);
  if (!result) return result.error();
  if (result->timed_out) {
    return unavailable_error("git " + (args.empty() ? std::string() : args.front()) + " in " + dir +
                             " did not end within 10 minutes");
  }
  return result;
}

// A command that must succeed; its stdout's first line.
Result<std::string> Git::git_line(const std::string& dir, std::vector<std::string> args) {
  const std::string what = "git " + args.front();
  auto result = git(dir, std::move(args));
  if (!result) return result.error();
  if (!result->succeeded()) {
    return internal_error(what + " in " + dir + " failed: " + visible(last_line(result->tail)));
  }
  return first_line(result->stdout_text);
}

// The repository's own identity when it has one, else orrery's; never a
// signing prompt.
Result<std::vector<std::string>> Git::identity_args(const std::string& dir) {
  std::vector<std::string> args{"-c", "commit.gpgsign=false"};
  auto result = git(dir, {"config", "--get-regexp", "^user\\.(name|email)$"});
  if (!result) return result.error();
  const std::string& found = result->stdout_text;  // "user.name X\nuser.email Y\n", or nothing
  const auto has = [&](const std::string& key) {
    return found.rfind(key + " ", 0) == 0 || found.find("\n" + key + " ") != std::string::npos;
  };
  if (!has("user.name")) args.insert(args.end(), {"-c", "user.name=orrery"});
  if (!has("user.email")) args.insert(args.end(), {"-c", "user.email=orrery@localhost"});
  return args;
}

Result<std::optional<std::string>> Git::toplevel(const std::string& dir) {
  auto result = git(dir, {"rev-parse", "--show-toplevel"});
  if (!result) return result.error();
  if (!result->succeeded()) return std::optional<std::string>{};
  return std::optional<std::string>{first_line(result->stdout_text)};
}

Result<std::string> Git::commit_of(const std::string& repo, const std::string& revision) {
  auto result =
      git(repo, {"rev-parse", "--verify", "--quiet", "--end-of-options", revision + "^{commit}"});
  if (!result) return result.error();
  if (!result->succeeded()) {
    const std::string why = last_line(result->tail);  // --quiet: empty for no such commit
    return not_found_error("'" + visible(revision) + "' names no commit in " + repo +
                           (why.empty() ? "" : " (git: " + visible(why) + ")"));
  }
  return first_line(result->stdout_text);
}

Result<std::string> Git::tree_of(const std::string& repo, const std::string& commit) {
  return git_line(repo, {"rev-parse", "--verify", "--end-of-options", commit + "^{tree}"});
}

Result<std::string> Git::current_branch(const std::string& dir) {
  auto result = git(dir, {"symbolic-ref", "--quiet", "--short", "HEAD"});
  if (!result) return result.error();
  if (!result->succeeded()) return std::string();
  return first_line(result->stdout_text);
}

Result<std::optional<std::string>> Git::checkout_of(const std::string& repo,
                                                    const std::string& branch) {
  WorktreeLock lock(repo);
  auto listed = worktrees_listed(git(repo, {"worktree", "list", "--porcelain", "-z"}), repo);
  if (!listed) return listed.error();
  for (const auto& [path, checked_out] : *listed) {
    if (checked_out == "refs/heads/" + branch) return std::optional<std::string>{path};
  }
  return std::optional<std::string>{};
}

Result<bool> Git::dirty(const std::string& checkout) {
  auto result = git(checkout, {"status", "--porcelain", "--untracked-files=no", "-z"});
  if (!result) return result.error();
  if (!result->succeeded()) {
    return internal_error("git status in " + checkout +
                          " failed: " + visible(last_line(result->tail)));
  }
  return !result->stdout_text.empty();
}

Status Git::add_worktree(const std::string& repo, const std::string& path,
                         const std::string& branch, const std::string& base) {
  WorktreeLock lock(repo);
  auto exists = branch_exists(repo, branch);
  if (!exists) return exists.error();
  auto added = *exists
                   ? git_line(repo, {"worktree", "add", "--quiet", "--", path, branch})
                   : git_line(repo, {"worktree", "add", "--quiet", "-b", branch, "--", path, base});
  if (!added) return added.error();
  return Ok{};
}

Status Git::add_detached_worktree(const std::string& repo, const std::string& path,
                                  const std::string& commit) {
  WorktreeLock lock(repo);
  auto added = git_line(repo, {"worktree", "add", "--quiet", "--detach", "--", path, commit});
  if (!added) return added.error();
  return Ok{};
}

Status Git::remove_worktree(const std::string& repo, const std::string& path) {
  WorktreeLock lock(repo);
  auto removed = git(repo, {"worktree", "remove", "--force", "--force", "--", path});
  if (!removed) return removed.error();
  if (removed->succeeded()) return Ok{};
  // Not a worktree (any more), its directory gone by other means, or git
  // failed: the directory goes, then the record of it, if any.
  std::error_code ignored;
  std::filesystem::remove_all(path, ignored);
  auto pruned = git_line(repo, {"worktree", "prune"});
  if (!pruned) return pruned.error();
  return Ok{};
}

Result<bool> Git::branch_exists(const std::string& repo, const std::string& branch) {
  auto result =
      git(repo, {"show-ref", "--verify", "--quiet", "--end-of-options", "refs/heads/" + branch});
  if (!result) return result.error();
  return result->succeeded();
}

Status Git::delete_branch_at(const std::string& repo, const std::string& branch,
                             const std::string& expected) {
  const std::string ref = "refs/heads/" + branch;
  if (!expected.empty()) {
    auto deleted = git(repo, {"update-ref", "-d", ref, expected});
    if (!deleted) return deleted.error();
    if (deleted->succeeded()) return Ok{};
  }
  auto exists = branch_exists(repo, branch);
  if (!exists) return exists.error();
  if (!*exists) return Ok{};  // it was not there
  auto now = commit_of(repo, ref);
  if (!now) return now.error();
  return conflict_error("branch " + branch + " in " + repo + " is at " + *now + ", not at " +
                        (expected.empty() ? std::string("a commit orrery recorded") : expected) +
                        " where orrery left it: it holds work orrery did not record, so it is "
                        "kept (git branch -D " +
                        branch + " deletes it)");
}

namespace {

std::string same_path_form(const std::string& path) {
  std::error_code ignored;
  const std::filesystem::path resolved = std::filesystem::weakly_canonical(path, ignored);
  return resolved.empty() ? path : resolved.lexically_normal().string();
}

}  // namespace

Result<bool> Git::remove_worktree_of(const std::string& repo, const std::string& path,
                                     const std::string& branch) {
  WorktreeLock lock(repo);
  auto listed = worktrees_listed(git(repo, {"worktree", "list", "--porcelain", "-z"}), repo);
  if (!listed) return listed.error();
  const std::string wanted = same_path_form(path);
  for (const auto& [registered, checked_out] : *listed) {
    if (same_path_form(registered) != wanted) continue;
    if (checked_out != "refs/heads/" + branch) return false;  // not the worker's any more
    auto removed = git(repo, {"worktree", "remove", "--force", "--force", "--", path});
    if (!removed) return removed.error();
    if (!removed->succeeded()) {
      return internal_error("git worktree remove " + path + " in " + repo +
                            " failed: " + visible(last_line(removed->tail)));
    }
    return true;
  }
  // Not registered: a record whose directory went is pruned; a directory
  // that is there is not the worker's worktree, and is left.
  auto pruned = git_line(repo, {"worktree", "prune"});
  if (!pruned) return pruned.error();
  return false;
}

Result<bool> Git::commit_all(const std::string& worktree, const std::string& message) {
  auto status = git(worktree, {"status", "--porcelain", "-z"});
  if (!status) return status.error();
  if (!status->succeeded()) {
    return internal_error("git status in " + worktree +
                          " failed: " + visible(last_line(status->tail)));
  }
  if (status->stdout_text.empty()) return false;
  if (auto added = git_line(worktree, {"add", "--all"}); !added) return added.error();
  auto identity = identity_args(worktree);
  if (!identity) return identity.error();
  std::vector<std::string> args = *identity;
  args.insert(args.end(), {"commit", "--quiet", "--no-verify", "-m", message});
  auto committed = git_line(worktree, args);
  if (!committed) return committed.error();
  return true;
}

Result<std::vector<std::string>> Git::changed_files(const std::string& repo,
                                                    const std::string& from,
                                                    const std::string& to) {
  auto result =
      git(repo, {"diff", "--no-ext-diff", "--name-only", "-z", "--no-renames", from, to, "--"});
  if (!result) return result.error();
  if (!result->succeeded()) {
    return internal_error("git diff in " + repo + " failed: " + visible(last_line(result->tail)));
  }
  std::vector<std::string> files = split_nul(result->stdout_text);
  std::sort(files.begin(), files.end());
  return files;
}

Result<std::vector<std::string>> Git::worktree_changes(const std::string& worktree,
                                                       const std::string& base) {
  auto tracked =
      git(worktree, {"diff", "--no-ext-diff", "--name-only", "-z", "--no-renames", base, "--"});
  if (!tracked) return tracked.error();
  auto untracked = git(worktree, {"ls-files", "--others", "--exclude-standard", "-z"});
  if (!untracked) return untracked.error();
  if (!tracked->succeeded() || !untracked->succeeded()) {
    return internal_error("the changes in " + worktree + " cannot be listed: " +
                          visible(last_line(tracked->tail + untracked->tail)));
  }
  std::vector<std::string> files = split_nul(tracked->stdout_text);
  for (std::string& file : split_nul(untracked->stdout_text)) files.push_back(std::move(file));
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  return files;
}

Result<std::vector<std::string>> Git::uncommitted_files(const std::string& worktree) {
  return worktree_changes(worktree, "HEAD");
}

Result<std::string> Git::merge_base(const std::string& repo, const std::string& a,
                                    const std::string& b) {
  return git_line(repo, {"merge-base", a, b});
}

Result<bool> Git::is_ancestor(const std::string& repo, const std::string& ancestor,
                              const std::string& commit) {
  auto result = git(repo, {"merge-base", "--is-ancestor", ancestor, commit});
  if (!result) return result.error();
  if (result->exit_code == 0) return true;
  if (result->exit_code == 1) return false;
  return internal_error("git merge-base in " + repo +
                        " failed: " + visible(last_line(result->tail)));
}

Result<Combined> Git::combine(const std::string& scratch, const std::string& tip,
                              const std::string& base, const std::string& candidate,
                              MergeStrategy strategy, const std::string& message) {
  auto identity_read = identity_args(scratch);
  if (!identity_read) return identity_read.error();
  const std::vector<std::string>& identity = *identity_read;
  std::vector<std::string> args = identity;
  switch (strategy) {
    case MergeStrategy::kRebase:
      // The candidate's own commits (those after its base) replayed on the tip.
      if (auto moved = git_line(scratch, {"checkout", "--quiet", "--detach", candidate}); !moved)
        return moved.error();
      args.insert(args.end(), {"rebase", "--quiet", "--onto", tip, base});
      break;
    case MergeStrategy::kMerge:
      args.insert(args.end(),
                  {"merge", "--quiet", "--no-ff", "--no-edit", "-m", message, candidate});
      break;
    case MergeStrategy::kSquash:
      args.insert(args.end(), {"merge", "--quiet", "--squash", candidate});
      break;
  }
  auto result = git(scratch, args);
  if (!result) return result.error();
  Combined combined;
  if (!result->succeeded()) {
    auto unmerged = git(scratch, {"diff", "--no-ext-diff", "--name-only", "-z", "--diff-filter=U"});
    if (!unmerged) return unmerged.error();
    combined.conflict_files = split_nul(unmerged->stdout_text);
    std::sort(combined.conflict_files.begin(), combined.conflict_files.end());
    if (combined.conflict_files.empty()) {
      return internal_error("putting " + candidate + " on " + tip +
                            " failed: " + visible(last_line(result->tail)));
    }
    combined.conflict = true;
    return combined;
  }
  if (strategy == MergeStrategy::kSquash) {
    // A candidate whose changes the tip holds already squashes to nothing:
    // the tip itself, never an empty commit (a squash is idempotent).
    auto staged = git(scratch, {"diff", "--no-ext-diff", "--cached", "--quiet"});
    if (!staged) return staged.error();
    if (staged->exit_code != 0 && staged->exit_code != 1) {
      return internal_error("git diff --cached in " + scratch +
                            " failed: " + visible(last_line(staged->tail)));
    }
    if (staged->exit_code == 1) {
      std::vector<std::string> commit = identity;
      commit.insert(commit.end(), {"commit", "--quiet", "--no-verify", "-m", message});
      if (auto made = git_line(scratch, commit); !made) return made.error();
    }
  }
  auto ids = git(scratch, {"rev-parse", "HEAD", "HEAD^{tree}"});
  if (!ids) return ids.error();
  const size_t newline = ids->stdout_text.find('\n');
  if (!ids->succeeded() || newline == std::string::npos) {
    return internal_error("git rev-parse in " + scratch +
                          " failed: " + visible(last_line(ids->tail)));
  }
  combined.commit = ids->stdout_text.substr(0, newline);
  combined.tree = first_line(ids->stdout_text.substr(newline + 1));
  return combined;
}

Result<bool> Git::swap_branch(const std::string& repo, const std::string& branch,
                              const std::string& new_commit, const std::string& old_commit) {
  auto result = git(repo, {"update-ref", "-m", "orrery: merge queue", "refs/heads/" + branch,
                           new_commit, old_commit});
  if (!result) return result.error();
  return result->succeeded();
}

Result<std::string> Git::fast_forward_checkout(const std::string& checkout,
                                               const std::string& new_commit) {
  auto result = git(checkout, {"merge", "--quiet", "--ff-only", new_commit});
  if (!result) return result.error();
  if (result->succeeded()) return std::string();
  const std::string why = last_line(result->tail);
  return why.empty() ? std::string("git merge --ff-only refused") : why;
}

}  // namespace orrery
