// One text rule for every field of text a user gives orrery (core/text.h,
// check_user_text; docs/cli.md, "Names and text"), tested through each
// field's own entry point over a generated table of code points: every
// control character (C0, DEL, C1, U+2028/U+2029, the bidirectional
// controls) is refused in every field but newline and tab where the field
// may hold several lines; printable text of every plane is accepted.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/goal.h"
#include "core/goal_plan.h"
#include "core/loop_spec.h"
#include "core/route.h"
#include "core/run.h"
#include "core/text.h"
#include "core/work_item.h"
#include "core/workflow_spec.h"
#include "support/time_literals.h"
#include "support/utf8_text.h"

namespace orrery {
namespace {

using testing::between;
using testing::utf8;

// Every control character the rule names.
std::vector<char32_t> controls() {
  std::vector<char32_t> list;
  for (char32_t c = 0; c < 0x20; ++c) list.push_back(c);
  list.push_back(0x7F);
  for (char32_t c = 0x80; c <= 0x9F; ++c) list.push_back(c);
  for (char32_t c : {0x2028, 0x2029, 0x200E, 0x200F}) list.push_back(c);
  for (char32_t c = 0x202A; c <= 0x202E; ++c) list.push_back(c);
  for (char32_t c = 0x2066; c <= 0x2069; ++c) list.push_back(c);
  return list;
}

// Printable characters of each UTF-8 length, and their neighbours of the
// control ranges.
const char32_t kPrintable[] = {'x',    '~',    0xA0,   0xA1,   0xE9,    0x7FF,   0x2027,  0x202F,
                               0x205F, 0x2070, 0x4E2D, 0xFFFD, 0x10000, 0x1F600, 0x10FFFD};

struct Field {
  std::string name;
  TextLines lines;
  std::function<Status(const std::string&)> check;  // the text in the field, by its entry point
};

Status loop_with(const std::function<void(LoopSpec&)>& set) {
  LoopSpec spec;
  spec.name = "poll";
  spec.every = "1m";
  spec.command = {"/bin/true"};
  set(spec);
  auto built = build_loop(spec, "0123456789abcdef0123456789abcdef",
                          testing::at("2026-06-01T12:00:00Z"), TimeZone::utc());
  return built ? Status(Ok{}) : Status(built.error());
}

Status workflow_with(const std::string& key, const std::string& text) {
  nlohmann::json spec = {
      {"name", "w"},
      {"steps", {{{"id", "a"}, {"target", {{"type", "command"}, {"command", "true"}}}}}}};
  spec[key] = text;
  auto parsed = parse_workflow_spec(spec.dump(), SpecFormat::kJson, PathBase{"/work"});
  return parsed ? Status(Ok{}) : Status(parsed.error());
}

Status plan_node_with(const std::string& key, const std::string& objective) {
  PlanNode node;
  node.key = key;
  node.objective = objective;
  return validate_plan_node(node);
}

Status route_with(const std::function<void(Route&)>& set) {
  Route route;
  route.name = "issues";
  route.workflow_id = "w1";
  set(route);
  return check_route(route);
}

Status item_with(const std::function<void(WorkItem&)>& set) {
  WorkItem item;
  item.key = "k";
  set(item);
  return check_item_fields(item);
}

std::vector<Field> fields() {
  using T = const std::string&;
  const auto one = TextLines::kOne;
  const auto many = TextLines::kMany;
  return {
      {"loop name", one, [](T t) { return loop_with([&](LoopSpec& s) { s.name = t; }); }},
      {"loop description", many,
       [](T t) { return loop_with([&](LoopSpec& s) { s.description = t; }); }},
      {"goal objective", many,
       [](T t) {
         auto checked = check_objective(t);
         return checked ? Status(Ok{}) : Status(checked.error());
       }},
      {"plan node key", one, [](T t) { return plan_node_with(t, "do it"); }},
      {"plan node objective", many, [](T t) { return plan_node_with("k", t); }},
      {"route name", one, [](T t) { return route_with([&](Route& r) { r.name = t; }); }},
      {"route description", many,
       [](T t) { return route_with([&](Route& r) { r.description = t; }); }},
      {"workflow name", one, [](T t) { return workflow_with("name", t); }},
      {"workflow description", many, [](T t) { return workflow_with("description", t); }},
      {"workflow goal", many, [](T t) { return workflow_with("goal", t); }},
      {"item key", one, [](T t) { return item_with([&](WorkItem& i) { i.key = t; }); }},
      {"item project", one, [](T t) { return item_with([&](WorkItem& i) { i.project = t; }); }},
      {"item group", one, [](T t) { return item_with([&](WorkItem& i) { i.group = t; }); }},
      {"item intent", many,
       [](T t) { return item_with([&](WorkItem& i) { i.invocation.intent = t; }); }},
      {"item reason", many, [](T t) { return check_item_reason(t); }},
      {"run cancel reason", many, [](T t) { return check_cancel_reason(t); }},
  };
}

TEST(UserText, EveryControlCharacterIsRefusedInEveryFieldButLineBreaksInProse) {
  for (const Field& field : fields()) {
    ASSERT_TRUE(field.check("plain text").ok()) << field.name;
    for (const char32_t c : controls()) {
      const std::string text = between("a", utf8(c), "b");
      const Status checked = field.check(text);
      const bool line_text = field.lines == TextLines::kMany && (c == '\n' || c == '\t');
      EXPECT_EQ(checked.ok(), line_text) << field.name << " given U+" << std::hex << unsigned(c);
      if (!checked && c != 0) {  // a spec file's reader refuses NUL first, saying so
        EXPECT_NE(checked.error().message.find("control character"), std::string::npos)
            << field.name << ": " << checked.error().message;
      }
    }
  }
}

TEST(UserText, PrintableTextOfEveryLengthIsAcceptedInEveryField) {
  for (const Field& field : fields()) {
    for (const char32_t c : kPrintable) {
      const Status checked = field.check(between("a", utf8(c), "b"));
      EXPECT_TRUE(checked.ok()) << field.name << " given U+" << std::hex << unsigned(c) << ": "
                                << checked.error().message;
    }
  }
}

TEST(UserText, TheErrorNamesTheFieldTheCharacterAndWhatIsAccepted) {
  EXPECT_EQ(check_user_text("a\u0085b", "the objective", TextLines::kMany).error().message,
            "the objective contains the control character \\u{0085}; text, newlines and tabs "
            "are accepted");
  EXPECT_EQ(check_user_text("a\nb", "--title", TextLines::kOne).error().message,
            "--title contains the control character \\n; text on one line is accepted");
  EXPECT_EQ(check_user_text("a\u202Eb", "--reason", TextLines::kMany).error().message,
            "--reason contains the control character \\u{202E}; text, newlines and tabs are "
            "accepted");
  EXPECT_TRUE(check_user_text("", "--reason", TextLines::kOne).ok());
  EXPECT_NE(check_user_text("a\xff", "--reason", TextLines::kMany).error().message.find("UTF-8"),
            std::string::npos);
}

}  // namespace
}  // namespace orrery
