#include "core/workflow_graph.h"

#include <gtest/gtest.h>

#include "core/workflow_spec.h"

namespace orrery {
namespace {

// Steps given as {id, dependencies}, without validation.
WorkflowSpec graph(std::vector<std::pair<std::string, std::vector<std::string>>> steps) {
  WorkflowSpec spec;
  for (auto& [id, dependencies] : steps) {
    WorkflowStep step;
    step.id = id;
    step.depends_on = dependencies;
    spec.steps.push_back(step);
  }
  return spec;
}

TEST(DependencyCycle, NoneInADag) {
  EXPECT_TRUE(dependency_cycle(graph({{"a", {}}})).empty());
  EXPECT_TRUE(
      dependency_cycle(graph({{"d", {"b", "c"}}, {"b", {"a"}}, {"c", {"a"}}, {"a", {}}})).empty());
}

TEST(DependencyCycle, StartsAtTheStepEarliestInTheSpec) {
  EXPECT_EQ(dependency_cycle(graph({{"a", {"a"}}})), std::vector<size_t>{0});
  EXPECT_EQ(dependency_cycle(graph({{"x", {"y"}}, {"y", {"z"}}, {"z", {"x"}}})),
            (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(dependency_cycle(graph({{"z", {"x"}}, {"y", {"z"}}, {"x", {"y"}}})),
            (std::vector<size_t>{0, 2, 1}));
  // Steps that only depend on the cycle are not on it.
  EXPECT_EQ(
      dependency_cycle(graph(
          {{"before", {"p"}}, {"ok", {}}, {"p", {"q", "ok"}}, {"q", {"p"}}, {"after", {"q"}}})),
      (std::vector<size_t>{2, 3}));
}

TEST(DependencyCycle, FindsOneOfSeveral) {
  const std::vector<size_t> cycle =
      dependency_cycle(graph({{"a", {"b"}}, {"b", {"a"}}, {"c", {"d"}}, {"d", {"c"}}}));
  EXPECT_TRUE(cycle == (std::vector<size_t>{0, 1}) || cycle == (std::vector<size_t>{2, 3}));
}

TEST(TopologicalOrder, ReadyStepsInSpecOrder) {
  EXPECT_EQ(topological_order(graph({{"c", {"a", "b"}}, {"b", {}}, {"a", {}}})),
            (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(topological_order(graph({{"late", {"x"}}, {"x", {}}, {"y", {}}})),
            (std::vector<std::string>{"x", "late", "y"}));
}

}  // namespace
}  // namespace orrery
