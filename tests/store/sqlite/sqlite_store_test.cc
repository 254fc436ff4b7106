// SqliteStore beyond the conformance suite: faults injected under SQLite (a
// full disk, a failed write), a damaged file that prune must not touch, the
// upgrade of populated version-1 and version-3 databases, and the query plans
// that keep expiry, pruning and the daemon's reads proportional to what they
// touch.
#include "store/sqlite/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <fstream>
#include <random>
#include <sstream>

#include "core/ids.h"
#include "core/limits.h"
#include "core/loop_spec.h"
#include "store/sql/rows.h"
#include "store/sqlite/fault_vfs.h"
#include "store/sqlite/migrations.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

using testing::FakeProbe;
using testing::TempDir;

constexpr TimeMs kNow = 1'780'000'000'000;
constexpr DurationMs kMinute = 60'000;

bool mentions_sql(const std::string& message) {
  for (const char* word : {"SELECT", "INSERT", "UPDATE", "DELETE", "PRAGMA", " FROM ", "VALUES"}) {
    if (message.find(word) != std::string::npos) return true;
  }
  return false;
}

std::unique_ptr<SqliteStore> open_store(const std::string& path, const std::string& vfs = "",
                                        TimeMs now = kNow) {
  SqliteOptions options;
  options.path = path;
  options.busy_timeout_ms = 1000;
  options.probe = std::make_shared<FakeProbe>();
  options.now = now;
  options.vfs = vfs;
  auto store = SqliteStore::open(options);
  EXPECT_TRUE(store.ok()) << (store ? "" : store.error().message);
  return store ? std::move(*store) : nullptr;
}

Loop make_loop(const std::string& name, std::uint8_t salt) {
  Loop loop;
  std::array<std::uint8_t, 10> bytes{};
  bytes[0] = salt;
  loop.id = make_id(kNow, bytes);
  loop.name = name;
  loop.schedule.type = ScheduleType::kInterval;
  loop.schedule.every_ms = kMinute;
  loop.target.argv = {"/bin/true"};
  loop.next_run_at = kNow + kMinute;
  loop.max_attempts = 1;
  loop.lease_ms = kMinute;
  loop.created_at = loop.updated_at = kNow;
  return loop;
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << bytes;
}

// The plan SQLite chooses for `sql`, as one line per step.
std::string query_plan(SqliteStore& store, const std::string& sql) {
  auto statement = store.database().prepare("EXPLAIN QUERY PLAN " + sql);
  EXPECT_TRUE(statement.ok()) << (statement ? "" : statement.error().message);
  std::string plan;
  while (statement.ok()) {
    auto row = (*statement)->step();
    if (!row.ok() || !*row) break;
    plan += (*statement)->text(3) + "\n";
  }
  return plan;
}

// ---------------------------------------------------------------------------
// Faults under SQLite.

TEST(SqliteStoreFaults, AFullDiskDuringAddSaysDiskFullAndStoresNothing) {
  sqlite::register_fault_vfs();
  TempDir dir;
  const std::string path = dir.file("orrery.db");
  auto store = open_store(path, sqlite::kFaultVfsName);
  ASSERT_NE(store, nullptr);
  const int codes[] = {SQLITE_FULL, SQLITE_FULL, SQLITE_FULL};
  const int after[] = {0, 1, 2};  // the first, second or third write of the commit
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    Loop loop = make_loop("full-" + std::to_string(i), std::uint8_t(i + 1));
    loop.description = std::string(20'000, 'd');  // several pages
    sqlite::arm_fault({sqlite::FaultOp::kWrite, codes[i], after[i], 1, "-wal"});
    auto created = store->create_loop(loop);
    sqlite::disarm_fault();
    ASSERT_EQ(sqlite::fault_hits(), 1);
    ASSERT_FALSE(created.ok());
    EXPECT_EQ(created.error().code, ErrorCode::kUnavailable);
    EXPECT_EQ(created.error().message.rfind("disk full: cannot write " + path, 0), 0u)
        << created.error().message;
    EXPECT_FALSE(mentions_sql(created.error().message)) << created.error().message;
    EXPECT_FALSE(store->get_loop(loop.id)->has_value());
    // Once there is room again, the same add succeeds.
    ASSERT_TRUE(store->create_loop(loop).ok());
  }
}

