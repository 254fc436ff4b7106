// PgConnection (src/store/postgres/pg_connection.h): `?N` parameters sent as
// `$M`, and the error classes of a real server's failures (docs/storage.md,
// "Errors"), on a fresh database of the test cluster.
#include "store/postgres/pg_connection.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "support/pg_test_database.h"

// libpqxx 6.4 (Debian 12's) drops the PGresult of a statement that fails
// because the server ended the connection: allocated by libpq, under
// libpqxx, with no frame of orrery's. orrery owns no PGresult itself (only
// through libpqxx), so a leak of its own objects still shows.
extern "C" const char* __lsan_default_suppressions() { return "leak:libpq.so\n"; }

namespace orrery::postgres {
namespace {

using orrery::testing::pg_value;
using orrery::testing::PgTestDatabase;

// How messages name the server in these tests: not the URL connected to, so
// that a message naming the server by anything else shows.
constexpr const char* kShownUrl = "postgresql://orrery:****@shown-server/test";

std::int64_t local_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::unique_ptr<PgConnection> connect(const PgTestDatabase& database, int busy_timeout_ms = 5000) {
  auto db = PgConnection::open(database.url(), kShownUrl, busy_timeout_ms);
  EXPECT_TRUE(db.ok()) << (db ? "" : db.error().message);
  return db ? std::move(*db) : nullptr;
}

// The first column of the first row, as text.
Result<std::string> first_text(PgConnection& db, const std::string& sql) {
  auto statement = db.prepare(sql);
  if (!statement) return statement.error();
  auto row = (*statement)->step();
  if (!row) return row.error();
  if (!*row) return std::string();
  return (*statement)->text(0);
}

// orrery's sentence: naming the server as shown, without the SQL it ran.
void expect_own_sentence(const Error& error, const std::vector<std::string>& sql_words) {
  EXPECT_NE(error.message.find(kShownUrl), std::string::npos) << error.message;
  for (const std::string& word : sql_words) {
    EXPECT_EQ(error.message.find(word), std::string::npos) << word << " in: " << error.message;
  }
}

// ---------------------------------------------------------------- dollar_parameters

TEST(DollarParameters, NumbersParametersInTheOrderTheyFirstAppear) {
  const NumberedSql plain = dollar_parameters("SELECT a FROM t WHERE a = ?1 AND b = ?2");
  EXPECT_EQ(plain.text, "SELECT a FROM t WHERE a = $1 AND b = $2");
  EXPECT_EQ(plain.sent, (std::vector<int>{1, 2}));
  EXPECT_EQ(plain.parameters, 2);

  const NumberedSql reversed = dollar_parameters("VALUES (?2, ?1)");
  EXPECT_EQ(reversed.text, "VALUES ($1, $2)");
  EXPECT_EQ(reversed.sent, (std::vector<int>{2, 1}));
  EXPECT_EQ(reversed.parameters, 2);

  const NumberedSql none = dollar_parameters("SELECT 1");
  EXPECT_EQ(none.text, "SELECT 1");
  EXPECT_TRUE(none.sent.empty());
  EXPECT_EQ(none.parameters, 0);
}

TEST(DollarParameters, ARepeatedParameterIsSentOnce) {
  const NumberedSql repeated = dollar_parameters("SET a = ?1, b = ?2 WHERE c = ?1 AND d > ?1");
  EXPECT_EQ(repeated.text, "SET a = $1, b = $2 WHERE c = $1 AND d > $1");
  EXPECT_EQ(repeated.sent, (std::vector<int>{1, 2}));
  EXPECT_EQ(repeated.parameters, 2);

  const NumberedSql later = dollar_parameters("?3 ?2 ?3 ?2");
  EXPECT_EQ(later.text, "$1 $2 $1 $2");
  EXPECT_EQ(later.sent, (std::vector<int>{3, 2}));
  EXPECT_EQ(later.parameters, 3);
}

TEST(DollarParameters, AnUnusedParameterIsNotSentButCounts) {
  const NumberedSql gap = dollar_parameters("WHERE a = ?1 AND c = ?3");
  EXPECT_EQ(gap.text, "WHERE a = $1 AND c = $2");
  EXPECT_EQ(gap.sent, (std::vector<int>{1, 3}));
  EXPECT_EQ(gap.parameters, 3);

  const NumberedSql only_last = dollar_parameters("LIMIT ?5");
  EXPECT_EQ(only_last.text, "LIMIT $1");
  EXPECT_EQ(only_last.sent, (std::vector<int>{5}));
  EXPECT_EQ(only_last.parameters, 5);
}

TEST(DollarParameters, ParametersInsideQuotesAreText) {
  const NumberedSql single = dollar_parameters("SELECT '?1', ?2");
  EXPECT_EQ(single.text, "SELECT '?1', $1");
  EXPECT_EQ(single.sent, (std::vector<int>{2}));
  EXPECT_EQ(single.parameters, 2);

  const NumberedSql double_quoted = dollar_parameters("SELECT \"col?1\" FROM t WHERE x = ?1");
  EXPECT_EQ(double_quoted.text, "SELECT \"col?1\" FROM t WHERE x = $1");
  EXPECT_EQ(double_quoted.sent, (std::vector<int>{1}));

  // A quote of the other kind inside quotes does not end them.
  const NumberedSql mixed = dollar_parameters("SELECT 'a \"?1' || \"b '?2\", ?3");
  EXPECT_EQ(mixed.text, "SELECT 'a \"?1' || \"b '?2\", $1");
  EXPECT_EQ(mixed.sent, (std::vector<int>{3}));

  // A doubled quote stays inside the text.
  const NumberedSql doubled = dollar_parameters("SELECT 'it''s ?1', ?2");
  EXPECT_EQ(doubled.text, "SELECT 'it''s ?1', $1");
  EXPECT_EQ(doubled.sent, (std::vector<int>{2}));
}

TEST(DollarParameters, ManyDigitNumbersAreReadWhole) {
  const NumberedSql ten_then_one = dollar_parameters("?10, ?1, ?10");
  EXPECT_EQ(ten_then_one.text, "$1, $2, $1");
  EXPECT_EQ(ten_then_one.sent, (std::vector<int>{10, 1}));
  EXPECT_EQ(ten_then_one.parameters, 10);

  const NumberedSql one_then_eleven = dollar_parameters("?1 ?11 ?12");
  EXPECT_EQ(one_then_eleven.text, "$1 $2 $3");
  EXPECT_EQ(one_then_eleven.sent, (std::vector<int>{1, 11, 12}));
  EXPECT_EQ(one_then_eleven.parameters, 12);
}

TEST(DollarParameters, AQuestionMarkWithoutADigitStays) {
  const NumberedSql operators = dollar_parameters("SELECT j ? 'k', j ?| ?1, 'x' ?");
  EXPECT_EQ(operators.text, "SELECT j ? 'k', j ?| $1, 'x' ?");
  EXPECT_EQ(operators.sent, (std::vector<int>{1}));
  EXPECT_EQ(operators.parameters, 1);
}

// ---------------------------------------------------------------- statements

TEST(PgConnection, RepeatedAndUnusedParametersBindByTheirNumber) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  auto db = connect(database);
  ASSERT_NE(db, nullptr);
  auto statement = db->prepare("SELECT ?3::text || ?1::text || ?3::text");
  ASSERT_TRUE(statement.ok());
  (*statement)->bind(1, "b").bind(2, "never sent").bind(3, "a");
  auto row = (*statement)->step();
  ASSERT_TRUE(row.ok() && *row) << (row ? "no row" : row.error().message);
  EXPECT_EQ((*statement)->text(0), "aba");
}

TEST(PgConnection, AValueWithANulByteIsAUsageError) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  auto db = connect(database);
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(db->exec("CREATE TABLE notes (body TEXT)").ok());
  using namespace std::string_literals;
  for (const std::string& value : {"\0"s, "a\0b"s, "trailing\0"s}) {
    SCOPED_TRACE(value.size());
    auto insert = db->prepare("INSERT INTO notes (body) VALUES (?1)");
    ASSERT_TRUE(insert.ok());
    (*insert)->bind(1, std::string_view(value));
    const Status inserted = (*insert)->run();
    ASSERT_FALSE(inserted.ok());
    EXPECT_EQ(inserted.error().code, ErrorCode::kUsage);
    EXPECT_NE(inserted.error().message.find("NUL byte"), std::string::npos)
        << inserted.error().message;
    expect_own_sentence(inserted.error(), {"INSERT", "VALUES", "?1", "$1"});
  }
  EXPECT_EQ(pg_value(database.url(), "SELECT count(*) FROM notes"), "0");
  // The connection goes on.
  auto insert = db->prepare("INSERT INTO notes (body) VALUES (?1)");
  ASSERT_TRUE(insert.ok());
  EXPECT_TRUE((*insert)->bind(1, "fine").run().ok());
  EXPECT_EQ(pg_value(database.url(), "SELECT body FROM notes"), "fine");
}

