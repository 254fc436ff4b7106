// SqliteStore across processes and files: a writer killed inside an open
// transaction, inputs that are not an openable orrery database, and file
// permissions (docs/architecture.md, §4.4, §10, §13). What every backend does
// under concurrency is in store_concurrency_test.cc.
//
// The crashing writer is a forked child that ends by a kill (never returning
// into gtest); "inside the transaction" is signalled through a pipe, never by
// sleeping.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/ids.h"
#include "exec/process_identity.h"
#include "store/sqlite/migrations.h"
#include "store/sqlite/sqlite_store.h"
#include "support/forked_children.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

constexpr DurationMs kMinute = 60'000;

using ScratchDir = testing::TempDir;
using testing::describe_exit;

TimeMs wall_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

SqliteOptions options_for(const std::string& path) {
  SqliteOptions options;
  options.path = path;
  options.probe = std::make_shared<SystemProcessProbe>();
  return options;
}

Loop make_loop(TimeMs now, const std::string& name, std::uint8_t salt) {
  std::array<std::uint8_t, 10> bytes{};
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = std::uint8_t(salt * 31 + i * 7 + 1);
  Loop loop;
  loop.id = make_id(now, bytes);
  loop.name = name;
  loop.schedule.type = ScheduleType::kInterval;
  loop.schedule.every_ms = kMinute;
  loop.target.argv = {"true"};
  loop.next_run_at = now;
  loop.lease_ms = 60'000;
  loop.max_attempts = 1;
  loop.created_at = now;
  loop.updated_at = now;
  return loop;
}

std::optional<std::string> read_bytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return std::nullopt;
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << bytes;
}

bool exists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0;
}

int mode_of(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return -1;
  return int(info.st_mode & 07777);
}

std::int64_t size_of(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return -1;
  return std::int64_t(info.st_size);
}

// Kills and reaps a child that a failing assertion left behind.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid) {}
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  ~ChildGuard() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    int status = 0;
    waitpid(pid_, &status, 0);
  }
  pid_t pid() const { return pid_; }
  // Waits for the child; the guard no longer owns it.
  int wait() {
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_;
};

// ---------------------------------------------------------------------------
// A writer killed with SIGKILL inside an open write transaction.

constexpr int kCrashRuns = 2000;

// Runs in the child: commits nothing after BEGIN IMMEDIATE, signals, waits to be killed.
int run_crash_child(const std::string& db_path, const Loop& committed, const Loop& uncommitted,
                    int signal_fd) {
  auto store = SqliteStore::open(options_for(db_path));
  if (!store) return 20;
  sqlite::Database& db = (*store)->database();
  // A tiny page cache makes SQLite spill the open transaction's pages into
  // the WAL before commit, so the kill leaves uncommitted frames on disk.
  if (!db.exec("PRAGMA cache_size = 8").ok()) return 21;
  if (!db.exec("BEGIN IMMEDIATE").ok()) return 22;
  if (!(*store)->create_loop(uncommitted).ok()) return 23;
  for (const Loop* loop : {&committed, &uncommitted}) {
    auto insert = db.prepare(
        "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ?3) "
        "INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, started_at, "
        "claimed_by, claim_token, claim_generation, lease_expires_at, stdout, created_at, "
        "updated_at) SELECT lower(hex(randomblob(16))), ?1, ?2, i * 60000, 1, 'running', 0, "
        "'crasher', 'g1-token', 1, 60000, hex(randomblob(512)), 0, 0 FROM n");
    if (!insert) return 24;
    (*insert)->bind(1, loop->id).bind(2, loop->name).bind(3, kCrashRuns - 1);
    if (!(*insert)->run().ok()) return 25;
    if (db.changes() != kCrashRuns) return 26;
  }
  if (!db.in_transaction()) return 27;
  if (write(signal_fd, "x", 1) != 1) return 28;
  for (;;) pause();
}

