#include "exec/recovery.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>

#include "core/duration.h"
#include "exec/command_runner.h"
#include "exec/env.h"
#include "exec/kept_outcome.h"
#include "exec/run_files_scrub.h"
#include "exec/run_secrets.h"
#include "exec/supervisor.h"
#include "store/home_layout.h"

namespace orrery {
namespace {

// Kills what is left of a run's target: the recorded target itself (pid and
// start time match), or its group when the group lives on without its leader
// (a group id is only ever created by a process of that pid, and a pid is
// not reused while its group lives, so a group without a living leader is
// the target's own).
void kill_target_group(const Run& run, const ProcessProbe& probe, ProcessControl& signals,
                       RecoveryReport& report) {
  if (!run.pgid || *run.pgid <= 1) return;
  const auto& killed = report.killed_groups;
  if (std::find(killed.begin(), killed.end(), *run.pgid) != killed.end()) return;
  if (kill_leftover_group(run.pgid, run.target, probe, signals)) {
    report.killed_groups.push_back(*run.pgid);
  }
}

Result<std::optional<Run>> reread(Store& store, const std::string& id) { return store.get_run(id); }

// Finishes a running run whose supervisor is dead; false when the run
// changed meanwhile (the guarded write changed nothing).
Result<bool> finish_orphan(Store& store, const std::string& home, const Run& run, TimeMs now,
                           RecoveryReport& report) {
  auto kept = read_kept_outcome(HomeLayout(home).run(run.id).path());
  if (!kept) return kept.error();
  const bool expired = run.lease_expires_at && *run.lease_expires_at <= now;
  const bool has_kept = kept->has_value() && (*kept)->claim_token == run.claim_token;
  Status written = Ok{};
  if (has_kept && expired) {
    written =
        store.finish_expired_claim(claim_of(run), (*kept)->outcome, (*kept)->finished_at, now);
  } else if (has_kept) {  // finished when it was kept, as on the expired path
    written = store.finish_claim(claim_of(run), (*kept)->outcome, (*kept)->finished_at);
  } else if (!expired) {
    RunOutcome outcome;
    outcome.status = RunStatus::kAbandoned;
    outcome.error = run.supervisor ? "the supervisor (pid " + std::to_string(run.supervisor->pid) +
                                         ") died before the run finished"
                                   : "no supervisor started within " +
                                         format_duration(kSupervisorStartGraceMs) +
                                         " of the claim (its claimant, " + run.claimed_by +
                                         ", stopped before starting one)";
    written = store.finish_claim({run.id, run.claimed_by, run.claim_token}, outcome, now);
  } else {
    return false;  // expired without an outcome: the store abandons it below
  }
  if (!written) {
    if (written.error().code == ErrorCode::kConflict) return false;
    return written.error();
  }
  auto after = reread(store, run.id);
  if (!after) return after.error();
  if (after->has_value()) (has_kept ? report.recorded : report.abandoned).push_back(**after);
  return true;
}

// Every running run, read a page at a time before any is changed.
Result<std::vector<Run>> running_runs(Store& store) {
  RunFilter running;
  running.status = RunStatus::kRunning;
  running.limit = kRecoveryPage;
  std::vector<Run> all;
  while (true) {
    auto page = store.list_runs(running);
    if (!page) return page.error();
    all.insert(all.end(), page->begin(), page->end());
    if (int(page->size()) < running.limit) return all;
    running.offset += running.limit;
  }
}

}  // namespace

bool kill_leftover_group(std::optional<int> pgid, const std::optional<ProcessIdentity>& target,
                         const ProcessProbe& probe, ProcessControl& signals) {
  if (!pgid || *pgid <= 1) return false;
  const int group = *pgid;
  const bool leader_is_target = target && probe.is_alive(*target);
  const bool orphaned_group =
      !probe.is_alive(ProcessIdentity{group, std::nullopt}) && signals.send_signal(-group, 0);
  if (!leader_is_target && !orphaned_group) return false;
  return signals.send_signal(-group, SIGKILL);
}

bool kill_leftover_group(std::optional<int> pgid, const std::optional<ProcessIdentity>& target,
                         const ProcessProbe& probe) {
  return kill_leftover_group(pgid, target, probe, system_processes());
}

bool supervisor_gone(const Run& run, const ProcessProbe& probe, TimeMs now) {
  if (run.status != RunStatus::kRunning) return false;
  if (run.supervisor) return !probe.is_alive(*run.supervisor);
  // None recorded (recording failed, or it is starting): gone once the lease
  // ran out, or once the start grace passed — its claimant died between the
  // claim and the supervisor's start, and nothing else will start one.
  if (run.lease_expires_at && *run.lease_expires_at <= now) return true;
  return run.started_at && now - *run.started_at >= kSupervisorStartGraceMs;
}

namespace {

// What the runs recovery finished left in their directories, scrubbed as
// their supervisors would have (docs/scrubbing.md, "Files under the home").
void scrub_finished_files(const std::string& home, RecoveryReport& report) {
  const std::vector<EnvVar> environment = process_environment();
  for (const std::vector<Run>* runs : {&report.recorded, &report.abandoned}) {
    for (const Run& run : *runs) {
      auto scrubber = loop_scrubber(home, run.loop_id, environment);
      Status scrubbed =
          scrubber ? scrub_run_files(system_env(), HomeLayout(home).run(run.id).path(), *scrubber)
                   : Status(scrubber.error());
      if (!scrubbed) {
        report.problems.push_back(
            {run.id, "its files are not scrubbed: " + scrubbed.error().message});
      }
    }
  }
}

// Recovery with liveness from `probe` and signals through `signals`.
Result<RecoveryReport> recover_with(Store& store, const ProcessProbe& probe,
                                    ProcessControl& signals, const std::string& home, TimeMs now,
                                    const RecoveryOptions& options, const Fence& fence) {
  if (auto fenced = store.check_fence(fence, now); !fenced) return fenced.error();
  RecoveryReport report;
  auto runs = running_runs(store);
  if (!runs) return runs.error();
  const std::string host = probe.host_name();
  for (const Run& run : *runs) {
    // Another host's runs: their lease expiry alone recovers them (below).
    if (!runs_on_host(run, host)) continue;
    if (!supervisor_gone(run, probe, now)) continue;
    kill_target_group(run, probe, signals, report);
    if (auto finished = finish_orphan(store, home, run, now, report); !finished) {
      report.problems.push_back({run.id, finished.error().message});
    }
  }
  auto expired = store.recover_expired_runs(now, options, fence);
  if (!expired) return expired.error();
  for (const Run& run : expired->abandoned) {
    kill_target_group(run, probe, signals, report);
    report.abandoned.push_back(run);
  }
  report.deferred = expired->deferred;
  scrub_finished_files(home, report);
  return report;
}

}  // namespace

Result<RecoveryReport> recover_runs(Store& store, ProcessControl& processes,
                                    const std::string& home, TimeMs now,
                                    const RecoveryOptions& options, const Fence& fence) {
  return recover_with(store, processes, processes, home, now, options, fence);
}

Result<RecoveryReport> recover_runs(Store& store, const ProcessProbe& probe,
                                    const std::string& home, TimeMs now,
                                    const RecoveryOptions& options, const Fence& fence) {
  return recover_with(store, probe, system_processes(), home, now, options, fence);
}

}  // namespace orrery
