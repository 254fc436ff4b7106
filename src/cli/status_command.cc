#include "cli/status_command.h"

#include <iostream>
#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/goal_commands.h"
#include "cli/handles.h"
#include "cli/human.h"
#include "cli/store_access.h"
#include "core/duration.h"
#include "core/text.h"
#include "views/admission_view.h"
#include "views/document_text.h"
#include "views/run_view.h"

namespace orrery::cli {
namespace {

// At most this many running runs are listed; the count says how many more.
constexpr int kRunningShown = 100;

constexpr LoopStatus kLoopStatuses[] = {LoopStatus::kActive, LoopStatus::kPaused,
                                        LoopStatus::kExpired, LoopStatus::kCompleted};
constexpr RunStatus kRunStatuses[] = {
    RunStatus::kRunning,   RunStatus::kPending, RunStatus::kQueued,
    RunStatus::kSucceeded, RunStatus::kFailed,  RunStatus::kTimedOut,
    RunStatus::kAbandoned, RunStatus::kSkipped, RunStatus::kCancelled};

struct NextDue {
  std::string loop_id;
  std::string loop_name;
  TimeMs at = 0;
};

struct Snapshot {
  std::optional<DaemonLease> lease;
  std::vector<std::pair<LoopStatus, std::int64_t>> loops;  // unarchived, by status
  std::int64_t archived = 0;
  std::vector<std::pair<RunStatus, std::int64_t>> runs;
  std::vector<Run> running;  // at most kRunningShown, newest first
  std::optional<NextDue> next_due;
  std::vector<Cooldown> cooldowns;
  std::vector<RunnerRecord> runners;
  std::vector<Route> routes;                  // by name
  std::map<std::string, ItemCounts> items;    // by route id
  std::vector<Goal> goals;                    // open ones, newest first, at most kGoalsShown
  std::vector<Worker> held_workers;           // on hold, newest first, at most kGoalsShown
  std::map<std::string, std::int64_t> queue;  // merge queue entries by state, open ones
  // The handles the human form shows (cli/handles.h), one for each of
  // `running`, `goals` and `held_workers`.
  std::vector<std::string> running_handles;
  std::vector<std::string> goal_handles;
  std::vector<std::string> worker_handles;
};

// At most this many open goals are listed; `orrery goal ls` lists them all.
constexpr size_t kGoalsShown = 20;

// At most this many routes are listed; `orrery route ls` lists them all.
constexpr size_t kRoutesShown = 50;

// A lease is held while it has not expired.
bool held(const Snapshot& snapshot, TimeMs now) {
  return snapshot.lease && snapshot.lease->expires_at > now;
}

std::int64_t runs_with(const Snapshot& snapshot, RunStatus status) {
  for (const auto& [each, count] : snapshot.runs) {
    if (each == status) return count;
  }
  return 0;
}

Status read_loops(Store& store, Snapshot& snapshot) {
  for (LoopStatus status : kLoopStatuses) {
    LoopFilter filter;
    filter.status = status;
    auto count = store.count_loops(filter);
    if (!count) return count.error();
    snapshot.loops.emplace_back(status, *count);
  }
  LoopFilter archived;
  archived.archived = LoopFilter::Archived::kOnly;
  auto count = store.count_loops(archived);
  if (!count) return count.error();
  snapshot.archived = *count;
  // Loops are listed by status, then next run: the first active one is due first.
  LoopFilter active;
  active.status = LoopStatus::kActive;
  active.limit = 1;
  auto first = store.list_loops(active);
  if (!first) return first.error();
  if (!first->empty() && first->front().next_run_at) {
    const Loop& loop = first->front();
    snapshot.next_due = NextDue{loop.id, loop.name, *loop.next_run_at};
  }
  return Ok{};
}

Status read_runs(Store& store, Snapshot& snapshot) {
  for (RunStatus status : kRunStatuses) {
    auto count = store.count_runs(status);
    if (!count) return count.error();
    snapshot.runs.emplace_back(status, *count);
  }
  RunFilter running;
  running.status = RunStatus::kRunning;
  running.limit = kRunningShown;
  auto runs = store.list_runs(running);
  if (!runs) return runs.error();
  snapshot.running = std::move(*runs);
  return Ok{};
}

Status read_handles(Store& store, Snapshot& snapshot) {
  auto running = column_handles(store, IdTable::kRuns, snapshot.running, &Run::id);
  if (!running) return running.error();
  auto goals = column_handles(store, IdTable::kGoals, snapshot.goals, &Goal::id);
  if (!goals) return goals.error();
  auto workers = column_handles(store, IdTable::kWorkers, snapshot.held_workers, &Worker::id);
  if (!workers) return workers.error();
  snapshot.running_handles = std::move(*running);
  snapshot.goal_handles = std::move(*goals);
  snapshot.worker_handles = std::move(*workers);
  return Ok{};
}

Result<Snapshot> read_snapshot(Store& store, TimeMs now) {
  Snapshot snapshot;
  auto lease = store.get_daemon_lease();
  if (!lease) return lease.error();
  snapshot.lease = *lease;
  if (auto loops = read_loops(store, snapshot); !loops) return loops.error();
  if (auto runs = read_runs(store, snapshot); !runs) return runs.error();
  auto cooldowns = store.active_cooldowns(now);
  if (!cooldowns) return cooldowns.error();
  snapshot.cooldowns = std::move(*cooldowns);
  auto runners = store.list_runners();
  if (!runners) return runners.error();
  snapshot.runners = std::move(*runners);
  auto routes = store.list_routes();
  if (!routes) return routes.error();
  snapshot.routes = std::move(*routes);
  auto items = store.count_items_by_route();
  if (!items) return items.error();
  snapshot.items = std::move(*items);
  GoalFilter recent;
  recent.limit = 500;
  auto goals = store.list_goals(recent);
  if (!goals) return goals.error();
  for (Goal& goal : *goals) {
    if (!is_terminal(goal.status) && snapshot.goals.size() < kGoalsShown)
      snapshot.goals.push_back(std::move(goal));
  }
  WorkerFilter held;
  held.state = WorkerState::kHold;
  held.limit = int(kGoalsShown);
  auto workers = store.list_workers(held);
  if (!workers) return workers.error();
  snapshot.held_workers = std::move(*workers);
  MergeFilter open;
  open.limit = 10000;
  auto entries = store.list_merge_entries(open);
  if (!entries) return entries.error();
  for (const MergeEntry& entry : *entries) {
    if (entry.state != MergeState::kMerged) ++snapshot.queue[merge_state_name(entry.state)];
  }
  if (auto handled = read_handles(store, snapshot); !handled) return handled.error();
  return snapshot;
}

nlohmann::json daemon_json(const Snapshot& snapshot, TimeMs now) {
  const auto& lease = snapshot.lease;
  if (!lease) {
    return {{"held", false},        {"pid", nullptr},        {"host", nullptr},
            {"since", nullptr},     {"expires_at", nullptr}, {"released_at", nullptr},
            {"generation", nullptr}};
  }
  const bool released = was_released(*lease);
  return {
      {"held", held(snapshot, now)},
      {"pid", lease->holder.pid},
      {"host", lease->host},
      {"since", format_time(lease->acquired_at)},
      {"expires_at", released ? nlohmann::json() : nlohmann::json(format_time(lease->expires_at))},
      {"released_at",
       released ? nlohmann::json(format_time(lease->heartbeat_at)) : nlohmann::json()},
      {"generation", lease->generation}};
}

nlohmann::json status_json(const Snapshot& snapshot, TimeMs now) {
  nlohmann::json loops = nlohmann::json::object();
  for (const auto& [status, count] : snapshot.loops) loops[loop_status_name(status)] = count;
  loops["archived"] = snapshot.archived;
  nlohmann::json runs = nlohmann::json::object();
  for (const auto& [status, count] : snapshot.runs) runs[run_status_name(status)] = count;
  nlohmann::json running = nlohmann::json::array();
  for (const Run& run : snapshot.running) running.push_back(run_json(run, false));
  nlohmann::json next_due = nullptr;
  if (snapshot.next_due) {
    next_due = {{"loop_id", snapshot.next_due->loop_id},
                {"loop_name", snapshot.next_due->loop_name},
                {"at", format_time(snapshot.next_due->at)}};
  }
  nlohmann::json cooldowns = nlohmann::json::array();
  for (const Cooldown& cooldown : snapshot.cooldowns) {
    cooldowns.push_back({{"account", cooldown.account},
                         {"until", format_time(cooldown.until_at)},
                         {"hits", cooldown.hits},
                         {"reason", cooldown.reason}});
  }
  nlohmann::json runners = nlohmann::json::array();
  for (const RunnerRecord& runner : snapshot.runners) {
    runners.push_back({{"id", runner.id},
                       {"host", runner.host},
                       {"labels", runner.labels},
                       {"pid", runner.process.pid},
                       {"home", runner.home},
                       {"started_at", format_time(runner.started_at)},
                       {"last_seen_at", format_time(runner.last_seen_at)},
                       {"running", runner.running}});
  }
  nlohmann::json routes = nlohmann::json::array();
  for (const Route& route : snapshot.routes) {
    auto counts = snapshot.items.find(route.id);
    routes.push_back(route_json(route, counts == snapshot.items.end()
                                           ? std::map<ItemStatus, std::int64_t>{}
                                           : counts->second.by_status));
  }
  nlohmann::json goals = nlohmann::json::array();
  for (const Goal& goal : snapshot.goals) {
    goals.push_back({{"id", goal.id},
                     {"status", goal_status_name(goal.status)},
                     {"status_reason", goal.status_reason},
                     {"target_type", goal_target_type_name(goal.target.type)},
                     {"loop_id", goal.target.loop_id},
                     {"workflow_name", goal.target.workflow_name},
                     {"step_id", goal.target.step_id},
                     {"token_budget", goal.token_budget ? nlohmann::json(*goal.token_budget)
                                                        : nlohmann::json(nullptr)},
                     {"tokens_used", goal.tokens_used},
                     {"turns", goal.turns}});
  }
  nlohmann::json held = nlohmann::json::array();
  for (const Worker& worker : snapshot.held_workers) {
    held.push_back({{"id", worker.id},
                    {"workflow_run_id", worker.workflow_run_id},
                    {"step_id", worker.step_id},
                    {"hold_reason", worker.hold_reason}});
  }
  nlohmann::json queue = nlohmann::json::object();
  for (const char* state : {"waiting", "ready", "conflict", "rejected"}) {
    auto found = snapshot.queue.find(state);
    queue[state] = found == snapshot.queue.end() ? 0 : found->second;
  }
  return {{"daemon", daemon_json(snapshot, now)},
          {"goals", goals},
          {"workers_on_hold", held},
          {"queue", queue},
          {"runners", runners},
          {"routes", routes},
          {"loops", loops},
          {"runs", runs},
          {"running", running},
          {"next_due", next_due},
          {"cooldowns", cooldowns}};
}

std::string wall_and_relative(TimeMs time, TimeMs now) {
  return format_wall(time, TimeZone::local()) + " (" + format_relative(time, now) + ")";
}

std::string daemon_line(const Snapshot& snapshot, TimeMs now) {
  if (!snapshot.lease) return "not running";
  const DaemonLease& lease = *snapshot.lease;
  const std::string who = "pid " + std::to_string(lease.holder.pid) + " on " + lease.host;
  if (!held(snapshot, now) && was_released(lease)) {
    return "not running (the last daemon, " + who + ", stopped and released the lease at " +
           wall_and_relative(lease.heartbeat_at, now) + ")";
  }
  if (!held(snapshot, now)) {
    return "not running (the last daemon, " + who + ", held the lease until " +
           wall_and_relative(lease.expires_at, now) + ")";
  }
  return "running: " + who + " since " + wall_and_relative(lease.acquired_at, now) +
         "; lease expires " + format_relative(lease.expires_at, now) + ", generation " +
         std::to_string(lease.generation);
}

std::string loops_line(const Snapshot& snapshot) {
  std::string line;
  for (const auto& [status, count] : snapshot.loops) {
    line += (line.empty() ? "" : ", ") + format_count(count) + " " + loop_status_name(status);
  }
  return line + "; " + format_count(snapshot.archived) + " archived";
}

// Only the statuses that have runs; "none" when there are none.
std::string runs_line(const Snapshot& snapshot) {
  std::string line;
  for (const auto& [status, count] : snapshot.runs) {
    if (count == 0) continue;
    line += (line.empty() ? "" : ", ") + format_count(count) + " " + run_status_name(status);
  }
  return line.empty() ? "none" : line;
}

std::string next_due_line(const Snapshot& snapshot, TimeMs now) {
  if (!snapshot.next_due) return "-";
  const NextDue& due = *snapshot.next_due;
  return due.loop_name + " at " + wall_and_relative(due.at, now);
}

std::string cooldown_text(const Cooldown& cooldown, TimeMs now) {
  return cooldown.account + " until " + wall_and_relative(cooldown.until_at, now) + ", " +
         std::to_string(cooldown.hits) + (cooldown.hits == 1 ? " hit" : " hits") +
         (cooldown.reason.empty() ? "" : ": " + cooldown.reason);
}

void print_running(const Context& context, const Snapshot& snapshot) {
  const std::vector<std::string>& ids = snapshot.running_handles;
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < snapshot.running.size(); ++i) {
    const Run& run = snapshot.running[i];
    rows.push_back({ids[i], run.loop_name, format_relative(run.scheduled_for, context.now),
                    run.started_at ? format_relative(*run.started_at, context.now) : "-",
                    run.target ? std::to_string(run.target->pid) : "-"});
  }
  *context.out << '\n';
  print_table(*context.out, {"RUNNING", "LOOP", "SLOT", "STARTED", "PID"}, rows);
  const std::int64_t more =
      runs_with(snapshot, RunStatus::kRunning) - std::int64_t(snapshot.running.size());
  if (more > 0) *context.out << format_count(more) << " more: orrery runs --status running\n";
}

// "inbox (paused): 3 deferred, 12 succeeded" — the statuses that have items.
std::string route_line(const Route& route, const Snapshot& snapshot) {
  std::string line = terminal_text(route.name);
  if (route.status == RouteStatus::kPaused) line += " (paused)";
  std::string depths;
  auto counts = snapshot.items.find(route.id);
  for (ItemStatus status : kItemStatuses) {
    const std::int64_t count = counts == snapshot.items.end() ? 0 : counts->second.of(status);
    if (count == 0) continue;
    depths += (depths.empty() ? "" : ", ") + format_count(count) + " " + item_status_name(status);
  }
  return line + ": " + (depths.empty() ? "no items" : depths);
}

void add_route_rows(const Snapshot& snapshot,
                    std::vector<std::pair<std::string, std::string>>& rows) {
  if (snapshot.routes.empty()) rows.emplace_back("routes", "none");
  for (size_t i = 0; i < snapshot.routes.size() && i < kRoutesShown; ++i) {
    rows.emplace_back(i == 0 ? "routes" : "", route_line(snapshot.routes[i], snapshot));
  }
  if (snapshot.routes.size() > kRoutesShown) {
    rows.emplace_back("", format_count(std::int64_t(snapshot.routes.size() - kRoutesShown)) +
                              " more: orrery route ls");
  }
}

void print_status(const Context& context, const Snapshot& snapshot) {
  const TimeMs now = context.now;
  std::vector<std::pair<std::string, std::string>> rows{{"daemon", daemon_line(snapshot, now)},
                                                        {"loops", loops_line(snapshot)},
                                                        {"runs", runs_line(snapshot)},
                                                        {"next due", next_due_line(snapshot, now)}};
  for (size_t i = 0; i < snapshot.runners.size(); ++i) {
    const RunnerRecord& runner = snapshot.runners[i];
    rows.emplace_back(i == 0 ? "runners" : "",
                      terminal_text(runner.host) + " (" + terminal_text(runner.labels) + "), pid " +
                          std::to_string(runner.process.pid) + ", " + format_count(runner.running) +
                          " running, last seen " + format_relative(runner.last_seen_at, now));
  }
  add_route_rows(snapshot, rows);
  if (snapshot.goals.empty()) rows.emplace_back("goals", "none open");
  for (size_t i = 0; i < snapshot.goals.size(); ++i) {
    const Goal& goal = snapshot.goals[i];
    rows.emplace_back(i == 0 ? "goals" : "", snapshot.goal_handles[i] + " " +
                                                 goal_status_name(goal.status) + ", " +
                                                 budget_bar(goal.tokens_used, goal.token_budget) +
                                                 ": " + shortened(goal.objective, 50));
  }
  if (snapshot.held_workers.empty()) rows.emplace_back("workers", "none on hold");
  for (size_t i = 0; i < snapshot.held_workers.size(); ++i) {
    const Worker& worker = snapshot.held_workers[i];
    rows.emplace_back(i == 0 ? "workers" : "", snapshot.worker_handles[i] + " on hold (step " +
                                                   worker.step_id +
                                                   "): " + shortened(worker.hold_reason, 60));
  }
  if (snapshot.queue.empty()) {
    rows.emplace_back("queue", "empty");
  } else {
    std::string counts;
    for (const auto& [state, count] : snapshot.queue)
      counts += (counts.empty() ? "" : ", ") + format_count(count) + " " + state;
    rows.emplace_back("queue", counts);
  }
  if (snapshot.cooldowns.empty()) rows.emplace_back("cooldowns", "none");
  for (size_t i = 0; i < snapshot.cooldowns.size(); ++i) {
    rows.emplace_back(i == 0 ? "cooldowns" : "", cooldown_text(snapshot.cooldowns[i], now));
  }
  print_fields(*context.out, rows);
  if (!snapshot.running.empty()) print_running(context, snapshot);
}

}  // namespace

Result<int> status_command(const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto snapshot = read_snapshot(*opened->store, context.now);
  if (!snapshot) return snapshot.error();
  if (context.globals.json) {
    *context.out << json_text(status_json(*snapshot, context.now)) << '\n';
    const std::int64_t more =
        runs_with(*snapshot, RunStatus::kRunning) - std::int64_t(snapshot->running.size());
    if (more > 0) {
      std::cerr << "orrery: " << format_count(more)
                << " more running runs not shown: orrery runs --status running --json\n";
    }
  } else {
    print_status(context, *snapshot);
  }
  return 0;
}

}  // namespace orrery::cli
