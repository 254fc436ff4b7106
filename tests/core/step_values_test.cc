#include "core/step_values.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

using nlohmann::json;

std::string parsed(std::string_view text) {
  const Result<std::string> outputs = parse_step_outputs(text);
  EXPECT_TRUE(outputs.ok()) << (outputs.ok() ? "" : outputs.error().message);
  return outputs.ok() ? *outputs : "";
}

std::string error_of(std::string_view text) {
  const Result<std::string> outputs = parse_step_outputs(text);
  EXPECT_FALSE(outputs.ok()) << text;
  if (outputs.ok()) return "";
  EXPECT_EQ(outputs.error().code, ErrorCode::kUsage);
  return outputs.error().message;
}

// ---- parse_step_outputs ----

TEST(StepOutputs, KeyValueLinesBecomeAnObjectOfStrings) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {"", "{}"},
      {"\n\n", "{}"},
      {"a=1", R"({"a":"1"})"},
      {"a=1\n", R"({"a":"1"})"},
      {"a=1\nb=two words\n", R"({"a":"1","b":"two words"})"},
      {"url=http://x/?q=1&r=2", R"({"url":"http://x/?q=1&r=2"})"},
      {"empty=", R"({"empty":""})"},
      {"spaces=  kept  ", R"({"spaces":"  kept  "})"},
      {"crlf=yes\r\nnext=1\r\n", R"({"crlf":"yes","next":"1"})"},
      {"cr=only one\r\r\n", R"({"cr":"only one\r"})"},
      {"_x=1\nA.b-c_9=2", R"({"_x":"1","A.b-c_9":"2"})"},
      {"quote=say \"hi\"\\", R"({"quote":"say \"hi\"\\"})"},
      {"tab=a\tb", R"({"tab":"a\tb"})"},
      {"u=ünï ✓", "{\"u\":\"ünï ✓\"}"},
  };
  for (const Case& c : cases) EXPECT_EQ(parsed(c.text), c.expected) << c.text;
}

TEST(StepOutputs, BlankAndCommentLinesAreIgnored) {
  EXPECT_EQ(parsed("# a comment\n\n   \n\t\na=1\n#b=2\n \r\n"), R"({"a":"1"})");
  // Only a '#' in the first column starts a comment.
  EXPECT_NE(error_of(" # not a comment").find("line 1"), std::string::npos);
}

TEST(StepOutputs, ALaterKeyReplacesTheEarlierOneInItsPlace) {
  EXPECT_EQ(parsed("a=1\nb=2\na=3\n"), R"({"a":"3","b":"2"})");
  EXPECT_EQ(parsed("k=x\nk=\n"), R"({"k":""})");
}

TEST(StepOutputs, InvalidUtf8AndNulBecomeReplacementCharacters) {
  const json values = json::parse(parsed(std::string("a=\xff\xfe ok\nb=x\0y\n", 14)));
  EXPECT_EQ(values["a"], "\xEF\xBF\xBD\xEF\xBF\xBD ok");
  EXPECT_EQ(values["b"], "x\xEF\xBF\xBDy");
}

TEST(StepOutputs, ALineWithoutEqualsNamesItsNumber) {
  struct Case {
    std::string text;
    std::string line;
  };
  const Case cases[] = {
      {"novalue", "line 1:"},
      {"a=1\n\n# c\njust text\n", "line 4:"},
      {"a=1\r\nb\r\n", "line 2:"},
  };
  for (const Case& c : cases) {
    const std::string message = error_of(c.text);
    EXPECT_EQ(message.rfind("ORRERY_OUTPUT " + c.line, 0), 0u) << message;
    EXPECT_NE(message.find("has no '='"), std::string::npos) << message;
  }
}

TEST(StepOutputs, ABadKeyNamesItsLineAndTheRule) {
  const std::string too_long(kMaxStepOutputKeyBytes + 1, 'k');
  const std::string longest(kMaxStepOutputKeyBytes, 'k');
  for (const std::string& key :
       {std::string(""), std::string("1abc"), std::string("-x"), std::string(".x"),
        std::string("a b"), std::string(" a"), std::string("a "), std::string("ключ"),
        std::string("a$"), std::string("a/b"), too_long}) {
    const std::string message = error_of("ok=1\n" + key + "=v\n");
    EXPECT_EQ(message.rfind("ORRERY_OUTPUT line 2: key '", 0), 0u) << message;
    EXPECT_NE(message.find("a letter or '_'"), std::string::npos) << message;
  }
  EXPECT_EQ(parsed(longest + "=v"), R"({")" + longest + R"(":"v"})");
}

