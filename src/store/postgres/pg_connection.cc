#include "store/postgres/pg_connection.h"

#include <libpq-fe.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <pqxx/pqxx>

#include "store/postgres/libpq_library.h"

namespace orrery::postgres {
namespace {

// The first line of a libpq or server message, without the server's
// "ERROR:  " or "FATAL:  ", also where libpq quotes it after "failed: ".
std::string first_line(std::string message) {
  for (const std::string severity : {"ERROR:  ", "FATAL:  "}) {
    if (message.rfind(severity, 0) == 0) message.erase(0, severity.size());
    const size_t quoted = message.find("failed: " + severity);
    if (quoted != std::string::npos) message.erase(quoted + 8, severity.size());
  }
  const size_t end = message.find('\n');
  if (end != std::string::npos) message.resize(end);
  while (!message.empty() && std::isspace(static_cast<unsigned char>(message.back()))) {
    message.pop_back();
  }
  return message;
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

std::string shortest(double value) {
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

}  // namespace

namespace {

// A libpq keyword value, quoted as a keyword/value connection string wants it.
std::string quoted_value(const std::string& value) {
  std::string out = "'";
  for (const char c : value) {
    if (c == '\\' || c == '\'') out += '\\';
    out += c;
  }
  return out + "'";
}

}  // namespace

// The URL as libpq keyword/value pairs with orrery's session settings in
// them — UTF-8 both ways, no notices on stderr, times as UTC, the busy
// timeout as lock_timeout — so that every connection libpqxx makes for this
// one (it reconnects by itself after a lost connection) has them.
Result<std::string> with_session_settings(const std::string& url, int busy_timeout_ms) {
  // Generic plans: every statement orrery prepares has one shape whatever
  // its parameters, and planning one for each execution cost more than the
  // execution itself (an admission's guarded UPDATE: about 1 ms a plan).
  std::string settings =
      "-c TimeZone=UTC -c client_min_messages=warning -c plan_cache_mode=force_generic_plan "
      "-c lock_timeout=";
  settings += std::to_string(std::max(1, busy_timeout_ms));
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse(url.c_str(), &error);
  if (options == nullptr) {
    std::string reason = error != nullptr ? first_line(error) : "out of memory";
    PQfreemem(error);
    return usage_error(reason);
  }
  std::string conninfo;
  bool had_options = false;
  for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (option->val == nullptr) continue;
    const std::string keyword = option->keyword;
    if (keyword == "client_encoding") continue;  // orrery's: UTF-8
    std::string value = option->val;
    if (keyword == "options") {
      value += " " + settings;
      had_options = true;
    }
    conninfo += keyword + "=" + quoted_value(value) + " ";
  }
  PQconninfoFree(options);
  if (!had_options) conninfo += "options=" + quoted_value(settings) + " ";
  return conninfo + "client_encoding='UTF8'";
}

namespace {

// Notes that a notice came on its channel. libpqxx LISTENs for each receiver
// and LISTENs again when it makes the connection again.
class NoticeFlag final : public pqxx::notification_receiver {
 public:
  NoticeFlag(pqxx::connection_base& connection, const std::string& channel, bool& noticed)
      : pqxx::notification_receiver(connection, channel), noticed_(noticed) {}
  void operator()(const std::string&, int) override { noticed_ = true; }

 private:
  bool& noticed_;
};

}  // namespace

struct PgConnection::Link {
  explicit Link(const std::string& url) : connection(url) {}
  pqxx::connection connection;
  std::unique_ptr<pqxx::work> transaction;
  // After the connection: destroyed before it.
  std::vector<std::unique_ptr<NoticeFlag>> receivers;
  bool noticed = false;
};

NumberedSql dollar_parameters(std::string_view sql) {
  NumberedSql out;
  out.text.reserve(sql.size());
  char quote = 0;  // inside '...' or "..."
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote != 0) {
      if (c == quote) quote = 0;  // a doubled quote closes and reopens: same result
      out.text += c;
      continue;
    }
    if (c == '\'' || c == '"') quote = c;
    if (c == '?' && i + 1 < sql.size() && std::isdigit(static_cast<unsigned char>(sql[i + 1]))) {
      int number = 0;
      size_t j = i + 1;
      while (j < sql.size() && std::isdigit(static_cast<unsigned char>(sql[j]))) {
        number = number * 10 + (sql[j] - '0');
        ++j;
      }
      auto sent = std::find(out.sent.begin(), out.sent.end(), number);
      if (sent == out.sent.end()) sent = out.sent.insert(sent, number);
      out.text += '$';
      out.text += std::to_string(sent - out.sent.begin() + 1);
      out.parameters = std::max(out.parameters, number);
      i = j - 1;
      continue;
    }
    out.text += c;
  }
  return out;
}

