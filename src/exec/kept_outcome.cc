#include "exec/kept_outcome.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "store/home_layout.h"
#include "store/regular_file.h"

namespace orrery {
namespace {

using nlohmann::json;

// Two output tails (256 KiB each), escaped as JSON, and the rest: far less.
constexpr std::int64_t kMaxKeptOutcomeBytes = 16LL << 20;

template <typename T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

template <typename T>
std::optional<T> optional_from(const json& value) {
  if (value.is_null()) return std::nullopt;
  return value.get<T>();
}

}  // namespace

std::string kept_outcome_path(const std::string& run_dir) {
  return RunDirectory(run_dir).kept_outcome();
}

Status keep_outcome(Env& env, const std::string& run_dir, const KeptOutcome& kept) {
  const RunOutcome& o = kept.outcome;
  const json document{{"claim_token", kept.claim_token},
                      {"finished_at", kept.finished_at},
                      {"status", run_status_name(o.status)},
                      {"exit_code", optional_json(o.exit_code)},
                      {"signal", optional_json(o.signal)},
                      {"error", o.error},
                      {"stdout", o.stdout_tail},
                      {"stderr", o.stderr_tail},
                      {"input_tokens", optional_json(o.usage.input_tokens)},
                      {"output_tokens", optional_json(o.usage.output_tokens)},
                      {"cost_usd", optional_json(o.usage.cost_usd)},
                      {"usage_limited", o.usage_limited},
                      {"usage_limited_until", optional_json(o.usage_limited_until)},
                      {"goal_id", o.goal_id},
                      {"goal_node", o.goal_node},
                      {"goal_update", optional_json(o.goal_update)},
                      {"goal_update_error", o.goal_update_error}};
  const std::string text = write_json(document, 2) + "\n";
  return write_file_atomically(env, kept_outcome_path(run_dir), text, 0600);
}

Result<std::optional<KeptOutcome>> read_kept_outcome(const std::string& run_dir) {
  const std::string path = kept_outcome_path(run_dir);
  // Read with read(2): an iostream throws on a read error (EIO).
  auto text = read_regular_file(path, kMaxKeptOutcomeBytes);
  if (!text) return internal_error("kept outcome " + text.error().message);
  if (!*text) return std::optional<KeptOutcome>{};
  const json document = read_json(**text);
  const Error damaged =
      internal_error("kept outcome " + path + " is damaged: it is not the document orrery writes");
  if (!document.is_object()) return damaged;
  try {
    KeptOutcome kept;
    kept.claim_token = document.at("claim_token").get<std::string>();
    kept.finished_at = document.at("finished_at").get<TimeMs>();
    auto status = parse_run_status(document.at("status").get<std::string>());
    if (!status) return internal_error("kept outcome " + path + ": " + status.error().message);
    RunOutcome& o = kept.outcome;
    o.status = *status;
    o.exit_code = optional_from<int>(document.at("exit_code"));
    o.signal = optional_from<int>(document.at("signal"));
    o.error = document.at("error").get<std::string>();
    o.stdout_tail = document.at("stdout").get<std::string>();
    o.stderr_tail = document.at("stderr").get<std::string>();
    o.usage.input_tokens = optional_from<std::int64_t>(document.at("input_tokens"));
    o.usage.output_tokens = optional_from<std::int64_t>(document.at("output_tokens"));
    o.usage.cost_usd = optional_from<double>(document.at("cost_usd"));
    o.usage_limited = document.at("usage_limited").get<bool>();
    // Absent from outcomes kept before goals.
    if (document.contains("usage_limited_until")) {
      o.usage_limited_until = optional_from<TimeMs>(document.at("usage_limited_until"));
    }
    o.goal_id = document.value("goal_id", std::string());
    o.goal_node = document.value("goal_node", std::string());
    o.goal_update_error = document.value("goal_update_error", std::string());
    if (document.contains("goal_update")) {
      o.goal_update = optional_from<std::string>(document.at("goal_update"));
    }
    return std::optional<KeptOutcome>{kept};
  } catch (const json::exception&) {
    return damaged;
  }
}

}  // namespace orrery
