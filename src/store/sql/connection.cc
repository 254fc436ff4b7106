#include "store/sql/connection.h"

#include <cctype>
#include <utility>

namespace orrery::sql {
bool starts_with_keyword(std::string_view text, std::string_view word) {
  if (text.size() < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (std::toupper(static_cast<unsigned char>(text[i])) != word[i]) return false;
  }
  return text.size() == word.size() || !std::isalnum(static_cast<unsigned char>(text[word.size()]));
}

namespace {

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The first orrery table the statement names, as a user would say it.
std::string_view subject_of(std::string_view sql) {
  static constexpr std::pair<std::string_view, std::string_view> kTables[] = {
      {"daemon_lease", "the daemon lease"},
      {"schema_migrations", "the schema history"},
      {"cooldowns", "cooldowns"},
      {"loops", "loops"},
      {"runs", "runs"},
      {"runners", "runners"},
      {"workflows", "workflows"},
      {"workflow_runs", "workflow runs"},
      {"workflow_steps", "workflow steps"},
      {"workflow_attempts", "step attempts"},
      {"workflow_events", "workflow events"},
      {"events", "the event journal"},
      {"sqlite_master", "the schema"},
  };
  size_t best = std::string_view::npos;
  std::string_view subject = "the database";
  for (const auto& [table, words] : kTables) {
    for (size_t at = sql.find(table); at != std::string_view::npos; at = sql.find(table, at + 1)) {
      const size_t end = at + table.size();
      const bool starts = at == 0 || !is_name_char(sql[at - 1]);
      const bool ends = end == sql.size() || !is_name_char(sql[end]);
      if (starts && ends) {
        if (at < best) {
          best = at;
          subject = words;
        }
        break;
      }
    }
  }
  return subject;
}

}  // namespace

Status Statement::run() {
  while (true) {
    auto row = step();
    if (!row) return row.error();
    if (!*row) return Ok{};
  }
}

std::optional<std::int64_t> Statement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

Result<std::unique_ptr<Transaction>> Transaction::begin(Connection& db) {
  if (auto status = db.begin_write(); !status) return status.error();
  return std::unique_ptr<Transaction>(new Transaction(db));
}

Transaction::~Transaction() {
  if (!done_ && db_.in_transaction()) db_.rollback();
}

Status Transaction::commit() {
  if (done_) return internal_error("a write transaction was finished twice");
  done_ = true;
  Status committed = db_.commit();
  // A failed COMMIT can leave the transaction open.
  if (!committed && db_.in_transaction()) db_.rollback();
  return committed;
}

std::string describe_operation(std::string_view sql) {
  while (!sql.empty() && std::isspace(static_cast<unsigned char>(sql.front()))) {
    sql.remove_prefix(1);
  }
  const std::string subject(subject_of(sql));
  if (starts_with_keyword(sql, "SELECT") || starts_with_keyword(sql, "WITH"))
    return "reading " + subject;
  if (starts_with_keyword(sql, "INSERT")) return "writing " + subject;
  if (starts_with_keyword(sql, "UPDATE")) return "updating " + subject;
  if (starts_with_keyword(sql, "DELETE")) return "deleting " + subject;
  if (starts_with_keyword(sql, "BEGIN")) return "starting a write transaction";
  if (starts_with_keyword(sql, "COMMIT")) return "committing a write transaction";
  if (starts_with_keyword(sql, "ROLLBACK")) return "rolling back a write transaction";
  if (starts_with_keyword(sql, "CREATE") || starts_with_keyword(sql, "ALTER") ||
      starts_with_keyword(sql, "DROP")) {
    return "changing the schema";
  }
  if (starts_with_keyword(sql, "LISTEN")) return "listening for notices";
  if (starts_with_keyword(sql, "PRAGMA")) {
    if (sql.find("journal_mode") != std::string_view::npos) return "switching to the WAL journal";
    if (sql.find("user_version") != std::string_view::npos) return "reading the schema version";
    if (sql.find("quick_check") != std::string_view::npos) return "checking the database";
    return "configuring the connection";
  }
  return "using the database";
}

}  // namespace orrery::sql
