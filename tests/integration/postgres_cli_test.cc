// Black-box tests of orrery on PostgreSQL (`--db postgres://...` or
// ORRERY_DB, docs/storage.md): the commands and `daemon --once` on a fresh
// database of the test cluster, and bad input — a server that cannot be
// reached, a refused login, a database that is not orrery's or is newer —
// refused with exit 2 (4 for a newer schema) and a sentence of orrery's own
// that never holds the URL's password, with nothing written.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_fixture.h"
#include "run_binary.h"
#include "support/numbered.h"
#include "support/pg_test_database.h"
#include "support/refusing_port.h"

namespace orrery {
namespace {

using testing::int_or_zero;

namespace fs = std::filesystem;
using testing::pg_query;
using testing::PgTestDatabase;
using testing::RefusingPort;

constexpr int kExitUsage = 2;
constexpr int kExitConflict = 4;
constexpr int kExitUnavailable = 75;

// Every URL of the bad-input tests carries it; no output may.
constexpr const char* kSecret = "Pa55-w0rd-S3cret";

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The socket directory of the test cluster, from a URL's host parameter.
std::string socket_directory(const std::string& url) {
  const size_t host = url.find("host=");
  const size_t end = url.find('&', host);
  return url.substr(host + 5, end == std::string::npos ? std::string::npos : end - host - 5);
}

// psql, in a transaction on `url` that has run `sql` and stays open (to
// hold row locks) until the object goes.
class OpenTransaction {
 public:
  OpenTransaction(const std::string& url, const std::string& sql) {
    int input[2];
    if (pipe(input) != 0) {
      ADD_FAILURE() << "cannot make a pipe";
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      const int null = open("/dev/null", O_RDWR);
      dup2(input[0], STDIN_FILENO);
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
      ::close(input[1]);
      execlp("psql", "psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", url.c_str(), nullptr);
      _exit(127);
    }
    ::close(input[0]);
    input_ = input[1];
    const std::string text = "SET application_name = 'orrery-test-holder'; BEGIN; " + sql + ";\n";
    if (write(input_, text.data(), text.size()) != ssize_t(text.size())) {
      ADD_FAILURE() << "cannot write to psql";
    }
    // Until the server says the session waits inside its transaction.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline) {
      auto state = pg_query(url,
                            "SELECT count(*) FROM pg_stat_activity WHERE application_name = "
                            "'orrery-test-holder' AND state = 'idle in transaction'");
      if (state && *state == "1") return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "psql did not open its transaction within 10 s";
  }
  ~OpenTransaction() {
    if (input_ >= 0) ::close(input_);  // psql ends; the server rolls back
    if (pid_ > 0) waitpid(pid_, nullptr, 0);
  }

 private:
  pid_t pid_ = -1;
  int input_ = -1;
};

class PostgresCli : public CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    ASSERT_TRUE(database_.ok());
    url_ = database_.url();
  }

  Args on_db(const Args& args) const {
    Args full{"--db", url_};
    full.insert(full.end(), args.begin(), args.end());
    return full;
  }

  // `args` with --db and --json; its document.
  json pg(const Args& args, int exit_code = 0) const { return json_of(on_db(args), exit_code); }

  std::string sql(const std::string& text) const {
    auto result = pg_query(url_, text);
    EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
    return result ? *result : "";
  }

  // The supervisor logs of the runs matching `where`, for a failure's message.
  std::string supervisor_logs_of(const std::string& where) const {
    std::string logs;
    const std::string ids = sql("SELECT string_agg(id, ' ') FROM runs WHERE " + where);
    std::istringstream each(ids);
    for (std::string id; each >> id;) {
      std::ifstream file(home_ + "/runs/" + id + "/supervisor.log");
      std::stringstream text;
      text << file.rdbuf();
      logs += "supervisor.log of " + id + ":\n" + text.str() + "\n";
    }
    return logs;
  }

  // The tables of the database, one per line, sorted.
  std::string tables() const {
    return sql(
        "SELECT coalesce(string_agg(schemaname || '.' || tablename, ' ' ORDER BY schemaname, "
        "tablename), '') FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', "
        "'information_schema')");
  }

