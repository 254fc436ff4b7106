// The values a workflow step's prompt template is filled in from
// (core/prompt_template.h, docs/workflows.md "Prompt templates"): one JSON
// object built from what the step's supervisor knows when it starts.
//
// Invariants: every name check_template accepts has its place here (a value
// the run lacks is null, so only an optional tag may name it); texts are
// kept as stored; the item's input is its payload and the run's input its
// input, both as the JSON objects they are.
#pragma once

#include <optional>
#include <string>

#include "core/work_item.h"

namespace orrery {

struct PromptValuesInput {
  std::optional<WorkItem> item;  // the work item the run serves, if any
  std::string run_id;
  int step_attempt = 1;
  std::string run_input_json = "{}";
  std::string workflow_name;
  std::string goal_document;     // the goal's JSON (views/goal_view.h); "" : none
  std::string feedback_section;  // core/feedback_prompt.h; "" : none
  std::string steps_document;    // core/step_values.h, steps_document
};

std::string prompt_values_json(const PromptValuesInput& input);

}  // namespace orrery
