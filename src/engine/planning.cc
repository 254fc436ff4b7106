#include "engine/planning.h"

#include <algorithm>
#include <map>

#include "core/tick_plan.h"
#include "engine/daemon_lease.h"

namespace orrery {
namespace {

struct Candidate {
  TimeMs due = 0;
  std::string loop_id;
};

struct Activity {
  std::unordered_map<std::string, LoopActivity> by_loop;
  int running = 0;
};

Result<Activity> read_activity(Store& store) {
  auto runs = store.active_runs(kActiveRunsLimit);
  if (!runs) return runs.error();
  Activity activity;
  for (Run& run : *runs) {
    LoopActivity& loop = activity.by_loop[run.loop_id];
    // A pending run (left for runners) is as good as running: it counts
    // against capacity and for overlap (docs/daemon.md, "Runners").
    if (run.status == RunStatus::kRunning || run.status == RunStatus::kPending) {
      ++activity.running;
      loop.running.push_back(std::move(run));
    } else if (run.status == RunStatus::kQueued) {
      loop.queued.push_back(std::move(run));
    }
  }
  return activity;
}

// Due loops and loops holding queued rows, oldest due first, each once.
std::vector<Candidate> candidates(const std::vector<DueLoop>& due, const Activity& activity) {
  std::unordered_map<std::string, TimeMs> earliest;
  for (const DueLoop& loop : due) earliest.emplace(loop.id, loop.next_run_at);
  for (const auto& [loop_id, loop] : activity.by_loop) {
    if (loop.queued.empty()) continue;
    const TimeMs queued = loop.queued.front().scheduled_for;
    auto [it, inserted] = earliest.emplace(loop_id, queued);
    if (!inserted) it->second = std::min(it->second, queued);
  }
  std::vector<Candidate> list;
  list.reserve(earliest.size());
  for (const auto& [loop_id, due_at] : earliest) list.push_back({due_at, loop_id});
  std::sort(list.begin(), list.end(), [](const Candidate& a, const Candidate& b) {
    return a.due != b.due ? a.due < b.due : a.loop_id < b.loop_id;
  });
  return list;
}

// A loop's plan with what the daemon must do once it is committed.
struct Planned {
  std::string loop_name;
  std::vector<Run> to_stop;
  std::int64_t missed_before = 0;
  std::int64_t missed_after = 0;
};

// The reasons of the skipped slots, in the order missed, overlap, backlog:
// "missed", "missed or overlap", ...
std::string reason_text(const std::vector<SkippedSlot>& skipped) {
  std::string text;
  for (SkipReason reason : {SkipReason::kMissed, SkipReason::kOverlap, SkipReason::kBacklog}) {
    const bool any = std::any_of(skipped.begin(), skipped.end(),
                                 [reason](const SkippedSlot& s) { return s.reason == reason; });
    if (any) text += (text.empty() ? "" : " or ") + std::string(skip_reason_name(reason));
  }
  return text;
}

void log_result(const LoopPlanCommit& commit, const LoopPlanResult& result, const Planned& planned,
                const EventSink& log) {
  for (const Run& run : result.queued) {
    log("run " + run.id + " of loop " + planned.loop_name + " queued (slot " +
        format_time(run.scheduled_for) + ")");
  }
  for (const Run& run : result.pending) {
    log("run " + run.id + " of loop " + planned.loop_name + " left for runners (slot " +
        format_time(run.scheduled_for) + ", attempt " + std::to_string(run.attempt) + ")");
  }
  if (result.skipped_inserted > 0) {
    log("loop " + planned.loop_name + ": " + std::to_string(result.skipped_inserted) +
        (result.skipped_inserted == 1 ? " slot" : " slots") + " skipped (" +
        reason_text(commit.skipped) + "), " + format_time(commit.skipped.front().slot) +
        (commit.skipped.size() > 1 ? " to " + format_time(commit.skipped.back().slot) : ""));
  }
  if (planned.missed_after > planned.missed_before + std::int64_t(commit.skipped.size())) {
    log("loop " + planned.loop_name + ": " +
        std::to_string(planned.missed_after - planned.missed_before -
                       std::int64_t(commit.skipped.size())) +
        " more missed slots counted (missed_count " + std::to_string(planned.missed_after) + ")");
  }
}

}  // namespace

Result<TickReport> plan_due_loops(Store& store, const TickSettings& settings,
                                  const TickTimes& times, const CooldownMap& cooldowns,
                                  const EventSink& log) {
  TickReport report;
  auto due = store.due_loops(times.plan_now, kDueBatch);
  if (!due) return due.error();
  // More due loops than one read: another tick at once, but only after this
  // one made progress (loops that wait stay due and would be read again).
  const bool batch_full = int(due->size()) >= kDueBatch;
  auto activity = read_activity(store);
  if (!activity) return activity.error();
  const std::vector<Candidate> list = candidates(*due, *activity);
  if (list.empty()) return report;

  int capacity = std::max(0, settings.max_running - activity->running);
  std::vector<LoopPlanCommit> commits;
  std::vector<Planned> planned;
  const LoopActivity idle;
  for (const Candidate& candidate : list) {
    if (capacity == 0) break;  // every loop waits (core/tick_plan.h, rule 3)
    auto loop = store.get_loop(candidate.loop_id);
    if (!loop) return loop.error();
    if (!loop->has_value()) continue;
    const Loop& current = **loop;
    auto series = SlotSeries::compile(current.schedule, current.id);
    if (!series) {
      log("loop " + current.name + " cannot be planned: " + series.error().message);
      continue;
    }
    const auto found = activity->by_loop.find(current.id);
    const LoopActivity& loop_activity = found == activity->by_loop.end() ? idle : found->second;
    TickInput input;
    input.now = times.plan_now;
    input.watching_since = times.watching_since;
    input.capacity = capacity;
    input.cooldown_until = cooldown_of(cooldowns, current);
    auto plan = plan_loop_tick(current, *series, loop_activity, input);
    if (!plan) {
      log("loop " + current.name + " cannot be planned: " + plan.error().message);
      continue;
    }
    if (!plan->changes_anything(current) && plan->replace.empty()) continue;
    capacity -= std::min(capacity, int(plan->claim.size()));
    Planned extra{current.name, {}, current.missed_count, plan->state.missed_count};
    for (const std::string& id : plan->replace) {
      for (const Run& run : loop_activity.running) {
        if (run.id == id) extra.to_stop.push_back(run);
      }
    }
    commits.push_back({current.id, current.state_version, std::move(plan->claim),
                       std::move(plan->queue), std::move(plan->skipped), plan->state,
                       settings.to_runners});
    planned.push_back(std::move(extra));
  }
  if (commits.empty()) return report;

  auto results = store.commit_plans(commits, settings.claimant, times.now, settings.fence);
  if (!results) return results.error();
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < commits.size(); ++i) index.emplace(commits[i].loop_id, i);
  for (LoopPlanResult& result : *results) {
    const auto at = index.find(result.loop_id);
    if (at == index.end()) continue;
    const Planned& extra = planned[at->second];
    if (!result.applied) {
      log("loop " + extra.loop_name + " changed while it was planned; planning it again");
      report.retry_soon = true;
      continue;
    }
    log_result(commits[at->second], result, extra, log);
    if (result.claimed.size() + result.pending.size() < commits[at->second].claim.size()) {
      report.handed_over = true;
    }
    report.more = batch_full;
    report.pending += int(result.pending.size());
    for (ClaimedRun& claimed : result.claimed) report.claimed.push_back(std::move(claimed));
    report.replaced.insert(report.replaced.end(), extra.to_stop.begin(), extra.to_stop.end());
  }
  return report;
}

}  // namespace orrery
