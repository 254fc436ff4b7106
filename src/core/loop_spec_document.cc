#include "core/loop_spec_document.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/spec_fields.h"

namespace orrery {
namespace {

using nlohmann::json;

Status read_text(const json& document, const char* key, std::string& into) {
  auto value = text_field(document, key, key);
  if (!value) return value.error();
  into = std::move(*value);
  return Ok{};
}

Status read_flag(const json& document, const char* key, bool& into) {
  const json* value = field(document, key);
  if (value == nullptr) return Ok{};
  if (!value->is_boolean()) return wrong_type(key, "true or false", *value);
  into = value->get<bool>();
  return Ok{};
}

Status read_number(const json& document, const char* key, std::optional<int>& into) {
  const json* value = field(document, key);
  if (value == nullptr) return Ok{};
  if (!value->is_number_integer() || *value < INT32_MIN || *value > INT32_MAX) {
    return wrong_type(key, "a whole number", *value);
  }
  into = value->get<int>();
  return Ok{};
}

Status read_list(const json& document, const char* key, std::vector<std::string>& into) {
  auto list = text_list(document, key, key);
  if (!list) return list.error();
  into = std::move(*list);
  return Ok{};
}

// A list of "K=V", or an object {"K": "V"} read as that list.
Status read_assignments(const json& document, const char* key, std::vector<std::string>& into) {
  const json* value = field(document, key);
  if (value == nullptr || !value->is_object()) return read_list(document, key, into);
  for (const auto& [name, text] : value->items()) {
    const std::string where = std::string(key) + "." + name;
    auto checked = text_value(text, where);
    if (!checked) return checked.error();
    into.push_back(name + "=" + *checked);
  }
  return Ok{};
}

Status read_texts(const json& d, LoopSpec& s) {
  const std::pair<const char*, std::string*> texts[] = {
      {"name", &s.name},
      {"description", &s.description},
      {"cron", &s.cron},
      {"every", &s.every},
      {"at", &s.at},
      {"min", &s.min},
      {"max", &s.max},
      {"tz", &s.tz},
      {"jitter", &s.jitter},
      {"catch_up", &s.catch_up},
      {"catch_up_window", &s.catch_up_window},
      {"overlap", &s.overlap},
      {"retry_delay", &s.retry_delay},
      {"retry_backoff", &s.retry_backoff},
      {"lease", &s.lease},
      {"timeout", &s.timeout},
      {"idle_timeout", &s.idle_timeout},
      {"expires", &s.expires},
      {"cwd", &s.cwd},
      {"shell", &s.shell},
      {"agent", &s.agent},
      {"prompt", &s.prompt},
      {"prompt_file", &s.prompt_file},
      {"model", &s.model},
      {"effort", &s.effort},
      {"permission_mode", &s.permission_mode},
      {"sandbox", &s.sandbox},
      {"agent_name", &s.agent_name},
      {"config_isolation", &s.config_isolation},
      {"auth_profile", &s.auth_profile},
      {"workflow", &s.workflow},
      {"log_limit", &s.log_limit},
      {"feed", &s.feed},
  };
  for (const auto& [key, into] : texts) {
    if (auto read = read_text(d, key, *into); !read) return read;
  }
  return Ok{};
}

// A workflow's input is a JSON object; given as one, it is kept as its text.
Status read_input(const json& d, LoopSpec& s) {
  const json* value = field(d, "input");
  if (value != nullptr && value->is_object()) {
    s.input = write_json(*value);
    return Ok{};
  }
  return read_text(d, "input", s.input);
}

Status read_others(const json& d, LoopSpec& s) {
  const std::pair<const char*, bool*> flags[] = {
      {"fixed_delay", &s.fixed_delay}, {"dynamic", &s.dynamic}, {"no_feed", &s.no_feed}};
  for (const auto& [key, into] : flags) {
    if (auto read = read_flag(d, key, *into); !read) return read;
  }
  if (auto read = read_number(d, "catch_up_limit", s.catch_up_limit); !read) return read;
  if (auto read = read_number(d, "max_attempts", s.max_attempts); !read) return read;
  const std::pair<const char*, std::vector<std::string>*> lists[] = {
      {"command", &s.command}, {"add_dirs", &s.add_dirs}, {"agent_args", &s.agent_args}};
  for (const auto& [key, into] : lists) {
    if (auto read = read_list(d, key, *into); !read) return read;
  }
  const std::pair<const char*, std::vector<std::string>*> assignments[] = {
      {"env", &s.env}, {"secret_env", &s.secret_env}, {"machine", &s.machine}};
  for (const auto& [key, into] : assignments) {
    if (auto read = read_assignments(d, key, *into); !read) return read;
  }
  return read_input(d, s);
}

}  // namespace

Result<LoopSpec> loop_spec_from_document(const json& document, SpecUse use) {
  if (!document.is_object()) return wrong_type("the loop", "an object", document);
  auto keys = check_keys(document,
                         {"name",
                          "description",
                          "cron",
                          "every",
                          "fixed_delay",
                          "at",
                          "dynamic",
                          "min",
                          "max",
                          "tz",
                          "jitter",
                          "catch_up",
                          "catch_up_limit",
                          "catch_up_window",
                          "overlap",
                          "max_attempts",
                          "retry_delay",
                          "retry_backoff",
                          "lease",
                          "timeout",
                          "idle_timeout",
                          "expires",
                          "cwd",
                          "env",
                          "secret_env",
                          "machine",
                          "command",
                          "shell",
                          "agent",
                          "prompt",
                          "prompt_file",
                          "model",
                          "effort",
                          "permission_mode",
                          "sandbox",
                          "agent_name",
                          "config_isolation",
                          "add_dirs",
                          "agent_args",
                          "auth_profile",
                          "workflow",
                          "input",
                          "log_limit",
                          "feed",
                          "no_feed"},
                         "the loop");
  if (!keys) return keys.error();
  if (use == SpecUse::kCreate && field(document, "no_feed") != nullptr) {
    return usage_error(
        "the loop: no_feed is for an edit; a new loop feeds no route unless given feed");
  }
  if (use == SpecUse::kEdit && field(document, "name") != nullptr) {
    return usage_error(
        "the loop: an edit cannot change the name; rename the loop instead "
        "(orrery rename LOOP NEW_NAME)");
  }
  LoopSpec spec;
  if (auto read = read_texts(document, spec); !read) return read.error();
  if (auto read = read_others(document, spec); !read) return read.error();
  return spec;
}

}  // namespace orrery