// The one place libpqxx exceptions become orrery's error classes
// (docs/storage.md, "Errors").
Error PgConnection::error_for(const std::exception& failure, std::string_view sql) const {
  const std::string operation = sql::describe_operation(sql);
  const std::string at = "the PostgreSQL server " + shown_url_;
  if (dynamic_cast<const pqxx::in_doubt_error*>(&failure) != nullptr) {
    return unavailable_error("lost the connection to " + at + " while " + operation +
                             ": whether it was written is unknown");
  }
  if (dynamic_cast<const pqxx::broken_connection*>(&failure) != nullptr) {
    return unavailable_error("lost the connection to " + at + " while " + operation + ": " +
                             first_line(failure.what()));
  }
  if (dynamic_cast<const pqxx::transaction_rollback*>(&failure) != nullptr) {
    return unavailable_error(at + " gave up " + operation +
                             " because of a concurrent writer; try again");
  }
  const auto* error = dynamic_cast<const pqxx::sql_error*>(&failure);
  if (error == nullptr) {
    return internal_error("database error on " + at + " while " + operation + ": " +
                          first_line(failure.what()));
  }
  const std::string& state = error->sqlstate();
  const std::string reason = first_line(failure.what());
  if (state == "53100") {
    return unavailable_error("disk full: " + at + " cannot write while " + operation +
                             "; free some space on the server and try again");
  }
  if (state == "55P03" || state == "57014") {
    return unavailable_error("database busy: " + at + " gave up " + operation +
                             " waiting for a lock another process holds");
  }
  if (starts_with(state, "08") || starts_with(state, "53") || starts_with(state, "57P")) {
    return unavailable_error(at + " is unavailable (" + operation + "): " + reason);
  }
  if (state == "25006") {
    return usage_error("cannot write to " + at + " while " + operation +
                       ": the server or the connection is read-only");
  }
  if (starts_with(state, "42501")) {
    return usage_error("the role orrery logs in with on " + at + " may not do " + operation + ": " +
                       reason);
  }
  if (starts_with(state, "22")) {
    return usage_error("a value cannot be stored on " + at + " while " + operation + ": " + reason);
  }
  return internal_error("database error on " + at + " while " + operation + ": " + reason);
}

PgStatement::PgStatement(PgConnection& db, std::string name, std::string sql, std::vector<int> sent,
                         int parameters)
    : db_(&db),
      name_(std::move(name)),
      sql_(std::move(sql)),
      sent_(std::move(sent)),
      parameters_(size_t(parameters)) {}

PgStatement::~PgStatement() = default;

void PgStatement::set(int index, std::optional<std::string> value) {
  if (index < 1 || size_t(index) > parameters_.size()) {
    if (bad_index_ == 0) bad_index_ = index;
    return;
  }
  parameters_[size_t(index) - 1] = std::move(value);
}

sql::Statement& PgStatement::bind(int index, std::int64_t value) {
  set(index, std::to_string(value));
  return *this;
}

sql::Statement& PgStatement::bind(int index, double value) {
  set(index, shortest(value));
  return *this;
}

sql::Statement& PgStatement::bind(int index, std::string_view value) {
  set(index, std::string(value));
  return *this;
}

sql::Statement& PgStatement::bind_null(int index) {
  set(index, std::nullopt);
  return *this;
}

