// The dependency graph of a spec's steps (docs/workflows.md): its cycles and
// its order. Iterative, linear in steps and edges, so a chain of
// kMaxWorkflowSteps steps needs no deep stack.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/workflow.h"

namespace orrery {

// The indexes of the steps of one dependency cycle, each depending on the
// next and the last on the first, starting at the one earliest in the spec;
// empty when there is none. Every dependency must name a step.
std::vector<size_t> dependency_cycle(const WorkflowSpec& spec);

// The step ids in an order where every step comes after its dependencies;
// among the steps ready at the same time, spec order. The spec must be valid.
std::vector<std::string> topological_order(const WorkflowSpec& spec);

}  // namespace orrery
