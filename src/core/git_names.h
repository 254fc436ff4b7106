// Names orrery gives to git (docs/workers.md, "Branches and revisions"):
// branch names, revisions as a user writes them, and the branch of a
// worker. Pure checks, so a bad name is refused when a spec or a setting is
// given, never half-way through a merge.
//
// Invariants: a name that passes check_branch_name is one `git
// check-ref-format --branch` accepts (no component starting with '.' or
// ending with ".lock", no "..", "@{", "//", control characters, space or any
// of ~^:?*[\, not "@", not starting with '-' or ending with '/' or '.');
// a revision that passes check_revision never starts with '-', so it can
// never be read as an option.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

inline constexpr std::size_t kMaxBranchBytes = 200;

Status check_branch_name(std::string_view name, const std::string& where);
Status check_revision(std::string_view revision, const std::string& where);
// Whether a step id can be a component of a branch name (worker_branch).
Status check_branch_component(std::string_view component, const std::string& where);

// The branch of a workflow run's step worker: orrery/<run id>/<step id>.
// The whole run id: its first 12 characters are only the millisecond it was
// made in, which runs published together share (docs/workers.md).
std::string worker_branch(const std::string& run_id, const std::string& step_id);

}  // namespace orrery