TEST(SqliteStoreFaults, AFailedWriteIsAnIoErrorNotADamagedDatabase) {
  sqlite::register_fault_vfs();
  TempDir dir;
  const std::string path = dir.file("orrery.db");
  auto store = open_store(path, sqlite::kFaultVfsName);
  ASSERT_NE(store, nullptr);
  for (const int code : {SQLITE_IOERR_WRITE, SQLITE_IOERR}) {
    const Loop loop = make_loop("io-" + std::to_string(code), std::uint8_t(code >> 8));
    sqlite::arm_fault({sqlite::FaultOp::kWrite, code, 0, 1, ""});
    auto created = store->create_loop(loop);
    sqlite::disarm_fault();
    ASSERT_FALSE(created.ok());
    EXPECT_EQ(created.error().code, ErrorCode::kInternal);
    EXPECT_NE(created.error().message.find("disk I/O error on " + path), std::string::npos)
        << created.error().message;
    EXPECT_EQ(created.error().message.find("damaged"), std::string::npos);
    EXPECT_FALSE(mentions_sql(created.error().message)) << created.error().message;
    EXPECT_TRUE(store->create_loop(loop).ok());
  }
}

TEST(SqliteStoreFaults, AFailedCommitOfAClaimLeavesTheSlotFree) {
  sqlite::register_fault_vfs();
  TempDir dir;
  auto store = open_store(dir.file("orrery.db"), sqlite::kFaultVfsName);
  ASSERT_NE(store, nullptr);
  const Loop loop = make_loop("claims", 1);
  ASSERT_TRUE(store->create_loop(loop).ok());
  sqlite::arm_fault({sqlite::FaultOp::kWrite, SQLITE_FULL, 0, 1, "-wal"});
  auto failed = store->claim_slot({loop.id, kNow}, "a", kNow, {});
  sqlite::disarm_fault();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, ErrorCode::kUnavailable);
  EXPECT_FALSE(store->database().in_transaction());
  EXPECT_FALSE(store->get_run_by_slot(loop.id, kNow)->has_value());
  auto claimed = store->claim_slot({loop.id, kNow}, "a", kNow, {});
  ASSERT_TRUE(claimed.ok() && claimed->has_value());
}

TEST(SqliteStoreFaults, AHealthyDatabaseOnAFullFileSystemIsNotCalledDamaged) {
  sqlite::register_fault_vfs();
  TempDir dir;
  const std::string path = dir.file("orrery.db");
  { ASSERT_NE(open_store(path), nullptr); }
  SqliteOptions options;
  options.path = path;
  options.busy_timeout_ms = 1000;
  options.probe = std::make_shared<FakeProbe>();
  options.vfs = sqlite::kFaultVfsName;
  // The -shm file cannot grow (a full file system), or a brand-new database
  // cannot be written at all.
  const std::vector<std::pair<std::string, sqlite::Fault>> cases = {
      {path, {sqlite::FaultOp::kShmMap, SQLITE_IOERR_SHMSIZE, 0, 100, ""}},
      {path, {sqlite::FaultOp::kShmMap, SQLITE_FULL, 0, 100, ""}},
      {dir.file("new.db"), {sqlite::FaultOp::kWrite, SQLITE_FULL, 0, 100, ""}},
  };
  for (const auto& [file, fault] : cases) {
    SCOPED_TRACE(file + " " + std::to_string(fault.code));
    options.path = file;
    sqlite::arm_fault(fault);
    auto store = SqliteStore::open(options);
    sqlite::disarm_fault();
    ASSERT_FALSE(store.ok());
    EXPECT_NE(store.error().code, ErrorCode::kUsage) << store.error().message;
    EXPECT_EQ(store.error().message.find("damaged"), std::string::npos) << store.error().message;
    EXPECT_EQ(store.error().message.find("not an SQLite"), std::string::npos);
    EXPECT_FALSE(mentions_sql(store.error().message)) << store.error().message;
    if (fault.code == SQLITE_FULL) {
      EXPECT_NE(store.error().message.find("disk full"), std::string::npos)
          << store.error().message;
    }
  }
  // With room again, the database opens as it was.
  EXPECT_NE(open_store(path), nullptr);
}

