// SqlStore: workflow runs — atomic publication with idempotency keys, the
// reads of runs, steps, attempts and the journal, and cancel requests
// (docs/workflows.md, "Storage").
#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/ids.h"
#include "store/sql/rows.h"
#include "store/sql/sql_store.h"
#include "store/sql/workflow_guards.h"
#include "store/sql/workflow_rows.h"

namespace orrery {
namespace {

using Bind = std::function<void(sql::Statement&)>;

// The most rows one read returns.
constexpr int kMaxRowsPerRead = 10'000;
constexpr size_t kMinRunPrefix = 6;
constexpr int kMaxCandidates = 10;

int clamp_limit(int limit) { return std::clamp(limit, 0, kMaxRowsPerRead); }

template <typename Record>
Result<std::vector<Record>> query_rows(sql::Connection& db, const std::string& sql,
                                       const Bind& bind,
                                       Result<Record> (*read)(const sql::Statement&)) {
  auto query = db.prepare(sql);
  if (!query) return query.error();
  bind(**query);
  return sql::read_all(**query, read);
}

Result<std::vector<WorkflowRun>> query_workflow_runs(sql::Connection& db, const std::string& where,
                                                     const Bind& bind) {
  return query_rows(db,
                    "SELECT " + sql::workflow_run_select_list() + " FROM workflow_runs " + where,
                    bind, sql::read_workflow_run);
}

// The filter's conditions (?1 name, ?2 status), shared by the list and its count.
std::string run_filter_where(const WorkflowRunFilter& filter) {
  std::string where = "WHERE 1 = 1";
  if (!filter.workflow_name.empty()) where += " AND workflow_name = ?1";
  if (filter.status) where += " AND status = ?2";
  if (!filter.loop_run_id.empty()) where += " AND loop_run_id = ?5";
  return where;
}

void bind_run_filter(sql::Statement& s, const WorkflowRunFilter& filter) {
  if (!filter.workflow_name.empty()) s.bind(1, filter.workflow_name);
  if (filter.status) s.bind(2, workflow_run_status_name(*filter.status));
  if (!filter.loop_run_id.empty()) s.bind(5, filter.loop_run_id);
}

bool is_lower_hex(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

Status check_new_run(const NewWorkflowRun& published) {
  const WorkflowRun& run = published.run;
  if (run.workflow_id.empty()) return usage_error("a workflow run needs its workflow's id");
  if (published.steps.empty()) return usage_error("a workflow run needs at least one step");
  if (run.max_parallel < 1 || run.max_parallel > kMaxParallelSteps) {
    return usage_error("--max-parallel " + std::to_string(run.max_parallel) +
                       " is out of range: give 1 to " + std::to_string(kMaxParallelSteps));
  }
  for (const StepRun& step : published.steps) {
    if (step.step_id.empty()) return usage_error("a step of a workflow run needs an id");
    if (step.max_attempts < 1) {
      return usage_error("step " + step.step_id + " needs at least one attempt");
    }
  }
  return Ok{};
}

Status insert_run(sql::Connection& db, const WorkflowRun& run) {
  auto insert = db.prepare(
      "INSERT INTO workflow_runs (id, workflow_id, workflow_name, workflow_version, status, "
      "input_json, idempotency_key, loop_id, loop_run_id, cwd, max_parallel, created_at, "
      "updated_at, item_id, goal_id) VALUES (?1, ?2, ?3, ?4, 'pending', ?5, ?6, ?7, ?8, ?9, ?10, "
      "?11, ?11, ?12, ?13) "
      "ON CONFLICT (workflow_name, idempotency_key) WHERE idempotency_key != '' DO NOTHING");
  if (!insert) return insert.error();
  (*insert)
      ->bind(1, run.id)
      .bind(2, run.workflow_id)
      .bind(3, run.workflow_name)
      .bind(4, run.workflow_version)
      .bind(5, run.input_json.empty() ? std::string("{}") : run.input_json)
      .bind(6, run.idempotency_key)
      .bind(7, run.loop_id)
      .bind(8, run.loop_run_id)
      .bind(9, run.cwd)
      .bind(10, run.max_parallel)
      .bind(11, run.created_at)
      .bind(12, run.item_id)
      .bind(13, run.goal_id);
  return (*insert)->run();
}

Status insert_steps(sql::Connection& db, const std::string& run_id,
                    const std::vector<StepRun>& steps, TimeMs now) {
  int sequence = 0;
  for (const StepRun& step : steps) {
    ++sequence;
    auto insert = db.prepare(
        "INSERT INTO workflow_steps (run_id, step_id, sequence, status, attempts, max_attempts, "
        "updated_at) VALUES (?1, ?2, ?3, 'pending', 0, ?4, ?5)");
    if (!insert) return insert.error();
    (*insert)
        ->bind(1, run_id)
        .bind(2, step.step_id)
        .bind(3, step.sequence > 0 ? step.sequence : sequence)
        .bind(4, step.max_attempts)
        .bind(5, now);
    if (auto status = (*insert)->run(); !status) return status;
  }
  return Ok{};
}

}  // namespace

// One transaction: the run (or, for a key published before, nothing), its
// steps and its `created` event, then the hook that writes the manifest;
// a commit that fails after the hook lets the hook's files be removed.
Result<PublishedRun> SqlStore::publish_workflow_run(const NewWorkflowRun& published,
                                                    const PublishHooks& hooks, TimeMs now) {
  if (auto valid = check_new_run(published); !valid) return valid.error();
  WorkflowRun run = published.run;
  if (run.id.empty()) run.id = new_id(now);
  run.created_at = run.updated_at = now;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  // The workflow's own name and version, whatever the caller copied.
  auto workflow = get_workflow(run.workflow_id);
  if (!workflow) return workflow.error();
  if (!workflow->has_value()) {
    return not_found_error("no workflow has the id '" + run.workflow_id + "'");
  }
  run.workflow_name = (*workflow)->name;
  run.workflow_version = (*workflow)->version;
  auto hold = govern_new_run(run, now);
  if (!hold) return hold.error();
  if (auto inserted = insert_run(*db_, run); !inserted) return inserted.error();
  if (db_->changes() != 1) {
    // The key was published before (or, on PostgreSQL, just now by another
    // writer, whose commit the insert waited for).
    auto earlier = query_workflow_runs(
        *db_, "WHERE workflow_name = ?1 AND idempotency_key = ?2",
        [&](sql::Statement& s) { s.bind(1, run.workflow_name).bind(2, run.idempotency_key); });
    if (!earlier) return earlier.error();
    if (earlier->empty()) return internal_error("workflow run " + run.id + " was not stored");
    return PublishedRun{std::move(earlier->front()), true};
  }
  if (!hold->empty()) return conflict_error(*hold);
  if (auto steps = insert_steps(*db_, run.id, published.steps, now); !steps) return steps.error();
  const nlohmann::json payload = {{"workflow", run.workflow_name},
                                  {"version", run.workflow_version}};
  if (auto created =
          sql::append_workflow_events(*db_, run.id, {{"created", "", write_json(payload)}}, now);
      !created) {
    return created.error();
  }
  // Daemons start a driver for it (docs/workflows.md, "One driver per run").
  if (auto noticed = notify_daemons(); !noticed) return noticed.error();
  auto stored = get_workflow_run(run.id);
  if (!stored) return stored.error();
  if (!stored->has_value()) return internal_error("workflow run " + run.id + " vanished");
  if (hooks.before_commit) {
    if (auto hooked = hooks.before_commit(**stored); !hooked) return hooked.error();
  }
  if (auto committed = (*transaction)->commit(); !committed) {
    if (hooks.after_rollback) hooks.after_rollback(**stored);
    return committed.error();
  }
  return PublishedRun{std::move(**stored), false};
}

Result<std::optional<WorkflowRun>> SqlStore::get_workflow_run(const std::string& id) {
  auto runs = query_workflow_runs(*db_, "WHERE id = ?1", [&](sql::Statement& s) { s.bind(1, id); });
  if (!runs) return runs.error();
  if (runs->empty()) return std::optional<WorkflowRun>{};
  return std::optional<WorkflowRun>{std::move(runs->front())};
}

Result<WorkflowRun> SqlStore::resolve_workflow_run(const std::string& text) {
  if (text.empty()) return usage_error("a workflow run id cannot be empty");
  auto exact = get_workflow_run(text);
  if (!exact) return exact.error();
  if (exact->has_value()) return std::move(**exact);
  if (!is_lower_hex(text) || text.size() >= kIdLength) {
    return not_found_error("no workflow run has the id '" + text + "'");
  }
  if (text.size() < kMinRunPrefix) {
    return usage_error("workflow run id prefix '" + text + "' is too short: give at least " +
                       std::to_string(kMinRunPrefix) + " characters of the id");
  }
  auto prefixed = query_workflow_runs(
      *db_, "WHERE id >= ?1 AND id < ?2 ORDER BY id LIMIT ?3",
      [&](sql::Statement& s) { s.bind(1, text).bind(2, text + "g").bind(3, kMaxCandidates); });
  if (!prefixed) return prefixed.error();
  if (prefixed->empty()) return not_found_error("no workflow run has the id '" + text + "'");
  if (prefixed->size() > 1) {
    std::string listed;
    for (const WorkflowRun& run : *prefixed) {
      listed += (listed.empty() ? "" : ", ") + run.id + " (" + run.workflow_name + ", " +
                workflow_run_status_name(run.status) + ")";
    }
    const std::string count = (prefixed->size() == size_t(kMaxCandidates) ? "at least " : "") +
                              std::to_string(prefixed->size());
    return conflict_error("'" + text + "' matches " + count + " workflow runs: " + listed +
                          "; give more of the id");
  }
  return std::move(prefixed->front());
}

Result<std::vector<WorkflowRun>> SqlStore::list_workflow_runs(const WorkflowRunFilter& filter) {
  // Newest first through workflow_runs_name_created, _status_created or
  // _created (workflow_name or status, created_at, id).
  return query_workflow_runs(
      *db_, run_filter_where(filter) + " ORDER BY created_at DESC, id DESC LIMIT ?3 OFFSET ?4",
      [&](sql::Statement& s) {
        bind_run_filter(s, filter);
        s.bind(3, clamp_limit(filter.limit)).bind(4, std::max(0, filter.offset));
      });
}

Result<std::int64_t> SqlStore::count_workflow_runs(const WorkflowRunFilter& filter) {
  return sql::count_rows(*db_, "SELECT COUNT(*) FROM workflow_runs " + run_filter_where(filter),
                         [&](sql::Statement& s) { bind_run_filter(s, filter); });
}

Result<std::vector<StepRun>> SqlStore::list_step_runs(const std::string& run_id) {
  return query_rows(
      *db_,
      "SELECT " + sql::step_run_select_list() +
          " FROM workflow_steps WHERE run_id = ?1 ORDER BY sequence",
      [&](sql::Statement& s) { s.bind(1, run_id); }, sql::read_step_run);
}

Result<std::vector<StepAttempt>> SqlStore::list_step_attempts(const std::string& run_id) {
  // Each column named by its table: both tables have run_id and step_id.
  return query_rows(
      *db_,
      "SELECT " + sql::step_attempt_select_list("a.") +
          " FROM workflow_attempts AS a JOIN workflow_steps AS s ON s.run_id = "
          "a.run_id AND s.step_id = a.step_id WHERE a.run_id = ?1 "
          "ORDER BY s.sequence, a.attempt",
      [&](sql::Statement& s) { s.bind(1, run_id); }, sql::read_step_attempt);
}

Result<std::optional<StepAttempt>> SqlStore::get_step_attempt(const std::string& dispatch_id) {
  auto found = query_rows(
      *db_,
      "SELECT " + sql::step_attempt_select_list() +
          " FROM workflow_attempts WHERE dispatch_id = ?1",
      [&](sql::Statement& s) { s.bind(1, dispatch_id); }, sql::read_step_attempt);
  if (!found) return found.error();
  if (found->empty()) return std::optional<StepAttempt>{};
  return std::optional<StepAttempt>{std::move(found->front())};
}

Result<std::vector<WorkflowEvent>> SqlStore::list_workflow_events(const std::string& run_id,
                                                                  std::int64_t after_sequence,
                                                                  int limit) {
  return query_rows(
      *db_,
      "SELECT " + sql::workflow_event_select_list() +
          " FROM workflow_events WHERE run_id = ?1 AND sequence > ?2 "
          "ORDER BY sequence LIMIT ?3",
      [&](sql::Statement& s) {
        s.bind(1, run_id).bind(2, after_sequence).bind(3, clamp_limit(limit));
      },
      sql::read_workflow_event);
}

Result<WorkflowRun> SqlStore::request_workflow_cancel(const std::string& run_id, TimeMs now) {
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto update = db_->prepare(
      "UPDATE workflow_runs SET cancel_requested = 1, updated_at = ?2 WHERE id = ?1 "
      "AND status IN ('pending', 'running') AND cancel_requested = 0");
  if (!update) return update.error();
  (*update)->bind(1, run_id).bind(2, now);
  if (auto status = (*update)->run(); !status) return status.error();
  if (db_->changes() == 1) {
    // Its driver, in whichever daemon, hears of it at once.
    if (auto noticed = notify_daemons(); !noticed) return noticed.error();
  }
  auto run = get_workflow_run(run_id);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("no workflow run has the id '" + run_id + "'");
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return std::move(**run);
}

}  // namespace orrery
