#include "store/postgres/pg_migrations.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <string>

#include "store/sql/event_schema.h"

namespace orrery::postgres {
namespace {

// The schema of SQLite's version 4 in PostgreSQL's types: BIGINT for
// integers and times, DOUBLE PRECISION for costs, text compared byte by byte
// (COLLATE "C", as SQLite does) so that ids, names and prefixes order alike.
constexpr const char* kVersion4 = R"sql(
CREATE TABLE loops (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  status TEXT COLLATE "C" NOT NULL,
  archived BIGINT NOT NULL DEFAULT 0,
  archived_from_status TEXT COLLATE "C",
  schedule_type TEXT COLLATE "C" NOT NULL,
  schedule_expression TEXT COLLATE "C",
  schedule_timezone TEXT COLLATE "C",
  schedule_every_ms BIGINT,
  schedule_anchor TEXT COLLATE "C",
  schedule_at BIGINT,
  schedule_min_ms BIGINT,
  schedule_max_ms BIGINT,
  schedule_jitter_ms BIGINT NOT NULL DEFAULT 0,
  target_json TEXT COLLATE "C" NOT NULL,
  machine_json TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  next_run_at BIGINT,
  retry_scheduled_for BIGINT,
  catch_up TEXT COLLATE "C" NOT NULL,
  catch_up_limit BIGINT NOT NULL,
  catch_up_window_ms BIGINT,
  overlap TEXT COLLATE "C" NOT NULL,
  max_attempts BIGINT NOT NULL,
  retry_delay_ms BIGINT NOT NULL,
  retry_backoff TEXT COLLATE "C" NOT NULL,
  lease_ms BIGINT NOT NULL,
  timeout_ms BIGINT,
  idle_timeout_ms BIGINT,
  expires_at BIGINT,
  missed_count BIGINT NOT NULL DEFAULT 0,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  log_limit_bytes BIGINT NOT NULL DEFAULT 67108864,
  config_version BIGINT NOT NULL DEFAULT 1,
  state_version BIGINT NOT NULL DEFAULT 1,
  series_resume_at BIGINT
);
CREATE INDEX loops_due ON loops(status, archived, next_run_at, id);
CREATE INDEX loops_name ON loops(name);
CREATE INDEX loops_expiry ON loops(status, expires_at);

CREATE TABLE runs (
  id TEXT COLLATE "C" PRIMARY KEY,
  loop_id TEXT COLLATE "C" NOT NULL REFERENCES loops(id) ON DELETE CASCADE,
  loop_name TEXT COLLATE "C" NOT NULL,
  scheduled_for BIGINT NOT NULL,
  attempt BIGINT NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  started_at BIGINT,
  finished_at BIGINT,
  claimed_by TEXT COLLATE "C" NOT NULL DEFAULT '',
  claim_token TEXT COLLATE "C" NOT NULL DEFAULT '',
  claim_generation BIGINT NOT NULL DEFAULT 0,
  lease_expires_at BIGINT,
  pid BIGINT,
  process_started_at BIGINT,
  pgid BIGINT,
  supervisor_pid BIGINT,
  supervisor_started_at BIGINT,
  exit_code BIGINT,
  signal BIGINT,
  duration_ms BIGINT,
  error TEXT COLLATE "C" NOT NULL DEFAULT '',
  skip_reason TEXT COLLATE "C" NOT NULL DEFAULT '',
  stdout TEXT COLLATE "C" NOT NULL DEFAULT '',
  stderr TEXT COLLATE "C" NOT NULL DEFAULT '',
  input_tokens BIGINT,
  output_tokens BIGINT,
  cost_usd DOUBLE PRECISION,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  usage_limited BIGINT NOT NULL DEFAULT 0,
  free_reattempts BIGINT NOT NULL DEFAULT 0,
  settled BIGINT NOT NULL DEFAULT 1,
  next_in_ms BIGINT,
  UNIQUE (loop_id, scheduled_for)
);
CREATE INDEX runs_loop_created ON runs(loop_id, created_at, id);
CREATE INDEX runs_status_lease ON runs(status, lease_expires_at);
CREATE INDEX runs_created ON runs(created_at);
CREATE INDEX runs_unsettled ON runs(finished_at, id) WHERE settled = 0;
CREATE INDEX runs_active ON runs(loop_id, scheduled_for) WHERE status IN ('running', 'queued');

CREATE TABLE daemon_lease (
  slot BIGINT PRIMARY KEY CHECK (slot = 1),
  lease_id TEXT COLLATE "C" NOT NULL,
  generation BIGINT NOT NULL,
  pid BIGINT NOT NULL,
  process_started_at BIGINT,
  host TEXT COLLATE "C" NOT NULL,
  acquired_at BIGINT NOT NULL,
  heartbeat_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);

CREATE TABLE cooldowns (
  account TEXT COLLATE "C" PRIMARY KEY,
  until_at BIGINT NOT NULL,
  hits BIGINT NOT NULL,
  reason TEXT COLLATE "C" NOT NULL,
  updated_at BIGINT NOT NULL
);
)sql";

constexpr const char* kVersion5 = R"sql(
ALTER TABLE runs ADD COLUMN host TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE TABLE runners (
  id TEXT COLLATE "C" PRIMARY KEY,
  host TEXT COLLATE "C" NOT NULL,
  labels TEXT COLLATE "C" NOT NULL,
  pid BIGINT NOT NULL,
  process_started_at BIGINT,
  home TEXT COLLATE "C" NOT NULL,
  started_at BIGINT NOT NULL,
  last_seen_at BIGINT NOT NULL
);
CREATE INDEX runs_running_claimant ON runs(claimed_by) WHERE status = 'running';
)sql";