// ---------------------------------------------------------------------------
// A damaged file.

TEST(SqliteStoreDamage, PruneRefusesADamagedDatabaseAndChangesNoByte) {
  TempDir dir;
  const std::string path = dir.file("orrery.db");
  {
    auto store = open_store(path);
    ASSERT_NE(store, nullptr);
    const Loop loop = make_loop("noisy", 1);
    ASSERT_TRUE(store->create_loop(loop).ok());
    for (int i = 0; i < 40; ++i) {
      auto claimed = store->claim_slot({loop.id, kNow + i}, "a", kNow, {});
      ASSERT_TRUE(claimed.ok() && claimed->has_value());
      RunOutcome outcome;
      outcome.status = RunStatus::kSucceeded;
      outcome.stdout_tail = std::string(3000, char('a' + i % 26));
      ASSERT_TRUE(store->finish_claim((*claimed)->claim, outcome, kNow + 1).ok());
    }
  }  // closed: the WAL is checkpointed into the file
  std::string bytes = read_file(path);
  ASSERT_GT(bytes.size(), 40'000u);
  std::mt19937 random(11);
  // A page that holds a run's output (not the schema, whatever the layout).
  const size_t page = 4096;
  const size_t found = bytes.find(std::string(3000, 'm'));
  ASSERT_NE(found, std::string::npos);
  const size_t middle = found / page * page;
  for (size_t i = middle; i < middle + page; ++i) bytes[i] = char(random() & 0xff);
  write_bytes(path, bytes);

  auto store = open_store(path);  // the schema page is intact
  ASSERT_NE(store, nullptr);
  for (const std::optional<int> keep : {std::optional<int>(0), std::optional<int>(5)}) {
    PruneOptions options;
    options.keep = keep;
    options.now = kNow + 10;
    auto pruned = store->prune_runs(options);
    ASSERT_FALSE(pruned.ok());
    EXPECT_EQ(pruned.error().code, ErrorCode::kUsage);
    EXPECT_NE(pruned.error().message.find(path + " is damaged"), std::string::npos)
        << pruned.error().message;
    EXPECT_FALSE(mentions_sql(pruned.error().message));
  }
  // Found damaged, the connection starts no other write either.
  auto added = store->create_loop(make_loop("later", 2));
  EXPECT_FALSE(added.ok());
  const auto claimed = store->claim_slot({make_loop("noisy", 1).id, kNow + 100}, "a", kNow, {});
  EXPECT_FALSE(claimed.ok());
  store.reset();
  EXPECT_EQ(read_file(path), bytes);
}

// ---------------------------------------------------------------------------
// Upgrade.

constexpr const char* kVersion1Schema = R"sql(
CREATE TABLE loops (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL, archived INTEGER NOT NULL DEFAULT 0, archived_from_status TEXT,
  schedule_type TEXT NOT NULL, schedule_expression TEXT, schedule_timezone TEXT,
  schedule_every_ms INTEGER, schedule_anchor TEXT, schedule_at INTEGER, schedule_min_ms INTEGER,
  schedule_max_ms INTEGER, schedule_jitter_ms INTEGER NOT NULL DEFAULT 0,
  target_json TEXT NOT NULL, machine_json TEXT NOT NULL DEFAULT '[]', next_run_at INTEGER,
  retry_scheduled_for INTEGER, catch_up TEXT NOT NULL, catch_up_limit INTEGER NOT NULL,
  catch_up_window_ms INTEGER, overlap TEXT NOT NULL, max_attempts INTEGER NOT NULL,
  retry_delay_ms INTEGER NOT NULL, retry_backoff TEXT NOT NULL, lease_ms INTEGER NOT NULL,
  timeout_ms INTEGER, idle_timeout_ms INTEGER, expires_at INTEGER,
  missed_count INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX loops_due ON loops(status, archived, next_run_at, id);
CREATE INDEX loops_name ON loops(name);
CREATE TABLE runs (
  id TEXT PRIMARY KEY, loop_id TEXT NOT NULL REFERENCES loops(id) ON DELETE CASCADE,
  loop_name TEXT NOT NULL, scheduled_for INTEGER NOT NULL, attempt INTEGER NOT NULL,
  status TEXT NOT NULL, started_at INTEGER, finished_at INTEGER,
  claimed_by TEXT NOT NULL DEFAULT '', claim_token TEXT NOT NULL DEFAULT '',
  claim_generation INTEGER NOT NULL DEFAULT 0, lease_expires_at INTEGER, pid INTEGER,
  process_started_at INTEGER, pgid INTEGER, supervisor_pid INTEGER,
  supervisor_started_at INTEGER, exit_code INTEGER, signal INTEGER, duration_ms INTEGER,
  error TEXT NOT NULL DEFAULT '', skip_reason TEXT NOT NULL DEFAULT '',
  stdout TEXT NOT NULL DEFAULT '', stderr TEXT NOT NULL DEFAULT '', input_tokens INTEGER,
  output_tokens INTEGER, cost_usd REAL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  UNIQUE (loop_id, scheduled_for)
);
CREATE INDEX runs_loop_created ON runs(loop_id, created_at);
CREATE INDEX runs_status_lease ON runs(status, lease_expires_at);
CREATE INDEX runs_created ON runs(created_at);
CREATE TABLE daemon_lease (
  slot INTEGER PRIMARY KEY CHECK (slot = 1), lease_id TEXT NOT NULL, generation INTEGER NOT NULL,
  pid INTEGER NOT NULL, process_started_at INTEGER, host TEXT NOT NULL,
  acquired_at INTEGER NOT NULL, heartbeat_at INTEGER NOT NULL, expires_at INTEGER NOT NULL
);
CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
  applied_at INTEGER NOT NULL);
INSERT INTO schema_migrations VALUES (1, 'loops, runs and the daemon lease', 1);
INSERT INTO loops (id, name, description, status, schedule_type, schedule_expression,
  schedule_timezone, target_json, next_run_at, catch_up, catch_up_limit, overlap,
  max_attempts, retry_delay_ms, retry_backoff, lease_ms, timeout_ms, created_at, updated_at)
VALUES ('0193a1b2c3d4e5f60718293a4b5c6d7e', 'nightly', 'kept since v1', 'active', 'cron',
  '0 3 * * *', 'Europe/Berlin', '{"type":"command","argv":["/bin/true"],"shell":false,"command_line":"","cwd":"","env":[],"secret_env":[]}', 1780000000000,
  'latest', 50, 'skip', 3, 60000, 'fixed', 1800000, 600000, 1770000000000, 1770000000001);
INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, started_at,
  finished_at, exit_code, duration_ms, stdout, created_at, updated_at)
