// A kept outcome: a run's result that its supervisor could not write to the
// store, kept in <run dir>/outcome.json so that recovery records it instead
// of running the work again (docs/execution.md, "Recovery").
//
// Invariants: the file is written whole or not at all (temporary file,
// fsync, rename, directory fsync); it names the claim token it was
// recorded under, so it applies only to that claim.
#pragma once

#include <optional>
#include <string>

#include "core/result.h"
#include "exec/env.h"
#include "store/claim_ledger.h"

namespace orrery {

struct KeptOutcome {
  std::string claim_token;
  TimeMs finished_at = 0;
  RunOutcome outcome;
};

std::string kept_outcome_path(const std::string& run_dir);

Status keep_outcome(Env& env, const std::string& run_dir, const KeptOutcome& kept);

// The kept outcome in `run_dir`, nothing when there is none; a damaged file
// is an error naming it.
Result<std::optional<KeptOutcome>> read_kept_outcome(const std::string& run_dir);

}  // namespace orrery
