#include "store/sqlite/migrations.h"

#include "store/sql/event_schema.h"

namespace orrery::sqlite {
namespace {

constexpr const char* kInitialSchema = R"sql(
CREATE TABLE loops (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL,
  archived INTEGER NOT NULL DEFAULT 0,
  archived_from_status TEXT,
  schedule_type TEXT NOT NULL,
  schedule_expression TEXT,
  schedule_timezone TEXT,
  schedule_every_ms INTEGER,
  schedule_anchor TEXT,
  schedule_at INTEGER,
  schedule_min_ms INTEGER,
  schedule_max_ms INTEGER,
  schedule_jitter_ms INTEGER NOT NULL DEFAULT 0,
  target_json TEXT NOT NULL,
  machine_json TEXT NOT NULL DEFAULT '[]',
  next_run_at INTEGER,
  retry_scheduled_for INTEGER,
  catch_up TEXT NOT NULL,
  catch_up_limit INTEGER NOT NULL,
  catch_up_window_ms INTEGER,
  overlap TEXT NOT NULL,
  max_attempts INTEGER NOT NULL,
  retry_delay_ms INTEGER NOT NULL,
  retry_backoff TEXT NOT NULL,
  lease_ms INTEGER NOT NULL,
  timeout_ms INTEGER,
  idle_timeout_ms INTEGER,
  expires_at INTEGER,
  missed_count INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX loops_due ON loops(status, archived, next_run_at, id);
CREATE INDEX loops_name ON loops(name);

CREATE TABLE runs (
  id TEXT PRIMARY KEY,
  loop_id TEXT NOT NULL REFERENCES loops(id) ON DELETE CASCADE,
  loop_name TEXT NOT NULL,
  scheduled_for INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  status TEXT NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  claimed_by TEXT NOT NULL DEFAULT '',
  claim_token TEXT NOT NULL DEFAULT '',
  claim_generation INTEGER NOT NULL DEFAULT 0,
  lease_expires_at INTEGER,
  pid INTEGER,
  process_started_at INTEGER,
  pgid INTEGER,
  supervisor_pid INTEGER,
  supervisor_started_at INTEGER,
  exit_code INTEGER,
  signal INTEGER,
  duration_ms INTEGER,
  error TEXT NOT NULL DEFAULT '',
  skip_reason TEXT NOT NULL DEFAULT '',
  stdout TEXT NOT NULL DEFAULT '',
  stderr TEXT NOT NULL DEFAULT '',
  input_tokens INTEGER,
  output_tokens INTEGER,
  cost_usd REAL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (loop_id, scheduled_for)
);
CREATE INDEX runs_loop_created ON runs(loop_id, created_at);
CREATE INDEX runs_status_lease ON runs(status, lease_expires_at);
CREATE INDEX runs_created ON runs(created_at);

CREATE TABLE daemon_lease (
  slot INTEGER PRIMARY KEY CHECK (slot = 1),
  lease_id TEXT NOT NULL,
  generation INTEGER NOT NULL,
  pid INTEGER NOT NULL,
  process_started_at INTEGER,
  host TEXT NOT NULL,
  acquired_at INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
)sql";

constexpr const char* kUsageLimits = R"sql(
ALTER TABLE runs ADD COLUMN usage_limited INTEGER NOT NULL DEFAULT 0;
CREATE TABLE cooldowns (
  account TEXT PRIMARY KEY,
  until_at INTEGER NOT NULL,
  hits INTEGER NOT NULL,
  reason TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
)sql";

// Log limits, bounded free re-attempts, and indexes that keep expiry and
// per-loop pruning proportional to what they touch.
constexpr const char* kLimitsAndIndexes = R"sql(
ALTER TABLE loops ADD COLUMN log_limit_bytes INTEGER NOT NULL DEFAULT 67108864;
ALTER TABLE runs ADD COLUMN free_reattempts INTEGER NOT NULL DEFAULT 0;
CREATE INDEX loops_expiry ON loops(status, expires_at);
DROP INDEX runs_loop_created;
CREATE INDEX runs_loop_created ON runs(loop_id, created_at, id);
)sql";

// The daemon (docs/storage.md, "Loop versions", "Plan commits", "Settling a
// finished run"): a version per part of a loop, whether a finished run's
// effect on its loop is applied, a run's own choice of its loop's next
// delay, and partial indexes for the runs the daemon looks at.
constexpr const char* kDaemon = R"sql(
ALTER TABLE loops ADD COLUMN config_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE loops ADD COLUMN state_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE loops ADD COLUMN series_resume_at INTEGER;
ALTER TABLE runs ADD COLUMN settled INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN next_in_ms INTEGER;
CREATE INDEX runs_unsettled ON runs(finished_at, id) WHERE settled = 0;
CREATE INDEX runs_active ON runs(loop_id, scheduled_for) WHERE status IN ('running', 'queued');
)sql";

// Runs on several hosts (docs/storage.md, "Runs on several hosts"): the
// host whose daemon or command claimed each run, and the daemons that run
// them (docs/daemon.md, "Runners").
constexpr const char* kHosts = R"sql(
ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
CREATE TABLE runners (
  id TEXT PRIMARY KEY,
  host TEXT NOT NULL,
  labels TEXT NOT NULL,
  pid INTEGER NOT NULL,
  process_started_at INTEGER,
  home TEXT NOT NULL,
  started_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL
);
CREATE INDEX runs_running_claimant ON runs(claimed_by) WHERE status = 'running';
)sql";