TEST(SqliteProcess, WriterKilledInsideATransactionLeavesTheDatabaseConsistent) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string db_path = dir.file("orrery.db");
  const TimeMs now = wall_now();
  const Loop committed = make_loop(now, "committed-before", 2);
  const Loop uncommitted = make_loop(now, "inside-the-transaction", 3);
  {
    auto store = SqliteStore::open(options_for(db_path));
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto created = (*store)->create_loop(committed);
    ASSERT_TRUE(created.ok()) << created.error().message;
  }
  const std::int64_t wal_before = std::max<std::int64_t>(0, size_of(db_path + "-wal"));

  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0) << "fork failed";
  if (pid == 0) {
    close(ready[0]);
    _exit(run_crash_child(db_path, committed, uncommitted, ready[1]));
  }
  ChildGuard child(pid);
  close(ready[1]);
  char byte = 0;
  const ssize_t got = read(ready[0], &byte, 1);
  close(ready[0]);
  if (got != 1) {
    const int status = child.wait();
    FAIL() << "the child never reached the open transaction: " << describe_exit(status);
  }
  // The uncommitted pages really are on disk, in the WAL, when the kill lands.
  EXPECT_GT(size_of(db_path + "-wal"), wal_before + (1 << 20))
      << "the open transaction did not spill into the WAL; the crash test is weaker than meant";
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  const int status = child.wait();
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << describe_exit(status);

  auto store = SqliteStore::open(options_for(db_path));
  ASSERT_TRUE(store.ok()) << store.error().message;
  {
    auto check = (*store)->database().prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.ok()) << check.error().message;
    auto row = (*check)->step();
    ASSERT_TRUE(row.ok()) << row.error().message;
    ASSERT_TRUE(*row);
    EXPECT_EQ((*check)->text(0), "ok");
  }
  auto before = (*store)->get_loop(committed.id);
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_TRUE(before->has_value()) << "a write committed before the crash was lost";
  auto inside = (*store)->get_loop(uncommitted.id);
  ASSERT_TRUE(inside.ok()) << inside.error().message;
  EXPECT_FALSE(inside->has_value()) << "the killed transaction's loop is visible";
  auto runs = (*store)->count_runs(std::nullopt);
  ASSERT_TRUE(runs.ok()) << runs.error().message;
  EXPECT_EQ(*runs, 0) << "the killed transaction's runs are visible";

  // The database is writable again: a fresh claim goes through.
  auto claimed = (*store)->claim_slot({committed.id, now}, "after-crash", now, Fence{});
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  EXPECT_TRUE(claimed->has_value());
}

// ---------------------------------------------------------------------------
// One file, several connections in one process (docs/storage.md).

// Whether a process other than this one sees a read lock of this one on the
// database's shared-lock bytes: SQLite's SHARED lock, which a connection in
// WAL mode holds while it is open and which tells a closing connection of
// another process that it is not the file's last (the byte range is SQLite's
// locking protocol, fixed for compatibility: 510 bytes from 0x40000002). The
// child asks with F_GETLK only, so it takes no lock and inherits none.
bool shared_lock_seen_by_another_process(const std::string& db_path) {
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const int fd = ::open(db_path.c_str(), O_RDWR | O_CLOEXEC);
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0x40000002;
    lock.l_len = 510;
    if (fd < 0 || fcntl(fd, F_GETLK, &lock) != 0) _exit(2);
    _exit(lock.l_type == F_RDLCK && lock.l_pid == getppid() ? 0 : 1);
  }
  ChildGuard child(pid);
  const int status = child.wait();
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Opening the database again in a process that has it open (a supervisor
// reopening it with its run's busy timeout) leaves the first connection its
// locks. Were they dropped, the next command to close its connection would
// take the file for its last one and delete the write-ahead log under the
// first, whose later commits nobody would see.
TEST(SqliteProcess, OpeningTheDatabaseAgainLeavesTheOpenConnectionsTheirLocks) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string db_path = dir.file("orrery.db");
  auto first = SqliteStore::open(options_for(db_path));
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE((*first)->create_loop(make_loop(wall_now(), "before", 1)).ok());
  ASSERT_TRUE(shared_lock_seen_by_another_process(db_path))
      << "the probe does not see the lock an open connection holds";
  std::vector<std::unique_ptr<SqliteStore>> more;
  for (int open = 1; open <= 3; ++open) {
    auto again = SqliteStore::open(options_for(db_path));
    ASSERT_TRUE(again.ok()) << again.error().message;
    more.push_back(std::move(*again));
    EXPECT_TRUE(shared_lock_seen_by_another_process(db_path))
        << "opening the database " << open + 1 << " times dropped this process's lock";
  }
  more.clear();  // closing the later connections keeps the first one's lock
  EXPECT_TRUE(shared_lock_seen_by_another_process(db_path));
}

// ---------------------------------------------------------------------------
// Inputs that are not an openable orrery database.

