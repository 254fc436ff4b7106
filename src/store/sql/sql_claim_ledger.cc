// SqlStore: the claim ledger (store/claim_ledger.h) — one guarded UPDATE
// per write for every kind of claimed work, on the rows that kind is
// (SqlStore::claimed_rows): recording the supervisor and the target,
// heartbeats, the finish and a kept outcome's finish.
#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

// The outcome columns finished work gets, one list for every finish:
// "status = ?F, ..." with the ten parameters ?F to ?F+9, bound by
// bind_outcome; the finish time is the parameter `finished`; a kind with
// outputs binds them at ?F+10.
std::string outcome_assignments(int first, int finished, bool with_duration, bool with_outputs) {
  // Appended piece by piece (GCC 12's -Wrestrict misreads chains of `+`).
  static constexpr const char* kColumns[] = {
      "status", "exit_code",    "signal",        "error",    "stdout",
      "stderr", "input_tokens", "output_tokens", "cost_usd", "usage_limited"};
  std::string at = "?";
  at += std::to_string(finished);
  std::string sql;
  for (int offset = 0; offset < 10; ++offset) {
    sql.append(kColumns[offset]).append(" = ?").append(std::to_string(first + offset));
    sql.append(", ");
  }
  sql.append("finished_at = ").append(at);
  if (with_duration) {
    // CASE, not MAX(a, b): PostgreSQL has no two-argument MAX.
    sql.append(", duration_ms = CASE WHEN started_at < ").append(at);
    sql.append(" THEN ").append(at).append(" - started_at ELSE 0 END");
  }
  if (with_outputs) sql.append(", outputs_json = ?").append(std::to_string(first + 10));
  sql.append(", claim_token = '', lease_expires_at = NULL");
  return sql;
}

void bind_outcome(sql::Statement& s, int first, const RunOutcome& outcome, bool with_outputs) {
  s.bind(first, run_status_name(outcome.status))
      .bind(first + 1, outcome.exit_code)
      .bind(first + 2, outcome.signal)
      .bind(first + 3, outcome.error)
      .bind(first + 4, outcome.stdout_tail)
      .bind(first + 5, outcome.stderr_tail)
      .bind(first + 6, outcome.usage.input_tokens)
      .bind(first + 7, outcome.usage.output_tokens)
      .bind(first + 8, outcome.usage.cost_usd)
      .bind(first + 9, outcome.usage_limited ? 1 : 0);
  if (with_outputs) s.bind(first + 10, outcome.outputs_json);
}

// A step's outputs: a JSON object whose values are strings.
Status check_outputs(const std::string& outputs_json) {
  const nlohmann::json json = read_json(outputs_json);
  bool strings = json.is_object();
  for (auto entry = json.begin(); strings && entry != json.end(); ++entry) {
    strings = entry->is_string();
  }
  if (!strings) {
    return usage_error("a step's outputs must be a JSON object of strings, not '" +
                       outputs_json.substr(0, 80) + "'");
  }
  return Ok{};
}

Status check_outcome(WorkKind kind, const RunOutcome& outcome, bool with_outputs) {
  if (!is_terminal(outcome.status) || outcome.status == RunStatus::kSkipped) {
    return usage_error(std::string("a ") + work_kind_traits(kind).noun + " cannot finish as " +
                       run_status_name(outcome.status));
  }
  return with_outputs ? check_outputs(outcome.outputs_json) : Status(Ok{});
}

}  // namespace

const SqlStore::ClaimedRows& SqlStore::claimed_rows(WorkKind kind) {
  static const ClaimedRows kRuns{"runs", "id", "a finished run", true, false};
  static const ClaimedRows kAttempts{"workflow_attempts", "dispatch_id",
                                     "a finished or reclaimed attempt", false, true};
  return kind == WorkKind::kLoopRun ? kRuns : kAttempts;
}

// The claimant, token and live lease every claim-holder write requires:
// ?1 the row's id, ?2 claimant, ?3 token, ?4 now.
Status SqlStore::guarded_claim_update(const char* assignments, const Claim& claim,
                                      TimeMs caller_now, const BindAt& bind_rest,
                                      const char* action) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  const ClaimedRows& rows = claimed_rows(claim.kind);
  auto update = db_->prepare(std::string("UPDATE ") + rows.table + " SET " + assignments +
                             " WHERE " + rows.key +
                             " = ?1 AND status = 'running' AND claimed_by = ?2 AND "
                             "claim_token = ?3 AND claim_token != '' AND lease_expires_at > ?4");
  if (!update) return update.error();
  (*update)->bind(1, claim.id).bind(2, claim.claimed_by).bind(3, claim.token).bind(4, now);
  bind_rest(**update, now);
  if (auto status = (*update)->run(); !status) return status;
  if (db_->changes() != 1) {
    return conflict_error(
        "cannot " + std::string(action) + " " + work_kind_traits(claim.kind).noun + " " + claim.id +
        ": the claim was lost (another claimant, " + rows.finished + " or an expired lease)");
  }
  return Ok{};
}