// Runners (docs/daemon.md, "Runners"): slots planned for any runner wait as
// pending rows, which count as active; a run of another host is cancelled
// by a request its runner acts on. orrery_labels_within() is a function the
// store registers on every connection (store/sqlite/labels_function.h).
constexpr const char* kRunners = R"sql(
DROP INDEX runs_active;
CREATE INDEX runs_active ON runs(loop_id, scheduled_for)
  WHERE status IN ('running', 'queued', 'pending');
CREATE INDEX runs_pending ON runs(scheduled_for, id) WHERE status = 'pending';
ALTER TABLE runs ADD COLUMN cancel_requested INTEGER NOT NULL DEFAULT 0;
)sql";

// Workflows (docs/workflows.md, "Storage"): versioned specs, their runs,
// each run's steps, the steps' append-only attempts and the run's
// append-only event journal. A run's steps, attempts and events go with it.
constexpr const char* kWorkflows = R"sql(
CREATE TABLE workflows (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  status TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  goal TEXT NOT NULL DEFAULT '',
  spec TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (name, version)
);

CREATE TABLE workflow_runs (
  id TEXT PRIMARY KEY,
  workflow_id TEXT NOT NULL REFERENCES workflows(id),
  workflow_name TEXT NOT NULL,
  workflow_version INTEGER NOT NULL,
  status TEXT NOT NULL,
  input_json TEXT NOT NULL DEFAULT '{}',
  idempotency_key TEXT NOT NULL DEFAULT '',
  loop_id TEXT NOT NULL DEFAULT '',
  loop_run_id TEXT NOT NULL DEFAULT '',
  cwd TEXT NOT NULL DEFAULT '',
  max_parallel INTEGER NOT NULL,
  driver TEXT NOT NULL DEFAULT '',
  driver_token TEXT NOT NULL DEFAULT '',
  driver_generation INTEGER NOT NULL DEFAULT 0,
  driver_lease_expires_at INTEGER,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  finished_at INTEGER,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX workflow_runs_idempotency ON workflow_runs(workflow_name, idempotency_key)
  WHERE idempotency_key != '';
CREATE INDEX workflow_runs_created ON workflow_runs(created_at, id);
CREATE INDEX workflow_runs_name_created ON workflow_runs(workflow_name, created_at, id);
CREATE INDEX workflow_runs_status_created ON workflow_runs(status, created_at, id);
CREATE INDEX workflow_runs_loop_run ON workflow_runs(loop_run_id) WHERE loop_run_id != '';
CREATE INDEX workflow_runs_unfinished ON workflow_runs(created_at, id)
  WHERE status IN ('pending', 'running');

CREATE TABLE workflow_steps (
  run_id TEXT NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
  step_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  max_attempts INTEGER NOT NULL,
  dispatch_id TEXT NOT NULL DEFAULT '',
  started_at INTEGER,
  finished_at INTEGER,
  exit_code INTEGER,
  error TEXT NOT NULL DEFAULT '',
  outputs_json TEXT NOT NULL DEFAULT '{}',
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, step_id),
  UNIQUE (run_id, sequence)
);

