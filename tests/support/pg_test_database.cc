// PgTestDatabase and pg_query (pg_test_database.h): the only test code that
// includes libpq.
#include "support/pg_test_database.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <memory>
#include <random>

namespace orrery::testing {
namespace {

struct ConnectionCloser {
  void operator()(PGconn* connection) const { PQfinish(connection); }
};
struct ResultClearer {
  void operator()(PGresult* result) const { PQclear(result); }
};
using Connection = std::unique_ptr<PGconn, ConnectionCloser>;
using QueryResult = std::unique_ptr<PGresult, ResultClearer>;

// libpq's messages end with a newline.
std::string trimmed(const char* message) {
  std::string text = message == nullptr ? "" : message;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// Notices ("database ... does not exist, skipping") are not failures.
void ignore_notice(void*, const char*) {}

// A name no other test database of any process has had: pid, a counter within
// the process, and random bits for a pid reused after a crash left a database.
std::string unique_database_name() {
  static std::atomic<unsigned> counter{0};
  std::random_device random;
  const unsigned salt = random() & 0xffffffu;
  return "orrery_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter) + "_" +
         std::to_string(salt);
}

// FAIL() must be used in a function returning void: the failure is fatal for
// the test (HasFatalFailure()), the constructor goes on and leaves ok() false.
void fail_test(const std::string& message) { FAIL() << message; }

}  // namespace

Result<std::string> test_pg_server_url() {
  const char* url = std::getenv(kTestPgVariable);
  if (url == nullptr || *url == '\0') return internal_error(kTestPgMissing);
  return std::string(url);
}

std::string with_database(const std::string& url, const std::string& database) {
  const size_t scheme_end = url.find("://");
  const size_t authority = scheme_end == std::string::npos ? 0 : scheme_end + 3;
  const size_t query = url.find('?', authority);
  const size_t path_end = query == std::string::npos ? url.size() : query;
  const size_t path = url.find('/', authority);
  if (path == std::string::npos || path > path_end) {
    return url.substr(0, path_end) + "/" + database + url.substr(path_end);
  }
  return url.substr(0, path + 1) + database + url.substr(path_end);
}

Result<std::string> pg_query(const std::string& url, const std::string& sql) {
  Connection connection(PQconnectdb(url.c_str()));
  if (connection == nullptr) return internal_error("cannot connect to " + url + ": out of memory");
  if (PQstatus(connection.get()) != CONNECTION_OK) {
    return internal_error("cannot connect to " + url + ": " +
                          trimmed(PQerrorMessage(connection.get())));
  }
  PQsetNoticeProcessor(connection.get(), ignore_notice, nullptr);
  QueryResult result(PQexec(connection.get(), sql.c_str()));
  const ExecStatusType status = PQresultStatus(result.get());
  if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
    return internal_error(sql + ": " + trimmed(PQresultErrorMessage(result.get())));
  }
  if (PQntuples(result.get()) == 0 || PQnfields(result.get()) == 0 ||
      PQgetisnull(result.get(), 0, 0)) {
    return std::string();
  }
  return std::string(PQgetvalue(result.get(), 0, 0));
}

PgTestDatabase::PgTestDatabase() {
  auto server = test_pg_server_url();
  if (!server) {
    fail_test(server.error().message);
    return;
  }
  const std::string name = unique_database_name();
  auto created = pg_query(*server, "CREATE DATABASE \"" + name + "\"");
  if (!created) {
    fail_test("cannot create the test database " + name + ": " + created.error().message);
    return;
  }
  server_url_ = *server;
  name_ = name;
  url_ = with_database(server_url_, name_);
}

PgTestDatabase::~PgTestDatabase() {
  if (!ok()) return;
  auto dropped = pg_query(server_url_, "DROP DATABASE IF EXISTS \"" + name_ + "\" WITH (FORCE)");
  EXPECT_TRUE(dropped.ok()) << "cannot drop the test database " << name_ << ": "
                            << (dropped ? "" : dropped.error().message);
}

std::string pg_value(const std::string& url, const std::string& sql) {
  auto result = pg_query(url, sql);
  EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
  return result ? *result : "";
}

}  // namespace orrery::testing
