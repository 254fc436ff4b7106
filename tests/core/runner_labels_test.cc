#include "core/runner_labels.h"

#include <gtest/gtest.h>

#include "core/limits.h"
#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

std::string error_of(const std::string& text) {
  auto label = parse_label(text, "--label");
  if (label) return "accepted";
  EXPECT_EQ(label.error().code, ErrorCode::kUsage) << text;
  return label.error().message;
}

std::vector<std::string> numbered(int count) {
  std::vector<std::string> texts;
  for (int i = 0; i < count; ++i) texts.push_back(numbered("k", i) + "=v");
  return texts;
}

TEST(RunnerLabels, ALabelIsLabelEqualsValue) {
  const std::pair<std::string, EnvVar> cases[] = {
      {"os=linux", {"os", "linux"}},
      {"gpu.model-name_2=a100", {"gpu.model-name_2", "a100"}},
      {"zone=eu-west-1/b:2", {"zone", "eu-west-1/b:2"}},
      {"expr=a=b", {"expr", "a=b"}},
      {"room=büro", {"room", "büro"}},
      {"HOST=x", {"HOST", "x"}},
      {std::string(kMaxLabelKeyBytes, 'k') + "=" + std::string(kMaxLabelValueBytes, 'v'),
       {std::string(kMaxLabelKeyBytes, 'k'), std::string(kMaxLabelValueBytes, 'v')}},
  };
  for (const auto& [text, label] : cases) {
    auto parsed = parse_label(text, "--label");
    ASSERT_TRUE(parsed.ok()) << text << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, label);
  }
}

TEST(RunnerLabels, WithoutLabelOrEqualsSignItIsRefused) {
  for (const std::string text : {"", "os", "=linux", "=", "os linux"}) {
    EXPECT_EQ(error_of(text), "--label '" + text + "': expected LABEL=VALUE");
  }
}

TEST(RunnerLabels, AnEmptyValueIsRefused) {
  for (const std::string text : {"os=", "gpu=", "a.b="}) {
    EXPECT_EQ(error_of(text), "--label '" + text + "': the value is empty; expected LABEL=VALUE");
  }
}

TEST(RunnerLabels, ALabelHasOnlyLettersDigitsDotUnderscoreDash) {
  for (const std::string text : {"o s=x", "os,x=y", "k/v=x", "é=x", "a:b=x", "a\tb=x"}) {
    EXPECT_NE(error_of(text).find("may contain only ASCII letters, digits, '.', '_' and '-'"),
              std::string::npos)
        << text;
  }
}

TEST(RunnerLabels, AValueHasNoSpaceCommaOrControl) {
  for (const std::string text : {"os=a b", "os=a,b", "os=a\tb", "os=a\nb", "os=\x7f", "os=\x1b[31m",
                                 "os=a\xc2\x85", "os= "}) {
    EXPECT_NE(error_of(text).find("cannot contain a space, a ',' or a control character"),
              std::string::npos)
        << text;
  }
}

TEST(RunnerLabels, TextThatIsNotUtf8IsRefused) {
  for (const std::string text : {"os=\x80", "os=\xc3", "o\xffs=x", "os=\xed\xa0\x80"}) {
    EXPECT_NE(error_of(text).find("is not valid UTF-8"), std::string::npos) << text;
  }
}

TEST(RunnerLabels, TooLongLabelsAndValuesAreRefused) {
  const std::string long_key(kMaxLabelKeyBytes + 1, 'k');
  EXPECT_NE(error_of(long_key + "=v").find("the label is 64 bytes long; at most 63 are allowed"),
            std::string::npos);
  const std::string long_value(kMaxLabelValueBytes + 1, 'v');
  EXPECT_NE(
      error_of("k=" + long_value).find("the value is 256 bytes long; at most 255 are allowed"),
      std::string::npos);
  // Bytes, not characters: 128 two-byte characters.
  std::string wide;
  for (int i = 0; i < 128; ++i) wide += "ü";
  EXPECT_NE(error_of("k=" + wide).find("at most 255"), std::string::npos);
}

TEST(RunnerLabels, AListKeepsEachLabelOnceInTheGivenOrder) {
  auto labels = parse_label_list({"os=linux", "gpu=yes", "os=linux"}, "--machine");
  ASSERT_TRUE(labels.ok()) << labels.error().message;
  EXPECT_EQ(*labels, (std::vector<EnvVar>{{"os", "linux"}, {"gpu", "yes"}}));
  EXPECT_EQ(parse_label_list({}, "--machine")->size(), 0u);
}

TEST(RunnerLabels, ALabelWithTwoValuesIsRefused) {
  for (const std::vector<std::string>& texts :
       {std::vector<std::string>{"os=linux", "os=mac"}, {"a=1", "b=2", "a=3"}}) {
    auto refused = parse_label_list(texts, "--machine");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_NE(refused.error().message.find("--machine gives the label"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find("two values"), std::string::npos);
  }
}

TEST(RunnerLabels, AListHasAtMost32Labels) {
  EXPECT_TRUE(parse_label_list(numbered(kMaxLabels), "--machine").ok());
  for (int count : {kMaxLabels + 1, 100}) {
    auto refused = parse_label_list(numbered(count), "--machine");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().message,
              "--machine has " + std::to_string(count) + " labels; at most 32 are allowed");
  }
}