CREATE TABLE workflow_attempts (
  dispatch_id TEXT PRIMARY KEY,
  run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  phase TEXT NOT NULL DEFAULT 'execute',
  status TEXT NOT NULL,
  claimed_by TEXT NOT NULL DEFAULT '',
  claim_token TEXT NOT NULL DEFAULT '',
  host TEXT NOT NULL DEFAULT '',
  lease_expires_at INTEGER,
  supervisor_pid INTEGER,
  supervisor_started_at INTEGER,
  pid INTEGER,
  process_started_at INTEGER,
  pgid INTEGER,
  started_at INTEGER NOT NULL,
  finished_at INTEGER,
  exit_code INTEGER,
  signal INTEGER,
  error TEXT NOT NULL DEFAULT '',
  stdout TEXT NOT NULL DEFAULT '',
  stderr TEXT NOT NULL DEFAULT '',
  outputs_json TEXT NOT NULL DEFAULT '{}',
  input_tokens INTEGER,
  output_tokens INTEGER,
  cost_usd REAL,
  usage_limited INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  UNIQUE (run_id, step_id, attempt),
  FOREIGN KEY (run_id, step_id) REFERENCES workflow_steps(run_id, step_id) ON DELETE CASCADE
);

CREATE TABLE workflow_events (
  run_id TEXT NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
  sequence INTEGER NOT NULL,
  event_type TEXT NOT NULL,
  step_id TEXT NOT NULL DEFAULT '',
  payload_json TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, sequence)
);
)sql";

// Claims from runs alone (docs/storage.md, "Pending runs"): a pending row
// carries what a runner's claim checks of its loop — whether the loop is
// active and not archived, its --machine selector, its expiry and its lease
// — written when the row is left to runners and kept in step by a trigger
// whenever one of them changes on the loop, so that a claim reads no loop.
// The trigger names every active status so that the partial index
// runs_active serves it.
constexpr const char* kClaimTerms = R"sql(
ALTER TABLE runs ADD COLUMN claim_open INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN claim_selector TEXT NOT NULL DEFAULT '[]';
ALTER TABLE runs ADD COLUMN claim_expires_at INTEGER;
ALTER TABLE runs ADD COLUMN claim_lease_ms INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET (claim_open, claim_selector, claim_expires_at, claim_lease_ms) =
  (SELECT status = 'active' AND archived = 0, machine_json, expires_at, lease_ms
   FROM loops WHERE loops.id = runs.loop_id)
  WHERE status = 'pending';
CREATE TRIGGER loops_claim_terms AFTER UPDATE OF status, archived, machine_json, expires_at,
  lease_ms ON loops
  WHEN OLD.status IS NOT NEW.status OR OLD.archived IS NOT NEW.archived
    OR OLD.machine_json IS NOT NEW.machine_json OR OLD.expires_at IS NOT NEW.expires_at
    OR OLD.lease_ms IS NOT NEW.lease_ms
BEGIN
  UPDATE runs SET claim_open = (NEW.status = 'active' AND NEW.archived = 0),
    claim_selector = NEW.machine_json, claim_expires_at = NEW.expires_at,
    claim_lease_ms = NEW.lease_ms
  WHERE loop_id = NEW.id AND status IN ('running', 'queued', 'pending') AND status = 'pending';