VALUES ('0193a1b2c3d4e5f60718293a4b5c6d7f', '0193a1b2c3d4e5f60718293a4b5c6d7e', 'nightly',
  1779990000000, 2, 'failed', 1779990000100, 1779990000900, 3, 800, 'old output',
  1779990000100, 1779990000900);
PRAGMA user_version = 1;
)sql";

TEST(SqliteStoreUpgrade, APopulatedVersionOneDatabaseMigratesWithItsRowsIntact) {
  TempDir dir;
  const std::string path = dir.file("orrery.db");
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(raw, kVersion1Schema, nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_close(raw);
  }
  auto store = open_store(path);
  ASSERT_NE(store, nullptr);
  auto loop = store->get_loop("0193a1b2c3d4e5f60718293a4b5c6d7e");
  ASSERT_TRUE(loop.ok()) << loop.error().message;
  ASSERT_TRUE(loop->has_value());
  EXPECT_EQ((*loop)->name, "nightly");
  EXPECT_EQ((*loop)->description, "kept since v1");
  EXPECT_EQ((*loop)->schedule.expression, "0 3 * * *");
  EXPECT_EQ((*loop)->schedule.timezone, "Europe/Berlin");
  EXPECT_EQ((*loop)->target.argv, std::vector<std::string>{"/bin/true"});
  EXPECT_EQ((*loop)->max_attempts, 3);
  EXPECT_EQ((*loop)->timeout_ms, 600'000);
  EXPECT_EQ((*loop)->created_at, 1'770'000'000'000);
  EXPECT_EQ((*loop)->updated_at, 1'770'000'000'001);
  EXPECT_EQ((*loop)->log_limit_bytes, 64LL << 20);  // migration 3's default
  auto run = store->get_run("0193a1b2c3d4e5f60718293a4b5c6d7f");
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_EQ((*run)->status, RunStatus::kFailed);
  EXPECT_EQ((*run)->attempt, 2);
  EXPECT_EQ((*run)->exit_code, 3);
  EXPECT_EQ((*run)->stdout_tail, "old output");
  EXPECT_FALSE((*run)->usage_limited);  // migration 2's default
  EXPECT_EQ((*run)->free_reattempts, 0);
  // Every migration is recorded once, and the version is the latest.
  auto versions = store->database().prepare(
      "SELECT COUNT(*), MIN(version), MAX(version), (SELECT user_version FROM "
      "pragma_user_version) FROM schema_migrations");
  ASSERT_TRUE((*versions)->step().ok());
  EXPECT_EQ((*versions)->int64(0), sqlite::latest_schema_version());
  EXPECT_EQ((*versions)->int64(1), 1);
  EXPECT_EQ((*versions)->int64(2), sqlite::latest_schema_version());
  EXPECT_EQ((*versions)->int64(3), sqlite::latest_schema_version());
}

// A version-3 database (before the daemon's migration 4) with a loop, a
// finished run and a running one.
constexpr const char* kVersion3Rows = R"sql(
INSERT INTO loops (id, name, status, schedule_type, schedule_every_ms, schedule_anchor,
  target_json, next_run_at, catch_up, catch_up_limit, overlap, max_attempts, retry_delay_ms,
  retry_backoff, lease_ms, missed_count, created_at, updated_at, log_limit_bytes)
VALUES ('0193a1b2c3d4e5f60718293a4b5c6d70', 'hourly', 'active', 'interval', 3600000,
  'fixed_rate', '{"type":"command","argv":["/bin/true"],"shell":false,"command_line":"","cwd":"","env":[],"secret_env":[]}',
  1780000000000, 'latest', 50, 'queue', 2, 60000, 'fixed', 1800000, 4, 1770000000000,
  1770000000005, 1048576);
INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, started_at,
  finished_at, exit_code, created_at, updated_at, free_reattempts)
