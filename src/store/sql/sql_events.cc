// SqlStore: reads of the event journal (docs/server.md, "Live events"); the
// database's triggers write it (store/sql/event_schema.h).
#include "store/sql/column_table.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

using sql::read_field;

const sql::ColumnTable<JournalEvent> kEventColumns = {
    {"id", read_field<&JournalEvent::id>},
    {"at", read_field<&JournalEvent::at>},
    {"kind", read_field<&JournalEvent::kind>},
    {"subject", read_field<&JournalEvent::subject>},
    {"payload_json", read_field<&JournalEvent::payload_json>},
};

}  // namespace

Result<std::vector<JournalEvent>> SqlStore::events_after(std::int64_t after, int limit) {
  if (limit <= 0) return usage_error("events_after: the limit must be positive");
  auto query = db_->prepare("SELECT " + sql::select_list(kEventColumns) +
                            " FROM events WHERE id > ?1 ORDER BY id LIMIT ?2");
  if (!query) return query.error();
  (*query)->bind(1, after).bind(2, std::int64_t(limit));
  std::vector<JournalEvent> events;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) return events;
    auto event = sql::read_columns(kEventColumns, **query);
    if (!event) return event.error();
    events.push_back(std::move(*event));
  }
}

Result<std::int64_t> SqlStore::last_event_id() {
  auto query = db_->prepare("SELECT COALESCE(MAX(id), 0) FROM events");
  if (!query) return query.error();
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return std::int64_t{0};
  return (*query)->int64(0);
}

}  // namespace orrery
