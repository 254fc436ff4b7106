#include "core/prompt_values.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/prompt_template.h"

namespace orrery {
namespace {

using Json = nlohmann::json;

PromptValuesInput full_input() {
  PromptValuesInput input;
  WorkItem item;
  item.id = "i-1";
  item.key = "web#12";
  item.route_name = "issues";
  item.priority = 3;
  item.attempts = 2;
  item.input_json = R"({"branch":"main"})";
  item.invocation.intent = "Fix the parser";
  item.invocation.subject = {"issue", "12", "", "https://example.com/12"};
  item.invocation.source = {"github", "acme/web", ""};
  input.item = item;
  input.run_id = "r-1";
  input.step_attempt = 1;
  input.run_input_json = R"({"depth":2})";
  input.workflow_name = "fix";
  input.goal_document = R"({"id":"g-1","objective":"Ship it","plan":[]})";
  input.feedback_section = "\n\n## The previous attempt\n\nIt failed.\n";
  input.steps_document = R"({"plan":{"status":"succeeded","exit_code":0,"outputs":{"f":"a.cc"}}})";
  return input;
}

std::string filled(const std::string& text, const PromptValuesInput& input) {
  auto result = render_template(text, prompt_values_json(input), "prompt");
  EXPECT_TRUE(result.ok()) << text << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : "";
}

TEST(PromptValues, EveryFixedNameHasItsValue) {
  const PromptValuesInput input = full_input();
  EXPECT_EQ(filled("{{ item.id }} {{ item.key }} {{ item.title }} {{ item.route }}", input),
            "i-1 web#12 Fix the parser issues");
  EXPECT_EQ(filled("{{ item.priority }} {{ item.attempt }} {{ item.url }}", input),
            "3 2 https://example.com/12");
  EXPECT_EQ(filled("{{ item.subject.kind }}:{{ item.subject.id }} {{ item.source.kind }}", input),
            "issue:12 github");
  EXPECT_EQ(filled("{{ item.payload.branch }} {{ run.input.depth }} {{ run.id }} {{ run.attempt }}",
                   input),
            "main 2 r-1 1");
  EXPECT_EQ(filled("{{ workflow.name }} {{ goal.id }} {{ goal.objective }}", input),
            "fix g-1 Ship it");
  EXPECT_EQ(filled("{{ feedback }}", input), "## The previous attempt\n\nIt failed.\n");
  EXPECT_EQ(filled("{{ steps.plan.outputs.f }} {{ steps.plan.status }}", input), "a.cc succeeded");
}

TEST(PromptValues, WhatARunLacksIsMissingSoOnlyAnOptionalTagMayNameIt) {
  PromptValuesInput input;
  input.run_id = "r-1";
  input.workflow_name = "fix";
  input.steps_document = "{}";
  for (const std::string name : {"item.key", "item.title", "goal.objective", "feedback",
                                 "item.payload.branch", "item.project", "item.url"}) {
    EXPECT_FALSE(render_template("{{ " + name + " }}", prompt_values_json(input), "p").ok())
        << name;
    EXPECT_EQ(filled("<{{ " + name + "? }}>", input), "<>") << name;
  }
}

}  // namespace
}  // namespace orrery
