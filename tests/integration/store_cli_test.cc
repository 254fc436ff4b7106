// Black-box tests of storage through the binary (docs/storage.md): modes of
// directories orrery did not create, the --db forms, many first uses of a new
// home at once, run directories going with their rows, a busy database
// (exit 75), a damaged one (exit 2, unchanged), and which loops a trigger
// may claim.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "home_fixture.h"
#include "run_binary.h"
#include "support/numbered.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::numbered;

using testing::read_file;

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kExitUsage = 2;
constexpr int kExitConflict = 4;
constexpr int kExitUnavailable = 75;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool mentions_sql(const std::string& text) {
  for (const char* word : {"SELECT", "INSERT", "UPDATE", "DELETE", "PRAGMA", " FROM ", "VALUES"}) {
    if (contains(text, word)) return true;
  }
  return false;
}

int mode_of(const std::string& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return -1;
  return int(info.st_mode & 07777);
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << bytes;
}

// Shell-quotes one word.
std::string quoted(const std::string& word) {
  std::string out = "'";
  for (char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// Runs orrery from `cwd` with umask `mask`, through /bin/sh.
RunResult run_in(const std::string& cwd, const std::vector<std::string>& args,
                 const char* mask = "077") {
  std::string line =
      std::string("umask ") + mask + " && cd " + quoted(cwd) + " && exec " + quoted(ORRERY_BINARY);
  for (const std::string& arg : args) {
    line += ' ';
    line += quoted(arg);
  }
  return run_program("/bin/sh", {"-c", line});
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ignored;
  for (const auto& entry : fs::directory_iterator(dir, ignored)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

class StoreCli : public HomeFixture {
 protected:
  std::string db_path() const { return home_ + "/orrery.db"; }

  void ok(const Args& args, const EnvVars& env = {}) {
    const RunResult result = run(args, env);
    ASSERT_EQ(result.exit_code, 0) << describe(with_home(args), result);
  }

  std::string add_loop(const std::string& name) {
    const RunResult result = run({"--json", "add", name, "--every", "1h", "--", "/bin/true"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out, nullptr, false).value("id", "");
  }

  // Runs the loop now and waits for it; returns the run's id.
  std::string trigger(const std::string& loop) {
    const RunResult result = run({"--json", "trigger", loop, "--wait"});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    return json::parse(result.out, nullptr, false).value("id", "");
  }

  std::string run_dir(const std::string& run_id) const { return home_ + "/runs/" + run_id; }

  // Runs raw SQL on the database, as another program would.
  void sql(const std::string& text) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(db_path().c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, text.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_free(error);
    sqlite3_close(db);
  }
};

// ---------------------------------------------------------------------------
// A1: modes of directories orrery did not create.

TEST_F(StoreCli, TheDirectoryOfADbFileKeepsItsModeWhateverItIs) {
  for (const int mode : {01777, 0755, 0775, 0711, 02770}) {
    SCOPED_TRACE(mode);
    const std::string shared = tmp_ + "/shared-" + std::to_string(mode);
    ASSERT_TRUE(fs::create_directory(shared));
    ASSERT_EQ(chmod(shared.c_str(), mode_t(mode)), 0);
    ok({"--db", shared + "/x.db", "add", "a", "--every", "1h", "--", "/bin/true"});
    EXPECT_EQ(mode_of(shared), mode);
    EXPECT_EQ(mode_of(shared + "/x.db"), 0600);
    // And through a sqlite:// URL.
    ok({"--db", "sqlite://" + shared + "/y.db", "ls"});
    EXPECT_EQ(mode_of(shared), mode);
  }
}

TEST_F(StoreCli, ARelativeDbLeavesTheWorkingDirectoryAlone) {
  const std::string cwd = tmp_ + "/work";
  ASSERT_TRUE(fs::create_directory(cwd));
  ASSERT_EQ(chmod(cwd.c_str(), 0755), 0);
  for (const std::string& db : {std::string("x.db"), std::string("sqlite://y.db")}) {
    const RunResult result = run_in(cwd, {"--home", home_, "--db", db, "ls"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(mode_of(cwd), 0755) << db;
  }
  EXPECT_EQ(mode_of(cwd + "/x.db"), 0600);
  EXPECT_EQ(mode_of(cwd + "/y.db"), 0600);
}

TEST_F(StoreCli, DirectoriesOrreryCreatesAre0700WhateverTheUmask) {
  ASSERT_EQ(chmod(tmp_.c_str(), 0755), 0);
  const std::string db = tmp_ + "/a/b/c/x.db";
  for (const char* mask : {"000", "022", "077"}) {
    SCOPED_TRACE(mask);
    const RunResult result =
        run_in(tmp_, {"--home", tmp_ + "/home-" + mask, "--db", db, "ls"}, mask);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    for (const std::string& dir :
         {tmp_ + "/a", tmp_ + "/a/b", tmp_ + "/a/b/c", tmp_ + "/home-" + std::string(mask)}) {
      EXPECT_EQ(mode_of(dir), 0700) << dir;
    }
    EXPECT_EQ(mode_of(db), 0600);
    EXPECT_EQ(mode_of(tmp_), 0755);
  }
}

TEST_F(StoreCli, AnExistingHomeKeepsItsMode) {
  for (const int mode : {0755, 0750, 0700}) {
    SCOPED_TRACE(mode);
    fs::remove_all(home_);
    ASSERT_TRUE(fs::create_directory(home_));
    ASSERT_EQ(chmod(home_.c_str(), mode_t(mode)), 0);
    add_loop("kept");
    EXPECT_EQ(mode_of(home_), mode);
    EXPECT_EQ(mode_of(db_path()), 0600);
  }
}

// ---------------------------------------------------------------------------
// A2: --db is a path or sqlite://PATH.

// A database must be a regular file: a device, a FIFO or a directory in
// its place is refused (exit 2), saying what it is, without blocking and
// without writing to it.
TEST_F(StoreCli, ADbThatIsADeviceAFifoOrADirectoryIsRefusedSayingWhatItIs) {
  const std::string fifo = tmp_ + "/fifo.db";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string dir = tmp_ + "/dir.db";
  ASSERT_TRUE(fs::create_directory(dir));
  const std::pair<std::string, std::string> cases[] = {
      {"/dev/null", "is a character device; a database must be a regular file"},
      {"/dev/zero", "is a character device; a database must be a regular file"},
      {fifo, "is a FIFO; a database must be a regular file"},
      {dir, "is a directory; a database must be a regular file (a file in that directory, say " +
                dir + "/orrery.db)"}};
  for (const auto& [db, what] : cases) {
    const RunResult result = run_orrery({"--home", home_, "--db", db, "ls"});
    EXPECT_EQ(result.exit_code, kExitUsage) << db << ": " << result.err;
    EXPECT_EQ(result.err, "orrery: " + db + " " + what + "\n");
  }
}

TEST_F(StoreCli, DbValuesThatAreNotAFileAreRefusedAndCreateNothing) {
  const std::string cwd = tmp_ + "/cwd";
  ASSERT_TRUE(fs::create_directory(cwd));
  for (const std::string& value :
       {std::string(":memory:"), std::string("mysql://x"), std::string("file:x.db"),
        std::string("file:///tmp/x.db"), std::string("http://host/x.db"),
        std::string("sqlite:x.db"), std::string(""), std::string("sqlite://"),
        std::string("sqlite://:memory:"), std::string("sqlite://mysql://x"),
        std::string("redis://localhost:6379"), std::string("dir/"), std::string("."),
        std::string("sub/..")}) {
    SCOPED_TRACE("--db '" + value + "'");
    for (const bool json_output : {false, true}) {
      std::vector<std::string> args{"--home", home_,     "--db", value, "add",
                                    "n",      "--every", "1h",   "--",  "/bin/true"};
      if (json_output) args.insert(args.begin(), "--json");
      const RunResult result = run_in(cwd, args);
      EXPECT_EQ(result.exit_code, kExitUsage) << result.err;
      EXPECT_EQ(result.err.rfind("orrery: --db", 0), 0u) << result.err;
      EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
      if (json_output) {
        const json document = json::parse(result.out, nullptr, false);
        ASSERT_TRUE(document.is_object()) << result.out;
        EXPECT_EQ(document["error"]["code"], "usage");
      } else {
        EXPECT_EQ(result.out, "");
      }
    }
    EXPECT_EQ(entries(cwd), std::vector<std::string>{}) << "something was created";
    EXPECT_FALSE(fs::exists(home_)) << "the home was created";
  }
  // ORRERY_DB is held to the same rule.
  const RunResult env =
      run_program(ORRERY_BINARY, {"--home", home_, "ls"}, {{"ORRERY_DB", ":memory:"}});
  EXPECT_EQ(env.exit_code, kExitUsage) << env.err;
  EXPECT_FALSE(fs::exists(home_));
}

TEST_F(StoreCli, APathAndSqliteUrlsOfBothKindsNameTheSameFile) {
  const std::string file = tmp_ + "/one.db";
  const std::string id = [&] {
    const RunResult added = run_orrery({"--home", home_, "--db", file, "--json", "add", "same",
                                        "--every", "1h", "--", "/bin/true"});
    EXPECT_EQ(added.exit_code, 0) << added.err;
    return json::parse(added.out, nullptr, false).value("id", "");
  }();
  ASSERT_FALSE(id.empty());
  for (const std::string& db : {"sqlite://" + file, file}) {
    const RunResult shown = run_orrery({"--home", home_, "--db", db, "--json", "show", id});
    EXPECT_EQ(shown.exit_code, 0) << db << ": " << shown.err;
  }
  const RunResult relative = run_in(tmp_, {"--home", home_, "--db", "sqlite://one.db", "show", id});
  EXPECT_EQ(relative.exit_code, 0) << relative.err;
}

// ---------------------------------------------------------------------------
// A3: many first uses of a new home at once.

TEST_F(StoreCli, ManyConcurrentFirstUsesOfANewHomeAllSucceed) {
  constexpr int kProcesses = 32;
  std::vector<RunResult> results(kProcesses);
  std::vector<std::thread> threads;
  for (int i = 0; i < kProcesses; ++i) {
    threads.emplace_back([&, i] {
      results[i] = run({"add", numbered("n", i), "--every", "1h", "--", "true"});
    });
  }
  for (auto& thread : threads) thread.join();
  for (int i = 0; i < kProcesses; ++i) {
    EXPECT_EQ(results[i].exit_code, 0) << "n" << i << ": " << results[i].err;
  }
  const RunResult listed = run({"--json", "ls"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  std::set<std::string> names;
  for (const auto& loop : json::parse(listed.out)) names.insert(loop["name"].get<std::string>());
  EXPECT_EQ(names.size(), size_t(kProcesses));
  EXPECT_EQ(mode_of(home_), 0700);
}

// ---------------------------------------------------------------------------
// A4: a run's directory goes with its row.

TEST_F(StoreCli, RmAndPruneRemoveTheDirectoriesOfTheRunsTheyDelete) {
  const std::string doomed = add_loop("doomed");
  const std::string kept = add_loop("kept");
  std::vector<std::string> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(trigger(doomed));
  const std::string other = trigger(kept);
  for (const std::string& id : runs) ASSERT_TRUE(fs::is_directory(run_dir(id))) << id;
  ASSERT_TRUE(fs::is_directory(run_dir(other)));

  // A dry run removes nothing.
  ok({"prune", "--keep", "1", "--dry-run"});
  for (const std::string& id : runs) EXPECT_TRUE(fs::is_directory(run_dir(id))) << id;
  // Pruning to the newest run of each loop removes the two older directories.
  const RunResult pruned = run({"--json", "prune", "--keep", "1"});
  ASSERT_EQ(pruned.exit_code, 0) << pruned.err;
  EXPECT_EQ(json::parse(pruned.out)["runs"], 2);
  EXPECT_FALSE(fs::exists(run_dir(runs[0])));
  EXPECT_FALSE(fs::exists(run_dir(runs[1])));
  EXPECT_TRUE(fs::is_directory(run_dir(runs[2])));
  EXPECT_TRUE(fs::is_directory(run_dir(other)));
  // rm deletes the loop, its remaining runs and their directories.
  ok({"rm", doomed});
  EXPECT_FALSE(fs::exists(run_dir(runs[2])));
  EXPECT_TRUE(fs::is_directory(run_dir(other)));
  EXPECT_EQ(entries(home_ + "/runs"), std::vector<std::string>{other});
}

// ---------------------------------------------------------------------------
// E19: busy and damaged databases.

TEST_F(StoreCli, ABusyDatabaseExits75AfterTheBusyTimeoutAndReadersGoOn) {
  const std::string loop = add_loop("busy");
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const EnvVars quick{{"ORRERY_BUSY_TIMEOUT_MS", "100"}};
  const std::vector<Args> writes = {
      {"add", "second", "--every", "1h", "--", "/bin/true"},
      {"pause", loop},
      {"rename", loop, "renamed"},
      {"archive", loop},
      {"rm", loop},
  };
  for (const Args& args : writes) {
    for (const bool json_output : {false, true}) {
      Args full = args;
      if (json_output) full.insert(full.begin(), "--json");
      const RunResult result = run(full, quick);
      EXPECT_EQ(result.exit_code, kExitUnavailable) << describe(with_home(full), result);
      EXPECT_EQ(
          result.err.rfind(
              "orrery: database busy: another process holds the write lock on " + db_path(), 0),
          0u)
          << result.err;
      EXPECT_FALSE(mentions_sql(result.err)) << result.err;
      if (json_output) {
        EXPECT_EQ(json::parse(result.out, nullptr, false)["error"]["code"], "unavailable");
      }
    }
  }
  // Reading is not blocked by a writer.
  ok({"ls"}, quick);
  ok({"show", loop}, quick);
  ASSERT_EQ(sqlite3_exec(holder, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(holder);
  ok({"pause", loop}, quick);
  // The busy timeout must be a number of milliseconds.
  for (const char* bad : {"abc", "-1", "99999999999", "1.5"}) {
    const RunResult result = run({"ls"}, {{"ORRERY_BUSY_TIMEOUT_MS", bad}});
    EXPECT_EQ(result.exit_code, kExitUsage) << bad;
    EXPECT_TRUE(contains(result.err, "ORRERY_BUSY_TIMEOUT_MS")) << result.err;
  }
}

TEST_F(StoreCli, ADamagedDatabaseIsExit2AndPruneAndRmChangeNoByte) {
  const std::string first = add_loop("first");
  // Many loops with long descriptions and many finished runs, so that the
  // middle of the file holds rows that `ls` reads.
  sql("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300) "
      "INSERT INTO loops (id, name, description, status, schedule_type, schedule_every_ms, "
      "schedule_anchor, target_json, next_run_at, catch_up, catch_up_limit, overlap, "
      "max_attempts, retry_delay_ms, retry_backoff, lease_ms, created_at, updated_at) "
      "SELECT printf('%032x', i), 'bulk' || i, printf('%.1500c', 'd'), status, schedule_type, "
      "schedule_every_ms, schedule_anchor, target_json, next_run_at, catch_up, catch_up_limit, "
      "overlap, max_attempts, retry_delay_ms, retry_backoff, lease_ms, created_at, updated_at "
      "FROM loops, n WHERE loops.id = '" +
      first +
      "'; "
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) "
      "INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, created_at, "
      "updated_at) SELECT printf('%032x', 1000 + i), '" +
      first + "', 'first', i, 1, 'succeeded', i, i FROM n;");
  ok({"ls"});  // closed cleanly: the WAL is back in the file
  std::string bytes = read_file(db_path());
  const std::string intact = bytes;
  ASSERT_GT(bytes.size(), 200'000u);
  std::mt19937 random(19);
  const size_t page = 4096;
  const size_t middle = bytes.size() / 2 / page * page;
  for (size_t i = middle; i < middle + 2 * page; ++i) bytes[i] = char(random() & 0xff);
  write_bytes(db_path(), bytes);

  // Once `ls` found the damage, writes that would miss the damaged pages are
  // refused too: nothing writes to the file until it is intact again.
  const std::vector<Args> commands = {{"ls"},
                                      {"prune", "--keep", "0"},
                                      {"prune", "--older-than", "1s"},
                                      {"rm", first},
                                      {"add", "later", "--every", "1h", "--", "/bin/true"},
                                      {"pause", first},
                                      {"trigger", first, "--wait"}};
  for (const Args& args : commands) {
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, kExitUsage) << describe(with_home(args), result);
    EXPECT_TRUE(contains(result.err, db_path() + " is damaged")) << result.err;
    EXPECT_FALSE(mentions_sql(result.err)) << result.err;
    EXPECT_EQ(read_file(db_path()), bytes) << "the damaged file was written";
  }
  EXPECT_TRUE(fs::exists(db_path() + ".damaged"));
  // Restored from a backup: the file is used again and the marker goes.
  write_bytes(db_path(), intact);
  ok({"add", "later", "--every", "1h", "--", "/bin/true"});
  EXPECT_FALSE(fs::exists(db_path() + ".damaged"));
}

// ---------------------------------------------------------------------------
// C11: which loops a trigger may claim.

TEST_F(StoreCli, TriggerRefusesExpiredCompletedAndArchivedLoopsButRunsAPausedOne) {
  const std::string paused = add_loop("paused");
  ok({"pause", paused});
  const std::string run_id = trigger(paused);
  EXPECT_FALSE(run_id.empty());
  for (const auto& [status, words] : std::vector<std::pair<std::string, std::string>>{
           {"expired", "it has expired"}, {"completed", "it has completed"}}) {
    const std::string loop = add_loop(status);
    sql("UPDATE loops SET status = '" + status + "', next_run_at = NULL WHERE id = '" + loop + "'");
    for (const bool wait : {false, true}) {
      Args args{"trigger", loop};
      if (wait) args.push_back("--wait");
      const RunResult result = run(args);
      EXPECT_EQ(result.exit_code, kExitConflict) << describe(with_home(args), result);
      EXPECT_TRUE(contains(result.err, words)) << result.err;
    }
    const RunResult runs = run({"--json", "runs", loop});
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    EXPECT_EQ(json::parse(runs.out), json::array()) << status;
  }
  const std::string archived = add_loop("archived");
  ok({"archive", archived});
  const RunResult result = run({"trigger", archived});
  EXPECT_EQ(result.exit_code, kExitConflict) << result.err;
  EXPECT_TRUE(contains(result.err, "archived")) << result.err;
}

}  // namespace
}  // namespace orrery