// Runners (docs/daemon.md, "Runners"): pending rows, cancel requests, and
// whether a runner's labels (LABEL=VALUE joined by ',') hold every pair of a
// loop's stored --machine selector ([["LABEL", "VALUE"], ...]). A LABEL has
// no '=' and a VALUE no ',', so "LABEL=VALUE" is one element of the split.
constexpr const char* kVersion6 = R"sql(
DROP INDEX runs_active;
CREATE INDEX runs_active ON runs(loop_id, scheduled_for)
  WHERE status IN ('running', 'queued', 'pending');
CREATE INDEX runs_pending ON runs(scheduled_for, id) WHERE status = 'pending';
ALTER TABLE runs ADD COLUMN cancel_requested BIGINT NOT NULL DEFAULT 0;
CREATE FUNCTION orrery_labels_within(selector TEXT, labels TEXT) RETURNS BOOLEAN
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
  SELECT NOT EXISTS (
    SELECT 1 FROM jsonb_array_elements(selector::jsonb) AS pair
    WHERE NOT ((pair->>0) || '=' || (pair->>1) = ANY (string_to_array(labels, ','))))
$$;
)sql";

// Workflows (docs/workflows.md, "Storage"): versioned specs, their runs,
// each run's steps, the steps' append-only attempts and the run's
// append-only event journal. A run's steps, attempts and events go with it.
constexpr const char* kVersion7 = R"sql(
CREATE TABLE workflows (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  version BIGINT NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  goal TEXT COLLATE "C" NOT NULL DEFAULT '',
  spec TEXT COLLATE "C" NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (name, version)
);

CREATE TABLE workflow_runs (
  id TEXT COLLATE "C" PRIMARY KEY,
  workflow_id TEXT COLLATE "C" NOT NULL REFERENCES workflows(id),
  workflow_name TEXT COLLATE "C" NOT NULL,
  workflow_version BIGINT NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  input_json TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  idempotency_key TEXT COLLATE "C" NOT NULL DEFAULT '',
  loop_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  loop_run_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  cwd TEXT COLLATE "C" NOT NULL DEFAULT '',
  max_parallel BIGINT NOT NULL,
  driver TEXT COLLATE "C" NOT NULL DEFAULT '',
  driver_token TEXT COLLATE "C" NOT NULL DEFAULT '',
  driver_generation BIGINT NOT NULL DEFAULT 0,
  driver_lease_expires_at BIGINT,
  cancel_requested BIGINT NOT NULL DEFAULT 0,
  error TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  started_at BIGINT,
  finished_at BIGINT,
  updated_at BIGINT NOT NULL
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
  run_id TEXT COLLATE "C" NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
  step_id TEXT COLLATE "C" NOT NULL,
  sequence BIGINT NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  attempts BIGINT NOT NULL DEFAULT 0,
  max_attempts BIGINT NOT NULL,
  dispatch_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  started_at BIGINT,
  finished_at BIGINT,
  exit_code BIGINT,
  error TEXT COLLATE "C" NOT NULL DEFAULT '',
  outputs_json TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (run_id, step_id),
  UNIQUE (run_id, sequence)
);

