// The event journal's schema (docs/server.md, "Live events"): the `events`
// table and the triggers that fill it, written for SQLite and for
// PostgreSQL from one list of event sources, so that both backends journal
// the same events with the same payloads.
//
// Invariants: an event is written by a trigger of the row it tells of, in
// the transaction that changes the row, so it is journalled exactly when the
// change commits; ids only grow; the journal keeps about the last
// kJournalKeep events (every 64th insert deletes what is older, a few
// hundred rows at a time, skipping rows another transaction holds).
#pragma once

#include <string>

namespace orrery::sql {

enum class SqlDialect { kSqlite, kPostgres };

// About how many events the journal keeps.
inline constexpr long kJournalKeep = 100'000;

// The statements that create the table and its triggers.
std::string event_journal_schema(SqlDialect dialect);

}  // namespace orrery::sql