END;
)sql";

// The admission queue (docs/admission.md): routes, the invocations items
// came from, and the work items; a workflow run names the item it serves.
constexpr const char* kAdmission = R"sql(
CREATE TABLE routes (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  description TEXT NOT NULL DEFAULT '',
  workflow_id TEXT NOT NULL REFERENCES workflows(id),
  workflow_name TEXT NOT NULL,
  workflow_version INTEGER NOT NULL,
  status TEXT NOT NULL,
  max_running INTEGER NOT NULL,
  max_per_project INTEGER NOT NULL,
  max_per_group INTEGER NOT NULL,
  max_attempts INTEGER NOT NULL,
  retry_delay_ms INTEGER NOT NULL,
  retry_backoff TEXT NOT NULL,
  priority_aging_ms INTEGER NOT NULL,
  cwd TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX routes_workflow ON routes(workflow_id);

CREATE TABLE invocations (
  id TEXT PRIMARY KEY,
  source_kind TEXT NOT NULL DEFAULT '',
  source_id TEXT NOT NULL DEFAULT '',
  source_dedupe_key TEXT NOT NULL DEFAULT '',
  subject_kind TEXT NOT NULL DEFAULT '',
  subject_id TEXT NOT NULL DEFAULT '',
  subject_path TEXT NOT NULL DEFAULT '',
  subject_url TEXT NOT NULL DEFAULT '',
  intent TEXT NOT NULL DEFAULT '',
  scope_json TEXT NOT NULL DEFAULT '{}',
  output_policy_json TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX invocations_dedupe ON invocations(source_kind, source_dedupe_key)
  WHERE source_dedupe_key != '';

CREATE TABLE work_items (
  id TEXT PRIMARY KEY,
  route_id TEXT NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
  item_key TEXT NOT NULL,
  invocation_id TEXT NOT NULL REFERENCES invocations(id),
  status TEXT NOT NULL,
  priority INTEGER NOT NULL,
  project TEXT NOT NULL DEFAULT '',
  item_group TEXT NOT NULL DEFAULT '',
  attempts INTEGER NOT NULL DEFAULT 0,
  free_returns INTEGER NOT NULL DEFAULT 0,
  admissions INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  queued_at INTEGER NOT NULL,
  workflow_run_id TEXT NOT NULL DEFAULT '',
  input_json TEXT NOT NULL DEFAULT '{}',
  last_reason TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (route_id, item_key)
);
CREATE INDEX work_items_open ON work_items(status, route_id)
  WHERE status IN ('queued', 'deferred', 'failed', 'admitted', 'running');
CREATE INDEX work_items_created ON work_items(created_at, id);
CREATE INDEX work_items_route_created ON work_items(route_id, created_at, id);
CREATE INDEX work_items_invocation ON work_items(invocation_id);
CREATE INDEX work_items_finished ON work_items(updated_at)
  WHERE status IN ('succeeded', 'dead_letter', 'cancelled');

ALTER TABLE workflow_runs ADD COLUMN item_id TEXT NOT NULL DEFAULT '';
)sql";

// Feeds (docs/admission.md, "Feeds"): a loop may feed a route; a run of it
// that succeeds gets a pending feed, written with its finish by a trigger,
// which a daemon on the run's host turns into work items. And the indexes
// that make an admission's limit counts read only the items holding
// capacity, however many wait.
constexpr const char* kFeeds = R"sql(
ALTER TABLE loops ADD COLUMN feed_route_id TEXT NOT NULL DEFAULT '';
CREATE INDEX loops_feed ON loops(feed_route_id) WHERE feed_route_id != '';
CREATE TABLE run_feeds (
  run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  route_id TEXT NOT NULL,
  host TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL DEFAULT 'pending',
  created INTEGER NOT NULL DEFAULT 0,
  refreshed INTEGER NOT NULL DEFAULT 0,
  duplicate INTEGER NOT NULL DEFAULT 0,
  invalid INTEGER NOT NULL DEFAULT 0,
  invalid_json TEXT NOT NULL DEFAULT '[]',
  error TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  fed_at INTEGER
);
CREATE INDEX run_feeds_pending ON run_feeds(host, created_at) WHERE status = 'pending';
CREATE INDEX work_items_holding_route ON work_items(route_id)
  WHERE status IN ('admitted', 'running');
CREATE INDEX work_items_holding_project ON work_items(project)
  WHERE status IN ('admitted', 'running');
CREATE INDEX work_items_holding_group ON work_items(item_group)
  WHERE status IN ('admitted', 'running');
CREATE TRIGGER runs_feed AFTER UPDATE OF status ON runs
  WHEN NEW.status = 'succeeded' AND OLD.status IS NOT 'succeeded'
BEGIN
  INSERT OR IGNORE INTO run_feeds (run_id, route_id, host, created_at)
    SELECT NEW.id, feed_route_id, NEW.host, NEW.updated_at FROM loops
    WHERE id = NEW.loop_id AND feed_route_id != '';
END;
)sql";

