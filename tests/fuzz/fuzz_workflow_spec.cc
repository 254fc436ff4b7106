// libFuzzer target: parse_workflow_spec, which reads untrusted spec files.
//
// Each input is parsed as JSON and as YAML. Checked (workflow_spec.h):
// nothing crashes, overflows the stack or leaks; an accepted spec has 1 to
// kMaxWorkflowSteps steps, all in its dependency order; and it survives
// encode → decode unchanged.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/workflow_graph.h"
#include "core/workflow_spec.h"

namespace {

void check(std::string_view text, orrery::SpecFormat format) {
  auto spec = orrery::parse_workflow_spec(text, format, orrery::PathBase{"/base"});
  if (!spec) return;
  if (spec->steps.empty() || spec->steps.size() > size_t(orrery::kMaxWorkflowSteps)) {
    __builtin_trap();
  }
  if (orrery::topological_order(*spec).size() != spec->steps.size()) __builtin_trap();
  auto decoded = orrery::decode_workflow_spec(orrery::encode_workflow_spec(*spec));
  if (!decoded || !(*decoded == *spec)) __builtin_trap();
  if (orrery::workflow_steps_json(*spec).empty()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(text, orrery::SpecFormat::kJson);
  check(text, orrery::SpecFormat::kYaml);
  return 0;
}
