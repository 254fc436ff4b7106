#include "engine/tick.h"

#include "engine/daemon_lease.h"
#include "engine/planning.h"
#include "engine/settling.h"
#include "exec/recovery.h"
#include "exec/worker_recovery.h"

namespace orrery {
namespace {

void log_recovery(const RecoveryReport& report, const EventSink& log) {
  for (const Run& run : report.recorded) {
    log("recovered run " + run.id + " of loop " + run.loop_name +
        ": recorded the outcome its supervisor kept (" + run_status_name(run.status) + ")");
  }
  for (const Run& run : report.abandoned) {
    log("recovered run " + run.id + " of loop " + run.loop_name + ": abandoned (" + run.error +
        ")");
  }
  for (int group : report.killed_groups) {
    log("killed process group " + std::to_string(group) + " left by a finished run");
  }
  for (const RecoveryProblem& problem : report.problems) {
    log("run " + problem.run_id + " could not be recovered: " + problem.message);
  }
}

Result<CooldownMap> read_cooldowns(Store& store, TimeMs now) {
  auto cooldowns = store.active_cooldowns(now);
  if (!cooldowns) return cooldowns.error();
  CooldownMap map;
  for (const Cooldown& cooldown : *cooldowns) map[cooldown.account] = cooldown.until_at;
  return map;
}

}  // namespace

Result<TickReport> run_tick(Store& store, ProcessControl& processes, const TickSettings& settings,
                            const TickTimes& times, TickSteps steps, const EventSink& log) {
  if (steps.recover) {
    auto recovered = recover_runs(store, processes, settings.location.home, times.now,
                                  RecoveryOptions{}, settings.fence);
    if (!recovered) return recovered.error();
    log_recovery(*recovered, log);
    // Workers of steps whose supervisor is gone wait on hold (docs/workers.md).
    auto held = hold_stranded_workers(store, processes, times.now);
    if (!held) return held.error();
    if (*held > 0) {
      log(std::to_string(*held) + (*held == 1 ? " worker" : " workers") +
          " put on hold: their step's supervisor is gone (orrery worker ls --state hold)");
    }
  }
  if (steps.expire) {
    auto expired = store.expire_loops(times.now, settings.fence);
    if (!expired) return expired.error();
    if (*expired > 0) {
      log(std::to_string(*expired) + (*expired == 1 ? " loop" : " loops") +
          " expired (past expires_at)");
    }
  }
  // Before planning: a goal whose usage-limit cooldown ended is active again,
  // so the loop's next run is its turn (docs/goals.md, "Usage limits").
  auto reopened = store.reopen_cooled_goals(times.now, settings.fence);
  if (!reopened) return reopened.error();
  if (*reopened > 0) {
    log(std::to_string(*reopened) + (*reopened == 1 ? " goal" : " goals") +
        " active again: the usage-limit cooldown ended");
  }
  auto cooldowns = read_cooldowns(store, times.now);
  if (!cooldowns) return cooldowns.error();
  auto settled = settle_runs(store, *cooldowns, times.now, settings.fence, log);
  if (!settled) return settled.error();
  auto report = plan_due_loops(store, settings, times, *cooldowns, log);
  if (!report) return report.error();
  if (report->handed_over) {
    // Slots found taken are settled now, so a loop waiting for them (a
    // fixed-delay, dynamic or once loop) does not wait for another wake-up.
    auto again = settle_runs(store, *cooldowns, times.now, settings.fence, log);
    if (!again) return again.error();
    settled->more = settled->more || again->more;
    // A slot whose last attempt still lives (its group killed a moment ago,
    // its process not gone yet) stays due: the next tick comes shortly, not
    // at the next heartbeat, and claims it once nothing of it lives.
    settled->retry_soon = true;
  }
  report->more = report->more || settled->more;
  report->retry_soon = report->retry_soon || settled->retry_soon;
  return report;
}

}  // namespace orrery