constexpr const char* kQueueIndexes = R"sql(
-- The daemon's reads by status (admitted items to start, running ones to
-- settle, failed ones due a retry): an index whose prefix is the status.
-- And queued items with every column admission reads, so that its scan of
-- the queue never visits the table.
DROP INDEX work_items_open;
CREATE INDEX work_items_status ON work_items(status, updated_at, id);
CREATE INDEX work_items_queued ON work_items(route_id, project, item_group, priority, queued_at,
  next_attempt_at, item_key, id, status) WHERE status = 'queued';
)sql";

constexpr const char* kGoals = R"sql(
-- Goals (docs/goals.md): an objective with a budget that runs of one target
-- pursue. A goal's plan is stored with it, as one JSON list, so that a goal
-- and its plan change together under the goal's version. One goal that is
-- not final per target: the unique partial index on its key.
ALTER TABLE loops ADD COLUMN paused_by_goal TEXT NOT NULL DEFAULT '';
CREATE TABLE goals (
  id TEXT PRIMARY KEY,
  objective TEXT NOT NULL,
  status TEXT NOT NULL,
  status_reason TEXT NOT NULL DEFAULT '',
  target_type TEXT NOT NULL,
  target_key TEXT NOT NULL,
  loop_id TEXT NOT NULL DEFAULT '',
  workflow_id TEXT NOT NULL DEFAULT '',
  workflow_name TEXT NOT NULL DEFAULT '',
  step_id TEXT NOT NULL DEFAULT '',
  drive TEXT NOT NULL,
  token_budget INTEGER,
  tokens_used INTEGER NOT NULL DEFAULT 0,
  max_turns INTEGER,
  turns INTEGER NOT NULL DEFAULT 0,
  stall_turns INTEGER NOT NULL,
  turns_without_progress INTEGER NOT NULL DEFAULT 0,
  limited_until INTEGER,
  last_evidence_json TEXT NOT NULL DEFAULT '',
  last_summary TEXT NOT NULL DEFAULT '',
  last_update_error TEXT NOT NULL DEFAULT '',
  plan_json TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  version INTEGER NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX goals_open_target ON goals(target_key)
  WHERE status NOT IN ('budget_limited', 'complete', 'cancelled');
CREATE INDEX goals_created ON goals(created_at, id);
CREATE INDEX goals_loop ON goals(loop_id, created_at) WHERE loop_id != '';
CREATE INDEX goals_cooling ON goals(limited_until) WHERE status = 'usage_limited';
-- One row per turn; a piece of work (a run, an attempt, a workflow run) is
-- a turn of a goal at most once: the primary key.
CREATE TABLE goal_turns (
  goal_id TEXT NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
  work_id TEXT NOT NULL,
  turn INTEGER NOT NULL,
  spent INTEGER NOT NULL,
  loop_run_id TEXT NOT NULL DEFAULT '',
  workflow_run_id TEXT NOT NULL DEFAULT '',
  step_id TEXT NOT NULL DEFAULT '',
  dispatch_id TEXT NOT NULL DEFAULT '',
  node_key TEXT NOT NULL DEFAULT '',
  run_status TEXT NOT NULL,
  status TEXT NOT NULL,
  tokens_used INTEGER NOT NULL DEFAULT 0,
  evidence_json TEXT NOT NULL DEFAULT '',
  summary TEXT NOT NULL DEFAULT '',
  update_json TEXT NOT NULL DEFAULT '',
  update_error TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  PRIMARY KEY (goal_id, work_id)
);
CREATE INDEX goal_turns_goal ON goal_turns(goal_id, created_at, turn);
)sql";

