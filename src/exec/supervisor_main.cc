#include "exec/supervisor_main.h"

#include <iostream>

#include "core/exit_codes.h"
#include "core/text.h"
#include "exec/claim_keeper.h"
#include "exec/clock.h"
#include "exec/launcher.h"
#include "exec/step_supervisor.h"
#include "exec/supervisor.h"
#include "exec/supervisor_start.h"

namespace orrery {
namespace {

// The lease the work is claimed with, when it can be read.
std::optional<DurationMs> claimed_lease(Store& store, WorkKind kind, const std::string& id) {
  if (kind == WorkKind::kStepAttempt) {
    auto attempt = store.get_step_attempt(id);
    if (!attempt || !attempt->has_value() || !(*attempt)->lease_expires_at) return std::nullopt;
    return *(*attempt)->lease_expires_at - (*attempt)->started_at;
  }
  auto run = store.get_run(id);
  if (!run || !run->has_value()) return std::nullopt;
  auto loop = store.get_loop((*run)->loop_id);
  if (!loop || !loop->has_value()) return std::nullopt;
  return (*loop)->lease_ms;
}

// Supervises the work on `store` as its kind's supervisor does.
Status supervise_work(Store& store, const std::string& home, WorkKind kind, const std::string& id,
                      const std::string& token) {
  if (kind == WorkKind::kStepAttempt) return supervise_step(store, {home, id, token});
  return supervise(store, {home, id, token});
}

}  // namespace

Status supervise_exec(WorkKind kind, const std::string& id, int token_fd,
                      const WorkStoreOpener& open) {
  auto opened = open(kSupervisorMaxBusyTimeoutMs);
  if (!opened) return opened.error();
  if (const auto lease = claimed_lease(*opened->store, kind, id)) {
    if (const int timeout = supervisor_busy_timeout_ms(*lease);
        timeout < kSupervisorMaxBusyTimeoutMs) {
      opened = open(timeout);
      if (!opened) return opened.error();
    }
  }
  auto token = read_token_fd(token_fd);
  if (!token) return token.error();
  return supervise_work(*opened->store, opened->home, kind, id, *token);
}

SupervisorForker::Runner prepare_forked_supervisor(WorkStoreOpener open) {
  // Opened before the request is known, with the longest wait a supervisor
  // uses; reopened when the run's lease asks for a shorter one.
  auto opened = std::make_shared<Result<OpenedWorkStore>>(open(kSupervisorMaxBusyTimeoutMs));
  return [open = std::move(open), opened](const ForkRequest& request) {
    const int timeout = supervisor_busy_timeout_ms(request.lease_ms);
    if (*opened && timeout < kSupervisorMaxBusyTimeoutMs) *opened = open(timeout);
    // A connection prepared long ago may have been ended by its server (a
    // restart, an idle timeout): one read tells, and a new one is opened.
    // So may one whose opening the server cut short.
    if (!*opened || !(*opened)->store->get_daemon_lease()) *opened = open(timeout);
    Status done = [&]() -> Status {
      // Without a store nothing can be recorded: whoever forked this process
      // sees it end and has recovery finish its work.
      if (!*opened) return (*opened).error();
      Store& store = *(*opened)->store;
      const Claim claim{request.run_id, request.claimed_by, request.token, request.kind};
      if (auto log = start_in_work_log(request.run_dir); !log) {
        return fail_unstarted(store, claim, log.error(), wall_clock_now());
      }
      return supervise_work(store, (*opened)->home, request.kind, request.run_id, request.token);
    }();
    if (done) return kExitOk;
    std::cerr << "orrery: " << terminal_text(done.error().message) << '\n';
    return exit_code_for(done.error().code);
  };
}

}  // namespace orrery