CREATE TABLE workflow_attempts (
  dispatch_id TEXT COLLATE "C" PRIMARY KEY,
  run_id TEXT COLLATE "C" NOT NULL,
  step_id TEXT COLLATE "C" NOT NULL,
  attempt BIGINT NOT NULL,
  phase TEXT COLLATE "C" NOT NULL DEFAULT 'execute',
  status TEXT COLLATE "C" NOT NULL,
  claimed_by TEXT COLLATE "C" NOT NULL DEFAULT '',
  claim_token TEXT COLLATE "C" NOT NULL DEFAULT '',
  host TEXT COLLATE "C" NOT NULL DEFAULT '',
  lease_expires_at BIGINT,
  supervisor_pid BIGINT,
  supervisor_started_at BIGINT,
  pid BIGINT,
  process_started_at BIGINT,
  pgid BIGINT,
  started_at BIGINT NOT NULL,
  finished_at BIGINT,
  exit_code BIGINT,
  signal BIGINT,
  error TEXT COLLATE "C" NOT NULL DEFAULT '',
  stdout TEXT COLLATE "C" NOT NULL DEFAULT '',
  stderr TEXT COLLATE "C" NOT NULL DEFAULT '',
  outputs_json TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  input_tokens BIGINT,
  output_tokens BIGINT,
  cost_usd DOUBLE PRECISION,
  usage_limited BIGINT NOT NULL DEFAULT 0,
  updated_at BIGINT NOT NULL,
  UNIQUE (run_id, step_id, attempt),
  FOREIGN KEY (run_id, step_id) REFERENCES workflow_steps(run_id, step_id) ON DELETE CASCADE
);

CREATE TABLE workflow_events (
  run_id TEXT COLLATE "C" NOT NULL REFERENCES workflow_runs(id) ON DELETE CASCADE,
  sequence BIGINT NOT NULL,
  event_type TEXT COLLATE "C" NOT NULL,
  step_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  payload_json TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  PRIMARY KEY (run_id, sequence)
);
)sql";

// Claims from runs alone (docs/storage.md, "Pending runs"): a pending row
// carries what a runner's claim checks of its loop — whether the loop is
// active and not archived, its --machine selector, its expiry and its lease
// — written when the row is left to runners and kept in step by a trigger
// whenever one of them changes on the loop, so that a claim locks and reads
// no loop.
constexpr const char* kVersion8 = R"sql(
ALTER TABLE runs ADD COLUMN claim_open BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN claim_selector TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  ADD COLUMN claim_expires_at BIGINT,
  ADD COLUMN claim_lease_ms BIGINT NOT NULL DEFAULT 0;
UPDATE runs SET claim_open = CASE WHEN l.status = 'active' AND l.archived = 0 THEN 1 ELSE 0 END,
  claim_selector = l.machine_json, claim_expires_at = l.expires_at, claim_lease_ms = l.lease_ms
  FROM loops l WHERE l.id = runs.loop_id AND runs.status = 'pending';
CREATE FUNCTION orrery_loop_claim_terms() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE runs SET claim_open = CASE WHEN NEW.status = 'active' AND NEW.archived = 0
      THEN 1 ELSE 0 END,
    claim_selector = NEW.machine_json, claim_expires_at = NEW.expires_at,
    claim_lease_ms = NEW.lease_ms
  WHERE loop_id = NEW.id AND status = 'pending';
  RETURN NULL;
END
$$;
CREATE TRIGGER loops_claim_terms AFTER UPDATE OF status, archived, machine_json, expires_at,
  lease_ms ON loops FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.archived IS DISTINCT FROM NEW.archived
    OR OLD.machine_json IS DISTINCT FROM NEW.machine_json
    OR OLD.expires_at IS DISTINCT FROM NEW.expires_at
    OR OLD.lease_ms IS DISTINCT FROM NEW.lease_ms)
  EXECUTE FUNCTION orrery_loop_claim_terms();
)sql";

