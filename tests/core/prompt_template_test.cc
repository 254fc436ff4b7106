#include "core/prompt_template.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace orrery {
namespace {

using Json = nlohmann::json;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const TemplateScope kScope{{"plan", "build.linux"}};

Json values() {
  return Json{
      {"item",
       {{"id", "i-1"},
        {"key", "web#12"},
        {"title", "Fix the parser"},
        {"priority", 5},
        {"url", nullptr},
        {"payload", {{"branch", "main"}, {"labels", {"bug", "p1"}}, {"deep", {{"a", 1}}}}}}},
      {"run", {{"id", "r-1"}, {"attempt", 2}, {"input", Json::object()}}},
      {"workflow", {{"name", "fix"}}},
      {"feedback", "it failed"},
      {"steps",
       {{"plan", {{"status", "succeeded"}, {"exit_code", 0}, {"outputs", {{"file", "a.cc"}}}}},
        {"build.linux",
         {{"status", "failed"}, {"exit_code", 2}, {"outputs", {{"log.tail", "x"}}}}}}}};
}

std::string rendered(const std::string& text) {
  auto result = render_template(text, values().dump(), "prompt");
  EXPECT_TRUE(result.ok()) << text << ": " << (result.ok() ? "" : result.error().message);
  return result.ok() ? *result : "";
}

TEST(PromptTemplate, NamesAreFilledInFromTheValues) {
  EXPECT_EQ(rendered("Fix {{ item.key }}: {{item.title}}."), "Fix web#12: Fix the parser.");
  EXPECT_EQ(rendered("{{ item.priority }} {{ run.attempt }}"), "5 2");
  EXPECT_EQ(rendered("{{ item.payload.branch }} {{ item.payload.deep.a }}"), "main 1");
  EXPECT_EQ(rendered("{{ item.payload.labels }}"), R"(["bug","p1"])");
  EXPECT_EQ(rendered("{{ steps.plan.outputs.file }} {{ steps.build.linux.exit_code }}"), "a.cc 2");
  EXPECT_EQ(rendered("{{ steps.build.linux.outputs.log.tail }}"), "x");
  EXPECT_EQ(rendered("no tags at all } { }}"), "no tags at all } { }}");
  EXPECT_EQ(rendered(""), "");
}

TEST(PromptTemplate, ANumberIsWrittenAsItWasGiven) {
  for (const std::string number :
       {"123456789012345678901234", "2.50", "1E5", "-1.5e-7", "18446744073709551616", "7"}) {
    const std::string values_json = R"({"item":{"payload":{"n":)" + number + R"(,"l":[)" + number +
                                    R"(]}},"run":{},"workflow":{},"steps":{}})";
    auto result =
        render_template("{{ item.payload.n }} {{ item.payload.l }}", values_json, "prompt");
    ASSERT_TRUE(result.ok()) << number << ": " << result.error().message;
    EXPECT_EQ(*result, number + " [" + number + "]");
  }
}

TEST(PromptTemplate, AStringTagWritesBracesAndValuesAreNeverExpandedAgain) {
  EXPECT_EQ(rendered(R"(a {{ "{{" }} b {{ "}}" }})"), "a {{ b }}");
  Json given = values();
  given["item"]["title"] = "{{ item.key }}";
  auto result = render_template("{{ item.title }}", given.dump(), "prompt");
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(*result, "{{ item.key }}");
}

TEST(PromptTemplate, AMissingValueIsAnErrorUnlessTheTagIsOptional) {
  for (const std::string name :
       {"item.url", "goal.objective", "item.payload.nope", "item.project"}) {
    auto missing = render_template("{{ " + name + " }}", values().dump(), "steps[0].prompt");
    ASSERT_FALSE(missing.ok()) << name;
    EXPECT_TRUE(contains(missing.error().message, "{{ " + name + " }} has no value"))
        << missing.error().message;
    EXPECT_TRUE(contains(missing.error().message, "{{ " + name + "? }}"));
    EXPECT_EQ(rendered("[{{ " + name + "? }}]"), "[]");
  }
}

TEST(PromptTemplate, TheCheckKnowsEveryNameAStepHasAndRefusesTheRest) {
  auto names = check_template(
      "{{ item.key }} {{ item.key }} {{ item.payload.x.y }} {{ steps.plan.status }} "
      "{{ steps.build.linux.outputs.a.b }} {{ feedback? }} {{ \"{{\" }}",
      kScope, "prompt");
  ASSERT_TRUE(names.ok()) << names.error().message;
  EXPECT_EQ(*names, (std::vector<std::string>{"item.key", "item.payload.x.y", "steps.plan.status",
                                              "steps.build.linux.outputs.a.b", "feedback"}));
  for (const std::string unknown :
       {"item.titel", "item", "item.payload", "steps.plan", "steps.plan.outputs",
        "steps.other.status", "steps.plan.stdout", "goal", "run.input", "env.HOME"}) {
    auto refused = check_template("x {{ " + unknown + " }}", kScope, "steps[1].prompt");
    ASSERT_FALSE(refused.ok()) << unknown;
    const std::string message = refused.error().message;
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_EQ(message.rfind("steps[1].prompt: {{ " + unknown + " }} at byte 2", 0), 0u) << message;
    EXPECT_TRUE(contains(message, "known: item.id")) << message;
    EXPECT_TRUE(contains(message, "(build.linux, plan)")) << message;
  }
}

TEST(PromptTemplate, SyntaxErrorsSayWhereAndWhat) {
  for (const std::string& bad : std::vector<std::string>{
           "{{", "a {{ item.key", "{{ item.key }", "{{ }}", "{{ .x }}", "{{ a..b }}", "{{ x. }}",
           "{{ \"open }}", "{{ item.key?? }}", "{{ item key }}", "{{ item.key | upper }}",
           std::string("\xff {{ item.key }}")}) {
    auto refused = check_template(bad, kScope, "prompt");
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.error().message.rfind("prompt", 0), 0u) << refused.error().message;
    EXPECT_FALSE(render_template(bad, values().dump(), "prompt").ok()) << bad;
  }
}

TEST(PromptTemplate, TheRenderedPromptIsBounded) {
  Json given = values();
  given["item"]["title"] = std::string(600 * 1024, 'x');
  auto once = render_template("{{ item.title }}", given.dump(), "prompt");
  ASSERT_TRUE(once.ok());
  auto twice = render_template("{{ item.title }}{{ item.title }}", given.dump(), "prompt");
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(contains(twice.error().message, "more than")) << twice.error().message;
}

TEST(PromptTemplate, TemplateNamesFindsATagByItsName) {
  EXPECT_TRUE(template_names("a {{ feedback? }}", "feedback"));
  EXPECT_TRUE(template_names("{{feedback}}", "feedback"));
  EXPECT_FALSE(template_names("{{ \"feedback\" }} feedback", "feedback"));
  EXPECT_FALSE(template_names("{{ broken", "feedback"));
}

}  // namespace
}  // namespace orrery
