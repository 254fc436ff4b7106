#include "ops/runs.h"

#include "core/page_cursor.h"

namespace orrery::ops {
namespace {

Result<RunFilter> run_filter(LoopCatalog& loops, const RunQuery& query,
                             std::optional<Loop>& named) {
  RunFilter filter;
  filter.status = query.status;
  filter.limit = query.page.limit;
  filter.offset = query.page.offset;
  if (!query.page.cursor.empty()) {
    auto after = parse_cursor(query.page.cursor);
    if (!after) return after.error();
    filter.after = *after;
  }
  if (!query.loop.empty()) {
    auto loop = loops.resolve_loop(query.loop);
    if (!loop) return loop.error();
    filter.loop_id = loop->id;
    named = *loop;
  }
  return filter;
}

// The newest goal whose turns are the loop's runs (docs/goals.md).
Result<std::optional<Goal>> newest_goal_of(GoalBook& goals, const std::string& loop_id) {
  GoalFilter newest;
  newest.loop_id = loop_id;
  newest.limit = 1;
  auto listed = goals.list_goals(newest);
  if (!listed) return listed.error();
  if (listed->empty()) return std::optional<Goal>{};
  return std::optional<Goal>{std::move(listed->front())};
}

}  // namespace

Result<RunList> list_runs(LoopCatalog& loops, RunHistory& runs, GoalBook& goals,
                          const RunQuery& query) {
  if (auto checked = check_page_request(query.page, kMaxRunsPage); !checked) {
    return checked.error();
  }
  RunList list;
  auto filter = run_filter(loops, query, list.loop);
  if (!filter) return filter.error();
  auto listed = runs.list_runs(*filter);
  if (!listed) return listed.error();
  list.page.rows = std::move(*listed);
  // The rest is counted from the page's start: after its cursor, or from
  // the newest run at its offset.
  auto place = listed_page(filter->offset, filter->limit, list.page.rows.size(),
                           [&] { return runs.count_matching_runs(*filter); });
  if (!place) return place.error();
  list.page.place = *place;
  if (place->rest > 0 && !list.page.rows.empty()) {
    const Run& last = list.page.rows.back();
    list.page.next_cursor = cursor_text({last.created_at, last.id});
  }
  if (list.loop) {
    auto goal = newest_goal_of(goals, list.loop->id);
    if (!goal) return goal.error();
    list.goal = std::move(*goal);
  }
  return list;
}

RunLinks run_links(WorkflowRuns& workflow_runs, RunFeeds& feeds, const std::string& run_id) {
  RunLinks links;
  WorkflowRunFilter started;
  started.loop_run_id = run_id;
  started.limit = 1;
  auto workflow_run = workflow_runs.list_workflow_runs(started);
  if (workflow_run && !workflow_run->empty()) links.workflow_run_id = workflow_run->front().id;
  auto feed = feeds.get_feed(run_id);
  if (feed && feed->has_value()) links.feed = **feed;
  return links;
}

}  // namespace orrery::ops