// The admission queue (docs/admission.md): routes, the invocations items
// came from, and the work items; a workflow run names the item it serves.
constexpr const char* kVersion9 = R"sql(
CREATE TABLE routes (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL UNIQUE,
  description TEXT COLLATE "C" NOT NULL DEFAULT '',
  workflow_id TEXT COLLATE "C" NOT NULL REFERENCES workflows(id),
  workflow_name TEXT COLLATE "C" NOT NULL,
  workflow_version BIGINT NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  max_running BIGINT NOT NULL,
  max_per_project BIGINT NOT NULL,
  max_per_group BIGINT NOT NULL,
  max_attempts BIGINT NOT NULL,
  retry_delay_ms BIGINT NOT NULL,
  retry_backoff TEXT COLLATE "C" NOT NULL,
  priority_aging_ms BIGINT NOT NULL,
  cwd TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE INDEX routes_workflow ON routes(workflow_id);

CREATE TABLE invocations (
  id TEXT COLLATE "C" PRIMARY KEY,
  source_kind TEXT COLLATE "C" NOT NULL DEFAULT '',
  source_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  source_dedupe_key TEXT COLLATE "C" NOT NULL DEFAULT '',
  subject_kind TEXT COLLATE "C" NOT NULL DEFAULT '',
  subject_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  subject_path TEXT COLLATE "C" NOT NULL DEFAULT '',
  subject_url TEXT COLLATE "C" NOT NULL DEFAULT '',
  intent TEXT COLLATE "C" NOT NULL DEFAULT '',
  scope_json TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  output_policy_json TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX invocations_dedupe ON invocations(source_kind, source_dedupe_key)
  WHERE source_dedupe_key != '';

CREATE TABLE work_items (
  id TEXT COLLATE "C" PRIMARY KEY,
  route_id TEXT COLLATE "C" NOT NULL REFERENCES routes(id) ON DELETE CASCADE,
  item_key TEXT COLLATE "C" NOT NULL,
  invocation_id TEXT COLLATE "C" NOT NULL REFERENCES invocations(id),
  status TEXT COLLATE "C" NOT NULL,
  priority BIGINT NOT NULL,
  project TEXT COLLATE "C" NOT NULL DEFAULT '',
  item_group TEXT COLLATE "C" NOT NULL DEFAULT '',
  attempts BIGINT NOT NULL DEFAULT 0,
  free_returns BIGINT NOT NULL DEFAULT 0,
  admissions BIGINT NOT NULL DEFAULT 0,
  next_attempt_at BIGINT,
  queued_at BIGINT NOT NULL,
  workflow_run_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  input_json TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  last_reason TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  UNIQUE (route_id, item_key)
);
CREATE INDEX work_items_open ON work_items(status, route_id)
  WHERE status IN ('queued', 'deferred', 'failed', 'admitted', 'running');
CREATE INDEX work_items_created ON work_items(created_at, id);
CREATE INDEX work_items_route_created ON work_items(route_id, created_at, id);
CREATE INDEX work_items_invocation ON work_items(invocation_id);
CREATE INDEX work_items_finished ON work_items(updated_at)
  WHERE status IN ('succeeded', 'dead_letter', 'cancelled');

ALTER TABLE workflow_runs ADD COLUMN item_id TEXT COLLATE "C" NOT NULL DEFAULT '';
)sql";

// Taken for the migrating transaction: "orrery" in its first six bytes.
constexpr std::int64_t kMigrationLock = 0x6f72726572790001;

struct SchemaState {
  std::string schema;  // current_schema(): where orrery's tables are
  int version = 0;
  bool has_tables = false;
};

Result<std::string> first_text(PgConnection& db, const char* sql) {
  auto query = db.prepare(sql);
  if (!query) return query.error();
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row || (*query)->is_null(0)) return std::string();
  return (*query)->text(0);
}

Result<SchemaState> schema_state(PgConnection& db) {
  SchemaState state;
  auto schema = first_text(db, "SELECT current_schema()");
  if (!schema) return schema.error();
  if (schema->empty()) {
    return usage_error("the PostgreSQL database " + db.shown_url() +
                       " has no schema to hold orrery's tables (its search_path names none that "
                       "exists); create one or set search_path in the URL's options");
  }
  state.schema = *schema;
  auto tables = first_text(
      db, "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema()");
  if (!tables) return tables.error();
  state.has_tables = *tables != "0";
  // A schema_migrations table is orrery's only with orrery's columns, an
  // integer version among them: other tools (Rails, golang-migrate) keep a
  // table of that name too, and theirs is another program's.
  auto ours = first_text(db,
                         "SELECT count(*) FROM information_schema.columns WHERE table_schema = "
                         "current_schema() AND table_name = 'schema_migrations' AND ("
                         "(column_name = 'version' AND data_type IN ('bigint', 'integer')) OR "
                         "column_name IN ('name', 'applied_at'))");
  if (!ours) return ours.error();
  if (*ours != "3") return state;
  auto version = first_text(db, "SELECT COALESCE(MAX(version), 0) FROM schema_migrations");
  if (!version) return version.error();
  std::int64_t number = 0;
  const auto [end, ec] =
      std::from_chars(version->data(), version->data() + version->size(), number);
  if (ec != std::errc() || number < 0) {
    return usage_error("the schema history of " + db.shown_url() + " holds version '" + *version +
                       "', which is not orrery's; refusing to change it");
  }
  state.version = int(std::min<std::int64_t>(number, std::numeric_limits<int>::max()));
  return state;
}

