// Resolving what a user typed to one row's id (docs/cli.md, "Ids"): the id
// itself, or a prefix of at least kMinIdPrefix lower-case hex characters
// that only one id of the table starts with. Shared by every table whose ids
// are the store's hex ids (goals, workers, merge queue entries).
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "store/sql/connection.h"

namespace orrery::sql {

inline constexpr std::size_t kMinIdPrefix = 6;

// How the rows are named in messages: "goal", "goals", "orrery goal ls".
struct IdNoun {
  std::string_view one;
  std::string_view many;
  std::string_view list_command;
};

// The full id: usage error for an empty text or a too-short hex prefix;
// not_found naming the list command; a conflict listing the candidates.
Result<std::string> resolve_id_prefix(Connection& db, std::string_view table,
                                      const std::string& text, const IdNoun& noun);

}  // namespace orrery::sql