TEST(SqliteProcess, NewerSchemaIsRefusedNamingBothVersionsAndLeftUnchanged) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string db_path = dir.file("orrery.db");
  const int latest = sqlite::latest_schema_version();
  const int newer = latest + 1;
  {
    auto store = SqliteStore::open(options_for(db_path));
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto created = (*store)->create_loop(make_loop(wall_now(), "from-the-future", 4));
    ASSERT_TRUE(created.ok()) << created.error().message;
    auto bumped = (*store)->database().exec("PRAGMA user_version = " + std::to_string(newer));
    ASSERT_TRUE(bumped.ok()) << bumped.error().message;
  }  // the last connection checkpoints the WAL into the file
  const auto before = read_bytes(db_path);
  ASSERT_TRUE(before.has_value());
  ASSERT_FALSE(before->empty());

  auto store = SqliteStore::open(options_for(db_path));
  ASSERT_FALSE(store.ok()) << "a database of schema version " << newer << " was opened";
  EXPECT_EQ(store.error().code, ErrorCode::kConflict) << store.error().message;
  EXPECT_NE(store.error().message.find("version " + std::to_string(newer)), std::string::npos)
      << store.error().message;
  EXPECT_NE(store.error().message.find("version " + std::to_string(latest)), std::string::npos)
      << store.error().message;

  EXPECT_EQ(read_bytes(db_path), before) << "the refused database's bytes changed";
  // Still the newer version: nothing was migrated over it.
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open_v2(db_path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* version = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &version, nullptr), SQLITE_OK);
  ASSERT_EQ(sqlite3_step(version), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int(version, 0), newer);
  sqlite3_finalize(version);
  sqlite3_close(raw);
}

// A data directory that cannot be created: its parent path is a regular
// file. This works for every user. The usual way to make a directory
// unwritable, chmod 0500, does nothing when the tests run as root (root
// ignores permission bits), so the permission-bit variant below only runs
// for other users.
TEST(SqliteProcess, DataDirectoryThatCannotBeCreatedIsAUsageErrorNamingThePath) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string blocker = dir.file("not-a-directory");
  const std::string blocker_bytes = "a regular file where the data directory should be\n";
  write_bytes(blocker, blocker_bytes);

  for (const std::string& db_path : {blocker + "/orrery.db", blocker + "/home/orrery.db"}) {
    auto store = SqliteStore::open(options_for(db_path));
    ASSERT_FALSE(store.ok()) << db_path << " was opened";
    EXPECT_EQ(store.error().code, ErrorCode::kUsage) << store.error().message;
    EXPECT_NE(store.error().message.find(blocker), std::string::npos) << store.error().message;
    EXPECT_EQ(read_bytes(blocker), blocker_bytes) << "the file in the way was changed";
  }
}

// A data directory its owner made read-only is refused, even for root (who
// could write it anyway), and stays read-only.
TEST(SqliteProcess, AReadOnlyDataDirectoryIsRefusedAndKeepsItsMode) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string data_dir = dir.file("readonly");
  ASSERT_EQ(mkdir(data_dir.c_str(), 0500), 0);
  ASSERT_EQ(chmod(data_dir.c_str(), 0500), 0);
  auto store = SqliteStore::open(options_for(data_dir + "/orrery.db"));
  ASSERT_FALSE(store.ok()) << "a store was opened in a 0500 directory";
  EXPECT_EQ(store.error().code, ErrorCode::kUsage) << store.error().message;
  EXPECT_NE(store.error().message.find(data_dir), std::string::npos) << store.error().message;
  struct stat info {};
  ASSERT_EQ(stat(data_dir.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0500u);
  EXPECT_FALSE(exists(data_dir + "/orrery.db"));
}

std::string random_bytes(size_t size, std::uint32_t seed) {
  std::mt19937 random(seed);
  std::string bytes(size, '\0');
  for (char& byte : bytes) byte = char(random() & 0xff);
  return bytes;
}

TEST(SqliteProcess, FileThatIsNotADatabaseIsAUsageErrorAndLeftUnchanged) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"random bytes", random_bytes(8192, 42)},
      {"short text", "orrery was here, but this is not a database\n"},
      {"a page of text", std::string(4096, 'x')},
  };
  for (const auto& [label, content] : cases) {
    SCOPED_TRACE(label);
    ASSERT_NE(content.rfind("SQLite format 3", 0), 0u);
    ScratchDir dir;
    ASSERT_FALSE(dir.path().empty());
    const std::string db_path = dir.file("orrery.db");
    write_bytes(db_path, content);

    auto store = SqliteStore::open(options_for(db_path));
    ASSERT_FALSE(store.ok()) << "a non-database file was opened as a store";
    EXPECT_EQ(store.error().code, ErrorCode::kUsage) << store.error().message;
    EXPECT_NE(store.error().message.find(db_path), std::string::npos) << store.error().message;
    EXPECT_EQ(read_bytes(db_path), content) << "the file's bytes changed";
    EXPECT_FALSE(exists(db_path + "-wal")) << "a WAL was left next to a non-database";
  }
}

