#include "store/sql/work_queue_rows.h"

#include "store/sql/column_table.h"

namespace orrery::sql {
namespace {

using S = Statement;

template <typename T>
Status parsed_into(Result<T> parsed, T& field, const std::string& what) {
  if (!parsed) return internal_error(what + ": " + parsed.error().message);
  field = std::move(*parsed);
  return Ok{};
}

const ColumnTable<Route> kRouteColumns = {
    {"id", read_field<&Route::id>},
    {"name", read_field<&Route::name>},
    {"description", read_field<&Route::description>},
    {"workflow_id", read_field<&Route::workflow_id>},
    {"workflow_name", read_field<&Route::workflow_name>},
    {"workflow_version", read_field<&Route::workflow_version>},
    {"status",
     [](const S& r, int c, Route& route) {
       return parsed_into(parse_route_status(r.text(c)), route.status, "route " + route.id);
     }},
    {"max_running", read_field<&Route::max_running>},
    {"max_per_project", read_field<&Route::max_per_project>},
    {"max_per_group", read_field<&Route::max_per_group>},
    {"max_attempts", read_field<&Route::max_attempts>},
    {"retry_delay_ms", read_field<&Route::retry_delay_ms>},
    {"retry_backoff",
     [](const S& r, int c, Route& route) {
       return parsed_into(parse_backoff(r.text(c)), route.retry_backoff, "route " + route.id);
     }},
    {"priority_aging_ms", read_field<&Route::priority_aging_ms>},
    {"cwd", read_field<&Route::cwd>},
    {"webhook_secret_env", read_field<&Route::webhook_secret_env>},
    {"created_at", read_field<&Route::created_at>},
    {"updated_at", read_field<&Route::updated_at>},
};

// An invocation's text column.
template <std::string Invocation::*Field>
Status invocation_text(const S& r, int c, WorkItem& item) {
  item.invocation.*Field = r.text(c);
  return Ok{};
}
template <std::string SourceRef::*Field>
Status source_text(const S& r, int c, WorkItem& item) {
  item.invocation.source.*Field = r.text(c);
  return Ok{};
}
template <std::string SubjectRef::*Field>
Status subject_text(const S& r, int c, WorkItem& item) {
  item.invocation.subject.*Field = r.text(c);
  return Ok{};
}

const ColumnTable<WorkItem> kItemColumns = {
    {"i.id", read_field<&WorkItem::id>},
    {"i.route_id", read_field<&WorkItem::route_id>},
    {"r.name", read_field<&WorkItem::route_name>},
    {"i.item_key", read_field<&WorkItem::key>},
    {"i.status",
     [](const S& r, int c, WorkItem& item) {
       return parsed_into(parse_item_status(r.text(c)), item.status, "work item " + item.id);
     }},
    {"i.priority", read_field<&WorkItem::priority>},
    {"i.project", read_field<&WorkItem::project>},
    {"i.item_group", read_field<&WorkItem::group>},
    {"i.attempts", read_field<&WorkItem::attempts>},
    {"i.free_returns", read_field<&WorkItem::free_returns>},
    {"i.admissions", read_field<&WorkItem::admissions>},
    {"r.max_attempts", read_field<&WorkItem::max_attempts>},
    {"r.priority_aging_ms", read_field<&WorkItem::priority_aging_ms>},
    {"i.next_attempt_at", read_field<&WorkItem::next_attempt_at>},
    {"i.queued_at", read_field<&WorkItem::queued_at>},
    {"i.workflow_run_id", read_field<&WorkItem::workflow_run_id>},
    {"i.input_json", read_field<&WorkItem::input_json>},
    {"i.last_reason", read_field<&WorkItem::last_reason>},
    {"i.feedback_json", read_field<&WorkItem::feedback_json>},
    {"v.id", invocation_text<&Invocation::id>},
    {"v.source_kind", source_text<&SourceRef::kind>},
    {"v.source_id", source_text<&SourceRef::id>},
    {"v.source_dedupe_key", source_text<&SourceRef::dedupe_key>},
    {"v.subject_kind", subject_text<&SubjectRef::kind>},
    {"v.subject_id", subject_text<&SubjectRef::id>},
    {"v.subject_path", subject_text<&SubjectRef::path>},
    {"v.subject_url", subject_text<&SubjectRef::url>},
    {"v.intent", invocation_text<&Invocation::intent>},
    {"v.scope_json", invocation_text<&Invocation::scope_json>},
    {"v.output_policy_json", invocation_text<&Invocation::output_policy_json>},
    {"v.created_at",
     [](const S& r, int c, WorkItem& item) {
       item.invocation.created_at = r.int64(c);
       return Status(Ok{});
     }},
    {"v.updated_at",
     [](const S& r, int c, WorkItem& item) {
       item.invocation.updated_at = r.int64(c);
       return Status(Ok{});
     }},
    {"i.created_at", read_field<&WorkItem::created_at>},
    {"i.updated_at", read_field<&WorkItem::updated_at>},
};

}  // namespace

std::string route_select_list() { return select_list(kRouteColumns); }
Result<Route> read_route(const Statement& row) { return read_columns(kRouteColumns, row); }

std::string item_select_list() { return select_list(kItemColumns); }
std::string item_from_clause() {
  return " FROM work_items i JOIN routes r ON r.id = i.route_id "
         "JOIN invocations v ON v.id = i.invocation_id ";
}
int item_column_count() { return int(kItemColumns.size()); }
Result<WorkItem> read_item(const Statement& row) { return read_columns(kItemColumns, row); }

}  // namespace orrery::sql
