#include "core/workflow_graph.h"

#include <algorithm>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>

namespace orrery {
namespace {

// Each step's dependencies and dependents as indexes.
struct Graph {
  std::vector<std::vector<size_t>> dependencies;
  std::vector<std::vector<size_t>> dependents;
};

Graph graph_of(const WorkflowSpec& spec) {
  std::unordered_map<std::string, size_t> index;
  for (size_t i = 0; i < spec.steps.size(); ++i) index.emplace(spec.steps[i].id, i);
  Graph graph;
  graph.dependencies.resize(spec.steps.size());
  graph.dependents.resize(spec.steps.size());
  for (size_t i = 0; i < spec.steps.size(); ++i) {
    for (const std::string& id : spec.steps[i].depends_on) {
      const auto found = index.find(id);
      if (found == index.end()) continue;
      graph.dependencies[i].push_back(found->second);
      graph.dependents[found->second].push_back(i);
    }
  }
  return graph;
}

// Kahn's algorithm, taking the ready step earliest in the spec first. The
// steps left out are on a cycle or depend on one.
std::vector<size_t> ordered(const Graph& graph, std::vector<size_t>* waiting) {
  const size_t count = graph.dependencies.size();
  std::vector<size_t> pending(count);
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < count; ++i) {
    pending[i] = graph.dependencies[i].size();
    if (pending[i] == 0) ready.push(i);
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t step = ready.top();
    ready.pop();
    order.push_back(step);
    for (size_t dependent : graph.dependents[step]) {
      if (--pending[dependent] == 0) ready.push(dependent);
    }
  }
  *waiting = std::move(pending);
  return order;
}

}  // namespace

std::vector<size_t> dependency_cycle(const WorkflowSpec& spec) {
  const Graph graph = graph_of(spec);
  std::vector<size_t> waiting;
  if (ordered(graph, &waiting).size() == spec.steps.size()) return {};
  // Every step left waits for another step left: walking from one to a
  // dependency still waiting must come back to a step already walked.
  size_t step = 0;
  while (waiting[step] == 0) ++step;
  std::vector<size_t> walked_at(spec.steps.size(), spec.steps.size());
  std::vector<size_t> path;
  while (walked_at[step] == spec.steps.size()) {
    walked_at[step] = path.size();
    path.push_back(step);
    for (size_t dependency : graph.dependencies[step]) {
      if (waiting[dependency] > 0) {
        step = dependency;
        break;
      }
    }
  }
  std::vector<size_t> cycle(path.begin() + std::ptrdiff_t(walked_at[step]), path.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  return cycle;
}

std::vector<std::string> topological_order(const WorkflowSpec& spec) {
  std::vector<size_t> waiting;
  std::vector<std::string> ids;
  for (size_t step : ordered(graph_of(spec), &waiting)) ids.push_back(spec.steps[step].id);
  return ids;
}

}  // namespace orrery