Status PgStatement::execute() {
  if (bad_index_ != 0) {
    return internal_error("cannot bind value " + std::to_string(bad_index_) + " while " +
                          sql::describe_operation(sql_));
  }
  for (const auto& parameter : parameters_) {
    if (parameter && parameter->find('\0') != std::string::npos) {
      return usage_error("a value with a NUL byte cannot be stored on the PostgreSQL server " +
                         db_->shown_url() + " while " + sql::describe_operation(sql_));
    }
  }
  std::vector<std::optional<std::string>> sent;
  sent.reserve(sent_.size());
  for (const int number : sent_) sent.push_back(parameters_[size_t(number) - 1]);
  auto rows = db_->run_prepared(name_, sql_, sent);
  if (!rows) return rows.error();
  rows_ = std::make_unique<pqxx::result>(std::move(*rows));
  return Ok{};
}

Result<bool> PgStatement::step() {
  if (!rows_) {
    if (auto executed = execute(); !executed) return executed.error();
  }
  ++row_;
  return row_ < long(rows_->size());
}

void PgStatement::reset() {
  for (auto& parameter : parameters_) parameter.reset();
  rows_.reset();
  row_ = -1;
  bad_index_ = 0;
}

bool PgStatement::is_null(int column) const {
  return (*rows_)[pqxx::result::size_type(row_)][column].is_null();
}

std::int64_t PgStatement::int64(int column) const {
  const auto field = (*rows_)[pqxx::result::size_type(row_)][column];
  if (field.is_null()) return 0;
  const char* text = field.c_str();
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text, text + field.size(), value);
  if (ec == std::errc() && end == text + field.size()) return value;
  // A numeric written with a fraction (an aggregate, say): its integer part.
  return std::int64_t(std::strtod(text, nullptr));
}

double PgStatement::real(int column) const {
  const auto field = (*rows_)[pqxx::result::size_type(row_)][column];
  return field.is_null() ? 0.0 : std::strtod(field.c_str(), nullptr);
}

std::string PgStatement::text(int column) const {
  const auto field = (*rows_)[pqxx::result::size_type(row_)][column];
  return field.is_null() ? std::string() : std::string(field.c_str(), field.size());
}

PgConnection::PgConnection(std::unique_ptr<Link> link, std::string shown_url)
    : link_(std::move(link)), shown_url_(std::move(shown_url)) {}

bool PgConnection::in_transaction() const { return link_->transaction != nullptr; }

PgConnection::~PgConnection() {
  statements_.clear();
  if (link_->transaction) {
    try {
      link_->transaction->abort();
    } catch (const std::exception&) {
    }
    link_->transaction.reset();
  }
}

Result<std::unique_ptr<PgConnection>> PgConnection::open(const std::string& url,
                                                         const std::string& shown_url,
                                                         int busy_timeout_ms) {
  if (Status loaded = load_libpq(); !loaded) {
    return internal_error("cannot connect to the PostgreSQL server " + shown_url + ": " +
                          loaded.error().message);
  }
  auto conninfo = with_session_settings(url, busy_timeout_ms);
  if (!conninfo) {
    return usage_error("cannot connect to the PostgreSQL server " + shown_url + ": " +
                       conninfo.error().message);
  }
  std::unique_ptr<Link> link;
  try {
    link = std::make_unique<Link>(*conninfo);
  } catch (const std::exception& failure) {
    const std::string reason = first_line(failure.what());
    if (reason.find("password") != std::string::npos ||
        reason.find("authentication") != std::string::npos) {
      return usage_error("the PostgreSQL server " + shown_url + " refused the login: " + reason);
    }
    return usage_error("cannot connect to the PostgreSQL server " + shown_url + ": " + reason);
  }
  return std::unique_ptr<PgConnection>(new PgConnection(std::move(link), shown_url));
}

int PgConnection::server_version() const { return link_->connection.server_version(); }

Status PgConnection::exec(std::string_view sql) {
  const std::string text(sql);
  try {
    if (link_->transaction) {
      link_->transaction->exec(text);
    } else {
      pqxx::nontransaction work(link_->connection);
      work.exec(text);
    }
  } catch (const std::exception& failure) {
    return error_for(failure, sql);
  }
  return Ok{};
}

