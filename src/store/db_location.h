// Where the database is, from --db / ORRERY_DB (docs/storage.md, "Where and
// how it is stored"): an SQLite file (a path, or sqlite://PATH) or a
// PostgreSQL server (a postgres:// or postgresql:// URL, as libpq reads it).
// Anything else that looks like a URI or a special SQLite name (":memory:",
// "file:...", "mysql://...", any "scheme:") is refused, so that a mistyped
// location never creates a stray file.
//
// A URL may carry a password. It is kept in DbLocation::postgres_url for
// libpq, and no message ever shows it: messages show redacted_db_url().
#pragma once

#include <string>
#include <vector>

#include "core/result.h"

namespace orrery {

struct DbLocation {
  enum class Kind { kSqlite, kPostgres } kind = Kind::kSqlite;
  std::string sqlite_path;   // kSqlite
  std::string postgres_url;  // kPostgres: as given (with its password), for libpq
};

// The database `text` names, or a usage error naming the (redacted) value and
// what is accepted.
Result<DbLocation> db_location_of(const std::string& text);

// The URL with any password replaced by "****" (userinfo `user:secret@`, and a
// `password=` query parameter, percent-encoded or not): what every message
// prints. Conservative on ambiguous input: everything that could be part of a
// password is replaced. Text without a scheme (a file path) is returned as is.
std::string redacted_db_url(const std::string& url);

// The passwords redacted_db_url hides, as written and percent-decoded (as
// libpq reads them): what a run's output is scrubbed of, whatever their
// entropy (docs/scrubbing.md, "what orrery itself knows").
std::vector<std::string> db_url_passwords(const std::string& url);

}  // namespace orrery
