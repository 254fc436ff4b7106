#include "cli/workflow_target.h"

#include <charconv>

#include "exec/workflow_publish.h"

namespace orrery::cli {

Status resolve_workflow_target(Store& store, Target& target) {
  if (target.type != TargetType::kWorkflow) return Ok{};
  std::string reference = target.workflow_id;
  std::optional<int> version;
  if (const size_t at = reference.rfind('@'); at != std::string::npos) {
    const std::string digits = reference.substr(at + 1);
    int number = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() ||
        number < 1) {
      return usage_error("--workflow " + reference +
                         ": the version after @ must be a whole number from 1");
    }
    version = number;
    reference.resize(at);
  }
  auto input = check_workflow_input(target.input_json);
  if (!input) return input.error();
  auto workflow = store.resolve_workflow(reference, version);
  if (!workflow) return workflow.error();
  target.workflow_id = workflow->id;
  target.input_json = *input;
  return Ok{};
}

}  // namespace orrery::cli