TEST(PgConnection, ServerTimeIsCloseToTheLocalClock) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  auto db = connect(database);
  ASSERT_NE(db, nullptr);
  const std::int64_t before = local_ms();
  auto server = db->server_time_ms();
  const std::int64_t after = local_ms();
  ASSERT_TRUE(server.ok()) << server.error().message;
  ASSERT_TRUE(server->has_value());
  // The server runs on this host: its clock is this one, read in between.
  EXPECT_GE(**server, before - 50);
  EXPECT_LE(**server, after + 50);
}

// ---------------------------------------------------------------- error classes

TEST(PgConnection, AConnectionTheServerTerminatesIsUnavailableNamingTheServer) {
  // Each use of a terminated connection: a statement, a prepared one, a transaction.
  const std::vector<std::string> uses = {"exec", "prepare", "begin"};
  for (const std::string& use : uses) {
    SCOPED_TRACE(use);
    PgTestDatabase database;
    ASSERT_TRUE(database.ok());
    auto db = connect(database);
    ASSERT_NE(db, nullptr);
    auto pid = first_text(*db, "SELECT pg_backend_pid()");
    ASSERT_TRUE(pid.ok() && !pid->empty());
    // Waits (up to 5 s) until the server process has gone.
    EXPECT_EQ(pg_value(database.url(), "SELECT pg_terminate_backend(" + *pid + ", 5000)"), "t");
    Status failed = Ok{};
    if (use == "exec") {
      failed = db->exec("CREATE TABLE orphan_table (x BIGINT)");
    } else if (use == "prepare") {
      auto selected = first_text(*db, "SELECT count(*) FROM pg_class WHERE relname = 'orphan'");
      failed = selected ? Status(Ok{}) : Status(selected.error());
    } else {
      failed = db->begin_write();
      if (failed.ok()) failed = db->exec("CREATE TABLE orphan_table (x BIGINT)");
    }
    ASSERT_FALSE(failed.ok());
    EXPECT_EQ(failed.error().code, ErrorCode::kUnavailable) << failed.error().message;
    expect_own_sentence(failed.error(),
                        {"CREATE", "orphan_table", "SELECT", "pg_class", "relname", "BEGIN"});
  }
}