VALUES ('0193a1b2c3d4e5f60718293a4b5c6d71', '0193a1b2c3d4e5f60718293a4b5c6d70', 'hourly',
  1779990000000, 1, 'failed', 1779990000100, 1779990000900, 1, 1779990000100, 1779990000900, 1);
INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, started_at,
  claimed_by, claim_token, claim_generation, lease_expires_at, created_at, updated_at)
VALUES ('0193a1b2c3d4e5f60718293a4b5c6d72', '0193a1b2c3d4e5f60718293a4b5c6d70', 'hourly',
  1779993600000, 1, 'running', 1779993600100, 'cli', 'g1-abc', 1, 1779995400100,
  1779993600100, 1779993600100);
)sql";

TEST(SqliteStoreUpgrade, AVersionThreeDatabaseGainsLoopVersionsAndSettledRuns) {
  TempDir dir;
  const std::string path = dir.file("orrery.db");
  {
    auto db = sqlite::Database::open(path, sqlite::Synchronous::kNormal, 1000);
    ASSERT_TRUE(db.ok());
    const std::vector<sqlite::Migration> up_to_3(sqlite::migrations().begin(),
                                                 sqlite::migrations().begin() + 3);
    ASSERT_EQ(up_to_3.back().version, 3);
    ASSERT_TRUE(sqlite::migrate_with(**db, up_to_3, 1).ok());
    auto rows = (*db)->exec(kVersion3Rows);
    ASSERT_TRUE(rows.ok()) << rows.error().message;
  }
  auto store = open_store(path);
  ASSERT_NE(store, nullptr);
  auto loop = store->get_loop("0193a1b2c3d4e5f60718293a4b5c6d70");
  ASSERT_TRUE(loop.ok() && loop->has_value()) << (loop ? "" : loop.error().message);
  EXPECT_EQ((*loop)->name, "hourly");
  EXPECT_EQ((*loop)->overlap, OverlapPolicy::kQueue);
  EXPECT_EQ((*loop)->missed_count, 4);
  EXPECT_EQ((*loop)->log_limit_bytes, 1 << 20);
  EXPECT_EQ((*loop)->updated_at, 1'770'000'000'005);
  EXPECT_EQ((*loop)->config_version, 1);
  EXPECT_EQ((*loop)->state_version, 1);
  // Runs recorded before migration 4 are settled (nothing is left to apply)
  // and made no next-in choice.
  for (const char* id : {"0193a1b2c3d4e5f60718293a4b5c6d71", "0193a1b2c3d4e5f60718293a4b5c6d72"}) {
    auto run = store->get_run(id);
    ASSERT_TRUE(run.ok() && run->has_value());
    EXPECT_TRUE((*run)->settled);
    EXPECT_FALSE((*run)->next_in_ms.has_value());
  }
  EXPECT_EQ((*store->get_run("0193a1b2c3d4e5f60718293a4b5c6d71"))->free_reattempts, 1);
  EXPECT_TRUE(store->unsettled_runs(10)->empty());
  EXPECT_EQ(store->active_runs(10)->size(), 1u);
  // Versioned writes work on the upgraded rows.
  Loop paused = **loop;
  paused.status = LoopStatus::kPaused;
  ASSERT_TRUE(store->update_loop_parts(paused, {.state = true}, {}, kNow).ok());
  EXPECT_EQ((*store->get_loop(paused.id))->state_version, 2);
  auto schema = store->database().prepare(
      "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name IN "
      "('runs_unsettled', 'runs_active')");
  ASSERT_TRUE((*schema)->step().ok());
  EXPECT_EQ((*schema)->int64(0), 2);
  auto version = store->database().prepare("PRAGMA user_version");
  ASSERT_TRUE((*version)->step().ok());
  EXPECT_EQ((*version)->int64(0), sqlite::latest_schema_version());
}