// A SQLite database of another program (user_version 0, its own tables, no
// schema_migrations) is not an orrery database either: it is refused as a
// usage error naming the path, and its bytes stay as they were.
TEST(SqliteProcess, ForeignSqliteDatabaseIsRefusedAndLeftUnchanged) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string db_path = dir.file("orrery.db");
  {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(db_path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE notes (text); INSERT INTO notes VALUES ('mine');",
                           nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(raw);
  }
  const auto before = read_bytes(db_path);
  ASSERT_TRUE(before.has_value());

  auto store = SqliteStore::open(options_for(db_path));
  ASSERT_FALSE(store.ok()) << "another program's database was migrated into an orrery store";
  EXPECT_EQ(store.error().code, ErrorCode::kUsage) << store.error().message;
  EXPECT_NE(store.error().message.find(db_path), std::string::npos) << store.error().message;
  EXPECT_EQ(read_bytes(db_path), before) << "the foreign database's bytes changed";
}

// A file that starts like a database but whose pages are garbage: refused
// with a clear error (corruption is not promised a particular code), and not
// written to.
TEST(SqliteProcess, CorruptDatabaseIsRefusedAndLeftUnchanged) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string db_path = dir.file("orrery.db");
  {
    auto store = SqliteStore::open(options_for(db_path));
    ASSERT_TRUE(store.ok()) << store.error().message;
  }
  auto bytes = read_bytes(db_path);
  ASSERT_TRUE(bytes.has_value());
  ASSERT_GT(bytes->size(), 4096u);
  // Keep the 100-byte header, overwrite the rest of page 1 (the schema) and beyond.
  const std::string garbage = random_bytes(bytes->size() - 100, 7);
  std::string corrupt = bytes->substr(0, 100) + garbage;
  write_bytes(db_path, corrupt);

  auto store = SqliteStore::open(options_for(db_path));
  ASSERT_FALSE(store.ok()) << "a corrupt database was opened";
  EXPECT_FALSE(store.error().message.empty());
  EXPECT_EQ(read_bytes(db_path), corrupt) << "the corrupt file's bytes changed";
}

// ---------------------------------------------------------------------------
// Permissions.

TEST(SqliteProcess, NewDataDirectoryIs0700AndDatabaseFiles0600) {
  ScratchDir dir;
  ASSERT_FALSE(dir.path().empty());
  const std::string home = dir.file("home");
  const std::string data_dir = home + "/orrery";
  const std::string db_path = data_dir + "/orrery.db";
  const mode_t saved = umask(0);  // the store, not the umask, must make them private
  auto store = SqliteStore::open(options_for(db_path));
  umask(saved);
  ASSERT_TRUE(store.ok()) << store.error().message;
  auto created = (*store)->create_loop(make_loop(wall_now(), "private", 5));
  ASSERT_TRUE(created.ok()) << created.error().message;

  EXPECT_EQ(mode_of(data_dir), 0700);
  EXPECT_EQ(mode_of(home), 0700) << "a parent the store created";
  EXPECT_EQ(mode_of(db_path), 0600);
  ASSERT_TRUE(exists(db_path + "-wal")) << "WAL mode keeps a -wal file while open";
  EXPECT_EQ(mode_of(db_path + "-wal"), 0600);
  ASSERT_TRUE(exists(db_path + "-shm"));
  EXPECT_EQ(mode_of(db_path + "-shm"), 0600);
}

// A directory orrery did not create is the user's: it keeps its mode (loose
// or not); orrery's own database files are made 0600.
TEST(SqliteProcess, AnExistingDirectoryKeepsItsModeAndTheDatabaseFilesAreTightened) {
  for (const int mode : {0755, 0777, 01777, 0711}) {
    SCOPED_TRACE(mode);
    ScratchDir dir;
    ASSERT_FALSE(dir.path().empty());
    const std::string data_dir = dir.file("orrery");
    const std::string db_path = data_dir + "/orrery.db";
    ASSERT_EQ(mkdir(data_dir.c_str(), 0700), 0);
    ASSERT_EQ(chmod(data_dir.c_str(), mode_t(mode)), 0);
    {
      auto store = SqliteStore::open(options_for(db_path));
      ASSERT_TRUE(store.ok()) << store.error().message;
    }
    ASSERT_EQ(chmod(db_path.c_str(), 0666), 0);

    const mode_t saved = umask(0);
    auto store = SqliteStore::open(options_for(db_path));
    umask(saved);
    ASSERT_TRUE(store.ok()) << store.error().message;
    auto created = (*store)->create_loop(make_loop(wall_now(), "tightened", 6));
    ASSERT_TRUE(created.ok()) << created.error().message;
    EXPECT_EQ(mode_of(data_dir), mode);
    EXPECT_EQ(mode_of(db_path), 0600);
    for (const char* suffix : {"-wal", "-shm"}) {
      if (exists(db_path + suffix)) {
        EXPECT_EQ(mode_of(db_path + suffix), 0600) << suffix;
      }
    }
  }
}

}  // namespace
}  // namespace orrery