Status check_state(const PgConnection& db, const SchemaState& state, int latest) {
  if (state.version > latest) {
    return conflict_error("the database schema of " + db.shown_url() + " is version " +
                          std::to_string(state.version) + ", newer than this orrery supports " +
                          "(version " + std::to_string(latest) + "); upgrade orrery to open it");
  }
  if (state.version == 0 && state.has_tables) {
    return usage_error("the PostgreSQL database " + db.shown_url() + " holds tables of another " +
                       "program in schema '" + state.schema +
                       "' and no orrery schema; refusing to change it (choose another database, "
                       "or another schema with search_path in the URL's options)");
  }
  return Ok{};
}

// What PostgreSQL does its own way: the schema is current_schema(), every
// missing migration goes into one transaction, and migrating processes queue
// on an advisory lock taken inside it.
class PgMigrations final : public sql::MigrationBackend {
 public:
  explicit PgMigrations(PgConnection& db) : db_(db) {}

  sql::Connection& connection() override { return db_; }
  Result<int> checked_version(int latest) override {
    auto state = schema_state(db_);
    if (!state) return state.error();
    if (auto compatible = check_state(db_, *state, latest); !compatible) {
      return compatible.error();
    }
    return state->version;
  }
  Status lock() override {
    auto lock = db_.prepare("SELECT pg_advisory_xact_lock(?1)");
    if (!lock) return lock.error();
    return (*lock)->bind(1, kMigrationLock).run();
  }
  std::string_view history_table() const override {
    return "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, "
           "name TEXT NOT NULL, applied_at BIGINT NOT NULL)";
  }
  bool one_transaction() const override { return true; }

 private:
  PgConnection& db_;
};

// Feeds (docs/admission.md, "Feeds"): a loop may feed a route; a run of it
// that succeeds gets a pending feed, written with its finish by a trigger,
// which a daemon on the run's host turns into work items. And the indexes
// that make an admission's limit counts read only the items holding
// capacity, however many wait.
constexpr const char* kVersion10 = R"sql(
ALTER TABLE loops ADD COLUMN feed_route_id TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE INDEX loops_feed ON loops(feed_route_id) WHERE feed_route_id != '';
CREATE TABLE run_feeds (
  run_id TEXT COLLATE "C" PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  route_id TEXT COLLATE "C" NOT NULL,
  host TEXT COLLATE "C" NOT NULL DEFAULT '',
  status TEXT COLLATE "C" NOT NULL DEFAULT 'pending',
  created BIGINT NOT NULL DEFAULT 0,
  refreshed BIGINT NOT NULL DEFAULT 0,
  duplicate BIGINT NOT NULL DEFAULT 0,
  invalid BIGINT NOT NULL DEFAULT 0,
  invalid_json TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  error TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  fed_at BIGINT
);
CREATE INDEX run_feeds_pending ON run_feeds(host, created_at) WHERE status = 'pending';
CREATE INDEX work_items_holding_route ON work_items(route_id)
  WHERE status IN ('admitted', 'running');
CREATE INDEX work_items_holding_project ON work_items(project)
  WHERE status IN ('admitted', 'running');
CREATE INDEX work_items_holding_group ON work_items(item_group)
  WHERE status IN ('admitted', 'running');
CREATE FUNCTION orrery_run_feed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO run_feeds (run_id, route_id, host, created_at)
    SELECT NEW.id, feed_route_id, NEW.host, NEW.updated_at FROM loops
    WHERE id = NEW.loop_id AND feed_route_id != ''
    ON CONFLICT (run_id) DO NOTHING;
  RETURN NULL;
END;
$$;
CREATE TRIGGER runs_feed AFTER UPDATE OF status ON runs FOR EACH ROW
  WHEN (NEW.status = 'succeeded' AND OLD.status IS DISTINCT FROM 'succeeded')
  EXECUTE FUNCTION orrery_run_feed();
)sql";

