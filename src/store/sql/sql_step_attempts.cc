// SqlStore: step attempts — reserving one for a driver (answering
// reserved, existing, busy or reclaimed) and the writes of its supervisor
// under the attempt's claim (docs/workflows.md, "Attempts"). Attempts are
// append-only: one row per dispatch id, never deleted or renumbered; a
// claim token starts with the attempt's number as its generation ("g2-…").
#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/retry_policy.h"
#include "store/sql/sql_store.h"
#include "store/sql/workflow_guards.h"
#include "store/sql/workflow_rows.h"

namespace orrery {
namespace {

Result<std::optional<StepRun>> read_step(sql::Connection& db, const std::string& run_id,
                                         const std::string& step_id) {
  auto query = db.prepare("SELECT " + sql::step_run_select_list() +
                          " FROM workflow_steps WHERE run_id = ?1 AND step_id = ?2");
  if (!query) return query.error();
  (*query)->bind(1, run_id).bind(2, step_id);
  auto steps = sql::read_all(**query, sql::read_step_run);
  if (!steps) return steps.error();
  if (steps->empty()) return std::optional<StepRun>{};
  return std::optional<StepRun>{std::move(steps->front())};
}

Result<std::int64_t> count_abandoned(sql::Connection& db, const std::string& run_id,
                                     const std::string& step_id) {
  auto query = db.prepare(
      "SELECT COUNT(*) FROM workflow_attempts WHERE run_id = ?1 AND step_id = ?2 "
      "AND status = 'abandoned'");
  if (!query) return query.error();
  (*query)->bind(1, run_id).bind(2, step_id);
  auto row = (*query)->step();
  if (!row) return row.error();
  return (*query)->int64(0);
}

Status check_reserve(const StepReserve& request) {
  if (request.step_id.empty()) return usage_error("reserving a step attempt needs the step's id");
  if (request.dispatch_id.empty())
    return usage_error("reserving a step attempt needs a dispatch id");
  if (request.claimant.empty()) return usage_error("reserving a step attempt needs a claimant");
  if (request.lease_ms <= 0) {
    return usage_error("a step attempt's lease of " + std::to_string(request.lease_ms) +
                       " ms cannot be taken: give a positive duration");
  }
  return Ok{};
}

}  // namespace

// One transaction under the run's row lock, so that two reservations of a
// step (two drivers, or one driver twice) take turns and the second sees
// the first's attempt.
Result<Reservation> SqlStore::reserve_step_attempt(const EngineFence& fence,
                                                   const StepReserve& request, TimeMs caller_now) {
  if (auto valid = check_reserve(request); !valid) return valid.error();
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  if (auto held = sql::hold_engine_lease(*db_, fence, now); !held) return held.error();
  const std::string of_step = "step " + request.step_id + " of workflow run " + fence.run_id;

  auto existing = get_step_attempt(request.dispatch_id);
  if (!existing) return existing.error();
  if (existing->has_value()) {
    if ((*existing)->run_id != fence.run_id || (*existing)->step_id != request.step_id) {
      return conflict_error("dispatch id " + request.dispatch_id + " is not one of " + of_step);
    }
    return Reservation{ReserveAnswer::kExisting, std::move(**existing), std::nullopt};
  }
  auto step = read_step(*db_, fence.run_id, request.step_id);
  if (!step) return step.error();
  if (!step->has_value())
    return not_found_error("workflow run " + fence.run_id + " has no step '" + request.step_id +
                           "'");
  if (is_finished((*step)->status)) {
    return conflict_error(of_step + " is " + step_status_name((*step)->status) +
                          ": a finished step never runs again");
  }

  Reservation reservation;
  if ((*step)->status == StepStatus::kRunning) {
    auto current = get_step_attempt((*step)->dispatch_id);
    if (!current) return current.error();
    if (!current->has_value()) {
      return internal_error(of_step + " is running without its attempt " + (*step)->dispatch_id);
    }
    const StepAttempt& held = **current;
    if (held.status != RunStatus::kRunning) {
      return conflict_error(of_step + " has its attempt " + std::to_string(held.attempt) +
                            " finished (" + run_status_name(held.status) +
                            "); the driver advances the step before another attempt");
    }
    const bool expired = !held.lease_expires_at || *held.lease_expires_at <= now;
    if (!expired && !request.holder_dead) {
      return Reservation{ReserveAnswer::kBusy, held, std::nullopt};
    }
    const std::string why = request.holder_dead ? "the attempt's supervisor died" : "lease expired";
    auto abandon = db_->prepare(
        "UPDATE workflow_attempts SET status = 'abandoned', finished_at = ?2, error = ?3, "
        "claim_token = '', lease_expires_at = NULL, updated_at = ?2 "
        "WHERE dispatch_id = ?1 AND status = 'running' AND claim_token = ?4");
    if (!abandon) return abandon.error();
    (*abandon)->bind(1, held.dispatch_id).bind(2, now).bind(3, why).bind(4, held.claim_token);
    if (auto status = (*abandon)->run(); !status) return status.error();
    if (db_->changes() != 1) {
      return conflict_error("attempt " + held.dispatch_id + " finished while it was reclaimed");
    }
    RunOutcome abandoned_outcome;  // a turn of its step's goal, if it has one
    abandoned_outcome.status = RunStatus::kAbandoned;
    if (auto turn = account_goal_turn(
            {held.dispatch_id, held.claimed_by, held.claim_token, WorkKind::kStepAttempt},
            abandoned_outcome, now);
        !turn) {
      return turn.error();
    }
    const nlohmann::json payload = {
        {"attempt", held.attempt}, {"dispatch_id", held.dispatch_id}, {"reason", why}};
    if (auto journaled = sql::append_workflow_events(
            *db_, fence.run_id, {{"recovered", request.step_id, write_json(payload)}}, now);
        !journaled) {
      return journaled.error();
    }
    auto abandoned = get_step_attempt(held.dispatch_id);
    if (!abandoned) return abandoned.error();
    reservation.answer = ReserveAnswer::kReclaimed;
    reservation.reclaimed = **abandoned;
  }

  // A new attempt: the next number, within the step's attempts (the first
  // abandoned ones, whose supervisor died, do not count against them:
  // core/retry_policy.h counted_step_attempts).
  const int number = (*step)->attempts + 1;
  const std::string expected = dispatch_id(fence.run_id, request.step_id, number);
  if (request.dispatch_id != expected) {
    return conflict_error("dispatch id " + request.dispatch_id +
                          " is not that of the next "
                          "attempt of " +
                          of_step + " (" + expected + ")");
  }
  auto abandoned = count_abandoned(*db_, fence.run_id, request.step_id);
  if (!abandoned) return abandoned.error();
  if (counted_step_attempts(number, int(*abandoned)) > (*step)->max_attempts) {
    if (reservation.answer != ReserveAnswer::kReclaimed) {
      return conflict_error(of_step + " has no attempts left (" +
                            std::to_string((*step)->max_attempts) + " allowed)");
    }
    // The abandon stands; the driver settles the step with it.
    if (auto committed = (*transaction)->commit(); !committed) return committed.error();
    reservation.answer = ReserveAnswer::kExhausted;
    reservation.attempt = *reservation.reclaimed;
    return reservation;
  }
  const std::string token = "g" + std::to_string(number) + "-" + random_hex(10);
  auto insert = db_->prepare(
      "INSERT INTO workflow_attempts (dispatch_id, run_id, step_id, attempt, phase, status, "
      "claimed_by, claim_token, host, lease_expires_at, started_at, updated_at) VALUES (?1, ?2, "
      "?3, ?4, 'execute', 'running', ?5, ?6, ?7, ?8, ?9, ?9)");
  if (!insert) return insert.error();
  (*insert)
      ->bind(1, request.dispatch_id)
      .bind(2, fence.run_id)
      .bind(3, request.step_id)
      .bind(4, number)
      .bind(5, request.claimant)
      .bind(6, token)
      .bind(7, request.host)
      .bind(8, add_saturating(now, request.lease_ms))
      .bind(9, now);
  if (auto status = (*insert)->run(); !status) return status.error();
  auto start = db_->prepare(
      "UPDATE workflow_steps SET status = 'running', attempts = ?3, dispatch_id = ?4, "
      "started_at = COALESCE(started_at, ?5), updated_at = ?5 WHERE run_id = ?1 AND "
      "step_id = ?2 AND attempts = ?3 - 1 AND status IN ('pending', 'running')");
  if (!start) return start.error();
  (*start)
      ->bind(1, fence.run_id)
      .bind(2, request.step_id)
      .bind(3, number)
      .bind(4, request.dispatch_id)
      .bind(5, now);
  if (auto status = (*start)->run(); !status) return status.error();
  if (db_->changes() != 1) return conflict_error(of_step + " changed while it was reserved");
  const nlohmann::json payload = {{"attempt", number}, {"dispatch_id", request.dispatch_id}};
  if (auto journaled = sql::append_workflow_events(
          *db_, fence.run_id, {{"step_started", request.step_id, write_json(payload)}}, now);
      !journaled) {
    return journaled.error();
  }
  auto attempt = get_step_attempt(request.dispatch_id);
  if (!attempt) return attempt.error();
  if (!attempt->has_value()) return internal_error("attempt " + request.dispatch_id + " vanished");
  if (auto committed = (*transaction)->commit(); !committed) return committed.error();
  reservation.attempt = std::move(**attempt);
  return reservation;
}

}  // namespace orrery
