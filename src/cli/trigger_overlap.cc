#include "cli/trigger_overlap.h"

#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "cli/run_document.h"
#include "core/text.h"
#include "core/trigger_overlap.h"
#include "exec/clock.h"
#include "exec/process_control.h"
#include "exec/process_identity.h"
#include "exec/wake.h"
#include "views/document_text.h"

namespace orrery::cli {
namespace {

// How long `replace` waits for the stopped runs to be finalized before it
// starts the new one anyway (the supervisor's grace before SIGKILL is 2 s).
constexpr std::chrono::milliseconds kReplaceWait{5000};
constexpr std::chrono::milliseconds kPollEvery{20};
// Manual slots are whole milliseconds from now; a taken one moves on by 1 ms.
constexpr int kSlotTries = 100;

Result<std::vector<Run>> runs_of(Store& store, const Loop& loop, RunStatus status, int limit) {
  RunFilter filter;
  filter.loop_id = loop.id;
  filter.status = status;
  filter.limit = limit;
  return store.list_runs(filter);
}

std::string claimant() {
  return "trigger@" + SystemProcessProbe().host_name() + ":" + std::to_string(getpid());
}

Result<bool> is_finished(Store& store, const std::string& run_id) {
  auto run = store.get_run(run_id);
  if (!run) return run.error();
  return !run->has_value() || is_terminal((*run)->status);
}

// SIGTERM to each running run's live supervisor; waits (a while) for them to
// finalize their runs cancelled.
Status replace_runs(Store& store, const std::vector<Run>& running) {
  std::vector<std::string> stopping;
  for (const Run& run : running) {
    // A dead supervisor's run is recovery's to finish; another host's is never signalled.
    if (stop_local_supervisor(run, system_processes())) stopping.push_back(run.id);
  }
  const auto deadline = std::chrono::steady_clock::now() + kReplaceWait;
  for (const std::string& id : stopping) {
    while (std::chrono::steady_clock::now() < deadline) {
      auto finished = is_finished(store, id);
      if (!finished) return finished.error();
      if (*finished) break;
      std::this_thread::sleep_for(kPollEvery);
    }
  }
  return Ok{};
}

// One plan commit holding a queued row at the first free manual slot from now.
Result<Run> queue_slot(Store& store, const Loop& read, TimeMs now) {
  Loop loop = read;
  for (int tries = 0; tries < kSlotTries; ++tries) {
    // A slot that has a row already is passed over: a plan commit would hand
    // that row to settlement (docs/storage.md, "Plan commits").
    auto taken = store.get_run_by_slot(loop.id, now + tries);
    if (!taken) return taken.error();
    if (taken->has_value()) continue;
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = loop.state_version;
    plan.queue = {now + tries};
    plan.state = schedule_state(loop);
    auto results = store.commit_plans({plan}, claimant(), now, {});
    if (!results) return results.error();
    if (!results->empty() && !results->front().queued.empty()) {
      return results->front().queued.front();
    }
    // Not applied (the loop changed meanwhile) or the slot was taken: read
    // the loop again and try the next millisecond.
    auto again = store.get_loop(loop.id);
    if (!again) return again.error();
    if (!again->has_value()) return not_found_error("loop " + read.name + " was deleted");
    loop = **again;
  }
  return conflict_error("could not queue a manual slot for loop " + read.name);
}

// Whether a daemon holds a live lease, to start a queued run.
Result<bool> daemon_running(Store& store, TimeMs now) {
  auto lease = store.get_daemon_lease();
  if (!lease) return lease.error();
  return lease->has_value() && (*lease)->expires_at > now;
}

// Waits for the daemon to start and finish the queued run; prints it. The
// wait ends with an error when no daemon holds the lease any more.
Result<TriggerGoOn> wait_for_queued(Store& store, const std::string& run_id,
                                    const Context& context) {
  while (true) {
    auto run = store.get_run(run_id);
    if (!run) return run.error();
    if (!run->has_value()) return not_found_error("queued run " + run_id + " was deleted");
    if (is_terminal((*run)->status)) {
      print_run_document(context, store, **run);
      return (*run)->status == RunStatus::kSucceeded ? TriggerGoOn::kDone
                                                     : TriggerGoOn::kDoneFailed;
    }
    auto daemon = daemon_running(store, wall_clock_now());
    if (!daemon) return daemon.error();
    if (!*daemon && (*run)->status == RunStatus::kQueued) {
      return unavailable_error("no daemon is running to start queued run " + run_id +
                               "; it stays queued until one starts (orrery daemon)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// Reads what the decision needs, in the order it needs it: the runs in
// progress (unless --force or allow), then, to queue behind one, the loop's
// queued run and, with --wait and none queued, the daemon lease.
Status read_trigger(Store& store, const Loop& loop, TimeMs now, ManualTrigger& trigger,
                    std::vector<Run>& running) {
  if (trigger.force || loop.overlap == OverlapPolicy::kAllow) return Ok{};
  auto runs = runs_of(store, loop, RunStatus::kRunning, 100);
  if (!runs) return runs.error();
  running = std::move(*runs);
  for (const Run& run : running) trigger.running.push_back(run.id);
  if (running.empty() || loop.overlap != OverlapPolicy::kQueue) return Ok{};
  auto queued = runs_of(store, loop, RunStatus::kQueued, 1);
  if (!queued) return queued.error();
  if (!queued->empty()) trigger.queued = queued->front().id;
  if (trigger.queued || !trigger.wait) return Ok{};
  auto daemon = daemon_running(store, now);
  if (!daemon) return daemon.error();
  trigger.daemon_live = *daemon;
  return Ok{};
}

Result<TriggerGoOn> queue_behind(Store& store, const std::string& home, const Loop& loop,
                                 const Run& running, bool wait, const Context& context) {
  auto run = queue_slot(store, loop, context.now);
  if (!run) return run.error();
  notify_daemon(home);
  if (wait) return wait_for_queued(store, run->id, context);
  if (context.globals.json) {
    *context.out << json_text({{"run_id", run->id}, {"status", "queued"}, {"behind", running.id}})
                 << '\n';
  } else {
    *context.out << "queued " << run->id << " behind " << running.id
                 << " (the daemon starts it when that run ends)\n";
  }
  return TriggerGoOn::kDone;
}

}  // namespace

Result<TriggerGoOn> apply_trigger_overlap(Store& store, const std::string& home, const Loop& loop,
                                          bool force, bool wait, const Context& context) {
  ManualTrigger trigger;
  trigger.loop_name = loop.name;
  trigger.overlap = loop.overlap;
  trigger.force = force;
  trigger.wait = wait;
  std::vector<Run> running;
  if (auto read = read_trigger(store, loop, context.now, trigger, running); !read) {
    return read.error();
  }
  auto action = decide_trigger(trigger);
  if (!action) return action.error();
  switch (*action) {
    case TriggerAction::kRunNow:
      break;
    case TriggerAction::kQueue:
      return queue_behind(store, home, loop, running.front(), wait, context);
    case TriggerAction::kReplace:
      if (auto replaced = replace_runs(store, running); !replaced) return replaced.error();
      break;
  }
  return TriggerGoOn::kRunNow;
}

}  // namespace orrery::cli
