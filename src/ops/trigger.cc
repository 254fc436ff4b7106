#include "ops/trigger.h"

#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

#include "core/runner_labels.h"
#include "core/trigger_overlap.h"
#include "exec/wake.h"

namespace orrery::ops {
namespace {

// How often, and how many times, `replace` looks whether the runs it stopped
// are finished before it starts the new one anyway: 5 s in all (the
// supervisor's grace before SIGKILL is 2 s).
constexpr std::chrono::milliseconds kPollEvery{20};
constexpr int kReplacePolls = 250;
// Manual slots are whole milliseconds from now; a taken one moves on by 1 ms.
constexpr int kSlotTries = 100;

Result<std::vector<Run>> runs_of(RunHistory& history, const Loop& loop, RunStatus status,
                                 int limit) {
  RunFilter filter;
  filter.loop_id = loop.id;
  filter.status = status;
  filter.limit = limit;
  return history.list_runs(filter);
}

Result<bool> is_finished(RunHistory& history, const std::string& run_id) {
  auto run = history.get_run(run_id);
  if (!run) return run.error();
  return !run->has_value() || is_terminal((*run)->status);
}

// SIGTERM to each running run's live supervisor; waits (a while) for them to
// finish their runs cancelled.
Status replace_runs(RunHistory& history, ProcessControl& processes,
                    const std::vector<Run>& running) {
  std::vector<std::string> stopping;
  for (const Run& run : running) {
    // A dead supervisor's run is recovery's to finish; another host's is never signalled.
    if (stop_local_supervisor(run, processes)) stopping.push_back(run.id);
  }
  int polls = 0;
  for (const std::string& id : stopping) {
    for (; polls < kReplacePolls; ++polls) {
      auto finished = is_finished(history, id);
      if (!finished) return finished.error();
      if (*finished) break;
      std::this_thread::sleep_for(kPollEvery);
    }
  }
  return Ok{};
}

// One plan commit holding a queued row at the first free manual slot from now.
Result<Run> queue_slot(const TriggerContext& context, const Loop& read) {
  Store& store = context.store;
  Loop loop = read;
  for (int tries = 0; tries < kSlotTries; ++tries) {
    // A slot that has a row already is passed over: a plan commit would hand
    // that row to settlement (docs/storage.md, "Plan commits").
    auto taken = store.get_run_by_slot(loop.id, context.now + tries);
    if (!taken) return taken.error();
    if (taken->has_value()) continue;
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = loop.state_version;
    plan.queue = {context.now + tries};
    plan.state = schedule_state(loop);
    auto results = store.commit_plans({plan}, context.claimant, context.now, {});
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

// Reads what the decision needs, in the order it needs it: the runs in
// progress (unless forced or under allow), then, to queue behind one, the
// loop's queued run and, for a caller that waits and none queued, the
// daemon lease.
Status read_trigger(const TriggerContext& context, const Loop& loop, ManualTrigger& trigger,
                    std::vector<Run>& running) {
  if (trigger.force || loop.overlap == OverlapPolicy::kAllow) return Ok{};
  auto runs = runs_of(context.store, loop, RunStatus::kRunning, 100);
  if (!runs) return runs.error();
  running = std::move(*runs);
  for (const Run& run : running) trigger.running.push_back(run.id);
  if (running.empty() || loop.overlap != OverlapPolicy::kQueue) return Ok{};
  auto queued = runs_of(context.store, loop, RunStatus::kQueued, 1);
  if (!queued) return queued.error();
  if (!queued->empty()) trigger.queued = queued->front().id;
  if (trigger.queued || !trigger.wait) return Ok{};
  auto daemon = daemon_running(context.store, context.now);
  if (!daemon) return daemon.error();
  trigger.daemon_live = *daemon;
  return Ok{};
}

// Whether this host may run the loop (docs/daemon.md, "Runners"): its host=
// label, or the labels of a runner registered from this host, hold the
// loop's --machine selector.
Result<bool> this_host_may_run(RunnerRegistry& runners, const Loop& loop, const std::string& host) {
  if (runner_may_run({{"host", host}}, loop.machine)) return true;
  auto registered = runners.list_runners();
  if (!registered) return registered.error();
  for (const RunnerRecord& runner : *registered) {
    if (runner.host != host) continue;
    auto labels = parse_labels_text(runner.labels);
    if (labels && runner_may_run(*labels, loop.machine)) return true;
  }
  return false;
}

// The first free manual slot from now, claimed (or left pending for runners).
Result<ClaimedRun> claim_manual_slot(const TriggerContext& context, const Loop& loop,
                                     bool to_runners) {
  for (TimeMs slot = context.now; slot < context.now + kSlotTries; ++slot) {
    auto attempt = context.store.claim_slot({loop.id, slot, true, to_runners}, context.claimant,
                                            context.now, {});
    if (!attempt) return attempt.error();
    if (attempt->has_value()) return **attempt;
  }
  return conflict_error("could not claim a manual slot for loop " + loop.name);
}

// The decision of the loop's overlap policy, carried out up to the run: a
// queued run is the answer; otherwise (nothing in the answer) run now.
Result<std::optional<Triggered>> apply_overlap(const TriggerContext& context, const Loop& loop,
                                               const TriggerRequest& request) {
  ManualTrigger trigger;
  trigger.loop_name = loop.name;
  trigger.overlap = loop.overlap;
  trigger.force = request.force;
  trigger.wait = request.wait;
  std::vector<Run> running;
  if (auto read = read_trigger(context, loop, trigger, running); !read) return read.error();
  auto action = decide_trigger(trigger);
  if (!action) return action.error();
  if (*action == TriggerAction::kReplace) {
    if (auto replaced = replace_runs(context.store, context.processes, running); !replaced) {
      return replaced.error();
    }
  }
  if (*action != TriggerAction::kQueue) return std::optional<Triggered>{};
  auto queued = queue_slot(context, loop);
  if (!queued) return queued.error();
  notify_daemon(context.home);
  Triggered triggered;
  triggered.outcome = TriggerOutcome::kQueued;
  triggered.run = std::move(*queued);
  triggered.behind = running.front().id;
  return std::optional<Triggered>{std::move(triggered)};
}

// The claimed run's supervisor started, or the run as the launcher failed it.
Result<Triggered> start_supervisor(const TriggerContext& context, const ClaimedRun& claimed,
                                   bool wait) {
  Triggered triggered;
  triggered.run = claimed.run;
  auto launched = context.launcher.launch({claimed.claim, 0, true, /*detach=*/!wait});
  if (launched) {
    triggered.supervisor = *launched;
    return triggered;
  }
  // Only a run the launcher could not even record failed stays an error.
  auto failed = context.store.get_run(claimed.run.id);
  if (!failed || !failed->has_value() || (*failed)->status == RunStatus::kRunning) {
    return launched.error();
  }
  triggered.outcome = TriggerOutcome::kUnstarted;
  triggered.run = **failed;
  triggered.unstarted = launched.error();
  return triggered;
}

}  // namespace

std::string trigger_claimant(const std::string& host) {
  return "trigger@" + host + ":" + std::to_string(getpid());
}

Result<bool> daemon_running(DaemonLeases& leases, TimeMs now) {
  auto lease = leases.get_daemon_lease();
  if (!lease) return lease.error();
  return lease->has_value() && (*lease)->expires_at > now;
}

Result<Triggered> trigger_loop(const TriggerContext& context, const TriggerRequest& request) {
  auto loop = context.store.resolve_loop(request.loop);
  if (!loop) return loop.error();
  if (loop->archived) {
    return conflict_error("cannot trigger loop " + loop->name + ": it is archived");
  }
  auto queued = apply_overlap(context, *loop, request);
  if (!queued) return queued.error();
  if (queued->has_value()) return std::move(**queued);
  // Labels matter only where runners share a database server.
  bool to_runners = false;
  if (context.shared_database && !request.here && !loop->machine.empty()) {
    auto here = this_host_may_run(context.store, *loop, context.processes.host_name());
    if (!here) return here.error();
    to_runners = !*here;
  }
  auto claimed = claim_manual_slot(context, *loop, to_runners);
  if (!claimed) return claimed.error();
  notify_daemon(context.home);
  if (to_runners) {
    Triggered triggered;
    triggered.outcome = TriggerOutcome::kLeftToRunners;
    triggered.run = claimed->run;
    return triggered;
  }
  return start_supervisor(context, *claimed, request.wait);
}

}  // namespace orrery::ops
