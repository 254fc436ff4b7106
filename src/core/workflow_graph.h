// The dependency graph of a spec's steps (docs/workflows.md): its cycles and
// its order. Iterative, linear in steps and edges, so a chain of
// kMaxWorkflowSteps steps needs no deep stack.
#pragma once

#include <cstddef>
#include <vector>

#include "core/workflow.h"

namespace orrery {

// The indexes of the steps of one dependency cycle, each depending on the
// next and the last on the first, starting at the one earliest in the spec;
// empty when there is none. Every dependency must name a step.
std::vector<size_t> dependency_cycle(const WorkflowSpec& spec);

}  // namespace orrery