constexpr const char* kWorkers = R"sql(
-- Workers and the merge queue (docs/workers.md). A worker is one step's git
-- worktree and branch; its every change of state is appended to
-- worker_events, which refuses UPDATE and DELETE. A merge entry brings a
-- reported worker's branch onto a target branch; queue_configs hold each
-- repository's settings, queue_leases the one driver of each queue.
CREATE TABLE workers (
  id TEXT PRIMARY KEY,
  workflow_run_id TEXT NOT NULL,
  step_id TEXT NOT NULL,
  repo TEXT NOT NULL,
  branch TEXT NOT NULL,
  worktree_path TEXT NOT NULL UNIQUE,
  host TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('planned', 'leased', 'starting', 'running',
    'reported', 'verifying', 'merge_ready', 'merged', 'hold', 'failed', 'cancelled')),
  base_revision TEXT NOT NULL,
  base_branch TEXT NOT NULL DEFAULT '',
  final_revision TEXT NOT NULL DEFAULT '',
  lease_owner TEXT NOT NULL DEFAULT '',
  lease_expires_at INTEGER,
  heartbeat_at INTEGER,
  hold_reason TEXT NOT NULL DEFAULT '',
  failure_reason TEXT NOT NULL DEFAULT '',
  changed_files_json TEXT NOT NULL DEFAULT '[]',
  allowed_files_json TEXT NOT NULL DEFAULT '[]',
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER,
  UNIQUE (workflow_run_id, step_id),
  CHECK ((state IN ('merged', 'failed', 'cancelled')) = (finished_at IS NOT NULL))
);
CREATE INDEX workers_state ON workers(state, updated_at, id);
CREATE INDEX workers_repo ON workers(repo, state, updated_at);
CREATE INDEX workers_lease ON workers(lease_expires_at)
  WHERE state IN ('leased', 'starting', 'running', 'verifying', 'merge_ready');
CREATE TABLE worker_events (
  worker_id TEXT NOT NULL,
  sequence INTEGER NOT NULL,
  from_state TEXT NOT NULL DEFAULT '',
  to_state TEXT NOT NULL,
  reason TEXT NOT NULL DEFAULT '',
  payload_json TEXT NOT NULL DEFAULT '{}',
  created_at INTEGER NOT NULL,
  PRIMARY KEY (worker_id, sequence)
);
CREATE TRIGGER worker_events_no_update BEFORE UPDATE ON worker_events
BEGIN
  SELECT RAISE(ABORT, 'worker_events is append-only');
END;
CREATE TRIGGER worker_events_no_delete BEFORE DELETE ON worker_events
BEGIN
  SELECT RAISE(ABORT, 'worker_events is append-only');
