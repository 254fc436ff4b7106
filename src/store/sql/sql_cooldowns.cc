// SqlStore: usage-limit cooldowns of provider accounts.
#include "core/usage_limit.h"
#include "store/sql/column_table.h"
#include "store/sql/sql_store.h"

namespace orrery {
namespace {

// A cooldown that ended longer ago than this no longer counts as consecutive.
constexpr DurationMs kConsecutiveWindowMs = 3'600'000;

using sql::read_field;

const sql::ColumnTable<Cooldown> kCooldownColumns = {
    {"account", read_field<&Cooldown::account>},
    {"until_at", read_field<&Cooldown::until_at>},
    {"hits", read_field<&Cooldown::hits>},
    {"reason", read_field<&Cooldown::reason>},
    {"updated_at", read_field<&Cooldown::updated_at>},
};

}  // namespace

Result<Cooldown> SqlStore::record_cooldown(const std::string& account,
                                           std::optional<TimeMs> reset_at,
                                           const std::string& reason, TimeMs now) {
  if (account.empty()) return usage_error("a cooldown needs a provider account");
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  // The account's row exists (an ended cooldown if new), then is read under
  // a row lock: two limits hit at once count as two consecutive hits.
  {
    auto row = db_->prepare(
        "INSERT INTO cooldowns (account, until_at, hits, reason, updated_at) "
        "VALUES (?1, 0, 0, '', ?2) ON CONFLICT (account) DO NOTHING");
    if (!row) return row.error();
    if (auto status = (*row)->bind(1, account).bind(2, now).run(); !status) return status.error();
  }
  int previous_hits = 0;
  TimeMs previous_until = 0;
  {
    auto current = db_->prepare("SELECT until_at, hits FROM cooldowns WHERE account = ?1" +
                                std::string(db_->row_lock(sql::RowLock::kUpdate)));
    if (!current) return current.error();
    (*current)->bind(1, account);
    auto row = (*current)->step();
    if (!row) return row.error();
    if (*row && (*current)->int64(0) + kConsecutiveWindowMs >= now) {
      previous_until = (*current)->int64(0);
      previous_hits = int((*current)->int64(1));
    }
  }
  // Never shorter than the cooldown in force, never longer than the cap: one
  // message (or a stored cooldown from before the cap) cannot block an
  // account for good (docs/storage.md).
  const TimeMs cap = now + kMaxCooldownMs;
  const TimeMs until = std::min(
      cap, std::max(previous_until, cooldown_until({reason, reset_at}, previous_hits, now)));
  auto write = db_->prepare(
      "UPDATE cooldowns SET until_at = ?2, hits = ?3, reason = ?4, updated_at = ?5 "
      "WHERE account = ?1");
  if (!write) return write.error();
  (*write)->bind(1, account).bind(2, until).bind(3, previous_hits + 1).bind(4, reason).bind(5, now);
  if (auto status = (*write)->run(); !status) return status.error();
  if (db_->changes() != 1) return internal_error("cooldown of " + account + " was not written");
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return Cooldown{account, until, previous_hits + 1, reason, now};
}

Result<std::vector<Cooldown>> SqlStore::active_cooldowns(TimeMs now) {
  auto query = db_->prepare("SELECT " + sql::select_list(kCooldownColumns) +
                            " FROM cooldowns WHERE until_at > ?1 ORDER BY until_at");
  if (!query) return query.error();
  (*query)->bind(1, now);
  std::vector<Cooldown> cooldowns;
  while (true) {
    auto row = (*query)->step();
    if (!row) return row.error();
    if (!*row) return cooldowns;
    auto cooldown = sql::read_columns(kCooldownColumns, **query);
    if (!cooldown) return cooldown.error();
    cooldowns.push_back(std::move(*cooldown));
  }
}

}  // namespace orrery