// ---------------------------------------------------------------------------
// Proportional queries.

TEST(SqliteStorePlans, ExpiryAndPruningReadOnlyTheirIndexRanges) {
  TempDir dir;
  auto store = open_store(dir.file("orrery.db"));
  ASSERT_NE(store, nullptr);
  const std::string expire =
      query_plan(*store,
                 "UPDATE loops SET status = 'expired' WHERE status = 'active' AND expires_at <= 1 "
                 "AND archived = 0");
  EXPECT_NE(expire.find("USING INDEX loops_expiry (status=? AND expires_at<?)"), std::string::npos)
      << expire;
  const std::string prune =
      query_plan(*store,
                 "DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE loop_id = ?1 AND "
                 "(created_at, id) < (?2, ?3) AND status IN ('succeeded') ORDER BY created_at, id "
                 "LIMIT ?4) RETURNING id");
  EXPECT_NE(prune.find("USING INDEX runs_loop_created (loop_id=? AND (created_at,id)<(?,?))"),
            std::string::npos)
      << prune;
  EXPECT_EQ(prune.find("SCAN runs"), std::string::npos) << prune;
  // The read every open makes before it expires anything.
  const std::string any = query_plan(
      *store,
      "SELECT 1 FROM loops WHERE status = 'active' AND expires_at <= ?1 AND archived = 0 "
      "LIMIT 1");
  EXPECT_NE(any.find("USING INDEX loops_expiry (status=? AND expires_at<?)"), std::string::npos)
      << any;
}

