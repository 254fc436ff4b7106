#include "store/sqlite/rows.h"

#include "store/target_codec.h"

namespace orrery::sqlite {

const char* const kLoopColumns =
    "id, name, description, status, archived, archived_from_status, schedule_type, "
    "schedule_expression, schedule_timezone, schedule_every_ms, schedule_anchor, schedule_at, "
    "schedule_min_ms, schedule_max_ms, schedule_jitter_ms, target_json, machine_json, "
    "next_run_at, retry_scheduled_for, catch_up, catch_up_limit, catch_up_window_ms, overlap, "
    "max_attempts, retry_delay_ms, retry_backoff, lease_ms, timeout_ms, idle_timeout_ms, "
    "expires_at, missed_count, created_at, updated_at";

// Columns 2..33 of kLoopColumns as assignments to ?2..?33.
const char* const kLoopAssignments =
    "name = ?2, description = ?3, status = ?4, archived = ?5, archived_from_status = ?6, "
    "schedule_type = ?7, schedule_expression = ?8, schedule_timezone = ?9, "
    "schedule_every_ms = ?10, schedule_anchor = ?11, schedule_at = ?12, schedule_min_ms = ?13, "
    "schedule_max_ms = ?14, schedule_jitter_ms = ?15, target_json = ?16, machine_json = ?17, "
    "next_run_at = ?18, retry_scheduled_for = ?19, catch_up = ?20, catch_up_limit = ?21, "
    "catch_up_window_ms = ?22, overlap = ?23, max_attempts = ?24, retry_delay_ms = ?25, "
    "retry_backoff = ?26, lease_ms = ?27, timeout_ms = ?28, idle_timeout_ms = ?29, "
    "expires_at = ?30, missed_count = ?31, created_at = ?32, updated_at = ?33";

const char* const kLoopInsert =
    "INSERT INTO loops (id, name, description, status, archived, archived_from_status, "
    "schedule_type, schedule_expression, schedule_timezone, schedule_every_ms, schedule_anchor, "
    "schedule_at, schedule_min_ms, schedule_max_ms, schedule_jitter_ms, target_json, "
    "machine_json, next_run_at, retry_scheduled_for, catch_up, catch_up_limit, "
    "catch_up_window_ms, overlap, max_attempts, retry_delay_ms, retry_backoff, lease_ms, "
    "timeout_ms, idle_timeout_ms, expires_at, missed_count, created_at, updated_at) VALUES "
    "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, "
    "?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33)";

const char* const kRunColumns =
    "id, loop_id, loop_name, scheduled_for, attempt, status, started_at, finished_at, "
    "claimed_by, claim_token, lease_expires_at, pid, process_started_at, pgid, supervisor_pid, "
    "supervisor_started_at, exit_code, signal, duration_ms, error, skip_reason, stdout, stderr, "
    "input_tokens, output_tokens, cost_usd, created_at, updated_at, usage_limited";

namespace {

std::optional<int> optional_int(const Statement& row, int column) {
  if (row.is_null(column)) return std::nullopt;
  return int(row.int64(column));
}

Result<Schedule> read_schedule(const Statement& row) {
  Schedule schedule;
  auto type = parse_schedule_type(row.text(6));
  if (!type) return type.error();
  schedule.type = *type;
  schedule.expression = row.text(7);
  schedule.timezone = row.text(8);
  schedule.every_ms = row.optional_int64(9).value_or(0);
  schedule.anchor =
      row.text(10) == "fixed_delay" ? IntervalAnchor::kFixedDelay : IntervalAnchor::kFixedRate;
  schedule.at = row.optional_int64(11).value_or(0);
  schedule.min_ms = row.optional_int64(12).value_or(kDefaultDynamicMinMs);
  schedule.max_ms = row.optional_int64(13).value_or(kDefaultDynamicMaxMs);
  schedule.jitter_ms = row.int64(14);
  return schedule;
}

}  // namespace

Result<Loop> read_loop(const Statement& row) {
  Loop loop;
  loop.id = row.text(0);
  loop.name = row.text(1);
  loop.description = row.text(2);
  auto status = parse_loop_status(row.text(3));
  if (!status) return status.error();
  loop.status = *status;
  loop.archived = row.int64(4) != 0;
  if (!row.is_null(5)) {
    auto from = parse_loop_status(row.text(5));
    if (!from) return from.error();
    loop.archived_from_status = *from;
  }
  auto schedule = read_schedule(row);
  if (!schedule) return schedule.error();
  loop.schedule = *schedule;
  auto target = decode_target(row.text(15));
  if (!target) return target.error();
  loop.target = *target;
  auto machine = decode_labels(row.text(16));
  if (!machine) return machine.error();
  loop.machine = *machine;
  loop.next_run_at = row.optional_int64(17);
  loop.retry_scheduled_for = row.optional_int64(18);
  auto catch_up = parse_catch_up_mode(row.text(19));
  if (!catch_up) return catch_up.error();
  loop.catch_up = {*catch_up, int(row.int64(20)), row.optional_int64(21)};
  auto overlap = parse_overlap(row.text(22));
  if (!overlap) return overlap.error();
  loop.overlap = *overlap;
  loop.max_attempts = int(row.int64(23));
  loop.retry_delay_ms = row.int64(24);
  auto backoff = parse_backoff(row.text(25));
  if (!backoff) return backoff.error();
  loop.retry_backoff = *backoff;
  loop.lease_ms = row.int64(26);
  loop.timeout_ms = row.optional_int64(27);
  loop.idle_timeout_ms = row.optional_int64(28);
  loop.expires_at = row.optional_int64(29);
  loop.missed_count = row.int64(30);
  loop.created_at = row.int64(31);
  loop.updated_at = row.int64(32);
  return loop;
}

void bind_loop_fields(Statement& statement, const Loop& loop) {
  const Schedule& schedule = loop.schedule;
  const bool interval = schedule.type == ScheduleType::kInterval;
  const bool dynamic = schedule.type == ScheduleType::kDynamic;
  const bool cron = schedule.type == ScheduleType::kCron;
  statement.bind(1, loop.id)
      .bind(2, loop.name)
      .bind(3, loop.description)
      .bind(4, loop_status_name(loop.status))
      .bind(5, loop.archived ? 1 : 0);
  if (loop.archived_from_status) {
    statement.bind(6, loop_status_name(*loop.archived_from_status));
  } else {
    statement.bind_null(6);
  }
  statement.bind(7, schedule_type_name(schedule.type));
  cron ? statement.bind(8, schedule.expression).bind(9, schedule.timezone)
       : statement.bind_null(8).bind_null(9);
  interval ? statement.bind(10, schedule.every_ms).bind(11, anchor_name(schedule.anchor))
           : statement.bind_null(10).bind_null(11);
  schedule.type == ScheduleType::kOnce ? statement.bind(12, schedule.at) : statement.bind_null(12);
  dynamic ? statement.bind(13, schedule.min_ms).bind(14, schedule.max_ms)
          : statement.bind_null(13).bind_null(14);
  statement.bind(15, schedule.jitter_ms)
      .bind(16, encode_target(loop.target))
      .bind(17, encode_labels(loop.machine))
      .bind(18, loop.next_run_at)
      .bind(19, loop.retry_scheduled_for)
      .bind(20, catch_up_mode_name(loop.catch_up.mode))
      .bind(21, loop.catch_up.limit)
      .bind(22, loop.catch_up.window)
      .bind(23, overlap_name(loop.overlap))
      .bind(24, loop.max_attempts)
      .bind(25, loop.retry_delay_ms)
      .bind(26, backoff_name(loop.retry_backoff))
      .bind(27, loop.lease_ms)
      .bind(28, loop.timeout_ms)
      .bind(29, loop.idle_timeout_ms)
      .bind(30, loop.expires_at)
      .bind(31, loop.missed_count)
      .bind(32, loop.created_at)
      .bind(33, loop.updated_at);
}

Result<Run> read_run(const Statement& row) {
  Run run;
  run.id = row.text(0);
  run.loop_id = row.text(1);
  run.loop_name = row.text(2);
  run.scheduled_for = row.int64(3);
  run.attempt = int(row.int64(4));
  auto status = parse_run_status(row.text(5));
  if (!status) return status.error();
  run.status = *status;
  run.started_at = row.optional_int64(6);
  run.finished_at = row.optional_int64(7);
  run.claimed_by = row.text(8);
  run.claim_token = row.text(9);
  run.lease_expires_at = row.optional_int64(10);
  if (!row.is_null(11)) run.target = ProcessIdentity{int(row.int64(11)), row.optional_int64(12)};
  run.pgid = optional_int(row, 13);
  if (!row.is_null(14)) {
    run.supervisor = ProcessIdentity{int(row.int64(14)), row.optional_int64(15)};
  }
  run.exit_code = optional_int(row, 16);
  run.signal = optional_int(row, 17);
  run.duration_ms = row.optional_int64(18);
  run.error = row.text(19);
  run.skip_reason = row.text(20);
  run.stdout_tail = row.text(21);
  run.stderr_tail = row.text(22);
  run.usage.input_tokens = row.optional_int64(23);
  run.usage.output_tokens = row.optional_int64(24);
  if (!row.is_null(25)) run.usage.cost_usd = row.real(25);
  run.created_at = row.int64(26);
  run.updated_at = row.int64(27);
  run.usage_limited = row.int64(28) != 0;
  return run;
}

}  // namespace orrery::sqlite
