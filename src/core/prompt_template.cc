#include "core/prompt_template.h"

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/exact_json.h"
#include "core/text.h"

namespace orrery {
namespace {

using Json = nlohmann::json;

// One piece of a template: text as written, or a tag.
struct Piece {
  bool is_tag = false;
  bool is_literal = false;  // a "string" tag: its text is written as it is
  bool optional = false;
  std::string text;  // the text, the string, or the name
  std::size_t offset = 0;
};

constexpr std::array<std::string_view, 21> kFixedNames = {
    "item.id",           "item.key",          "item.title",      "item.route",
    "item.project",      "item.group",        "item.priority",   "item.attempt",
    "item.url",          "item.subject.kind", "item.subject.id", "item.subject.url",
    "item.subject.path", "item.source.kind",  "item.source.id",  "run.id",
    "run.attempt",       "workflow.name",     "goal.id",         "goal.objective",
    "feedback"};
constexpr std::array<std::string_view, 2> kObjectPrefixes = {"item.payload.", "run.input."};

bool space(char c) { return c == ' ' || c == '\t'; }

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == '-';
}

std::string at_byte(std::string_view field, std::size_t offset) {
  return std::string(field) + ": the tag at byte " + std::to_string(offset) + " ";
}

// The tag that starts at `open` (its "{{"); `end` is set past its "}}".
Result<Piece> parse_tag(std::string_view text, std::size_t open, std::string_view field,
                        std::size_t& end) {
  Piece tag;
  tag.is_tag = true;
  tag.offset = open;
  std::size_t at = open + 2;
  while (at < text.size() && space(text[at])) ++at;
  if (at < text.size() && text[at] == '"') {
    const std::size_t close = text.find('"', at + 1);
    if (close == std::string_view::npos)
      return usage_error(at_byte(field, open) + "opens a string that no '\"' ends");
    tag.is_literal = true;
    tag.text = std::string(text.substr(at + 1, close - at - 1));
    at = close + 1;
  } else {
    const std::size_t start = at;
    while (at < text.size() && name_char(text[at])) ++at;
    tag.text = std::string(text.substr(start, at - start));
    if (tag.text.empty() || tag.text.front() == '.' || tag.text.back() == '.' ||
        tag.text.find("..") != std::string::npos) {
      return usage_error(at_byte(field, open) +
                         "needs a name (item.key), a name with ? (item.url?) or a \"string\", "
                         "found '" +
                         visible(text.substr(open, 40)) + "'");
    }
    if (at < text.size() && text[at] == '?') {
      tag.optional = true;
      ++at;
    }
  }
  while (at < text.size() && space(text[at])) ++at;
  if (text.substr(at, 2) != "}}") {
    return usage_error(at_byte(field, open) + "is not closed by }}: '" +
                       visible(text.substr(open, 40)) + "'");
  }
  end = at + 2;
  return tag;
}

Result<std::vector<Piece>> parse(std::string_view text, std::string_view field) {
  if (auto valid = check_utf8(text, field); !valid) return valid.error();
  std::vector<Piece> pieces;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t open = text.find("{{", at);
    if (open == std::string_view::npos) {
      pieces.push_back({false, false, false, std::string(text.substr(at)), at});
      break;
    }
    if (open > at)
      pieces.push_back({false, false, false, std::string(text.substr(at, open - at)), at});
    std::size_t end = open;
    auto tag = parse_tag(text, open, field, end);
    if (!tag) return tag.error();
    pieces.push_back(std::move(*tag));
    at = end;
  }
  return pieces;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

// The longest step id of `ids` that `rest` starts with, followed by a dot.
template <typename Ids>
std::string step_of(std::string_view rest, const Ids& ids) {
  std::string best;
  for (const auto& id : ids) {
    const std::string_view step = id;
    if (step.size() > best.size() && rest.size() > step.size() && starts_with(rest, step) &&
        rest[step.size()] == '.')
      best = std::string(step);
  }
  return best;
}

// What follows "steps.ID." in a name a template may use.
bool known_step_field(std::string_view field) {
  return field == "status" || field == "exit_code" ||
         (starts_with(field, "outputs.") && field.size() > 8);
}

bool known_name(std::string_view name, const TemplateScope& scope) {
  for (std::string_view fixed : kFixedNames)
    if (name == fixed) return true;
  for (std::string_view prefix : kObjectPrefixes)
    if (starts_with(name, prefix) && name.size() > prefix.size()) return true;
  if (!starts_with(name, "steps.")) return false;
  const std::string_view rest = name.substr(6);
  const std::string step = step_of(rest, scope.steps);
  return !step.empty() && known_step_field(rest.substr(step.size() + 1));
}

std::string known_names(const TemplateScope& scope) {
  std::string text;
  for (std::string_view fixed : kFixedNames) text += std::string(fixed) + ", ";
  text += "item.payload.<path>, run.input.<path>, ";
  if (scope.steps.empty()) return text + "and no steps.* (this step depends on no step)";
  text += "and steps.<step>.status, .exit_code or .outputs.<key> for the steps it depends on (";
  std::size_t shown = 0;
  for (const std::string& step : scope.steps) {
    if (shown++ == 10) {
      text += ", …";
      break;
    }
    text += (shown > 1 ? ", " : "") + step;
  }
  return text + ")";
}

// The value at the dotted path below `from`; null when there is none.
const Json& at_path(const Json& from, std::string_view path) {
  static const Json kNone;
  const Json* node = &from;
  std::size_t at = 0;
  while (at <= path.size()) {
    const std::size_t dot = std::min(path.find('.', at), path.size());
    const std::string key(path.substr(at, dot - at));
    if (!node->is_object()) return kNone;
    auto found = node->find(key);
    if (found == node->end()) return kNone;
    node = &*found;
    at = dot + 1;
  }
  return *node;
}

const Json& member(const Json& object, const std::string& key) {
  static const Json kNone;
  if (!object.is_object()) return kNone;
  auto found = object.find(key);
  return found == object.end() ? kNone : *found;
}

const Json& value_of(const Json& values, std::string_view name) {
  static const Json kNone;
  if (starts_with(name, "steps.")) {
    const Json& steps = member(values, "steps");
    if (!steps.is_object()) return kNone;
    std::vector<std::string> ids;
    for (auto it = steps.begin(); it != steps.end(); ++it) ids.push_back(it.key());
    const std::string_view rest = name.substr(6);
    const std::string step = step_of(rest, ids);
    if (step.empty()) return kNone;
    const std::string_view field = rest.substr(step.size() + 1);
    const Json& values_of_step = member(steps, step);
    if (starts_with(field, "outputs."))
      return member(member(values_of_step, "outputs"), std::string(field.substr(8)));
    return member(values_of_step, std::string(field));
  }
  return at_path(values, name);
}

// The text a value is inserted as; nothing for null (or missing).
std::optional<std::string> text_of(const Json& value) {
  if (value.is_null()) return std::nullopt;
  if (value.is_string()) return value.get<std::string>();
  return write_json(value);
}

Error unknown_name(const Piece& piece, const TemplateScope& scope, std::string_view field) {
  return usage_error(std::string(field) + ": {{ " + piece.text + " }} at byte " +
                     std::to_string(piece.offset) +
                     " names nothing a step has; known: " + known_names(scope));
}

}  // namespace

