// orrery_labels_within(selector, labels) for SQLite: whether a runner's
// labels (the stored form LABEL=VALUE,..., core/runner_labels.h) hold every
// pair of a loop's stored --machine selector ([["LABEL","VALUE"], ...]) —
// the same function PostgreSQL's schema defines in SQL, so that a runner's
// claim is one SQL text on both (docs/daemon.md, "Runners"). A stored value
// that is not one of these forms is an error of the statement, not a match.
#pragma once

#include "core/result.h"

struct sqlite3;

namespace orrery::sqlite {

Status register_labels_function(sqlite3* db);

}  // namespace orrery::sqlite
