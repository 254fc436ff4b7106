// Prompt templates (docs/workflows.md, "Prompt templates"): an agent step's
// prompt with `{{ name }}` tags that the step's values fill in when it
// starts — the work item, the run, the goal, the previous attempt's
// feedback and the outputs of the steps it depends on.
//
// Syntax: text, and tags `{{ NAME }}`, `{{ NAME? }}` or `{{ "TEXT" }}`
// (spaces inside the braces are free). NAME is a dotted path; `?` makes it
// optional: it renders empty when the run has no such value, where a
// plain NAME is an error. `{{ "{{" }}` writes two braces; a string holds
// no `"`.
//
// Invariants: a template is checked whole before any run (check_template:
// syntax, and every name against the names a step can have, naming the
// offender and what is known); values are inserted as text, once — a value
// holding `{{` is never expanded; a string value is inserted as it is, a
// number or boolean as JSON, an object or list as compact JSON, null as
// missing; the rendered prompt is at most kMaxRenderedPromptBytes.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace orrery {

inline constexpr std::size_t kMaxRenderedPromptBytes = 1024 * 1024;

// What a step's template may name beyond the fixed names: the steps whose
// values it can read (those it depends on, directly or not).
struct TemplateScope {
  std::set<std::string> steps;
};

// The names the template uses, each once, in order; an error names the
// first syntax error or unknown name (`field` starts its message).
Result<std::vector<std::string>> check_template(std::string_view text, const TemplateScope& scope,
                                                std::string_view field);

// The template filled in from `values_json`, an object shaped as
// docs/workflows.md lists: {item: {...}, run: {...}, workflow: {...},
// goal: {...}, feedback: "...", steps: {ID: {status, exit_code, outputs}}}.
// A required name without a value is an error naming it.
Result<std::string> render_template(std::string_view text, std::string_view values_json,
                                    std::string_view field);

// Whether the template has a tag naming `name` (a template that cannot be
// read names nothing).
bool template_names(std::string_view text, std::string_view name);

}  // namespace orrery