TEST(StepOutputs, AtMostAThousandKeys) {
  std::string text;
  for (size_t i = 0; i < kMaxStepOutputKeys; ++i) text += numbered("k", i) + "=v\n";
  EXPECT_EQ(json::parse(parsed(text)).size(), kMaxStepOutputKeys);
  // Replacing a key is not a new one.
  EXPECT_EQ(json::parse(parsed(text + "k0=again\n")).size(), kMaxStepOutputKeys);
  const std::string message = error_of(text + "one_more=v\n");
  EXPECT_EQ(message.rfind("ORRERY_OUTPUT line 1001: more than 1000 keys", 0), 0u) << message;
}

TEST(StepOutputs, AtMost256KiB) {
  const std::string prefix = "big=";
  const std::string fits = prefix + std::string(kMaxStepOutputBytes - prefix.size(), 'x');
  EXPECT_EQ(json::parse(parsed(fits))["big"].get<std::string>().size(),
            kMaxStepOutputBytes - prefix.size());
  const std::string message = error_of(fits + "\n");
  EXPECT_NE(message.find("262145 bytes"), std::string::npos) << message;
  EXPECT_NE(message.find("at most 262144 (256 KiB)"), std::string::npos) << message;
}

// ---- steps_document ----

WorkflowSpec spec_with(const std::vector<std::string>& ids) {
  WorkflowSpec spec;
  spec.name = "w";
  for (const std::string& id : ids) {
    WorkflowStep s;
    s.id = id;
    s.target.argv = {"true"};
    spec.steps.push_back(s);
  }
  return spec;
}

StepRun step_run(std::string id, StepStatus status, std::optional<int> exit_code = std::nullopt,
                 std::string outputs = "{}") {
  StepRun r;
  r.run_id = "run1";
  r.step_id = std::move(id);
  r.status = status;
  r.exit_code = exit_code;
  r.outputs_json = std::move(outputs);
  return r;
}

TEST(StepsDocument, ListsEveryFinishedStepInSpecOrder) {
  const WorkflowSpec spec = spec_with({"build", "lint", "test", "skipme", "stop", "slow", "next"});
  const std::vector<StepRun> steps = {
      step_run("next", StepStatus::kPending),
      step_run("test", StepStatus::kRunning),
      step_run("lint", StepStatus::kFailed, 1),
      step_run("build", StepStatus::kSucceeded, 0, R"({"version":"1.2","dir":"/tmp/b"})"),
      step_run("skipme", StepStatus::kSkipped),
      step_run("stop", StepStatus::kCancelled),
      step_run("slow", StepStatus::kTimedOut),
  };
  EXPECT_EQ(
      steps_document(spec, steps),
      R"({"build":{"status":"succeeded","exit_code":0,"outputs":{"version":"1.2","dir":"/tmp/b"}},)"
      R"("lint":{"status":"failed","exit_code":1,"outputs":{}},)"
      R"("skipme":{"status":"skipped","exit_code":null,"outputs":{}},)"
      R"("stop":{"status":"cancelled","exit_code":null,"outputs":{}},)"
      R"("slow":{"status":"timed_out","exit_code":null,"outputs":{}}})");
}

TEST(StepsDocument, NothingFinishedIsAnEmptyObject) {
  const WorkflowSpec spec = spec_with({"a", "b"});
  EXPECT_EQ(steps_document(spec, {}), "{}");
  EXPECT_EQ(steps_document(
                spec, {step_run("a", StepStatus::kPending), step_run("b", StepStatus::kRunning)}),
            "{}");
}

TEST(StepsDocument, OutputsThatAreNotAnObjectCountAsEmpty) {
  const WorkflowSpec spec = spec_with({"a"});
  for (const std::string outputs : {"", "not json", "[1,2]", "\"text\"", "{"}) {
    EXPECT_EQ(steps_document(spec, {step_run("a", StepStatus::kSucceeded, 0, outputs)}),
              R"({"a":{"status":"succeeded","exit_code":0,"outputs":{}}})")
        << outputs;
  }
}

TEST(StepsDocument, CarriesParsedOutputsThrough) {
  const Result<std::string> outputs = parse_step_outputs("msg=line \"one\"\\ \xff\nn=1\n");
  ASSERT_TRUE(outputs.ok());
  const WorkflowSpec spec = spec_with({"a"});
  const json doc =
      json::parse(steps_document(spec, {step_run("a", StepStatus::kSucceeded, 0, *outputs)}));
  EXPECT_EQ(doc["a"]["outputs"]["msg"], "line \"one\"\\ \xEF\xBF\xBD");
  EXPECT_EQ(doc["a"]["outputs"]["n"], "1");
}

TEST(StepsDocument, RecordsOfNoSpecStepAreLeftOut) {
  const WorkflowSpec spec = spec_with({"a"});
  EXPECT_EQ(steps_document(spec, {step_run("gone", StepStatus::kSucceeded, 0),
                                  step_run("a", StepStatus::kFailed, 2)}),
            R"({"a":{"status":"failed","exit_code":2,"outputs":{}}})");
}

}  // namespace
}  // namespace orrery