// After the server ended a connection, libpqxx 6.4 connects again on the
// next use; the session's settings must hold on the new one too (or the use
// must fail), whatever the database's own defaults.
// They are part of the connection string (with_session_settings), which
// libpqxx uses for every connection it makes.
TEST(PgConnection, AConnectionThatComesBackKeepsItsSettings) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  const std::vector<std::pair<std::string, std::string>> settings = {
      {"lock_timeout", "100ms"},
      {"TimeZone", "UTC"},
      {"client_encoding", "UTF8"},
      {"client_min_messages", "warning"},
      {"plan_cache_mode", "force_generic_plan"}};
  pg_value(database.url(), "ALTER DATABASE \"" + database.name() +
                               "\" SET TimeZone = 'Asia/Tokyo'; ALTER DATABASE \"" +
                               database.name() +
                               "\" SET client_encoding = 'LATIN1'; ALTER DATABASE \"" +
                               database.name() + "\" SET lock_timeout = '7s'");
  auto db = connect(database, /*busy_timeout_ms=*/100);
  ASSERT_NE(db, nullptr);
  for (const auto& [name, value] : settings) {
    EXPECT_EQ(*first_text(*db, "SHOW " + name), value) << name;
  }
  auto pid = first_text(*db, "SELECT pg_backend_pid()");
  ASSERT_TRUE(pid.ok());
  EXPECT_EQ(pg_value(database.url(), "SELECT pg_terminate_backend(" + *pid + ", 5000)"), "t");
  EXPECT_FALSE(db->exec("SELECT 1").ok());
  for (const auto& [name, expected] : settings) {
    SCOPED_TRACE(name);
    auto value = first_text(*db, "SHOW " + name);
    if (!value) {
      EXPECT_EQ(value.error().code, ErrorCode::kUnavailable) << value.error().message;
      continue;
    }
    EXPECT_EQ(*value, expected);
  }
}

