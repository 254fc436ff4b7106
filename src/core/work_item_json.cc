#include "core/work_item_json.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/spec_tree.h"
#include "core/text.h"
#include "core/time.h"

namespace orrery {
namespace {

using Json = nlohmann::json;

std::string compact(const Json& json) { return write_json(json); }

constexpr const char* kEnqueueFields =
    "key, priority, project, group, intent, subject, source, dedupe, input, scope, output_policy";

Result<std::string> string_field(const Json& value, const std::string& field) {
  if (!value.is_string()) {
    return usage_error("\"" + field + "\" must be a string, not " + json_type_name(value));
  }
  return value.get<std::string>();
}

// The object form {a, b, …} of subject and source: strings at the names given.
Status read_parts(const Json& value, const std::string& field,
                  const std::vector<std::pair<const char*, std::string*>>& parts) {
  for (const auto& [name, part] : value.items()) {
    bool known = false;
    for (const auto& [wanted, target] : parts) {
      if (name != wanted) continue;
      auto text = string_field(part, field + "." + name);
      if (!text) return text.error();
      *target = std::move(*text);
      known = true;
    }
    if (!known) {
      std::string accepted;
      for (const auto& [wanted, target] : parts)
        accepted += (accepted.empty() ? "" : ", ") + std::string(wanted);
      return usage_error("\"" + field + "\" has the unknown field \"" + visible(name) +
                         "\"; accepted: " + accepted);
    }
  }
  return Ok{};
}

Status read_subject(const Json& value, SubjectRef& subject) {
  if (value.is_string()) {
    auto parsed = parse_kind_and_id(value.get<std::string>(), "\"subject\"");
    if (!parsed) return parsed.error();
    subject.kind = parsed->kind;
    subject.id = parsed->id;
    return Ok{};
  }
  if (!value.is_object()) {
    return usage_error(
        "\"subject\" must be an object {kind, id, path, url} or \"KIND[:ID]\", not " +
        json_type_name(value));
  }
  return read_parts(value, "subject",
                    {{"kind", &subject.kind},
                     {"id", &subject.id},
                     {"path", &subject.path},
                     {"url", &subject.url}});
}

Status read_source(const Json& value, SourceRef& source) {
  if (value.is_string()) {
    auto parsed = parse_kind_and_id(value.get<std::string>(), "\"source\"");
    if (!parsed) return parsed.error();
    source.kind = parsed->kind;
    source.id = parsed->id;
    return Ok{};
  }
  if (!value.is_object()) {
    return usage_error(
        "\"source\" must be an object {kind, id, dedupe_key} or \"KIND[:ID]\", not " +
        json_type_name(value));
  }
  return read_parts(
      value, "source",
      {{"kind", &source.kind}, {"id", &source.id}, {"dedupe_key", &source.dedupe_key}});
}

Result<std::string> object_field(const Json& value, const std::string& field) {
  if (!value.is_object()) {
    return usage_error("\"" + field + "\" must be a JSON object, not " + json_type_name(value));
  }
  return compact(value);
}

// A key given as a whole number is the number's text, however long.
Result<std::string> key_field(const Json& value) {
  if (value.is_number_integer() || is_whole_number_text(kept_number_text(value))) {
    return write_json(value);
  }
  return string_field(value, "key");
}

Result<std::int64_t> priority_field(const Json& value) {
  const bool whole = value.is_number_integer() || is_whole_number_text(kept_number_text(value));
  if (!whole) {
    return usage_error(
        "\"priority\" must be a whole number, not " +
        (value.is_number() || is_kept_number(value) ? write_json(value) : json_type_name(value)));
  }
  if (is_kept_number(value) || (value.is_number_unsigned() &&
                                value.get<std::uint64_t>() > std::uint64_t(kMaxItemPriority))) {
    return usage_error("\"priority\" " + write_json(value) + " is out of range; give " +
                       std::to_string(-kMaxItemPriority) + " to " +
                       std::to_string(kMaxItemPriority));
  }
  return value.get<std::int64_t>();
}

// Reads one field of an enqueue object into the item.
Status read_field(const std::string& name, const Json& value, WorkItem& item) {
  Invocation& call = item.invocation;
  auto assign = [](Result<std::string> text, std::string& to) -> Status {
    if (!text) return text.error();
    to = std::move(*text);
    return Ok{};
  };
  if (name == "key") return assign(key_field(value), item.key);
  if (name == "priority") {
    auto priority = priority_field(value);
    if (!priority) return priority.error();
    item.priority = *priority;
    return Ok{};
  }
  if (name == "project") return assign(string_field(value, name), item.project);
  if (name == "group") return assign(string_field(value, name), item.group);
  if (name == "intent") return assign(string_field(value, name), call.intent);
  if (name == "dedupe") return assign(string_field(value, name), call.source.dedupe_key);
  if (name == "subject") return read_subject(value, call.subject);
  if (name == "source") return read_source(value, call.source);
  if (name == "input") return assign(object_field(value, name), item.input_json);
  if (name == "scope") return assign(object_field(value, name), call.scope_json);
  if (name == "output_policy") return assign(object_field(value, name), call.output_policy_json);
  return usage_error("unknown field \"" + visible(name) + "\"; accepted: " + kEnqueueFields);
}

}  // namespace

Result<WorkItem> parse_enqueue_object(std::string_view text) {
  if (auto valid = check_utf8(text, "the enqueue object"); !valid) return valid.error();
  // The reading rule of spec files (core/spec_tree.h): a key given twice is
  // refused, naming where.
  auto tree = json_spec_tree(text);
  if (!tree) return usage_error("not valid JSON: " + tree.error().message);
  if (!tree->is_object()) {
    return usage_error(std::string("expected a JSON object with at least \"key\", not ") +
                       json_type_name(*tree));
  }
  WorkItem item;
  for (const auto& [name, value] : tree->items()) {
    if (auto read = read_field(name, value, item); !read) return read.error();
  }
  if (!tree->contains("key")) return usage_error("\"key\" is missing: every item needs a key");
  if (auto valid = check_item_fields(item, FieldNames::kJson); !valid) return valid.error();
  return item;
}

Result<KindAndId> parse_kind_and_id(std::string_view text, std::string_view field) {
  const size_t colon = text.find(':');
  KindAndId parts{std::string(text.substr(0, colon)), colon == std::string_view::npos
                                                          ? std::string()
                                                          : std::string(text.substr(colon + 1))};
  if (parts.kind.empty()) {
    return usage_error(std::string(field) + " '" + visible(text) +
                       "' needs a kind before the ':', e.g. issue:42");
  }
  return parts;
}

Result<std::string> check_json_object(std::string_view text, std::string_view field) {
  const std::string name(field);
  if (text.size() > kMaxItemJsonBytes) {
    return usage_error(name + " is " + std::to_string(text.size()) + " bytes; at most " +
                       std::to_string(kMaxItemJsonBytes) + " bytes are accepted");
  }
  if (auto valid = check_utf8(text, field); !valid) return valid.error();
  auto tree = json_spec_tree(text);
  if (!tree) {
    return usage_error(name + " is not valid JSON (" + tree.error().message +
                       "): expected an object like {\"key\": \"value\"}");
  }
  if (!tree->is_object()) {
    return usage_error(name + " must be a JSON object like {\"key\": \"value\"}, not " +
                       json_type_name(*tree));
  }
  return compact(*tree);
}

}  // namespace orrery