END;
CREATE TABLE merge_entries (
  id TEXT PRIMARY KEY,
  worker_id TEXT NOT NULL UNIQUE,
  repo TEXT NOT NULL,
  target TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('waiting', 'ready', 'merged', 'conflict', 'rejected')),
  priority INTEGER NOT NULL DEFAULT 0,
  strategy TEXT NOT NULL DEFAULT '',
  base_revision TEXT NOT NULL,
  parent_revision TEXT NOT NULL DEFAULT '',
  candidate_revision TEXT NOT NULL,
  merge_commit TEXT NOT NULL DEFAULT '',
  verify_command TEXT NOT NULL DEFAULT '',
  verify_exit_code INTEGER,
  verify_duration_ms INTEGER,
  verify_output_tail TEXT NOT NULL DEFAULT '',
  verified_tree TEXT NOT NULL DEFAULT '',
  reason TEXT NOT NULL DEFAULT '',
  conflict_files_json TEXT NOT NULL DEFAULT '[]',
  driver TEXT NOT NULL DEFAULT '',
  lease_expires_at INTEGER,
  queued_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  finished_at INTEGER
);
CREATE INDEX merge_entries_queue ON merge_entries(repo, target, state, priority, queued_at, id);
CREATE INDEX merge_entries_open ON merge_entries(state, queued_at) WHERE state IN ('waiting', 'ready');
CREATE TABLE queue_configs (
  repo TEXT PRIMARY KEY,
  target TEXT NOT NULL DEFAULT '',
  verify TEXT NOT NULL DEFAULT '',
  strategy TEXT NOT NULL DEFAULT 'rebase',
  updated_at INTEGER NOT NULL
);
CREATE TABLE queue_leases (
  repo TEXT NOT NULL,
  target TEXT NOT NULL,
  driver TEXT NOT NULL DEFAULT '',
  lease_expires_at INTEGER,
  PRIMARY KEY (repo, target)
);
)sql";

// The schema version and whether the file holds any table, read together
// (one statement, one snapshot: another process's migration cannot fall
// between the two).
struct SchemaState {
  int version = 0;
  bool has_tables = false;
};

Result<SchemaState> schema_state(Database& db) {
  auto statement = db.prepare(
      "SELECT (SELECT user_version FROM pragma_user_version), "
      "EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table')");
  if (!statement) return statement.error();
  auto row = (*statement)->step();
  if (!row) return row.error();
  return SchemaState{int((*statement)->int64(0)), (*statement)->int64(1) != 0};
}

Status check_state(const SchemaState& state, int latest) {
  if (state.version > latest) {
    return conflict_error("the database schema is version " + std::to_string(state.version) +
                          ", newer than this orrery supports (version " + std::to_string(latest) +
                          "); upgrade orrery to open it");
  }
  if (state.version == 0 && state.has_tables) {
    // A database with tables and no orrery schema belongs to another program.
    return usage_error(
        "the database holds tables of another program and no orrery schema; "
        "refusing to change it (choose another --home or --db)");
  }
  return Ok{};
}

// What SQLite does its own way: the version is also PRAGMA user_version,
// WAL is turned on before the first write, and each migration commits in its
// own write transaction (BEGIN IMMEDIATE takes the whole database, so
// migrating processes take turns).
class SqliteMigrations final : public sql::MigrationBackend {
 public:
  explicit SqliteMigrations(Database& db) : db_(db) {}

  sql::Connection& connection() override { return db_; }
  Result<int> checked_version(int latest) override {
    auto state = schema_state(db_);
    if (!state) return state.error();
    if (auto compatible = check_state(*state, latest); !compatible) return compatible.error();
    return state->version;
  }
  Status before_writing() override { return db_.ensure_wal(); }
  std::string_view history_table() const override {
    return "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, "
           "name TEXT NOT NULL, applied_at INTEGER NOT NULL)";
  }
  Status mark(const Migration& migration) override {
    return db_.exec("PRAGMA user_version = " + std::to_string(migration.version));
  }
  bool one_transaction() const override { return false; }

 private:
  Database& db_;
};

// The name of the variable only: the secret stays in the server's environment.
constexpr const char* kWebhookSecrets =
    "ALTER TABLE routes ADD COLUMN webhook_secret_env TEXT NOT NULL DEFAULT '';";