TEST(PgConnection, ARowLockHeldPastTheBusyTimeoutIsDatabaseBusy) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  pg_value(database.url(), "CREATE TABLE counters (id BIGINT PRIMARY KEY, n BIGINT NOT NULL)");
  pg_value(database.url(), "INSERT INTO counters VALUES (1, 0), (2, 0)");
  auto holder = connect(database);
  auto waiter = connect(database, /*busy_timeout_ms=*/100);
  ASSERT_NE(holder, nullptr);
  ASSERT_NE(waiter, nullptr);
  ASSERT_TRUE(holder->begin_write().ok());
  ASSERT_TRUE(holder->exec("SELECT id FROM counters WHERE id = 1 FOR UPDATE").ok());

  // Every way of waiting for the locked row gives up after about 100 ms.
  const std::vector<std::string> writes = {
      "UPDATE counters SET n = n + 1 WHERE id = 1",
      "DELETE FROM counters WHERE id = 1",
      "SELECT n FROM counters WHERE id = 1 FOR UPDATE",
      "SELECT n FROM counters WHERE id = 1 FOR SHARE",
  };
  for (const std::string& write : writes) {
    SCOPED_TRACE(write);
    for (const bool in_transaction : {false, true}) {
      SCOPED_TRACE(in_transaction ? "in a transaction" : "alone");
      if (in_transaction) {
        ASSERT_TRUE(waiter->begin_write().ok());
      }
      const auto start = std::chrono::steady_clock::now();
      const Status failed = waiter->exec(write);
      const auto waited = std::chrono::steady_clock::now() - start;
      if (in_transaction) waiter->rollback();
      ASSERT_FALSE(failed.ok());
      EXPECT_EQ(failed.error().code, ErrorCode::kUnavailable);
      EXPECT_EQ(failed.error().message.rfind("database busy: ", 0), 0u) << failed.error().message;
      expect_own_sentence(failed.error(), {"UPDATE", "DELETE", "SELECT", "counters SET", "FOR "});
      EXPECT_GE(waited, std::chrono::milliseconds(90));
      EXPECT_LT(waited, std::chrono::seconds(3));
    }
  }
  // A prepared statement alike.
  auto prepared = waiter->prepare("UPDATE counters SET n = n + ?1 WHERE id = ?2");
  ASSERT_TRUE(prepared.ok());
  const Status busy = (*prepared)->bind(1, 1).bind(2, 1).run();
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(busy.error().message.rfind("database busy: ", 0), 0u) << busy.error().message;

  // A row nobody holds is written at once; once the lock goes, the row too.
  EXPECT_TRUE(waiter->exec("UPDATE counters SET n = n + 1 WHERE id = 2").ok());
  holder->rollback();
  EXPECT_TRUE(waiter->exec("UPDATE counters SET n = n + 1 WHERE id = 1").ok());
  EXPECT_EQ(pg_value(database.url(), "SELECT n FROM counters WHERE id = 1"), "1");
}

}  // namespace
}  // namespace orrery::postgres