Result<std::vector<std::string>> check_template(std::string_view text, const TemplateScope& scope,
                                                std::string_view field) {
  auto pieces = parse(text, field);
  if (!pieces) return pieces.error();
  std::vector<std::string> names;
  for (const Piece& piece : *pieces) {
    if (!piece.is_tag || piece.is_literal) continue;
    if (!known_name(piece.text, scope)) return unknown_name(piece, scope, field);
    if (std::find(names.begin(), names.end(), piece.text) == names.end())
      names.push_back(piece.text);
  }
  return names;
}

Result<std::string> render_template(std::string_view text, std::string_view values_json,
                                    std::string_view field) {
  auto pieces = parse(text, field);
  if (!pieces) return pieces.error();
  const Json values = read_json(values_json);
  if (!values.is_object())
    return internal_error("the values of a prompt template are not an object");
  // A prompt read from a file is checked here, against the steps the run has.
  TemplateScope scope;
  const Json& steps = member(values, "steps");
  if (steps.is_object()) {
    for (auto it = steps.begin(); it != steps.end(); ++it) scope.steps.insert(it.key());
  }
  std::string out;
  for (const Piece& piece : *pieces) {
    if (piece.is_tag && !piece.is_literal && !known_name(piece.text, scope)) {
      return unknown_name(piece, scope, field);
    }
    if (!piece.is_tag || piece.is_literal) {
      out += piece.text;
    } else if (auto value = text_of(value_of(values, piece.text))) {
      out += *value;
    } else if (!piece.optional) {
      return usage_error(std::string(field) + ": {{ " + piece.text +
                         " }} has no value in this run; write {{ " + piece.text +
                         "? }} to let it be empty");
    }
    if (out.size() > kMaxRenderedPromptBytes) {
      return usage_error(std::string(field) + ": the rendered prompt is more than " +
                         std::to_string(kMaxRenderedPromptBytes) + " bytes");
    }
  }
  return out;
}

bool template_names(std::string_view text, std::string_view name) {
  auto pieces = parse(text, "prompt");
  if (!pieces) return false;
  for (const Piece& piece : *pieces) {
    if (piece.is_tag && !piece.is_literal && piece.text == name) return true;
  }
  return false;
}

}  // namespace orrery