constexpr const char* kItemFeedback =
    "ALTER TABLE work_items ADD COLUMN feedback_json TEXT NOT NULL DEFAULT '';";

constexpr const char* kRunGoals =
    "ALTER TABLE workflow_runs ADD COLUMN goal_id TEXT NOT NULL DEFAULT '';";

// The process holding a queue's lease, so that a driver that died on this
// host is replaced at once rather than after its lease.
constexpr const char* kQueueHolders = R"sql(
ALTER TABLE queue_leases ADD COLUMN pid INTEGER;
ALTER TABLE queue_leases ADD COLUMN process_started_at INTEGER;
ALTER TABLE queue_leases ADD COLUMN host TEXT NOT NULL DEFAULT '';
)sql";

// An invocation an item has started from is kept as it was: a later enqueue
// of its dedupe key supersedes it with a new one (docs/admission.md), so the
// key names one current invocation, not one ever.
constexpr const char* kSupersededInvocations = R"sql(
ALTER TABLE invocations ADD COLUMN superseded_at INTEGER;
DROP INDEX invocations_dedupe;
CREATE UNIQUE INDEX invocations_dedupe ON invocations(source_kind, source_dedupe_key)
  WHERE source_dedupe_key != '' AND superseded_at IS NULL;
)sql";

}  // namespace

const std::vector<Migration>& migrations() {
  static const std::string events = sql::event_journal_schema(sql::SqlDialect::kSqlite);
  static const std::vector<Migration> list = {
      {1, "loops, runs and the daemon lease", kInitialSchema},
      {2, "usage limits: usage-limited runs and provider cooldowns", kUsageLimits},
      {3, "log limits, free re-attempts, expiry and pruning indexes", kLimitsAndIndexes},
      {4, "the daemon: loop versions, settled runs, next-in choices, active-run indexes", kDaemon},
      {5, "runs on several hosts: the host of each run, the runners", kHosts},
      {6, "runners: pending runs and cancel requests", kRunners},
      {7, "workflows: specs, runs, steps, attempts and events", kWorkflows},
      {8, "claims from runs alone: each pending run carries its loop's claim terms", kClaimTerms},
      {9, "admission: routes, invocations and work items", kAdmission},
      {10, "feeds: a loop's succeeded runs enqueue work items on a route", kFeeds},
      {11, "the admission queue read by status, and queued items covered", kQueueIndexes},
      {12, "goals: objectives with token budgets, their plans and turns", kGoals},
      {13, "workers in git worktrees, their events and the merge queue", kWorkers},
      {14, "the event journal: what changed, for live events", events.c_str()},
      {15, "routes: the environment variable of a webhook's signing secret", kWebhookSecrets},
      {16, "work items: the feedback of a failed attempt for the next one", kItemFeedback},
      {17, "workflow runs: the goal each was published under", kRunGoals},
      {18, "queue leases: the process of the driver holding each", kQueueHolders},
      {19, "invocations: one started from is superseded, never rewritten", kSupersededInvocations},

  };
  return list;
}

int latest_schema_version() { return migrations().back().version; }

Status migrate(Database& db, std::int64_t now) { return migrate_with(db, migrations(), now); }

Status check_schema(Database& db, int latest) {
  auto state = schema_state(db);
  if (!state) return state.error();
  return check_state(*state, latest);
}

Result<int> schema_version(Database& db) {
  auto state = schema_state(db);
  if (!state) return state.error();
  return state->version;
}

Status migrate_with(Database& db, const std::vector<Migration>& list, std::int64_t now) {
  // Any number of processes may get here at once on a new database: each
  // migration is applied by whoever takes the write lock first; the others
  // then find it applied (docs/storage.md, "Migrations").
  SqliteMigrations backend(db);
  return sql::run_migrations(backend, list, now);
}

}  // namespace orrery::sqlite