// The statements of sqlite_daemon.cc's reads.
TEST(SqliteStorePlans, TheDaemonsReadsUseTheirIndexes) {
  TempDir dir;
  auto store = open_store(dir.file("orrery.db"));
  ASSERT_NE(store, nullptr);
  const auto uses = [&](const std::string& sql, const std::string& index, bool sorted = true) {
    const std::string plan = query_plan(*store, sql);
    EXPECT_NE(plan.find(index), std::string::npos) << plan;
    EXPECT_EQ(plan.find("SCAN runs\n"), std::string::npos) << plan;
    EXPECT_EQ(plan.find("SCAN loops\n"), std::string::npos) << plan;
    if (sorted) {
      EXPECT_EQ(plan.find("TEMP B-TREE"), std::string::npos) << plan;
    }
  };
  uses(std::string("SELECT id FROM runs INDEXED BY runs_unsettled WHERE settled = 0 AND "
                   "status IN ") +
           sql::kTerminalRunStatuses + " ORDER BY finished_at, id LIMIT 10",
       "USING INDEX runs_unsettled");
  // The active runs are few: they are sorted after the read.
  uses(std::string("SELECT id FROM runs INDEXED BY runs_active WHERE status IN ") +
           sql::kActiveRunStatuses + " ORDER BY scheduled_for, id LIMIT 10",
       "USING INDEX runs_active", false);
  // A runner's claim reads the pending rows in slot order through their index.
  uses(
      "SELECT r.id FROM runs r INDEXED BY runs_pending JOIN loops l ON l.id = r.loop_id WHERE "
      "r.status = 'pending' AND "
      "l.status = 'active' AND l.archived = 0 AND (l.expires_at IS NULL OR l.expires_at > 1) "
      "AND (l.machine_json = '[]' OR orrery_labels_within(l.machine_json, 'host=a')) "
      "ORDER BY r.scheduled_for, r.id LIMIT 100",
      "USING INDEX runs_pending");
  uses(
      "SELECT id FROM runs INDEXED BY runs_running_claimant WHERE status = 'running' AND "
      "claimed_by = 'daemon@a:1' AND cancel_requested = 1 ORDER BY scheduled_for, id",
      "USING INDEX runs_running_claimant", false);
  uses(
      "SELECT MIN(next_run_at) FROM loops WHERE status = 'active' AND archived = 0 AND "
      "next_run_at > ?1",
      "COVERING INDEX loops_due (status=? AND archived=? AND next_run_at>?)");
  uses("SELECT MIN(lease_expires_at) FROM runs WHERE status = 'running'",
       "COVERING INDEX runs_status_lease (status=?)");
}

TEST(SqliteStorePlans, ListingWithManyLimitsPreparesOneStatement) {
  TempDir dir;
  auto store = open_store(dir.file("orrery.db"));
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(store->create_loop(make_loop("one", 1)).ok());
  LoopFilter filter;
  filter.limit = 1;
  ASSERT_TRUE(store->list_loops(filter).ok());
  const size_t prepared = store->database().cached_statements();
  for (int limit = 2; limit < 60; ++limit) {
    filter.limit = limit;
    ASSERT_EQ(store->list_loops(filter)->size(), 1u);
  }
  EXPECT_EQ(store->database().cached_statements(), prepared);
}

// ---------------------------------------------------------------------------
// Expiry when the store is opened.

TEST(SqliteStoreExpiry, OpeningTheStoreExpiresActiveLoopsPastTheirExpiry) {
  TempDir dir;
  const std::string path = dir.file("orrery.db");
  Loop soon = make_loop("soon", 1);
  soon.expires_at = kNow + 1000;
  Loop later = make_loop("later", 2);
  later.expires_at = kNow + 5000;
  Loop never = make_loop("never", 3);
  Loop archived = make_loop("archived", 4);
  archived.expires_at = kNow + 1000;
  archived.archived = true;
  {
    auto store = open_store(path);
    ASSERT_NE(store, nullptr);
    for (const Loop& loop : {soon, later, never, archived}) {
      ASSERT_TRUE(store->create_loop(loop).ok());
    }
  }
  const auto status_at = [&](TimeMs now) {
    auto store = open_store(path, "", now);
    std::vector<LoopStatus> statuses;
    for (const Loop& loop : {soon, later, never, archived}) {
      statuses.push_back((*store->get_loop(loop.id))->status);
    }
    return statuses;
  };
  using enum LoopStatus;
  EXPECT_EQ(status_at(kNow + 999), (std::vector{kActive, kActive, kActive, kActive}));
  EXPECT_EQ(status_at(kNow + 1000), (std::vector{kExpired, kActive, kActive, kActive}));
  EXPECT_EQ(status_at(kNow + 5000), (std::vector{kExpired, kExpired, kActive, kActive}));
}

