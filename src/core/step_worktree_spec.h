// A step's worktree fields in a spec file (docs/workers.md, "Step fields"):
// read from the step's object, validated, and written back in the same
// flat form, so encode → parse gives the same settings.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/result.h"
#include "core/step_worktree.h"
#include "core/user_path.h"

namespace orrery {

// worktree, repo, base, commit, allowed_files, merge, verify,
// target_branch, merge_strategy of `step` (whose id is step_id; `where`
// is "step 'ID' (steps[N]): "); repo is made absolute (core/user_path.h).
Result<StepWorktree> parse_step_worktree(const nlohmann::json& step, const std::string& step_id,
                                         const PathBase& paths, const std::string& where);
// Adds the fields of `settings` to a step object (none when off).
void put_step_worktree(nlohmann::json& step, const StepWorktree& settings);

}  // namespace orrery
