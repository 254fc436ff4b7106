#include "store/sql/rows.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "core/limits.h"
#include "core/loop_spec.h"
#include "store/target_codec.h"

namespace orrery::sql {
namespace {

using S = Statement;

std::optional<int> optional_int(const Statement& row, int column) {
  if (row.is_null(column)) return std::nullopt;
  return int(row.int64(column));
}

template <typename T>
Status parsed_into(Result<T> parsed, T& field) {
  if (!parsed) return parsed.error();
  field = *parsed;
  return Ok{};
}

std::optional<DurationMs> stored_optional_duration(std::optional<std::int64_t> value, DurationMs lo,
                                                   DurationMs hi) {
  if (!value) return std::nullopt;
  return stored_duration(*value, lo, hi);
}

}  // namespace

DurationMs stored_duration(std::int64_t value, DurationMs lo, DurationMs hi) {
  return std::clamp<DurationMs>(value, lo, hi);
}

DurationMs stored_lease(std::int64_t value) {
  return stored_duration(value, kMinimumLeaseMs, kMaxLeaseMs);
}

namespace {

// A loop column's error, naming the loop (its id is read first).
Status of_loop(const Loop& loop, Status status) {
  if (status) return status;
  return Error{status.error().code, "loop " + loop.id + ": " + status.error().message};
}

bool is(const Loop& loop, ScheduleType type) { return loop.schedule.type == type; }

// Binds `value` when the loop's schedule is of `type`, NULL otherwise.
template <typename T>
void bind_if(S& s, int i, bool present, const T& value) {
  present ? (void)s.bind(i, value) : (void)s.bind_null(i);
}

const std::vector<LoopColumn> kLoopColumns = {
    {"id", [](S& s, int i, const Loop& l) { s.bind(i, l.id); },
     [](const S& r, int c, Loop& l) -> Status {
       l.id = r.text(c);
       return Ok{};
     }},
    {"name", [](S& s, int i, const Loop& l) { s.bind(i, l.name); },
     [](const S& r, int c, Loop& l) -> Status {
       l.name = r.text(c);
       return Ok{};
     }},
    {"description", [](S& s, int i, const Loop& l) { s.bind(i, l.description); },
     [](const S& r, int c, Loop& l) -> Status {
       l.description = r.text(c);
       return Ok{};
     }},
    {"status", [](S& s, int i, const Loop& l) { s.bind(i, loop_status_name(l.status)); },
     [](const S& r, int c, Loop& l) {
       return parsed_into(parse_loop_status(r.text(c)), l.status);
     }},
    {"archived", [](S& s, int i, const Loop& l) { s.bind(i, l.archived ? 1 : 0); },
     [](const S& r, int c, Loop& l) -> Status {
       l.archived = r.int64(c) != 0;
       return Ok{};
     }},
    {"archived_from_status",
     [](S& s, int i, const Loop& l) {
       bind_if(s, i, l.archived_from_status.has_value(),
               l.archived_from_status ? loop_status_name(*l.archived_from_status) : "");
     },
     [](const S& r, int c, Loop& l) -> Status {
       if (r.is_null(c)) return Ok{};
       auto from = parse_loop_status(r.text(c));
       if (!from) return from.error();
       l.archived_from_status = *from;
       return Ok{};
     }},
    {"schedule_type",
     [](S& s, int i, const Loop& l) { s.bind(i, schedule_type_name(l.schedule.type)); },
     [](const S& r, int c, Loop& l) {
       return parsed_into(parse_schedule_type(r.text(c)), l.schedule.type);
     }},
    {"schedule_expression",
     [](S& s, int i, const Loop& l) {
       bind_if(s, i, is(l, ScheduleType::kCron), l.schedule.expression);
     },
     [](const S& r, int c, Loop& l) -> Status {
       l.schedule.expression = r.text(c);
       return Ok{};
     }},
    {"schedule_timezone",
     [](S& s, int i, const Loop& l) {
       bind_if(s, i, is(l, ScheduleType::kCron), l.schedule.timezone);
     },
     [](const S& r, int c, Loop& l) -> Status {
       l.schedule.timezone = r.text(c);
       return Ok{};
     }},
    {"schedule_every_ms",
     [](S& s, int i, const Loop& l) {
       bind_if(s, i, is(l, ScheduleType::kInterval), l.schedule.every_ms);
     },
     [](const S& r, int c, Loop& l) -> Status {
       l.schedule.every_ms = stored_duration(r.optional_int64(c).value_or(0), 0, kMaxIntervalMs);
       return Ok{};
     }},
    {"schedule_anchor",
     [](S& s, int i, const Loop& l) {
       bind_if(s, i, is(l, ScheduleType::kInterval), anchor_name(l.schedule.anchor));
     },
     [](const S& r, int c, Loop& l) -> Status {
       l.schedule.anchor =
           r.text(c) == "fixed_delay" ? IntervalAnchor::kFixedDelay : IntervalAnchor::kFixedRate;
       return Ok{};
     }},
    {"schedule_at",
     [](S& s, int i, const Loop& l) { bind_if(s, i, is(l, ScheduleType::kOnce), l.schedule.at); },
     [](const S& r, int c, Loop& l) -> Status {
       l.schedule.at = r.optional_int64(c).value_or(0);
       return Ok{};
     }},
    {"schedule_min_ms",
     [](S& s, int i, const Loop& l) {
       bind_if(s, i, is(l, ScheduleType::kDynamic), l.schedule.min_ms);
     },
     [](const S& r, int c, Loop& l) -> Status {
       l.schedule.min_ms = stored_duration(r.optional_int64(c).value_or(kDefaultDynamicMinMs), 0,
                                           kMaxDynamicDelayMs);
       return Ok{};
     }},
    {"schedule_max_ms",
     [](S& s, int i, const Loop& l) {
       bind_if(s, i, is(l, ScheduleType::kDynamic), l.schedule.max_ms);
     },
     [](const S& r, int c, Loop& l) -> Status {
       l.schedule.max_ms = stored_duration(r.optional_int64(c).value_or(kDefaultDynamicMaxMs), 0,
                                           kMaxDynamicDelayMs);
       return Ok{};
     }},
    {"schedule_jitter_ms", [](S& s, int i, const Loop& l) { s.bind(i, l.schedule.jitter_ms); },
     [](const S& r, int c, Loop& l) -> Status {
       l.schedule.jitter_ms = stored_duration(r.int64(c), 0, kMaxJitterMs);
       return Ok{};
     }},
    {"target_json", [](S& s, int i, const Loop& l) { s.bind(i, encode_target(l.target)); },
     [](const S& r, int c, Loop& l) {
       return of_loop(l, parsed_into(decode_target(r.text(c)), l.target));
     }},
    {"machine_json", [](S& s, int i, const Loop& l) { s.bind(i, encode_labels(l.machine)); },
     [](const S& r, int c, Loop& l) {
       return of_loop(l, parsed_into(decode_labels(r.text(c)), l.machine));
     }},
    {"next_run_at", [](S& s, int i, const Loop& l) { s.bind(i, l.next_run_at); },
     [](const S& r, int c, Loop& l) -> Status {
       l.next_run_at = r.optional_int64(c);
       return Ok{};
     }},
    {"retry_scheduled_for", [](S& s, int i, const Loop& l) { s.bind(i, l.retry_scheduled_for); },
     [](const S& r, int c, Loop& l) -> Status {
       l.retry_scheduled_for = r.optional_int64(c);
       return Ok{};
     }},
    {"series_resume_at", [](S& s, int i, const Loop& l) { s.bind(i, l.series_resume_at); },
     [](const S& r, int c, Loop& l) -> Status {
       l.series_resume_at = r.optional_int64(c);
       return Ok{};
     }},
    {"catch_up", [](S& s, int i, const Loop& l) { s.bind(i, catch_up_mode_name(l.catch_up.mode)); },
     [](const S& r, int c, Loop& l) {
       return parsed_into(parse_catch_up_mode(r.text(c)), l.catch_up.mode);
     }},
    {"catch_up_limit", [](S& s, int i, const Loop& l) { s.bind(i, l.catch_up.limit); },
     [](const S& r, int c, Loop& l) -> Status {
       l.catch_up.limit = int(r.int64(c));
       return Ok{};
     }},
    {"catch_up_window_ms", [](S& s, int i, const Loop& l) { s.bind(i, l.catch_up.window); },
     [](const S& r, int c, Loop& l) -> Status {
       l.catch_up.window = stored_optional_duration(r.optional_int64(c), 0, kMaxCatchUpWindowMs);
       return Ok{};
     }},
    {"overlap", [](S& s, int i, const Loop& l) { s.bind(i, overlap_name(l.overlap)); },
     [](const S& r, int c, Loop& l) { return parsed_into(parse_overlap(r.text(c)), l.overlap); }},
    {"max_attempts", [](S& s, int i, const Loop& l) { s.bind(i, l.max_attempts); },
     [](const S& r, int c, Loop& l) -> Status {
       l.max_attempts = int(r.int64(c));
       return Ok{};
     }},
    {"retry_delay_ms", [](S& s, int i, const Loop& l) { s.bind(i, l.retry_delay_ms); },
     [](const S& r, int c, Loop& l) -> Status {
       l.retry_delay_ms = stored_duration(r.int64(c), 0, kMaxRetryDelayMs);
       return Ok{};
     }},
    {"retry_backoff", [](S& s, int i, const Loop& l) { s.bind(i, backoff_name(l.retry_backoff)); },
     [](const S& r, int c, Loop& l) {
       return parsed_into(parse_backoff(r.text(c)), l.retry_backoff);
     }},
    {"lease_ms", [](S& s, int i, const Loop& l) { s.bind(i, l.lease_ms); },
     [](const S& r, int c, Loop& l) -> Status {
       l.lease_ms = stored_lease(r.int64(c));
       return Ok{};
     }},
    {"timeout_ms", [](S& s, int i, const Loop& l) { s.bind(i, l.timeout_ms); },
     [](const S& r, int c, Loop& l) -> Status {
       l.timeout_ms = stored_optional_duration(r.optional_int64(c), 0, kMaxTimeoutMs);
       return Ok{};
     }},
    {"idle_timeout_ms", [](S& s, int i, const Loop& l) { s.bind(i, l.idle_timeout_ms); },
     [](const S& r, int c, Loop& l) -> Status {
       l.idle_timeout_ms = stored_optional_duration(r.optional_int64(c), 0, kMaxTimeoutMs);
       return Ok{};
     }},
    {"log_limit_bytes", [](S& s, int i, const Loop& l) { s.bind(i, l.log_limit_bytes); },
     [](const S& r, int c, Loop& l) -> Status {
       l.log_limit_bytes = r.int64(c);
       return Ok{};
     }},
    {"feed_route_id", [](S& s, int i, const Loop& l) { s.bind(i, l.feed_route_id); },
     [](const S& r, int c, Loop& l) -> Status {
       l.feed_route_id = r.text(c);
       return Ok{};
     }},
    {"paused_by_goal", [](S& s, int i, const Loop& l) { s.bind(i, l.paused_by_goal); },
     [](const S& r, int c, Loop& l) -> Status {
       l.paused_by_goal = r.text(c);
       return Ok{};
     }},
    {"expires_at", [](S& s, int i, const Loop& l) { s.bind(i, l.expires_at); },
     [](const S& r, int c, Loop& l) -> Status {
       l.expires_at = r.optional_int64(c);
       return Ok{};
     }},
    {"missed_count", [](S& s, int i, const Loop& l) { s.bind(i, l.missed_count); },
     [](const S& r, int c, Loop& l) -> Status {
       l.missed_count = r.int64(c);
       return Ok{};
     }},
    {"created_at", [](S& s, int i, const Loop& l) { s.bind(i, l.created_at); },
     [](const S& r, int c, Loop& l) -> Status {
       l.created_at = r.int64(c);
       return Ok{};
     }},
    {"updated_at", [](S& s, int i, const Loop& l) { s.bind(i, l.updated_at); },
     [](const S& r, int c, Loop& l) -> Status {
       l.updated_at = r.int64(c);
       return Ok{};
     }},
    {"config_version", [](S& s, int i, const Loop& l) { s.bind(i, l.config_version); },
     [](const S& r, int c, Loop& l) -> Status {
       l.config_version = r.int64(c);
       return Ok{};
     }},
    {"state_version", [](S& s, int i, const Loop& l) { s.bind(i, l.state_version); },
     [](const S& r, int c, Loop& l) -> Status {
       l.state_version = r.int64(c);
       return Ok{};
     }},
};

const std::vector<RunColumn> kRunColumns = {
    {"id", false,
     [](const S& r, int c, Run& run) -> Status {
       run.id = r.text(c);
       return Ok{};
     }},
    {"loop_id", false,
     [](const S& r, int c, Run& run) -> Status {
       run.loop_id = r.text(c);
       return Ok{};
     }},
    {"loop_name", false,
     [](const S& r, int c, Run& run) -> Status {
       run.loop_name = r.text(c);
       return Ok{};
     }},
    {"scheduled_for", false,
     [](const S& r, int c, Run& run) -> Status {
       run.scheduled_for = r.int64(c);
       return Ok{};
     }},
    {"attempt", false,
     [](const S& r, int c, Run& run) -> Status {
       run.attempt = int(r.int64(c));
       return Ok{};
     }},
    {"status", false,
     [](const S& r, int c, Run& run) {
       return parsed_into(parse_run_status(r.text(c)), run.status);
     }},
    {"started_at", false,
     [](const S& r, int c, Run& run) -> Status {
       run.started_at = r.optional_int64(c);
       return Ok{};
     }},
    {"finished_at", false,
     [](const S& r, int c, Run& run) -> Status {
       run.finished_at = r.optional_int64(c);
       return Ok{};
     }},
    {"claimed_by", false,
     [](const S& r, int c, Run& run) -> Status {
       run.claimed_by = r.text(c);
       return Ok{};
     }},
    {"claim_token", false,
     [](const S& r, int c, Run& run) -> Status {
       run.claim_token = r.text(c);
       return Ok{};
     }},
    {"lease_expires_at", false,
     [](const S& r, int c, Run& run) -> Status {
       run.lease_expires_at = r.optional_int64(c);
       return Ok{};
     }},
    // pid and process_started_at are read together: the target's identity.
    {"pid", false,
     [](const S& r, int c, Run& run) -> Status {
       if (!r.is_null(c)) run.target = ProcessIdentity{int(r.int64(c)), std::nullopt};
       return Ok{};
     }},
    {"process_started_at", false,
     [](const S& r, int c, Run& run) -> Status {
       if (run.target) run.target->started_at = r.optional_int64(c);
       return Ok{};
     }},
    {"pgid", false,
     [](const S& r, int c, Run& run) -> Status {
       run.pgid = optional_int(r, c);
       return Ok{};
     }},
    {"supervisor_pid", false,
     [](const S& r, int c, Run& run) -> Status {
       if (!r.is_null(c)) run.supervisor = ProcessIdentity{int(r.int64(c)), std::nullopt};
       return Ok{};
     }},
    {"supervisor_started_at", false,
     [](const S& r, int c, Run& run) -> Status {
       if (run.supervisor) run.supervisor->started_at = r.optional_int64(c);
       return Ok{};
     }},
    {"exit_code", false,
     [](const S& r, int c, Run& run) -> Status {
       run.exit_code = optional_int(r, c);
       return Ok{};
     }},
    {"signal", false,
     [](const S& r, int c, Run& run) -> Status {
       run.signal = optional_int(r, c);
       return Ok{};
     }},
    {"duration_ms", false,
     [](const S& r, int c, Run& run) -> Status {
       run.duration_ms = r.optional_int64(c);
       return Ok{};
     }},
    {"error", false,
     [](const S& r, int c, Run& run) -> Status {
       run.error = r.text(c);
       return Ok{};
     }},
    {"skip_reason", false,
     [](const S& r, int c, Run& run) -> Status {
       run.skip_reason = r.text(c);
       return Ok{};
     }},
    {"stdout", true,
     [](const S& r, int c, Run& run) -> Status {
       run.stdout_tail = r.text(c);
       return Ok{};
     }},
    {"stderr", true,
     [](const S& r, int c, Run& run) -> Status {
       run.stderr_tail = r.text(c);
       return Ok{};
     }},
    {"input_tokens", false,
     [](const S& r, int c, Run& run) -> Status {
       run.usage.input_tokens = r.optional_int64(c);
       return Ok{};
     }},
    {"output_tokens", false,
     [](const S& r, int c, Run& run) -> Status {
       run.usage.output_tokens = r.optional_int64(c);
       return Ok{};
     }},
    {"cost_usd", false,
     [](const S& r, int c, Run& run) -> Status {
       if (!r.is_null(c)) run.usage.cost_usd = r.real(c);
       return Ok{};
     }},
    {"created_at", false,
     [](const S& r, int c, Run& run) -> Status {
       run.created_at = r.int64(c);
       return Ok{};
     }},
    {"updated_at", false,
     [](const S& r, int c, Run& run) -> Status {
       run.updated_at = r.int64(c);
       return Ok{};
     }},
    {"usage_limited", false,
     [](const S& r, int c, Run& run) -> Status {
       run.usage_limited = r.int64(c) != 0;
       return Ok{};
     }},
    {"free_reattempts", false,
     [](const S& r, int c, Run& run) -> Status {
       run.free_reattempts = int(r.int64(c));
       return Ok{};
     }},
    {"settled", false,
     [](const S& r, int c, Run& run) -> Status {
       run.settled = r.int64(c) != 0;
       return Ok{};
     }},
    {"host", false,
     [](const S& r, int c, Run& run) -> Status {
       run.host = r.text(c);
       return Ok{};
     }},
    {"cancel_requested", false,
     [](const S& r, int c, Run& run) -> Status {
       run.cancel_requested = r.int64(c) != 0;
       return Ok{};
     }},
    {"next_in_ms", false,
     [](const S& r, int c, Run& run) -> Status {
       if (auto delay = r.optional_int64(c)) {
         run.next_in_ms = stored_duration(*delay, 0, kMaxDynamicDelayMs);
       }
       return Ok{};
     }},
};

// The columns of a loop's schedule state (ScheduleState); the columns
// neither of the state nor of the bookkeeping are its configuration.
const std::set<std::string_view> kStateColumns = {"status",
                                                  "archived",
                                                  "archived_from_status",
                                                  "next_run_at",
                                                  "retry_scheduled_for",
                                                  "series_resume_at",
                                                  "missed_count",
                                                  "paused_by_goal"};
const std::set<std::string_view> kBookkeepingColumns = {"id", "created_at", "updated_at",
                                                        "config_version", "state_version"};

Result<Run> read_run_columns(const Statement& row, bool with_tails) {
  Run run;
  int column = 0;
  for (const RunColumn& entry : kRunColumns) {
    if (entry.tail && !with_tails) continue;
    if (auto status = entry.read(row, column++, run); !status) return status.error();
  }
  return run;
}

}  // namespace

const std::vector<LoopColumn>& loop_columns() { return kLoopColumns; }

std::string loop_select_list() {
  std::string list;
  for (const LoopColumn& column : kLoopColumns) {
    list += list.empty() ? "" : ", ";
    list += column.name;
  }
  return list;
}

std::string loop_insert_sql() {
  std::string values;
  for (size_t i = 0; i < kLoopColumns.size(); ++i) {
    values += (i == 0 ? "?" : ", ?") + std::to_string(i + 1);
  }
  return "INSERT INTO loops (" + loop_select_list() + ") VALUES (" + values + ")";
}

LoopPart loop_column_part(const LoopColumn& column) {
  if (kStateColumns.count(column.name) > 0) return LoopPart::kState;
  if (kBookkeepingColumns.count(column.name) > 0) return LoopPart::kBookkeeping;
  return LoopPart::kConfig;
}

int loop_part_now_parameter() { return int(kLoopColumns.size()) + 1; }
int loop_part_version_parameter() { return int(kLoopColumns.size()) + 2; }

std::string loop_part_update_sql(LoopPart part) {
  const std::string version = part == LoopPart::kState ? "state_version" : "config_version";
  std::string sql = "UPDATE loops SET ";
  for (size_t i = 0; i < kLoopColumns.size(); ++i) {
    if (loop_column_part(kLoopColumns[i]) != part) continue;
    sql.append(kLoopColumns[i].name).append(" = ?").append(std::to_string(i + 1)).append(", ");
  }
  sql.append(version).append(" = ").append(version).append(" + 1, updated_at = ?");
  sql.append(std::to_string(loop_part_now_parameter()));
  sql.append(" WHERE id = ?1 AND ").append(version).append(" = ?");
  sql.append(std::to_string(loop_part_version_parameter()));
  return sql;
}

void bind_loop_part(Statement& statement, const Loop& loop, LoopPart part) {
  statement.bind(1, loop.id);
  for (size_t i = 0; i < kLoopColumns.size(); ++i) {
    if (loop_column_part(kLoopColumns[i]) == part) {
      kLoopColumns[i].bind(statement, int(i + 1), loop);
    }
  }
}

void bind_loop(Statement& statement, const Loop& loop) {
  for (size_t i = 0; i < kLoopColumns.size(); ++i)
    kLoopColumns[i].bind(statement, int(i + 1), loop);
}

Result<Loop> read_loop(const Statement& row) {
  Loop loop;
  for (size_t i = 0; i < kLoopColumns.size(); ++i) {
    if (auto status = kLoopColumns[i].read(row, int(i), loop); !status) return status.error();
  }
  return loop;
}

std::string run_select_list(bool with_tails) {
  std::string list;
  for (const RunColumn& column : kRunColumns) {
    if (column.tail && !with_tails) continue;
    list += list.empty() ? "" : ", ";
    list += column.name;
  }
  return list;
}

Result<Run> read_run(const Statement& row) { return read_run_columns(row, true); }

Result<Run> read_run_summary(const Statement& row) { return read_run_columns(row, false); }

Result<std::int64_t> count_rows(Connection& db, const std::string& sql,
                                const std::function<void(Statement&)>& bind) {
  auto query = db.prepare(sql);
  if (!query) return query.error();
  bind(**query);
  auto row = (*query)->step();
  if (!row) return row.error();
  return (*query)->int64(0);
}

}  // namespace orrery::sql
