// A fresh, empty PostgreSQL database for one test, on the throwaway cluster that
// `make test` and scripts/with-postgres start (docs/development.md, "The test
// PostgreSQL cluster"), whose maintenance database's URL is in ORRERY_TEST_PG.
//
// Invariants: each PgTestDatabase has a name no other one has had (pid, counter
// and random bits), exists from its constructor to its destructor, and is
// dropped by the destructor even when connections to it are still open. Without
// ORRERY_TEST_PG, or when the server refuses, the constructor fails the current
// test (a failure, never a skip) and ok() is false. libpq stays inside
// pg_test_database.cc.
#pragma once

#include <string>

#include "core/result.h"

namespace orrery::testing {

// The environment variable that holds the cluster's maintenance URL.
inline constexpr const char* kTestPgVariable = "ORRERY_TEST_PG";

// The sentence a test fails with when ORRERY_TEST_PG is not set.
inline constexpr const char* kTestPgMissing =
    "ORRERY_TEST_PG is not set: run the tests with \"make test\", or under "
    "scripts/with-postgres, which start a PostgreSQL server";

class PgTestDatabase {
 public:
  PgTestDatabase();
  ~PgTestDatabase();
  PgTestDatabase(const PgTestDatabase&) = delete;
  PgTestDatabase& operator=(const PgTestDatabase&) = delete;

  // False when the database could not be created (the test has failed already).
  bool ok() const { return !name_.empty(); }
  const std::string& name() const { return name_; }
  // postgresql:///NAME?host=...&user=orrery: the server's URL with NAME in place
  // of the maintenance database.
  const std::string& url() const { return url_; }

 private:
  std::string server_url_;
  std::string name_;
  std::string url_;
};

// ORRERY_TEST_PG, or kTestPgMissing as an error.
Result<std::string> test_pg_server_url();

// The URL of the same server with DATABASE in place of the URL's database.
std::string with_database(const std::string& url, const std::string& database);

// Runs one SQL statement on the database at URL in its own connection, and
// gives the first column of its first row as text: "" when it returns no row or
// NULL (as a CREATE TABLE does). An error carries the server's message.
Result<std::string> pg_query(const std::string& url, const std::string& sql);

// pg_query that fails the current test on an error (and then gives "").
std::string pg_value(const std::string& url, const std::string& sql);

}  // namespace orrery::testing