// ---------------------------------------------------------------------------
// Stored rows are not trusted to respect the limits.

TEST(SqliteStoreRows, OutOfRangeStoredDurationsAreClampedWhenRead) {
  TempDir dir;
  auto store = open_store(dir.file("orrery.db"));
  ASSERT_NE(store, nullptr);
  const Loop loop = make_loop("hand-edited", 1);
  ASSERT_TRUE(store->create_loop(loop).ok());
  struct Case {
    const char* value;
    DurationMs lease, retry_delay, timeout, jitter, window;
  };
  const Case cases[] = {
      {"9223372036854775807", kMaxLeaseMs, kMaxRetryDelayMs, kMaxTimeoutMs, kMaxJitterMs,
       kMaxCatchUpWindowMs},
      {"-9223372036854775808", kMinimumLeaseMs, 0, 0, 0, 0},
      {"-1", kMinimumLeaseMs, 0, 0, 0, 0},
      {"31536000001", kMaxLeaseMs, kMaxRetryDelayMs, kMaxTimeoutMs, kMaxJitterMs,
       kMaxCatchUpWindowMs},
  };
  TimeMs slot = kNow;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.value);
    const std::string v = c.value;
    ASSERT_TRUE(store->database()
                    .exec("UPDATE loops SET lease_ms = " + v + ", retry_delay_ms = " + v +
                          ", timeout_ms = " + v + ", idle_timeout_ms = " + v +
                          ", schedule_jitter_ms = " + v + ", catch_up_window_ms = " + v +
                          ", schedule_every_ms = " + v)
                    .ok());
    auto read = store->get_loop(loop.id);
    ASSERT_TRUE(read.ok() && read->has_value());
    const Loop& got = **read;
    EXPECT_EQ(got.lease_ms, c.lease);
    EXPECT_EQ(got.retry_delay_ms, c.retry_delay);
    EXPECT_EQ(got.timeout_ms, c.timeout);
    EXPECT_EQ(got.idle_timeout_ms, c.timeout);
    EXPECT_EQ(got.schedule.jitter_ms, c.jitter);
    EXPECT_EQ(got.catch_up.window, c.window);
    EXPECT_GE(got.schedule.every_ms, 0);
    EXPECT_LE(got.schedule.every_ms, kMaxIntervalMs);
    // A claim's lease comes from the clamped duration, never an overflow.
    auto claimed = store->claim_slot({loop.id, slot}, "runner", kNow, {});
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    EXPECT_EQ((*claimed)->run.lease_expires_at, kNow + c.lease);
    slot += kMinute;
  }
}

// ---------------------------------------------------------------------------
// Damaged stored text is reported in orrery's words.

TEST(SqliteStoreRows, ADamagedStoredTargetIsReportedWithoutLibraryWording) {
  TempDir dir;
  auto store = open_store(dir.file("orrery.db"));
  ASSERT_NE(store, nullptr);
  const Loop loop = make_loop("damaged", 1);
  ASSERT_TRUE(store->create_loop(loop).ok());
  struct Case {
    const char* json;
    const char* reason;
  };
  const Case cases[] = {
      {"{not json", "it is not valid JSON"},
      {"{\"type\": 5}", "a field has the wrong type"},
      {"{}", "a field is missing"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    auto update = store->database().prepare("UPDATE loops SET target_json = ?1");
    ASSERT_TRUE(update.ok());
    (*update)->bind(1, std::string(c.json));
    ASSERT_TRUE((*update)->run().ok());
    auto read = store->get_loop(loop.id);
    ASSERT_FALSE(read.ok());
    const std::string& message = read.error().message;
    EXPECT_EQ(message, "loop " + loop.id + ": the stored target is not valid (" + c.reason + ")");
    EXPECT_EQ(message.find("json.exception"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace orrery
