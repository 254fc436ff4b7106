// SqlStore: the runners — every daemon's row, for `orrery status`.
#include "store/sql/column_table.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

using sql::read_field;

// The running count reads the partial index runs_running_claimant.
const sql::ColumnTable<RunnerRecord> kRunnerColumns = {
    {"id", read_field<&RunnerRecord::id>},
    {"host", read_field<&RunnerRecord::host>},
    {"labels", read_field<&RunnerRecord::labels>},
    {"pid",
     [](const sql::Statement& r, int c, RunnerRecord& runner) -> Status {
       runner.process.pid = int(r.int64(c));
       return Ok{};
     }},
    {"process_started_at",
     [](const sql::Statement& r, int c, RunnerRecord& runner) -> Status {
       runner.process.started_at = r.optional_int64(c);
       return Ok{};
     }},
    {"home", read_field<&RunnerRecord::home>},
    {"started_at", read_field<&RunnerRecord::started_at>},
    {"last_seen_at", read_field<&RunnerRecord::last_seen_at>},
    {"(SELECT COUNT(*) FROM runs WHERE runs.claimed_by = runners.id AND runs.status = "
     "'running')",
     read_field<&RunnerRecord::running>},
};

}  // namespace

Status SqlStore::register_runner(const RunnerRecord& runner, TimeMs now) {
  if (runner.id.empty()) return usage_error("a runner needs an id");
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto forget = db_->prepare("DELETE FROM runners WHERE last_seen_at < ?1");
  if (!forget) return forget.error();
  if (auto status = (*forget)->bind(1, now - kForgetRunnerMs).run(); !status) return status;
  auto write = db_->prepare(
      "INSERT INTO runners (id, host, labels, pid, process_started_at, home, started_at, "
      "last_seen_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT (id) DO UPDATE SET "
      "host = ?2, labels = ?3, pid = ?4, process_started_at = ?5, home = ?6, started_at = ?7, "
      "last_seen_at = ?8");
  if (!write) return write.error();
  (*write)
      ->bind(1, runner.id)
      .bind(2, runner.host)
      .bind(3, runner.labels)
      .bind(4, runner.process.pid)
      .bind(5, runner.process.started_at)
      .bind(6, runner.home)
      .bind(7, runner.started_at)
      .bind(8, now);
  if (auto status = (*write)->run(); !status) return status;
  if (db_->changes() != 1) return internal_error("runner " + runner.id + " was not written");
  return (*transaction)->commit();
}

Status SqlStore::heartbeat_runner(const std::string& id, TimeMs now) {
  auto write = db_->prepare("UPDATE runners SET last_seen_at = ?2 WHERE id = ?1");
  if (!write) return write.error();
  if (auto status = (*write)->bind(1, id).bind(2, now).run(); !status) return status;
  if (db_->changes() != 1) return not_found_error("no runner has the id '" + id + "'");
  return Ok{};
}

Status SqlStore::remove_runner(const std::string& id) {
  auto write = db_->prepare("DELETE FROM runners WHERE id = ?1");
  if (!write) return write.error();
  return (*write)->bind(1, id).run();
}

Result<std::vector<RunnerRecord>> SqlStore::list_runners() {
  auto query = db_->prepare("SELECT " + sql::select_list(kRunnerColumns) +
                            " FROM runners ORDER BY host, id");
  if (!query) return query.error();
  std::vector<RunnerRecord> runners;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) return runners;
    auto runner = sql::read_columns(kRunnerColumns, **query);
    if (!runner) return runner.error();
    runners.push_back(std::move(*runner));
  }
}

}  // namespace orrery