constexpr const char* kVersion11 = R"sql(
-- The daemon's reads by status (admitted items to start, running ones to
-- settle, failed ones due a retry): an index whose prefix is the status.
-- And queued items with every column admission reads, so that its scan of
-- the queue never visits the table.
DROP INDEX work_items_open;
CREATE INDEX work_items_status ON work_items(status, updated_at, id);
CREATE INDEX work_items_queued ON work_items(route_id, project, item_group, priority, queued_at,
  next_attempt_at, item_key, id, status) WHERE status = 'queued';
)sql";

constexpr const char* kVersion12 = R"sql(
-- Goals (docs/goals.md): an objective with a budget that runs of one target
-- pursue. A goal's plan is stored with it, as one JSON list, so that a goal
-- and its plan change together under the goal's version. One goal that is
-- not final per target: the unique partial index on its key.
ALTER TABLE loops ADD COLUMN paused_by_goal TEXT COLLATE "C" NOT NULL DEFAULT '';
CREATE TABLE goals (
  id TEXT COLLATE "C" PRIMARY KEY,
  objective TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  status_reason TEXT COLLATE "C" NOT NULL DEFAULT '',
  target_type TEXT COLLATE "C" NOT NULL,
  target_key TEXT COLLATE "C" NOT NULL,
  loop_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  workflow_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  workflow_name TEXT COLLATE "C" NOT NULL DEFAULT '',
  step_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  drive TEXT COLLATE "C" NOT NULL,
  token_budget BIGINT,
  tokens_used BIGINT NOT NULL DEFAULT 0,
  max_turns BIGINT,
  turns BIGINT NOT NULL DEFAULT 0,
  stall_turns BIGINT NOT NULL,
  turns_without_progress BIGINT NOT NULL DEFAULT 0,
  limited_until BIGINT,
  last_evidence_json TEXT COLLATE "C" NOT NULL DEFAULT '',
  last_summary TEXT COLLATE "C" NOT NULL DEFAULT '',
  last_update_error TEXT COLLATE "C" NOT NULL DEFAULT '',
  plan_json TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  version BIGINT NOT NULL DEFAULT 1
);
CREATE UNIQUE INDEX goals_open_target ON goals(target_key)
  WHERE status NOT IN ('budget_limited', 'complete', 'cancelled');
CREATE INDEX goals_created ON goals(created_at, id);
CREATE INDEX goals_loop ON goals(loop_id, created_at) WHERE loop_id != '';
CREATE INDEX goals_cooling ON goals(limited_until) WHERE status = 'usage_limited';
-- One row per turn; a piece of work (a run, an attempt, a workflow run) is
-- a turn of a goal at most once: the primary key.
CREATE TABLE goal_turns (
  goal_id TEXT COLLATE "C" NOT NULL REFERENCES goals(id) ON DELETE CASCADE,
  work_id TEXT COLLATE "C" NOT NULL,
  turn BIGINT NOT NULL,
  spent BIGINT NOT NULL,
  loop_run_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  workflow_run_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  step_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  dispatch_id TEXT COLLATE "C" NOT NULL DEFAULT '',
  node_key TEXT COLLATE "C" NOT NULL DEFAULT '',
  run_status TEXT COLLATE "C" NOT NULL,
  status TEXT COLLATE "C" NOT NULL,
  tokens_used BIGINT NOT NULL DEFAULT 0,
  evidence_json TEXT COLLATE "C" NOT NULL DEFAULT '',
  summary TEXT COLLATE "C" NOT NULL DEFAULT '',
  update_json TEXT COLLATE "C" NOT NULL DEFAULT '',
  update_error TEXT COLLATE "C" NOT NULL DEFAULT '',
  created_at BIGINT NOT NULL,
  PRIMARY KEY (goal_id, work_id)
);
CREATE INDEX goal_turns_goal ON goal_turns(goal_id, created_at, turn);
)sql";

