#include "core/prompt_values.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"

namespace orrery {
namespace {

using Json = nlohmann::json;

Json text_or_null(const std::string& text) { return text.empty() ? Json() : Json(text); }

// A stored JSON document as the object it is; null when it is not one.
Json object_of(const std::string& text) {
  Json parsed = read_json(text);
  return parsed.is_object() ? parsed : Json();
}

Json item_values(const WorkItem& item) {
  const Invocation& call = item.invocation;
  return Json{
      {"id", item.id},
      {"key", item.key},
      {"title", text_or_null(call.intent)},
      {"route", item.route_name},
      {"project", text_or_null(item.project)},
      {"group", text_or_null(item.group)},
      {"priority", item.priority},
      {"attempt", item.attempts},
      {"url", text_or_null(call.subject.url)},
      {"subject",
       {{"kind", text_or_null(call.subject.kind)},
        {"id", text_or_null(call.subject.id)},
        {"url", text_or_null(call.subject.url)},
        {"path", text_or_null(call.subject.path)}}},
      {"source", {{"kind", text_or_null(call.source.kind)}, {"id", text_or_null(call.source.id)}}},
      {"payload", object_of(item.input_json)}};
}

Json goal_values(const std::string& document) {
  const Json goal = object_of(document);
  if (goal.is_null()) return Json();
  return Json{{"id", goal.value("id", Json())}, {"objective", goal.value("objective", Json())}};
}

std::string without_leading_lines(const std::string& text) {
  const std::size_t start = text.find_first_not_of('\n');
  return start == std::string::npos ? "" : text.substr(start);
}

}  // namespace

std::string prompt_values_json(const PromptValuesInput& input) {
  Json values{{"item", input.item ? item_values(*input.item) : Json()},
              {"run",
               {{"id", input.run_id},
                {"attempt", input.step_attempt},
                {"input", object_of(input.run_input_json)}}},
              {"workflow", {{"name", input.workflow_name}}},
              {"goal", goal_values(input.goal_document)},
              {"feedback", text_or_null(without_leading_lines(input.feedback_section))},
              {"steps", object_of(input.steps_document)}};
  return write_json(values);
}

}  // namespace orrery
