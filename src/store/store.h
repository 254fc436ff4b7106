// Store: every role of the durable state in one object, the type a backend
// implements (store/sql/sql_store.h, over SQLite or PostgreSQL) and one
// conformance suite (tests/store/) checks. Callers take the narrowest role
// they need (docs/architecture.md, "The store's roles"); only what opens a
// database, or plays many roles at once (the daemon, the CLI), holds a Store.
#pragma once

#include "store/admission.h"
#include "store/claim_ledger.h"
#include "store/cooldowns.h"
#include "store/daemon_leases.h"
#include "store/event_journal.h"
#include "store/goal_book.h"
#include "store/id_handles.h"
#include "store/item_queue.h"
#include "store/loop_catalog.h"
#include "store/merge_queue.h"
#include "store/process_probe.h"
#include "store/route_catalog.h"
#include "store/run_feeds.h"
#include "store/run_history.h"
#include "store/runner_registry.h"
#include "store/slot_claims.h"
#include "store/store_metrics.h"
#include "store/store_notices.h"
#include "store/worker_book.h"
#include "store/worker_overlaps.h"
#include "store/workflow_catalog.h"
#include "store/workflow_engine.h"
#include "store/workflow_runs.h"

namespace orrery {

class Store : public LoopCatalog,
              public RunHistory,
              public SlotClaims,
              public ClaimLedger,
              public Cooldowns,
              public RunnerRegistry,
              public DaemonLeases,
              public StoreNotices,
              public WorkflowCatalog,
              public WorkflowRuns,
              public WorkflowEngine,
              public RouteCatalog,
              public ItemQueue,
              public Admission,
              public RunFeeds,
              public GoalBook,
              public WorkerBook,
              public MergeQueue,
              public WorkerOverlaps,
              public EventJournal,
              public StoreMetrics,
              public IdHandles {};

}  // namespace orrery
