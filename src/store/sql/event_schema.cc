#include "store/sql/event_schema.h"

#include <utility>
#include <vector>

namespace orrery::sql {
namespace {

using Fields = std::vector<std::pair<const char*, const char*>>;

enum class Fires { kInsert, kUpdate, kDelete };

// One trigger: when it fires, and the event it journals. Expressions are
// written over the row as `R.column` (NEW, or OLD for a delete); `@now` is
// the database's clock in milliseconds.
struct EventTrigger {
  const char* name;
  const char* table;
  Fires fires;
  const char* update_of = "";          // the columns an update trigger watches
  std::vector<const char*> changed{};  // fires only when one of these changed
  const char* condition = "";          // and this holds (written over NEW and OLD)
  const char* kind = "";               // the event's kind
  const char* subject = "R.id";        // the id it is about
  const char* at = "R.updated_at";     // when
  Fields payload{};
};

const Fields kRunFields = {
    {"run_id", "R.id"},
    {"loop_id", "R.loop_id"},
    {"loop_name", "R.loop_name"},
    {"status", "R.status"},
    {"scheduled_for", "R.scheduled_for"},
    {"attempt", "R.attempt"},
    {"started_at", "R.started_at"},
    {"finished_at", "R.finished_at"},
    {"exit_code", "R.exit_code"},
    {"duration_ms", "R.duration_ms"},
    {"skip_reason", "R.skip_reason"},
};

const Fields kLoopFields = {
    {"loop_id", "R.id"},
    {"name", "R.name"},
    {"status", "R.status"},
    {"archived", "R.archived"},
    {"next_run_at", "R.next_run_at"},
};

// The lease id is a fence: it is not told.
const Fields kLeaseFields = {
    {"generation", "R.generation"},
    {"host", "R.host"},
    {"pid", "R.pid"},
    {"expires_at", "R.expires_at"},
};

const Fields kWorkflowRunFields = {
    {"workflow_run_id", "R.id"},
    {"workflow_name", "R.workflow_name"},
    {"workflow_version", "R.workflow_version"},
    {"status", "R.status"},
    {"loop_run_id", "R.loop_run_id"},
    {"item_id", "R.item_id"},
};

const Fields kItemFields = {
    {"item_id", "R.id"},
    {"route_id", "R.route_id"},
    {"route", "(SELECT name FROM routes WHERE routes.id = R.route_id)"},
    {"key", "R.item_key"},
    {"status", "R.status"},
    {"project", "R.project"},
    {"attempts", "R.attempts"},
    {"workflow_run_id", "R.workflow_run_id"},
};

const Fields kGoalFields = {
    {"goal_id", "R.id"},
    {"status", "R.status"},
    {"status_reason", "R.status_reason"},
    {"tokens_used", "R.tokens_used"},
    {"token_budget", "R.token_budget"},
    {"turns", "R.turns"},
};

const Fields kMergeFields = {
    {"entry_id", "R.id"},   {"worker_id", "R.worker_id"}, {"repo", "R.repo"},
    {"target", "R.target"}, {"state", "R.state"},         {"reason", "R.reason"},
};

const std::vector<EventTrigger>& event_triggers() {
  static const std::vector<EventTrigger> triggers = {
      {"run_created",
       "runs",
       Fires::kInsert,
       "",
       {},
       "",
       "'run.' || R.status",
       "R.id",
       "R.updated_at",
       kRunFields},
      {"run_status",
       "runs",
       Fires::kUpdate,
       "status",
       {"status"},
       "",
       "'run.' || R.status",
       "R.id",
       "R.updated_at",
       kRunFields},
      {"loop_created",
       "loops",
       Fires::kInsert,
       "",
       {},
       "",
       "'loop.created'",
       "R.id",
       "R.updated_at",
       kLoopFields},
      {"loop_changed",
       "loops",
       Fires::kUpdate,
       "status, archived, name",
       {"status", "archived", "name"},
       "",
       "'loop.changed'",
       "R.id",
       "R.updated_at",
       kLoopFields},
      {"loop_removed",
       "loops",
       Fires::kDelete,
       "",
       {},
       "",
       "'loop.removed'",
       "R.id",
       "@now",
       kLoopFields},
      {"lease_taken",
       "daemon_lease",
       Fires::kInsert,
       "",
       {},
       "",
       "'lease.acquired'",
       "R.host",
       "R.acquired_at",
       kLeaseFields},
      {"lease_moved",
       "daemon_lease",
       Fires::kUpdate,
       "lease_id, generation",
       {"lease_id", "generation"},
       "",
       "'lease.acquired'",
       "R.host",
       "R.acquired_at",
       kLeaseFields},
      {"lease_released",
       "daemon_lease",
       Fires::kUpdate,
       "expires_at",
       {},
       "NEW.expires_at = 0 AND OLD.expires_at <> 0",
       "'lease.released'",
       "R.host",
       "R.heartbeat_at",
       kLeaseFields},
      {"cooldown",
       "cooldowns",
       Fires::kUpdate,
       "until_at",
       {"until_at"},
       "",
       "'cooldown.recorded'",
       "R.account",
       "R.updated_at",
       {{"account", "R.account"},
        {"until_at", "R.until_at"},
        {"hits", "R.hits"},
        {"reason", "R.reason"}}},
      {"workflow_run_created",
       "workflow_runs",
       Fires::kInsert,
       "",
       {},
       "",
       "'workflow_run.' || R.status",
       "R.id",
       "R.updated_at",
       kWorkflowRunFields},
      {"workflow_run_status",
       "workflow_runs",
       Fires::kUpdate,
       "status",
       {"status"},
       "",
       "'workflow_run.' || R.status",
       "R.id",
       "R.updated_at",
       kWorkflowRunFields},
      {"workflow_event",
       "workflow_events",
       Fires::kInsert,
       "",
       {},
       "",
       "'workflow.' || R.event_type",
       "R.run_id",
       "R.created_at",
       {{"workflow_run_id", "R.run_id"},
        {"sequence", "R.sequence"},
        {"event_type", "R.event_type"},
        {"step_id", "R.step_id"}}},
      {"item_created",
       "work_items",
       Fires::kInsert,
       "",
       {},
       "",
       "'item.' || R.status",
       "R.id",
       "R.updated_at",
       kItemFields},
      {"item_status",
       "work_items",
       Fires::kUpdate,
       "status",
       {"status"},
       "",
       "'item.' || R.status",
       "R.id",
       "R.updated_at",
       kItemFields},
      {"goal_created",
       "goals",
       Fires::kInsert,
       "",
       {},
       "",
       "'goal.' || R.status",
       "R.id",
       "R.updated_at",
       kGoalFields},
      {"goal_status",
       "goals",
       Fires::kUpdate,
       "status",
       {"status"},
       "",
       "'goal.' || R.status",
       "R.id",
       "R.updated_at",
       kGoalFields},
      {"goal_budget",
       "goals",
       Fires::kUpdate,
       "token_budget",
       {"token_budget"},
       "",
       "'goal.budget'",
       "R.id",
       "R.updated_at",
       kGoalFields},
      {"goal_turn",
       "goal_turns",
       Fires::kInsert,
       "",
       {},
       "",
       "'goal.turn'",
       "R.goal_id",
       "R.created_at",
       {{"goal_id", "R.goal_id"},
        {"turn", "R.turn"},
        {"status", "R.status"},
        {"run_status", "R.run_status"},
        {"tokens_used", "R.tokens_used"},
        {"spent", "R.spent"}}},
      {"worker_event",
       "worker_events",
       Fires::kInsert,
       "",
       {},
       "",
       "'worker.' || R.to_state",
       "R.worker_id",
       "R.created_at",
       {{"worker_id", "R.worker_id"},
        {"sequence", "R.sequence"},
        {"from_state", "R.from_state"},
        {"to_state", "R.to_state"},
        {"reason", "R.reason"}}},
      {"merge_created",
       "merge_entries",
       Fires::kInsert,
       "",
       {},
       "",
       "'merge.' || R.state",
       "R.id",
       "R.updated_at",
       kMergeFields},
      {"merge_state",
       "merge_entries",
       Fires::kUpdate,
       "state",
       {"state"},
       "",
       "'merge.' || R.state",
       "R.id",
       "R.updated_at",
       kMergeFields},
  };
  return triggers;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

// An expression of the trigger, over its row and the dialect's clock.
std::string expression(const EventTrigger& trigger, const char* text, SqlDialect dialect) {
  std::string written = replaced(text, "R.", trigger.fires == Fires::kDelete ? "OLD." : "NEW.");
  const std::string now = dialect == SqlDialect::kSqlite
                              ? "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)"
                              : "CAST(EXTRACT(EPOCH FROM clock_timestamp()) * 1000 AS BIGINT)";
  return replaced(written, "@now", now);
}

std::string payload(const EventTrigger& trigger, SqlDialect dialect) {
  std::string text = dialect == SqlDialect::kSqlite ? "json_object(" : "json_build_object(";
  bool first = true;
  for (const auto& [key, value] : trigger.payload) {
    if (!first) text += ", ";
    first = false;
    text += "'";
    text += key;
    text += "', ";
    text += expression(trigger, value, dialect);
  }
  return text + ")";
}

std::string fires_on(const EventTrigger& trigger) {
  std::string text = "AFTER ";
  if (trigger.fires == Fires::kInsert) return text + "INSERT ON " + trigger.table;
  if (trigger.fires == Fires::kDelete) return text + "DELETE ON " + trigger.table;
  return text + "UPDATE OF " + trigger.update_of + " ON " + trigger.table;
}

// The trigger's WHEN condition, or "".
std::string condition(const EventTrigger& trigger, SqlDialect dialect) {
  const char* differs = dialect == SqlDialect::kSqlite ? " IS NOT " : " IS DISTINCT FROM ";
  std::string text;
  for (const char* column : trigger.changed) {
    if (!text.empty()) text += " OR ";
    text += "NEW.";
    text += column;
    text += differs;
    text += "OLD.";
    text += column;
  }
  if (*trigger.condition != '\0') {
    if (!text.empty()) text = "(" + text + ") AND ";
    text += trigger.condition;
  }
  return text;
}

std::string values(const EventTrigger& trigger, SqlDialect dialect) {
  std::string text = expression(trigger, trigger.at, dialect);
  text += ", ";
  text += expression(trigger, trigger.kind, dialect);
  text += ", ";
  text += expression(trigger, trigger.subject, dialect);
  text += ", ";
  text += payload(trigger, dialect);
  return text;
}

std::string sqlite_schema() {
  std::string text =
      "CREATE TABLE events (\n"
      "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n"
      "  at INTEGER NOT NULL,\n"
      "  kind TEXT NOT NULL,\n"
      "  subject TEXT NOT NULL,\n"
      "  payload_json TEXT NOT NULL\n"
      ");\n"
      "CREATE TRIGGER events_keep_recent AFTER INSERT ON events WHEN NEW.id % 64 = 0 BEGIN\n"
      "  DELETE FROM events WHERE id <= NEW.id - " +
      std::to_string(kJournalKeep) + ";\nEND;\n";
  for (const EventTrigger& trigger : event_triggers()) {
    text += "CREATE TRIGGER events_";
    text += trigger.name;
    text += ' ';
    text += fires_on(trigger);
    if (const std::string when = condition(trigger, SqlDialect::kSqlite); !when.empty()) {
      text += " WHEN ";
      text += when;
    }
    text += " BEGIN\n  INSERT INTO events (at, kind, subject, payload_json) VALUES (";
    text += values(trigger, SqlDialect::kSqlite);
    text += ");\nEND;\n";
  }
  return text;
}

std::string postgres_schema() {
  std::string text =
      "CREATE TABLE events (\n"
      "  id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,\n"
      "  at BIGINT NOT NULL,\n"
      "  kind TEXT COLLATE \"C\" NOT NULL,\n"
      "  subject TEXT COLLATE \"C\" NOT NULL,\n"
      "  payload_json TEXT COLLATE \"C\" NOT NULL\n"
      ");\n"
      "CREATE FUNCTION orrery_journal(event_at BIGINT, event_kind TEXT, event_subject TEXT, "
      "event_payload JSON) RETURNS void LANGUAGE plpgsql AS $$\n"
      "DECLARE written BIGINT;\n"
      "BEGIN\n"
      "  INSERT INTO events (at, kind, subject, payload_json)\n"
      "    VALUES (event_at, event_kind, event_subject, event_payload::text) RETURNING id INTO "
      "written;\n"
      "  IF written % 64 = 0 THEN\n"
      "    DELETE FROM events WHERE id IN (SELECT id FROM events WHERE id <= written - " +
      std::to_string(kJournalKeep) +
      "\n      ORDER BY id LIMIT 256 FOR UPDATE SKIP LOCKED);\n"
      "  END IF;\n"
      "END;\n$$;\n";
  for (const EventTrigger& trigger : event_triggers()) {
    const std::string function = std::string("orrery_event_") + trigger.name;
    // Appended piece by piece: GCC 12 at -O3 warns (-Wrestrict) on
    // "literal" + a temporary string.
    text += "CREATE FUNCTION ";
    text += function;
    text += "() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n  PERFORM orrery_journal(";
    text += values(trigger, SqlDialect::kPostgres);
    text += ");\n  RETURN NULL;\nEND;\n$$;\nCREATE TRIGGER events_";
    text += trigger.name;
    text += ' ';
    text += fires_on(trigger);
    text += " FOR EACH ROW";
    if (const std::string when = condition(trigger, SqlDialect::kPostgres); !when.empty()) {
      text += " WHEN (";
      text += when;
      text += ')';
    }
    text += " EXECUTE FUNCTION ";
    text += function;
    text += "();\n";
  }
  return text;
}

}  // namespace

std::string event_journal_schema(SqlDialect dialect) {
  return dialect == SqlDialect::kSqlite ? sqlite_schema() : postgres_schema();
}

}  // namespace orrery::sql
