// The runs of loops as people and agents read them (docs/cli.md, "runs",
// "run show"; docs/server.md, "Runs"): a page of runs newest first, one
// loop's (with the goal they are turns of) or every loop's, and the links of
// a run's document.
//
// Invariants: the order is stable — newest created first, ties by id — so a
// page asked for by the cursor of the one before starts right after its last
// run, and a run created meanwhile is on no later page; a loop named but not
// found, a bad cursor or a bad page is an error and nothing is read.
#pragma once

#include <optional>
#include <string>

#include "core/goal.h"
#include "core/loop.h"
#include "core/run.h"
#include "ops/page.h"
#include "store/goal_book.h"
#include "store/loop_catalog.h"
#include "store/run_feeds.h"
#include "store/run_history.h"
#include "store/workflow_runs.h"
#include "views/run_view.h"

namespace orrery::ops {

// The largest page of runs.
inline constexpr int kMaxRunsPage = 10'000;

struct RunQuery {
  std::string loop;  // a loop's id, id prefix or name; empty: every loop's runs
  std::optional<RunStatus> status;
  PageRequest page;
};

struct RunList {
  std::optional<Loop> loop;  // the loop the query named
  std::optional<Goal> goal;  // the newest goal whose turns that loop's runs are
  Page<Run> page;
};

Result<RunList> list_runs(LoopCatalog& loops, RunHistory& runs, GoalBook& goals,
                          const RunQuery& query);

// What the run's document adds to it: the workflow run it started and what
// it fed its route. A link that cannot be read is shown as none.
RunLinks run_links(WorkflowRuns& workflow_runs, RunFeeds& feeds, const std::string& run_id);

}  // namespace orrery::ops