constexpr const char* kVersion13 = R"sql(
-- Workers and the merge queue (docs/workers.md). A worker is one step's git
-- worktree and branch; its every change of state is appended to
-- worker_events, which refuses UPDATE and DELETE. A merge entry brings a
-- reported worker's branch onto a target branch; queue_configs hold each
-- repository's settings, queue_leases the one driver of each queue.
CREATE TABLE workers (
  id TEXT COLLATE "C" PRIMARY KEY,
  workflow_run_id TEXT COLLATE "C" NOT NULL,
  step_id TEXT COLLATE "C" NOT NULL,
  repo TEXT COLLATE "C" NOT NULL,
  branch TEXT COLLATE "C" NOT NULL,
  worktree_path TEXT COLLATE "C" NOT NULL UNIQUE,
  host TEXT COLLATE "C" NOT NULL,
  state TEXT COLLATE "C" NOT NULL CHECK (state IN ('planned', 'leased', 'starting', 'running',
    'reported', 'verifying', 'merge_ready', 'merged', 'hold', 'failed', 'cancelled')),
  base_revision TEXT COLLATE "C" NOT NULL,
  base_branch TEXT COLLATE "C" NOT NULL DEFAULT '',
  final_revision TEXT COLLATE "C" NOT NULL DEFAULT '',
  lease_owner TEXT COLLATE "C" NOT NULL DEFAULT '',
  lease_expires_at BIGINT,
  heartbeat_at BIGINT,
  hold_reason TEXT COLLATE "C" NOT NULL DEFAULT '',
  failure_reason TEXT COLLATE "C" NOT NULL DEFAULT '',
  changed_files_json TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  allowed_files_json TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  finished_at BIGINT,
  UNIQUE (workflow_run_id, step_id),
  CHECK ((state IN ('merged', 'failed', 'cancelled')) = (finished_at IS NOT NULL))
);
CREATE INDEX workers_state ON workers(state, updated_at, id);
CREATE INDEX workers_repo ON workers(repo, state, updated_at);
CREATE INDEX workers_lease ON workers(lease_expires_at)
  WHERE state IN ('leased', 'starting', 'running', 'verifying', 'merge_ready');
CREATE TABLE worker_events (
  worker_id TEXT COLLATE "C" NOT NULL,
  sequence BIGINT NOT NULL,
  from_state TEXT COLLATE "C" NOT NULL DEFAULT '',
  to_state TEXT COLLATE "C" NOT NULL,
  reason TEXT COLLATE "C" NOT NULL DEFAULT '',
  payload_json TEXT COLLATE "C" NOT NULL DEFAULT '{}',
  created_at BIGINT NOT NULL,
  PRIMARY KEY (worker_id, sequence)
);
CREATE FUNCTION orrery_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;
CREATE TRIGGER worker_events_append_only BEFORE UPDATE OR DELETE ON worker_events
  FOR EACH ROW EXECUTE FUNCTION orrery_append_only();
CREATE TRIGGER worker_events_no_truncate BEFORE TRUNCATE ON worker_events
  FOR EACH STATEMENT EXECUTE FUNCTION orrery_append_only();
CREATE TABLE merge_entries (
  id TEXT COLLATE "C" PRIMARY KEY,
  worker_id TEXT COLLATE "C" NOT NULL UNIQUE,
  repo TEXT COLLATE "C" NOT NULL,
  target TEXT COLLATE "C" NOT NULL,
  state TEXT COLLATE "C" NOT NULL CHECK (state IN ('waiting', 'ready', 'merged', 'conflict', 'rejected')),
  priority BIGINT NOT NULL DEFAULT 0,
  strategy TEXT COLLATE "C" NOT NULL DEFAULT '',
  base_revision TEXT COLLATE "C" NOT NULL,
  parent_revision TEXT COLLATE "C" NOT NULL DEFAULT '',
  candidate_revision TEXT COLLATE "C" NOT NULL,
  merge_commit TEXT COLLATE "C" NOT NULL DEFAULT '',
  verify_command TEXT COLLATE "C" NOT NULL DEFAULT '',
  verify_exit_code BIGINT,
  verify_duration_ms BIGINT,
  verify_output_tail TEXT COLLATE "C" NOT NULL DEFAULT '',
  verified_tree TEXT COLLATE "C" NOT NULL DEFAULT '',
  reason TEXT COLLATE "C" NOT NULL DEFAULT '',
  conflict_files_json TEXT COLLATE "C" NOT NULL DEFAULT '[]',
  driver TEXT COLLATE "C" NOT NULL DEFAULT '',
  lease_expires_at BIGINT,
  queued_at BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  finished_at BIGINT
);
CREATE INDEX merge_entries_queue ON merge_entries(repo, target, state, priority, queued_at, id);
CREATE INDEX merge_entries_open ON merge_entries(state, queued_at) WHERE state IN ('waiting', 'ready');
CREATE TABLE queue_configs (
  repo TEXT COLLATE "C" PRIMARY KEY,
  target TEXT COLLATE "C" NOT NULL DEFAULT '',
  verify TEXT COLLATE "C" NOT NULL DEFAULT '',
  strategy TEXT COLLATE "C" NOT NULL DEFAULT 'rebase',
  updated_at BIGINT NOT NULL
);
CREATE TABLE queue_leases (
  repo TEXT COLLATE "C" NOT NULL,
  target TEXT COLLATE "C" NOT NULL,
  driver TEXT COLLATE "C" NOT NULL DEFAULT '',
  lease_expires_at BIGINT,
  PRIMARY KEY (repo, target)
);
)sql";

