#include "core/step_worktree.h"

#include "core/enum_names.h"

namespace orrery {
namespace {

constexpr NameTable<WorktreeMode, 3> kWorktreeNames{{
    {WorktreeMode::kOff, "off"},
    {WorktreeMode::kAuto, "auto"},
    {WorktreeMode::kRequired, "required"},
}};
constexpr NameTable<CommitMode, 2> kCommitNames{{
    {CommitMode::kAuto, "auto"},
    {CommitMode::kNever, "never"},
}};
constexpr NameTable<MergeMode, 2> kMergeNames{{
    {MergeMode::kNone, "none"},
    {MergeMode::kQueue, "queue"},
}};

}  // namespace

const char* worktree_mode_name(WorktreeMode mode) { return enum_name(mode, kWorktreeNames); }
Result<WorktreeMode> parse_worktree_mode(std::string_view text) {
  return parse_enum_name(text, kWorktreeNames, "worktree");
}
const char* commit_mode_name(CommitMode mode) { return enum_name(mode, kCommitNames); }
Result<CommitMode> parse_commit_mode(std::string_view text) {
  return parse_enum_name(text, kCommitNames, "commit");
}
const char* merge_mode_name(MergeMode mode) { return enum_name(mode, kMergeNames); }
Result<MergeMode> parse_merge_mode(std::string_view text) {
  return parse_enum_name(text, kMergeNames, "merge");
}

}  // namespace orrery
