#include "cli/workflow_target.h"

#include <charconv>

#include "core/text.h"
#include "exec/workflow_publish.h"

namespace orrery::cli {

Result<Workflow> resolve_workflow_reference(WorkflowCatalog& store, const std::string& given,
                                            std::string_view option) {
  std::string reference = given;
  std::optional<int> version;
  if (const size_t at = reference.rfind('@'); at != std::string::npos) {
    const std::string digits = reference.substr(at + 1);
    int number = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
    if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() ||
        number < 1) {
      return usage_error(std::string(option) + " " + visible(given) +
                         ": the version after @ must be a whole number from 1");
    }
    version = number;
    reference.resize(at);
  }
  return store.resolve_workflow(reference, version);
}

Status resolve_workflow_target(Store& store, Target& target) {
  if (target.type != TargetType::kWorkflow) return Ok{};
  auto input = check_workflow_input(target.input_json);
  if (!input) return input.error();
  auto workflow = resolve_workflow_reference(store, target.workflow_id, "--workflow");
  if (!workflow) return workflow.error();
  target.workflow_id = workflow->id;
  target.input_json = *input;
  return Ok{};
}

}  // namespace orrery::cli