// From PostgreSQL 10 the number is major * 10000 + minor (110005 is 11.5);
// before, major * 10000 + minor * 100 + patch (90624 is 9.6.24).
std::string server_version_text(int version) {
  const std::string major = std::to_string(version / 10000);
  if (version >= 100000) return major + "." + std::to_string(version % 10000);
  return major + "." + std::to_string(version / 100 % 100) + "." + std::to_string(version % 100);
}

// The name of the variable only: the secret stays in the server's environment.
constexpr const char* kWebhookSecrets =
    "ALTER TABLE routes ADD COLUMN webhook_secret_env TEXT COLLATE \"C\" NOT NULL DEFAULT '';";

constexpr const char* kItemFeedback =
    "ALTER TABLE work_items ADD COLUMN feedback_json TEXT COLLATE \"C\" NOT NULL DEFAULT '';";

constexpr const char* kRunGoals =
    "ALTER TABLE workflow_runs ADD COLUMN goal_id TEXT COLLATE \"C\" NOT NULL DEFAULT '';";

// The process holding a queue's lease, so that a driver that died on this
// host is replaced at once rather than after its lease.
constexpr const char* kQueueHolders = R"sql(
ALTER TABLE queue_leases ADD COLUMN pid BIGINT;
ALTER TABLE queue_leases ADD COLUMN process_started_at BIGINT;
ALTER TABLE queue_leases ADD COLUMN host TEXT COLLATE "C" NOT NULL DEFAULT '';
)sql";

// An invocation an item has started from is kept as it was: a later enqueue
// of its dedupe key supersedes it with a new one (docs/admission.md), so the
// key names one current invocation, not one ever.
constexpr const char* kSupersededInvocations = R"sql(
ALTER TABLE invocations ADD COLUMN superseded_at BIGINT;
DROP INDEX invocations_dedupe;
CREATE UNIQUE INDEX invocations_dedupe ON invocations(source_kind, source_dedupe_key)
  WHERE source_dedupe_key != '' AND superseded_at IS NULL;
)sql";

}  // namespace

Status check_server_version(int version, const std::string& shown_url) {
  if (version >= kMinServerVersion) return Ok{};
  return usage_error("the PostgreSQL server " + shown_url + " is version " +
                     server_version_text(version) + "; orrery needs PostgreSQL 12 or newer");
}

const std::vector<Migration>& migrations() {
  static const std::string events = sql::event_journal_schema(sql::SqlDialect::kPostgres);
  static const std::vector<Migration> list = {
      {4, "loops, runs, the daemon lease and cooldowns", kVersion4},
      {5, "runs on several hosts: the host of each run, the runners", kVersion5},
      {6, "runners: pending runs and cancel requests", kVersion6},
      {7, "workflows: specs, runs, steps, attempts and events", kVersion7},
      {8, "claims from runs alone: each pending run carries its loop's claim terms", kVersion8},
      {9, "admission: routes, invocations and work items", kVersion9},
      {10, "feeds: a loop's succeeded runs enqueue work items on a route", kVersion10},
      {11, "the admission queue read by status, and queued items covered", kVersion11},
      {12, "goals: objectives with token budgets, their plans and turns", kVersion12},
      {13, "workers in git worktrees, their events and the merge queue", kVersion13},
      {14, "the event journal: what changed, for live events", events.c_str()},
      {15, "routes: the environment variable of a webhook's signing secret", kWebhookSecrets},
      {16, "work items: the feedback of a failed attempt for the next one", kItemFeedback},
      {17, "workflow runs: the goal each was published under", kRunGoals},
      {18, "queue leases: the process of the driver holding each", kQueueHolders},
      {19, "invocations: one started from is superseded, never rewritten", kSupersededInvocations},

  };
  return list;
}

Status migrate(PgConnection& db, std::int64_t now) { return migrate_with(db, migrations(), now); }

Status migrate_with(PgConnection& db, const std::vector<Migration>& list, std::int64_t now) {
  if (auto server = check_server_version(db.server_version(), db.shown_url()); !server) {
    return server;
  }
  PgMigrations backend(db);
  return sql::run_migrations(backend, list, now);
}

}  // namespace orrery::postgres
