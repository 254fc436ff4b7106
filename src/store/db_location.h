// Where the database is, from --db / ORRERY_DB: a file path, or sqlite://PATH.
// PostgreSQL URLs (postgres://, postgresql://) are recognised and refused as
// not available yet; anything else that looks like a URI or a special SQLite
// name (":memory:", "file:...", "mysql://...", any "scheme:") is refused, so
// that a mistyped location never creates a stray file (docs/storage.md).
#pragma once

#include <string>

#include "core/result.h"

namespace orrery {

// The SQLite file `text` names, or a usage error naming the value and what
// is accepted.
Result<std::string> sqlite_path_of(const std::string& text);

}  // namespace orrery
