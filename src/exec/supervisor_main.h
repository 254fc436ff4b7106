// The entry points of supervisor processes (docs/execution.md, "Starting a
// run"), for every kind of claimed work (core/work_kind.h): the exec'd
// `orrery supervise ID --token-fd N` / `orrery supervise-step ID --token-fd
// N`, and a supervisor forked by a fork server (exec/supervisor_forker.h).
// The command line only parses the arguments and says how to open the store.
//
// Invariants: the store connection gives up on a busy database within
// supervisor_busy_timeout_ms of the claim's lease (exec/claim_keeper.h), so
// the supervisor, not SQLite, does the waiting; a forked supervisor whose
// log cannot be opened finishes its work failed with the reason.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "core/result.h"
#include "core/work_kind.h"
#include "exec/supervisor_forker.h"
#include "store/store.h"

namespace orrery {

struct OpenedWorkStore {
  std::string home;
  std::unique_ptr<Store> store;
};
// Opens the store a supervisor uses, waiting at most `busy_timeout_ms` for
// a busy database.
using WorkStoreOpener = std::function<Result<OpenedWorkStore>(int busy_timeout_ms)>;

// The exec'd supervisor: reads the claim token from `token_fd` and
// supervises the work `id` of `kind` to its end.
Status supervise_exec(WorkKind kind, const std::string& id, int token_fd,
                      const WorkStoreOpener& open);

// Runs in each forked supervisor before its request is known: opens the
// store with the longest wait a supervisor uses; what it returns supervises
// the request (reopening the store when the claim's lease asks for a
// shorter wait, or when the connection prepared long ago was lost) and
// returns the process's exit status, its error printed to stderr (the
// work's supervisor.log).
SupervisorForker::Runner prepare_forked_supervisor(WorkStoreOpener open);

}  // namespace orrery