Status SqlStore::record_supervisor(const Claim& claim, const ProcessIdentity& supervisor,
                                   TimeMs now) {
  return guarded_claim_update(
      "supervisor_pid = ?5, supervisor_started_at = ?6, updated_at = ?4", claim, now,
      [&](sql::Statement& s, TimeMs) { s.bind(5, supervisor.pid).bind(6, supervisor.started_at); },
      "record the supervisor of");
}

Status SqlStore::record_process(const Claim& claim, const ProcessIdentity& target,
                                std::optional<int> pgid, const ProcessIdentity& supervisor,
                                TimeMs now) {
  return guarded_claim_update(
      "pid = ?5, process_started_at = ?6, pgid = ?7, supervisor_pid = ?8, "
      "supervisor_started_at = ?9, updated_at = ?4",
      claim, now,
      [&](sql::Statement& s, TimeMs) {
        s.bind(5, target.pid)
            .bind(6, target.started_at)
            .bind(7, pgid)
            .bind(8, supervisor.pid)
            .bind(9, supervisor.started_at);
      },
      "record the process of");
}

Status SqlStore::heartbeat_claim(const Claim& claim, DurationMs lease_ms, TimeMs now) {
  return guarded_claim_update(
      "lease_expires_at = ?5, updated_at = ?4", claim, now,
      [&](sql::Statement& s, TimeMs at) { s.bind(5, add_saturating(at, lease_ms)); }, "heartbeat");
}

Status SqlStore::finish_claim(const Claim& claim, const RunOutcome& outcome, TimeMs now) {
  const ClaimedRows& rows = claimed_rows(claim.kind);
  if (auto valid = check_outcome(claim.kind, outcome, rows.has_outputs); !valid) return valid;
  // ?1-?4 are the claim guard's; the outcome follows from ?5.
  const std::string assignments =
      outcome_assignments(5, 4, rows.has_duration, rows.has_outputs) + ", updated_at = ?4";
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  TimeMs finished_at = now;
  auto finished = guarded_claim_update(
      assignments.c_str(), claim, now,
      [&](sql::Statement& s, TimeMs at) {
        finished_at = at;
        bind_outcome(s, 5, outcome, rows.has_outputs);
      },
      "finalize");
  if (!finished) return finished;
  if (auto turn = account_goal_turn(claim, outcome, finished_at); !turn) return turn;
  return (*transaction)->commit();
}

Status SqlStore::finish_expired_claim(const Claim& claim, const RunOutcome& outcome,
                                      TimeMs finished_at, TimeMs caller_now) {
  const ClaimedRows& rows = claimed_rows(claim.kind);
  if (auto valid = check_outcome(claim.kind, outcome, rows.has_outputs); !valid) return valid;
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  // ?1 id, ?2 claim token, ?3 finish time, ?4 now; the outcome from ?5.
  auto update = db_->prepare(std::string("UPDATE ") + rows.table + " SET " +
                             outcome_assignments(5, 3, rows.has_duration, rows.has_outputs) +
                             ", updated_at = ?4 WHERE " + rows.key +
                             " = ?1 AND status = 'running' AND claim_token = ?2 AND "
                             "claim_token != '' AND lease_expires_at <= ?4");
  if (!update) return update.error();
  (*update)->bind(1, claim.id).bind(2, claim.token).bind(3, finished_at).bind(4, now);
  bind_outcome(**update, 5, outcome, rows.has_outputs);
  if (auto status = (*update)->run(); !status) return status;
  if (db_->changes() != 1) {
    return conflict_error("cannot record the kept outcome of " +
                          std::string(work_kind_traits(claim.kind).noun) + " " + claim.id +
                          ": it is no longer running under that claim with an expired lease");
  }
  if (auto turn = account_goal_turn(claim, outcome, finished_at); !turn) return turn;
  return (*transaction)->commit();
}

}  // namespace orrery
