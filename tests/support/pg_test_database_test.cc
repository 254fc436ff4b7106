#include "support/pg_test_database.h"

#include <fcntl.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

extern char** environ;

namespace orrery::testing {
namespace {

// Sets or unsets ORRERY_TEST_PG for one test, and puts it back.
class TestPgVariable {
 public:
  explicit TestPgVariable(std::optional<std::string> value) {
    if (const char* saved = std::getenv(kTestPgVariable)) saved_ = saved;
    if (value) {
      ::setenv(kTestPgVariable, value->c_str(), 1);
    } else {
      ::unsetenv(kTestPgVariable);
    }
  }
  ~TestPgVariable() {
    if (saved_) {
      ::setenv(kTestPgVariable, saved_->c_str(), 1);
    } else {
      ::unsetenv(kTestPgVariable);
    }
  }

 private:
  std::optional<std::string> saved_;
};

std::string server() {
  auto url = test_pg_server_url();
  EXPECT_TRUE(url.ok()) << (url ? "" : url.error().message);
  return url ? *url : "";
}

std::string database_count(const std::string& name) {
  return pg_value(server(), "SELECT count(*) FROM pg_database WHERE datname = '" + name + "'");
}

std::string sessions_on(const std::string& name) {
  return pg_value(server(), "SELECT count(*) FROM pg_stat_activity WHERE datname = '" + name + "'");
}

const char* const kUserTables =
    "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') "
    "AND n.nspname NOT LIKE 'pg_toast%'";

TEST(PgTestDatabase, TwoDatabasesAreDistinctUsableAndEmpty) {
  PgTestDatabase first;
  PgTestDatabase second;
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(second.ok());
  EXPECT_NE(first.name(), second.name());
  EXPECT_NE(first.url(), second.url());
  EXPECT_EQ(pg_value(first.url(), "SELECT current_database()"), first.name());
  EXPECT_EQ(pg_value(second.url(), "SELECT current_database()"), second.name());
  EXPECT_EQ(pg_value(first.url(), "SELECT current_user"), "orrery");
  EXPECT_EQ(pg_value(first.url(), kUserTables), "0");
  EXPECT_EQ(pg_value(second.url(), kUserTables), "0");

  pg_value(first.url(), "CREATE TABLE other_application (id integer)");
  pg_value(first.url(), "INSERT INTO other_application VALUES (7)");
  EXPECT_EQ(pg_value(first.url(), "SELECT id FROM other_application"), "7");
  EXPECT_EQ(pg_value(first.url(), kUserTables), "1");
  EXPECT_EQ(pg_value(second.url(), kUserTables), "0");
}

TEST(PgTestDatabase, NamesAreUniqueAndPlainIdentifiers) {
  std::string previous;
  for (int i = 0; i < 3; ++i) {
    PgTestDatabase database;
    ASSERT_TRUE(database.ok());
    EXPECT_NE(database.name(), previous);
    EXPECT_EQ(database.name().rfind("orrery_test_" + std::to_string(::getpid()) + "_", 0), 0u)
        << database.name();
    EXPECT_EQ(database.name().find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_"),
              std::string::npos)
        << database.name();
    EXPECT_LE(database.name().size(), 63u) << "PostgreSQL truncates longer names";
    previous = database.name();
  }
}

TEST(PgTestDatabase, TheDestructorDropsTheDatabase) {
  std::string first_name, second_name;
  {
    PgTestDatabase first;
    PgTestDatabase second;
    ASSERT_TRUE(first.ok());
    ASSERT_TRUE(second.ok());
    first_name = first.name();
    second_name = second.name();
    pg_value(first.url(), "CREATE TABLE t (x integer)");
    EXPECT_EQ(database_count(first_name), "1");
    EXPECT_EQ(database_count(second_name), "1");
  }
  EXPECT_EQ(database_count(first_name), "0");
  EXPECT_EQ(database_count(second_name), "0");
}

// A session left open by the code under test (a daemon, a leaked connection)
// does not keep the database alive: it is ended.
TEST(PgTestDatabase, TheDestructorDropsADatabaseThatHasAnOpenSession) {
  std::string name;
  pid_t client = -1;
  {
    PgTestDatabase database;
    ASSERT_TRUE(database.ok());
    name = database.name();
    const std::string url = database.url();
    const char* argv[] = {"psql", "-X", "-q", "-c", "SELECT pg_sleep(60)", url.c_str(), nullptr};
    posix_spawn_file_actions_t quiet;  // psql's report of its ended session
    posix_spawn_file_actions_init(&quiet);
    posix_spawn_file_actions_addopen(&quiet, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&quiet, 2, "/dev/null", O_WRONLY, 0);
    const int spawned =
        ::posix_spawnp(&client, "psql", &quiet, nullptr, const_cast<char**>(argv), environ);
    posix_spawn_file_actions_destroy(&quiet);
    ASSERT_EQ(spawned, 0);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (sessions_on(name) == "0" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(sessions_on(name), "1");
  }
  EXPECT_EQ(database_count(name), "0");
  int status = 0;
  ASSERT_EQ(::waitpid(client, &status, 0), client);
  EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the session was not ended";
}

TEST(PgTestDatabase, WithoutTheVariableTheTestFailsSayingHowToRunIt) {
  for (const std::optional<std::string>& value : {std::optional<std::string>(), {""}}) {
    TestPgVariable variable(value);
    auto url = test_pg_server_url();
    ASSERT_FALSE(url.ok());
    EXPECT_EQ(url.error().message,
              "ORRERY_TEST_PG is not set: run the tests with \"make test\", or under "
              "scripts/with-postgres, which start a PostgreSQL server");
    EXPECT_FATAL_FAILURE(
        {
          PgTestDatabase database;
          EXPECT_FALSE(database.ok());
          EXPECT_EQ(database.url(), "");
        },
        "ORRERY_TEST_PG is not set: run the tests with \"make test\", or under "
        "scripts/with-postgres, which start a PostgreSQL server");
  }
}

TEST(PgTestDatabase, AServerThatCannotBeReachedFailsTheTest) {
  for (const char* url : {"postgresql:///postgres?host=/nonexistent/orrery&user=orrery",
                          "postgresql:///postgres?host=/nonexistent&connect_timeout=x"}) {
    TestPgVariable variable(url);
    EXPECT_FATAL_FAILURE(
        {
          PgTestDatabase database;
          EXPECT_FALSE(database.ok());
        },
        "cannot create the test database");
  }
}

TEST(PgQuery, GivesTheFirstColumnOfTheFirstRowAsText) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  EXPECT_EQ(pg_value(database.url(), "SELECT 'a', 'b' UNION ALL SELECT 'c', 'd'"), "a");
  EXPECT_EQ(pg_value(database.url(), "SELECT 42"), "42");
  EXPECT_EQ(pg_value(database.url(), "SELECT true"), "t");
  EXPECT_EQ(pg_value(database.url(), "SELECT NULL"), "");
  EXPECT_EQ(pg_value(database.url(), "SELECT 1 WHERE false"), "");
  EXPECT_EQ(pg_value(database.url(), "CREATE TABLE t (x text)"), "");
  EXPECT_EQ(pg_value(database.url(), "INSERT INTO t VALUES ('x y') RETURNING x || '!'"), "x y!");
}

TEST(PgQuery, AnErrorCarriesTheServersMessage) {
  PgTestDatabase database;
  ASSERT_TRUE(database.ok());
  struct Case {
    std::string sql;
    std::string message;
  };
  for (const Case& c : {Case{"SELECT * FROM missing", "relation \"missing\" does not exist"},
                        Case{"SELEC 1", "syntax error at or near \"SELEC\""},
                        Case{"SELECT 1/0", "division by zero"}}) {
    auto result = pg_query(database.url(), c.sql);
    ASSERT_FALSE(result.ok()) << c.sql;
    EXPECT_NE(result.error().message.find(c.message), std::string::npos) << result.error().message;
  }
  auto unreachable = pg_query("postgresql:///postgres?host=/nonexistent/orrery", "SELECT 1");
  ASSERT_FALSE(unreachable.ok());
  EXPECT_EQ(unreachable.error().message.rfind("cannot connect to postgresql:///postgres", 0), 0u)
      << unreachable.error().message;
}

TEST(PgQuery, WithDatabaseReplacesOrAddsTheDatabaseOfAUrl) {
  EXPECT_EQ(with_database("postgresql:///postgres?host=/tmp/d&user=orrery", "x"),
            "postgresql:///x?host=/tmp/d&user=orrery");
  EXPECT_EQ(with_database("postgresql://h:5432/postgres", "x"), "postgresql://h:5432/x");
  EXPECT_EQ(with_database("postgres://u:p@h/postgres?sslmode=disable", "x"),
            "postgres://u:p@h/x?sslmode=disable");
  EXPECT_EQ(with_database("postgresql://h", "x"), "postgresql://h/x");
  EXPECT_EQ(with_database("postgresql://?host=/tmp/d", "x"), "postgresql:///x?host=/tmp/d");
  EXPECT_EQ(with_database("postgresql:///?host=/tmp/d", "x"), "postgresql:///x?host=/tmp/d");
}

}  // namespace
}  // namespace orrery::testing