Result<sql::StatementUse> PgConnection::prepare(std::string_view sql) {
  auto found = statements_.find(std::string(sql));
  if (found == statements_.end()) {
    NumberedSql numbered = dollar_parameters(sql);
    std::string name = "orrery_" + std::to_string(statements_.size() + 1);
    try {
      link_->connection.prepare(name, numbered.text);
    } catch (const std::exception& failure) {
      return error_for(failure, sql);
    }
    auto statement = std::make_unique<PgStatement>(*this, std::move(name), std::move(numbered.text),
                                                   std::move(numbered.sent), numbered.parameters);
    found = statements_.emplace(std::string(sql), std::move(statement)).first;
  }
  return sql::StatementUse(*found->second);
}

Result<pqxx::result> PgConnection::run_prepared(
    const std::string& name, const std::string& sql,
    const std::vector<std::optional<std::string>>& parameters) {
  std::vector<const char*> values;
  values.reserve(parameters.size());
  for (const auto& parameter : parameters)
    values.push_back(parameter ? parameter->c_str() : nullptr);
  try {
    pqxx::result rows;
    if (link_->transaction) {
      rows = link_->transaction->exec_prepared(name, pqxx::prepare::make_dynamic_params(values));
    } else {
      pqxx::nontransaction work(link_->connection);
      rows = work.exec_prepared(name, pqxx::prepare::make_dynamic_params(values));
    }
    changes_ = std::int64_t(rows.affected_rows());
    return rows;
  } catch (const std::exception& failure) {
    return error_for(failure, sql);
  }
}

Status PgConnection::begin_write() {
  if (link_->transaction) return internal_error("a write transaction was started inside another");
  try {
    link_->transaction = std::make_unique<pqxx::work>(link_->connection);
  } catch (const std::exception& failure) {
    return error_for(failure, "BEGIN");
  }
  return Ok{};
}

Status PgConnection::commit() {
  if (!link_->transaction) return internal_error("no write transaction to commit");
  auto transaction = std::move(link_->transaction);
  try {
    transaction->commit();
  } catch (const std::exception& failure) {
    return error_for(failure, "COMMIT");
  }
  return Ok{};
}

void PgConnection::rollback() {
  if (!link_->transaction) return;
  auto transaction = std::move(link_->transaction);
  try {
    transaction->abort();
  } catch (const std::exception&) {
    // A connection lost mid-transaction rolls it back on the server.
  }
}

std::string_view PgConnection::row_lock(sql::RowLock lock) const {
  return lock == sql::RowLock::kShare ? " FOR SHARE" : " FOR UPDATE";
}

Status PgConnection::notify(std::string_view channel) {
  auto query = prepare("SELECT pg_notify(?1, '')");
  if (!query) return query.error();
  return (*query)->bind(1, channel).run();
}

Result<int> PgConnection::listen(const std::vector<std::string>& channels) {
  try {
    for (const std::string& channel : channels) {
      const bool known = std::any_of(link_->receivers.begin(), link_->receivers.end(),
                                     [&](const std::unique_ptr<NoticeFlag>& receiver) {
                                       return receiver->channel() == channel;
                                     });
      if (known) continue;
      link_->receivers.push_back(
          std::make_unique<NoticeFlag>(link_->connection, channel, link_->noticed));
    }
  } catch (const std::exception& failure) {
    return error_for(failure, "LISTEN");
  }
  return notice_descriptor();
}

Result<bool> PgConnection::take_notifications() {
  try {
    link_->connection.get_notifs();
  } catch (const std::exception& failure) {
    return error_for(failure, "LISTEN");
  }
  const bool noticed = link_->noticed;
  link_->noticed = false;
  return noticed;
}

int PgConnection::notice_descriptor() const { return link_->connection.sock(); }

Result<std::optional<std::int64_t>> PgConnection::server_time_ms() {
  auto query = prepare("SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint");
  if (!query) return query.error();
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return internal_error("the PostgreSQL server " + shown_url_ + " gave no time");
  return std::optional<std::int64_t>{(*query)->int64(0)};
}

}  // namespace orrery::postgres