  // A loop due a second ago, so that `daemon --once` runs it.
  void make_due(const std::string& loop_id) const {
    sql("UPDATE loops SET next_run_at = " + std::to_string(now_ms() - 1000) + " WHERE id = '" +
        loop_id + "'");
  }

  // `daemon --once --json` (its log on stderr); the document it prints.
  json daemon_once(const Args& db_args, const EnvVars& env = {}) const {
    Args args = db_args;
    for (const char* word : {"--json", "daemon", "--once"}) args.push_back(word);
    const RunResult result = run(args, env);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
    json document = json::parse(result.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_TRUE(document.is_object()) << describe(with_home(args), result);
    return document;
  }

  // Runs `args` on the database at `url` (by --db, or by ORRERY_DB when
  // `by_environment`) and expects a refusal: `exit_code`, nothing on stdout,
  // one line "orrery: ..." on stderr without the password, and no data
  // directory made. The line, without "orrery: " and its newline.
  std::string expect_refused(const std::string& url, const Args& args, int exit_code,
                             bool by_environment = false) const {
    Args full = with_home(by_environment ? args : Args{"--db", url});
    if (!by_environment) full.insert(full.end(), args.begin(), args.end());
    const RunResult result =
        run_orrery(full, by_environment ? EnvVars{{"ORRERY_DB", url}} : EnvVars{});
    const std::string what = describe(full, result);
    EXPECT_EQ(result.exit_code, exit_code) << what;
    EXPECT_EQ(result.out, "") << what;
    EXPECT_EQ(result.err.rfind("orrery: ", 0), 0u) << what;
    EXPECT_EQ(lines(result.err).size(), 1u) << what;
    EXPECT_FALSE(contains(result.err, kSecret)) << what;
    EXPECT_FALSE(contains(result.err, "S3cret")) << what;
    EXPECT_FALSE(fs::exists(home_)) << what;
    const std::string line = lines(result.err).empty() ? "" : lines(result.err)[0];
    return line.size() > 8 ? line.substr(8) : line;
  }

  // The commands a refusal is checked with: reading, writing, the daemon.
  static std::vector<Args> commands() {
    return {{"ls"},
            {"add", "job", "--every", "1h", "--", "true"},
            {"status"},
            {"runs"},
            {"daemon", "--once"}};
  }

  // `expect_refused` for each command, by --db and by ORRERY_DB: the same
  // sentence every time, which is returned.
  std::string expect_refused_everywhere(const std::string& url, int exit_code) const {
    std::string first;
    for (const Args& command : commands()) {
      for (const bool by_environment : {false, true}) {
        SCOPED_TRACE(command[0] + (by_environment ? " (ORRERY_DB)" : " (--db)"));
        const std::string message = expect_refused(url, command, exit_code, by_environment);
        if (first.empty()) first = message;
        EXPECT_EQ(message, first);
      }
    }
    return first;
  }

  PgTestDatabase database_;
  std::string url_;
};

// ---------------------------------------------------------------- commands

TEST_F(PostgresCli, LoopCommandsWorkOnPostgres) {
  const json added = pg({"add", "nightly", "--every", "1h", "--", "true"});
  const std::string id = added["id"].get<std::string>();
  EXPECT_EQ(sql("SELECT name || ' ' || status FROM loops WHERE id = '" + id + "'"),
            "nightly active");

  const json listed = pg({"ls"});
  ASSERT_EQ(listed.size(), 1u) << listed.dump(2);
  EXPECT_EQ(listed[0]["id"], id);
  EXPECT_EQ(pg({"show", "nightly"})["id"], id);

  EXPECT_EQ(pg({"pause", "nightly"})["status"], "paused");
  EXPECT_EQ(sql("SELECT status FROM loops WHERE id = '" + id + "'"), "paused");
  EXPECT_EQ(pg({"show", id})["status"], "paused");
  EXPECT_EQ(pg({"resume", "nightly"})["status"], "active");
  EXPECT_EQ(sql("SELECT status FROM loops WHERE id = '" + id + "'"), "active");

  EXPECT_EQ(pg({"runs"}), json::array());
  const json status = pg({"status"});
  EXPECT_EQ(status["loops"]["active"], 1) << status.dump(2);
  EXPECT_EQ(status["next_due"]["loop_id"], id) << status.dump(2);

  pg({"rm", "nightly"});
  EXPECT_EQ(sql("SELECT count(*) FROM loops"), "0");
  EXPECT_EQ(pg({"ls"}), json::array());
  // Nothing went to an SQLite file in the data directory.
  EXPECT_FALSE(fs::exists(home_ + "/orrery.db"));
}

TEST_F(PostgresCli, OrreryDbSelectsTheServerAsDbDoes) {
  const EnvVars env{{"ORRERY_DB", url_}};
  const json added = json_of({"add", "by-env", "--every", "1h", "--", "true"}, 0, env);
  const std::string id = added["id"].get<std::string>();
  EXPECT_EQ(sql("SELECT name FROM loops WHERE id = '" + id + "'"), "by-env");
  EXPECT_EQ(json_of({"ls"}, 0, env).size(), 1u);
  EXPECT_EQ(json_of({"show", "by-env"}, 0, env)["id"], id);
  EXPECT_EQ(json_of({"pause", "by-env"}, 0, env)["status"], "paused");
  EXPECT_EQ(pg({"show", id})["status"], "paused");  // the same database by --db
  EXPECT_EQ(json_of({"status"}, 0, env)["loops"]["paused"], 1);
  json_of({"rm", id}, 0, env);
  EXPECT_EQ(sql("SELECT count(*) FROM loops"), "0");
  EXPECT_FALSE(fs::exists(home_ + "/orrery.db"));
}

// `daemon --once` plans, claims and runs a due loop; its supervisor, a
// process of its own, reaches the database too (ORRERY_DB in its
// environment) and records the outcome.
void expect_daemon_once_runs(const nlohmann::json& runs, const std::string& loop_id) {
  ASSERT_EQ(runs["runs"].size(), 1u) << runs.dump(2);
  const nlohmann::json& run = runs["runs"][0];
  EXPECT_EQ(run["loop_id"], loop_id) << run.dump(2);
  EXPECT_EQ(run["status"], "succeeded") << run.dump(2);
  EXPECT_EQ(run["exit_code"], 0) << run.dump(2);
}

TEST_F(PostgresCli, DaemonOnceRunsADueLoopEndToEnd) {
  const json added =
      pg({"add", "echo", "--every", "1h", "--", "sh", "-c", "echo from-postgres; echo oops >&2"});
  const std::string id = added["id"].get<std::string>();
  make_due(id);
  const json once = daemon_once({"--db", url_});
  expect_daemon_once_runs(once, id);
  const std::string run_id = once["runs"][0]["id"].get<std::string>();
  EXPECT_EQ(sql("SELECT status || ' ' || exit_code FROM runs WHERE id = '" + run_id + "'"),
            "succeeded 0");
  const json shown = pg({"run", "show", run_id});
  EXPECT_EQ(shown["status"], "succeeded");
  EXPECT_EQ(shown["stdout"], "from-postgres\n") << shown.dump(2);
  EXPECT_EQ(shown["stderr"], "oops\n") << shown.dump(2);
  EXPECT_EQ(pg({"runs", "echo"})[0]["id"], run_id);
  // The daemon released its lease; the loop's next slot is an hour ahead.
  EXPECT_EQ(pg({"status"})["daemon"]["held"], false);
  EXPECT_GT(time_ms(pg({"show", id})["next_run_at"].get<std::string>()), now_ms() + 3'000'000);
  EXPECT_FALSE(fs::exists(home_ + "/orrery.db"));
}

TEST_F(PostgresCli, DaemonOnceByOrreryDbRunsADueLoopEndToEnd) {
  const EnvVars env{{"ORRERY_DB", url_}};
  const json added = json_of({"add", "env-echo", "--every", "1h", "--", "true"}, 0, env);
  const std::string id = added["id"].get<std::string>();
  make_due(id);
  const json once = daemon_once({}, env);
  expect_daemon_once_runs(once, id);
  EXPECT_EQ(sql("SELECT count(*) FROM runs WHERE status = 'succeeded'"), "1");
}

// A row another connection holds past the busy timeout (the server's
// lock_timeout) is exit 75, as a busy SQLite file is; readers go on.
TEST_F(PostgresCli, ARowLockedPastTheBusyTimeoutIsExit75) {
  const std::string id = pg({"add", "held", "--every", "1h", "--", "true"})["id"];
  const EnvVars quick{{"ORRERY_BUSY_TIMEOUT_MS", "100"}};
  {
    OpenTransaction holder(url_, "SELECT id FROM loops WHERE id = '" + id + "' FOR UPDATE");
    const std::vector<Args> writes = {
        {"pause", "held"}, {"rename", "held", "renamed"}, {"archive", "held"}, {"rm", "held"}};
    for (const Args& write : writes) {
      const Args args = on_db(write);
      const auto start = std::chrono::steady_clock::now();
      const RunResult result = run(args, quick);
      const auto waited = std::chrono::steady_clock::now() - start;
      EXPECT_EQ(result.exit_code, kExitUnavailable) << describe(with_home(args), result);
      EXPECT_EQ(
          result.err.rfind("orrery: database busy: the PostgreSQL server " + url_ + " gave up ", 0),
          0u)
          << result.err;
      EXPECT_TRUE(contains(result.err, " loops waiting for a lock another process holds\n"))
          << result.err;
      EXPECT_FALSE(contains(result.err, "UPDATE")) << result.err;
      EXPECT_LT(waited, std::chrono::seconds(4)) << describe(with_home(args), result);
    }
    // Reading is not blocked.
    const RunResult listed = run(on_db({"ls"}), quick);
    EXPECT_EQ(listed.exit_code, 0) << describe(with_home(on_db({"ls"})), listed);
    EXPECT_EQ(pg({"show", "held"})["status"], "active");
  }
  // Once the holder is gone, the write goes through.
  EXPECT_EQ(pg({"pause", "held"})["status"], "paused");
}

// A supervisor waits for its run with a connection opened beforehand
// (src/cli/run_commands.cc, prepare_forked_supervisor); a connection the
// server has ended meanwhile (a restart, idle_session_timeout, a proxy) must
// not cost a run.
// The prepared supervisor reads once before it uses its connection and
// opens a new one when that read fails.
TEST_F(PostgresCli, ARunStartsAfterTheServerEndedTheWaitingSupervisorsConnection) {
  pg({"add", "tick", "--every", "1s", "--", "true"});
  daemon_log_ = tmp_ + "/daemon.log";
  const std::string log = daemon_log_;
  const pid_t daemon = fork();
  ASSERT_GE(daemon, 0);
  if (daemon == 0) {
    setenv("ORRERY_DB", url_.c_str(), 1);
    const int null = open("/dev/null", O_RDWR);
    const int err = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(null, STDIN_FILENO);
    dup2(null, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    execl(ORRERY_BINARY, ORRERY_BINARY, "--home", home_.c_str(), "daemon", "--lease-ttl", "3s",
          nullptr);
    _exit(127);
  }
  daemon_pid_ = daemon;  // stopped by TearDown
  const auto count = [&](const std::string& where) {
    return int_or_zero(sql("SELECT count(*) FROM runs WHERE " + where));
  };
  const auto wait_for = [&](const std::string& where, int at_least) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (count(where) < at_least && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return count(where);
  };
  ASSERT_GE(wait_for("status = 'succeeded'", 1), 1) << daemon_log();
  const std::string ended_at = std::to_string(now_ms());
  EXPECT_NE(sql("SELECT count(pg_terminate_backend(pid, 5000)) FROM pg_stat_activity WHERE "
                "datname = current_database() AND pid <> pg_backend_pid()"),
            "0");
  const std::string later =
      "created_at > " + ended_at + " AND status NOT IN ('running', 'queued', 'pending')";
  EXPECT_GE(wait_for(later, 1), 1) << daemon_log();
  EXPECT_EQ(count(later + " AND status <> 'succeeded'"), 0)
      << sql("SELECT string_agg(status || ': ' || error, E'\\n') FROM runs WHERE " + later) << "\n"
      << daemon_log() << supervisor_logs_of(later);
}

// ---------------------------------------------------------------- bad input

TEST_F(PostgresCli, ASocketDirectoryWithNoServerIsExit2) {
  const std::string missing = tmp_ + "/no-server-here";
  const std::string url =
      "postgresql://orrery:" + std::string(kSecret) + "@/postgres?host=" + missing;
  const std::string message = expect_refused_everywhere(url, kExitUsage);
  EXPECT_EQ(message,
            "cannot connect to the PostgreSQL server postgresql://orrery:****@/postgres?"
            "host=" +
                missing + ": connection to server on socket \"" + missing +
                "/.s.PGSQL.5432\" failed: No such file or directory");
}

TEST_F(PostgresCli, ATcpPortNothingListensOnIsExit2) {
  RefusingPort refusing;
  const std::string server = "127.0.0.1:" + std::to_string(refusing.port());
  const std::string url =
      "postgresql://orrery:" + std::string(kSecret) + "@" + server + "/postgres?connect_timeout=5";
  const std::string message = expect_refused_everywhere(url, kExitUsage);
  EXPECT_EQ(message, "cannot connect to the PostgreSQL server postgresql://orrery:****@" + server +
                         "/postgres?connect_timeout=5: connection to server at \"127.0.0.1\", "
                         "port " +
                         std::to_string(refusing.port()) + " failed: Connection refused");
}

TEST_F(PostgresCli, AWrongPasswordIsExit2WithoutThePassword) {
  const std::string socket = socket_directory(url_);
  const std::string in_user_info = "postgresql://orrery_password:" + std::string(kSecret) + "@/" +
                                   database_.name() + "?host=" + socket;
  const std::string message = expect_refused_everywhere(in_user_info, kExitUsage);
  const std::string refused = "connection to server on socket \"" + socket +
                              "/.s.PGSQL.5432\" failed: password authentication failed for user "
                              "\"orrery_password\"";
  EXPECT_EQ(message, "the PostgreSQL server postgresql://orrery_password:****@/" +
                         database_.name() + "?host=" + socket + " refused the login: " + refused);
  // As a parameter, percent-encoded or not.
  for (const std::string parameter : {"password=", "pass%77ord="}) {
    const std::string url = "postgresql:///" + database_.name() + "?host=" + socket +
                            "&user=orrery_password&" + parameter + kSecret;
    EXPECT_TRUE(contains(expect_refused(url, {"ls"}, kExitUsage), "refused the login: " + refused));
  }
  // No password at all.
  const std::string none = "postgresql://orrery_password@/" + database_.name() + "?host=" + socket;
  EXPECT_TRUE(contains(expect_refused(none, {"ls"}, kExitUsage), "no password supplied"));
  EXPECT_EQ(tables(), "");
}

// The database password in either URL form, and PGPASSWORD, whatever their
// entropy, never reach a run's log or stored output, though the target sees
// them (the role `orrery` logs in by trust, so any password connects).
TEST_F(PostgresCli, TheDatabasePasswordAndPgpasswordAreScrubbedFromRunOutput) {
  const std::string socket = socket_directory(url_);
  const std::vector<std::string> passwords = {"hunter2", "abcd", "aaaaaaaaaaaa", "s3cr3t-pw",
                                              "Xk9rT2mQv7LpZ4wN8sJ1"};
  int index = 0;
  for (const std::string& password : passwords) {
    const std::vector<std::string> urls = {
        "postgresql://orrery:" + password + "@/" + database_.name() + "?host=" + socket,
        "postgresql:///" + database_.name() + "?host=" + socket +
            "&user=orrery&password=" + password};
    for (const std::string& url : urls) {
      const std::string name = testing::numbered("echo-", index++);
      const std::string pg_password = "pg-" + password;
      ASSERT_EQ(run({"--db", url, "add", name, "--every", "1h", "--shell",
                     "echo \"db=$ORRERY_DB pg=$PGPASSWORD\"; echo \"$PGPASSWORD\" >&2"})
                    .exit_code,
                0);
      const RunResult triggered =
          run({"--db", url, "--json", "trigger", name, "--wait"}, {{"PGPASSWORD", pg_password}});
      ASSERT_EQ(triggered.exit_code, 0) << describe({"trigger", name}, triggered);
      const json document = json::parse(triggered.out);
      const std::string id = document["id"];
      const std::string logs =
          run({"--db", url, "logs", id}).out + run({"--db", url, "logs", id, "--stderr"}).out;
      for (const std::string& text : {triggered.out, logs}) {
        EXPECT_FALSE(contains(text, password)) << password << " in " << text;
        EXPECT_FALSE(contains(text, pg_password)) << pg_password << " in " << text;
      }
      EXPECT_TRUE(contains(logs, "[SCRUBBED]")) << logs;  // the target did see them
      EXPECT_TRUE(contains(logs, "db=postgresql://")) << logs;
    }
  }
}

TEST_F(PostgresCli, ADatabaseThatDoesNotExistIsExit2) {
  const std::string socket = socket_directory(url_);
  const std::string absent = database_.name() + "_absent";
  const std::string url =
      "postgresql://orrery:" + std::string(kSecret) + "@/" + absent + "?host=" + socket;
  const std::string message = expect_refused_everywhere(url, kExitUsage);
  EXPECT_EQ(message, "cannot connect to the PostgreSQL server postgresql://orrery:****@/" + absent +
                         "?host=" + socket + ": connection to server on socket \"" + socket +
                         "/.s.PGSQL.5432\" failed: database \"" + absent + "\" does not exist");
  EXPECT_EQ(sql("SELECT count(*) FROM pg_database WHERE datname = '" + absent + "'"), "0");
}

TEST_F(PostgresCli, ADatabaseOfAnotherApplicationIsExit2AndGainsNothing) {
  sql("CREATE TABLE invoices (id BIGINT PRIMARY KEY, total NUMERIC)");
  sql("INSERT INTO invoices VALUES (1, 9.5)");
  const std::string url = "postgresql://orrery:" + std::string(kSecret) + "@/" + database_.name() +
                          "?host=" + socket_directory(url_);
  const std::string message = expect_refused_everywhere(url, kExitUsage);
  EXPECT_EQ(message, "the PostgreSQL database postgresql://orrery:****@/" + database_.name() +
                         "?host=" + socket_directory(url_) +
                         " holds tables of another program in schema 'public' and no orrery "
                         "schema; refusing to change it (choose another database, or another "
                         "schema with search_path in the URL's options)");
  EXPECT_EQ(tables(), "public.invoices");
  EXPECT_EQ(sql("SELECT count(*) || ' ' || sum(total) FROM invoices"), "1 9.5");
}

TEST_F(PostgresCli, ANewerSchemaIsExit4NamingBothVersions) {
  pg({"add", "kept", "--every", "1h", "--", "true"});
  sql("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'newer', 1)");
  const std::string before = tables();
  const std::string versions =
      "SELECT string_agg(version::text, ' ' ORDER BY version) FROM "
      "schema_migrations";
  const std::string history = sql(versions);
  const std::string latest = sql("SELECT max(version) FROM schema_migrations WHERE version < 99");
  fs::remove_all(home_);
  const std::string url = "postgresql://orrery:" + std::string(kSecret) + "@/" + database_.name() +
                          "?host=" + socket_directory(url_);
  const std::string message = expect_refused_everywhere(url, kExitConflict);
  EXPECT_EQ(message, "the database schema of postgresql://orrery:****@/" + database_.name() +
                         "?host=" + socket_directory(url_) +
                         " is version 99, newer than this orrery supports (version " + latest +
                         "); upgrade orrery to open it");
  EXPECT_EQ(tables(), before);
  EXPECT_EQ(sql(versions), history);
  EXPECT_EQ(sql("SELECT name FROM loops"), "kept");
}

TEST_F(PostgresCli, ARefusalInJsonHoldsNoPasswordEither) {
  const std::string url = "postgresql://orrery_password:" + std::string(kSecret) + "@/" +
                          database_.name() + "?host=" + socket_directory(url_);
  const Args args = with_home({"--json", "--db", url, "ls"});
  const RunResult result = run_orrery(args);
  EXPECT_EQ(result.exit_code, kExitUsage) << describe(args, result);
  EXPECT_FALSE(contains(result.out + result.err, kSecret)) << describe(args, result);
  EXPECT_TRUE(contains(result.err, "refused the login")) << describe(args, result);
  const json document = json::parse(result.out, nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << describe(args, result);
  EXPECT_EQ(document["error"]["code"], "usage");
  EXPECT_TRUE(contains(document["error"]["message"].get<std::string>(), "refused the login"));
  EXPECT_FALSE(fs::exists(home_));
}

}  // namespace
}  // namespace orrery