TEST(RunnerLabels, ARunnerAlwaysHasItsHostLabel) {
  auto none = runner_labels_of({}, "box1");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, (RunnerLabels{{"host", "box1"}}));
  auto some = runner_labels_of({"os=linux", "gpu=yes", "host=box1"}, "box1");
  ASSERT_TRUE(some.ok()) << some.error().message;
  EXPECT_EQ(*some, (RunnerLabels{{"gpu", "yes"}, {"host", "box1"}, {"os", "linux"}}));
}

TEST(RunnerLabels, AGivenHostLabelMustBeTheHostName) {
  for (const std::string other : {"box2", "BOX1", "box1.example.com"}) {
    auto refused = runner_labels_of({"host=" + other}, "box1");
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_EQ(refused.error().message,
              "--label host=" + other +
                  " differs from this machine's host name 'box1'; a runner's host label is "
                  "always its host name (leave host= out)");
  }
}

TEST(RunnerLabels, ARunnerHasAtMost32LabelsHostIncluded) {
  EXPECT_TRUE(runner_labels_of(numbered(kMaxLabels - 1), "box1").ok());
  auto refused = runner_labels_of(numbered(kMaxLabels), "box1");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message,
            "--label gives 32 labels besides host=; a runner has at most 32 labels, host= "
            "included");
  // host= given counts once.
  std::vector<std::string> with_host = numbered(kMaxLabels - 1);
  with_host.push_back("host=box1");
  EXPECT_TRUE(runner_labels_of(with_host, "box1").ok());
}

TEST(RunnerLabels, BadLabelsOfARunnerAreRefused) {
  for (const std::vector<std::string>& given : {std::vector<std::string>{"os"},
                                                {"=x"},
                                                {"os="},
                                                {"os=\xff"},
                                                {"os=a", "os=b"},
                                                {std::string(64, 'k') + "=v"}}) {
    auto refused = runner_labels_of(given, "box1");
    ASSERT_FALSE(refused.ok()) << given.front();
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_EQ(refused.error().message.rfind("--label ", 0), 0u) << refused.error().message;
  }
}

TEST(RunnerLabels, AHostNameThatCannotBeAValueIsRefused) {
  for (const std::string& host :
       std::vector<std::string>{"", "a b", "a,b", std::string(256, 'h')}) {
    auto refused = runner_labels_of({}, host);
    ASSERT_FALSE(refused.ok()) << host;
    EXPECT_NE(refused.error().message.find("host name"), std::string::npos)
        << refused.error().message;
  }
}

TEST(RunnerLabels, ARunnerMayRunALoopWhenItHasEveryLabelOfTheSelector) {
  const RunnerLabels runner{{"host", "box1"}, {"os", "linux"}, {"gpu", "a100"}};
  EXPECT_TRUE(runner_may_run(runner, {}));
  EXPECT_TRUE(runner_may_run(runner, {{"os", "linux"}}));
  EXPECT_TRUE(runner_may_run(runner, {{"gpu", "a100"}, {"host", "box1"}}));
  EXPECT_TRUE(runner_may_run(runner, {{"host", "box1"}, {"os", "linux"}, {"gpu", "a100"}}));
  EXPECT_FALSE(runner_may_run(runner, {{"os", "mac"}}));
  EXPECT_FALSE(runner_may_run(runner, {{"os", "Linux"}}));
  EXPECT_FALSE(runner_may_run(runner, {{"OS", "linux"}}));
  EXPECT_FALSE(runner_may_run(runner, {{"os", "linux"}, {"arch", "arm64"}}));
  EXPECT_FALSE(runner_may_run(runner, {{"host", "box2"}}));
  EXPECT_FALSE(runner_may_run({}, {{"os", "linux"}}));
  EXPECT_TRUE(runner_may_run({}, {}));
}

TEST(RunnerLabels, TheStoredFormIsSortedAndReadBack) {
  const RunnerLabels labels{{"os", "linux"}, {"host", "box1"}, {"gpu", "a=b"}, {"room", "büro"}};
  const std::string text = labels_text(labels);
  EXPECT_EQ(text, "gpu=a=b,host=box1,os=linux,room=büro");
  auto parsed = parse_labels_text(text);
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(*parsed, labels);
  EXPECT_EQ(labels_text({}), "");
  EXPECT_EQ(parse_labels_text("")->size(), 0u);
  EXPECT_EQ(labels_text({{"host", "h"}}), "host=h");
}

TEST(RunnerLabels, AStoredFormThatIsNotOneIsAnInternalError) {
  for (const std::string text :
       {",", "host=h,", ",host=h", "host", "host=", "=h", "host=h,,os=l", "os=l,host=h",
        "host=h,host=h", "host=h,host=g", "host=\xff", "host=a b"}) {
    auto refused = parse_labels_text(text);
    ASSERT_FALSE(refused.ok()) << text;
    EXPECT_EQ(refused.error().code, ErrorCode::kInternal) << text;
  }
}

}  // namespace
}  // namespace orrery
