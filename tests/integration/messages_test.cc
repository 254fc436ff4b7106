// Black-box tests of orrery's messages for bad arguments (docs/cli.md,
// "Messages"): every refusal is one line "orrery: …" in orrery's own words,
// naming the command, the option and the value, exit 2, nothing stored; the
// argument parser's own wording never shows. Also --help and --version, in
// text and as JSON.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "home_fixture.h"
#include "run_binary.h"

namespace orrery {
namespace {

using nlohmann::json;
using Args = std::vector<std::string>;

constexpr int kExitUsage = 2;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Phrases of the argument parser's own messages.
const std::vector<std::string> kParserPhrases{
    "Could not convert",      "At Most",          "At least",
    "The following argument", "Run with",         "required but received",
    "not expected",           "Expected exactly", "required INT",
    "required TEXT",          "is required",      "was given a disallowed"};

class Messages : public HomeFixture {
 protected:
  // A usage error: exit 2, nothing on stdout, exactly one line "orrery: …"
  // on stderr without the parser's wording, and nothing created. Then (unless
  // told not to) with --json: the same line and the error document. Returns
  // the message.
  std::string usage_message(const Args& args, bool with_json = true) const {
    const RunResult result = invoke(args);
    const std::string what = describe(with_home(args), result);
    EXPECT_EQ(result.exit_code, kExitUsage) << what;
    EXPECT_EQ(result.out, "") << what;
    EXPECT_EQ(result.err.rfind("orrery: ", 0), 0u) << what;
    EXPECT_EQ(lines(result.err).size(), 1u) << what;
    for (const std::string& phrase : kParserPhrases) {
      EXPECT_FALSE(contains(result.err, phrase)) << "parser wording '" << phrase << "'\n" << what;
    }
    EXPECT_FALSE(std::filesystem::exists(home_)) << "the home was created\n" << what;
    std::string message = result.err.size() > 9 ? result.err.substr(8) : "";
    if (!message.empty()) message.pop_back();
    if (!with_json) return message;

    Args json_args{"--json"};
    json_args.insert(json_args.end(), args.begin(), args.end());
    const RunResult with_json = invoke(json_args);
    const std::string json_what = describe(with_home(json_args), with_json);
    EXPECT_EQ(with_json.exit_code, kExitUsage) << json_what;
    EXPECT_EQ(with_json.err, result.err) << json_what;
    const json document = json::parse(with_json.out, nullptr, false);
    EXPECT_FALSE(document.is_discarded()) << json_what;
    if (!document.is_discarded()) {
      EXPECT_EQ(document, json({{"error", {{"code", "usage"}, {"message", message}}}}))
          << json_what;
    }
    return message;
  }

  // Runs orrery with --home, unless the arguments give their own.
  RunResult invoke(const Args& args) const {
    for (const std::string& arg : args) {
      if (arg == "--home") return run_orrery(args);
    }
    return run(args);
  }

  // The options `COMMAND --help` lists that take a value.
  std::vector<std::string> value_options(const Args& command) const {
    Args args = command;
    args.push_back("--help");
    const RunResult result = run_orrery(args);
    EXPECT_EQ(result.exit_code, 0) << describe(args, result);
    std::vector<std::string> options;
    for (const std::string& line : lines(result.out)) {
      const size_t start = line.find_first_not_of(' ');
      if (start == std::string::npos || line.compare(start, 2, "--") != 0) continue;
      const size_t end = line.find(' ', start);
      const std::string option = line.substr(start, end - start);
      // A value-taking option is followed by its type: "--cron TEXT", "--limit N".
      const size_t type = line.find_first_not_of(' ', end);
      if (type != std::string::npos &&
          (line.compare(type, 5, "TEXT ") == 0 || line.compare(type, 2, "N ") == 0)) {
        options.push_back(option);
      }
    }
    return options;
  }
};

struct MessageCase {
  const char* name;
  Args args;
  std::vector<std::string> parts;  // the message contains each
};

class ParserMessages : public Messages, public ::testing::WithParamInterface<MessageCase> {};

TEST_P(ParserMessages, AreOrrerysOwnSentencesNamingTheOptionAndValue) {
  const std::string message = usage_message(GetParam().args);
  for (const std::string& part : GetParam().parts) {
    EXPECT_TRUE(contains(message, part)) << "'" << part << "' not in: " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ParserMessages,
    ::testing::Values(
        // Numbers are read by orrery.
        MessageCase{"NotAWholeNumber",
                    {"add", "x", "--every", "1h", "--max-attempts", "abc", "--", "/bin/true"},
                    {"--max-attempts 'abc' is not a whole number"}},
        MessageCase{"DecimalCount",
                    {"cron", "explain", "0 9 * * *", "-n", "1.5"},
                    {"-n '1.5' is not a whole number"}},
        MessageCase{
            "WordCount", {"schedule", "preview", "--every", "1h", "-n", "many"}, {"-n 'many'"}},
        MessageCase{"HugeLimit",
                    {"runs", "--limit", "99999999999"},
                    {"--limit '99999999999' is too large"}},
        MessageCase{"KeepWord", {"prune", "--keep", "ten"}, {"--keep 'ten' is not a whole number"}},
        MessageCase{"CatchUpLimitWord",
                    {"add", "x", "--every", "1h", "--catch-up-limit", "all", "--", "/bin/true"},
                    {"--catch-up-limit 'all'"}},
        // An option given twice.
        MessageCase{"EveryTwice",
                    {"add", "x", "--every", "1h", "--every", "2h", "--", "/bin/true"},
                    {"--every was given 2 times", "'1h'", "'2h'", "give it once"}},
        MessageCase{"TzTwice",
                    {"cron", "explain", "0 9 * * *", "--tz", "UTC", "--tz", "UTC"},
                    {"--tz was given 2 times"}},
        MessageCase{"HomeTwice",
                    {"--home", "a", "--home", "b", "ls"},
                    {"--home was given 2 times ('a', 'b')"}},
        // Unknown commands list the commands.
        MessageCase{"UnknownCommand",
                    {"launch", "--once"},
                    {"unknown command 'launch'", "commands: add, ", "ls", "trigger", "schedule"}},
        MessageCase{"UnknownCommandAlone", {"frobnicate"}, {"unknown command 'frobnicate'"}},
        MessageCase{"UnknownSubcommand",
                    {"cron", "explian", "* * * * *"},
                    {"unknown command 'cron explian'", "explain"}},
        MessageCase{
            "UnknownRunSubcommand", {"run", "shwo", "abc"}, {"unknown command 'run shwo'", "show"}},
        // Unknown options name the option and the command.
        MessageCase{"UnknownOption", {"ls", "--bogus"}, {"unknown option '--bogus' for orrery ls"}},
        MessageCase{"UnknownOptionWithValue",
                    {"cron", "explain", "0 9 * * *", "--bogus=3"},
                    {"unknown option '--bogus' for orrery cron explain"}},
        MessageCase{
            "UnknownShortOption", {"show", "x", "-z"}, {"unknown option '-z' for orrery show"}},
        // Arguments beyond what a command takes.
        MessageCase{
            "ExtraArgument", {"show", "a", "b"}, {"unexpected argument 'b' for orrery show"}},
        MessageCase{"ArgumentToLs", {"ls", "extra"}, {"unexpected argument 'extra' for orrery ls"}},
        // Missing values and arguments.
        MessageCase{
            "CountWithoutValue", {"cron", "explain", "0 9 * * *", "-n"}, {"-n needs a value"}},
        MessageCase{"EveryWithoutValue", {"add", "x", "--every"}, {"--every needs a value"}},
        MessageCase{"LimitWithEqualsAndNothing", {"ls", "--limit="}, {"--limit needs a value"}},
        MessageCase{"ShowWithoutLoop", {"show"}, {"orrery show needs LOOP"}},
        MessageCase{"AddWithoutName", {"add"}, {"orrery add needs NAME"}},
        MessageCase{"RunShowWithoutRun", {"run", "show"}, {"orrery run show needs RUN"}},
        MessageCase{"RenameWithoutNewName", {"rename", "x"}, {"orrery rename needs NEW_NAME"}},
        // Empty values.
        MessageCase{
            "EmptyCron", {"add", "x", "--cron", "", "--", "/bin/true"}, {"--cron cannot be empty"}},
        MessageCase{
            "EmptyCronPreview", {"schedule", "preview", "--cron", ""}, {"--cron cannot be empty"}},
        MessageCase{"EmptyStatus", {"ls", "--status", ""}, {"--status cannot be empty"}},
        MessageCase{"EmptyHome", {"--home", "", "ls"}, {"--home cannot be empty"}},
        MessageCase{"EmptyDb", {"ls", "--db", ""}, {"--db cannot be empty"}},
        MessageCase{"EmptyCount", {"next", "x", "-n", ""}, {"-n cannot be empty"}},
        MessageCase{"EmptyLoop", {"show", ""}, {"LOOP cannot be empty (see orrery show --help)"}},
        MessageCase{"EmptyLoopToPause", {"pause", ""}, {"LOOP cannot be empty"}},
        MessageCase{"EmptyLoopOfRuns", {"runs", ""}, {"LOOP cannot be empty"}},
        MessageCase{"EmptyRun", {"run", "show", ""}, {"RUN cannot be empty"}},
        MessageCase{"EmptyRunOrLoop", {"logs", ""}, {"RUN_OR_LOOP cannot be empty"}},
        // Range checks of paging.
        MessageCase{"LimitZero", {"ls", "--limit", "0"}, {"--limit 0 out of range 1-10000"}},
        MessageCase{"LimitTooLarge", {"runs", "--limit", "10001"}, {"--limit 10001 out of range"}},
        MessageCase{"NegativeOffset", {"ls", "--offset=-1"}, {"--offset -1 cannot be negative"}},
        MessageCase{"NegativeRunsOffset", {"runs", "--offset=-5"}, {"--offset -5"}}),
    [](const ::testing::TestParamInfo<MessageCase>& info) { return info.param.name; });

TEST_F(Messages, UnknownCommandListsEveryCommandButNotInternalOnes) {
  const std::string message = usage_message({"deamon"});
  for (const char* command :
       {"add", "ls", "show", "pause", "resume", "archive", "unarchive", "rm", "rename", "next",
        "prune", "trigger", "runs", "run", "logs", "cron", "schedule"}) {
    EXPECT_TRUE(contains(message, std::string(" ") + command)) << command << ": " << message;
  }
  EXPECT_FALSE(contains(message, "supervise")) << message;
}

TEST_F(Messages, MissingCommandListsTheCommandsOfTheGroup) {
  EXPECT_TRUE(contains(usage_message({}), "add, ls")) << usage_message({});
  EXPECT_TRUE(contains(usage_message({"run"}), "'orrery run' needs a command: show"));
  EXPECT_TRUE(contains(usage_message({"cron"}), "'orrery cron' needs a command: explain"));
}

// Every value-taking option of add, given '' (the rest of the command valid):
// refused naming that option, before any other check.
TEST_F(Messages, EveryAddOptionGivenAnEmptyValueIsRefusedNamingIt) {
  const std::vector<std::string> options = value_options({"add"});
  ASSERT_GE(options.size(), 30u) << "add --help lists fewer options than expected";
  for (const std::string& option : options) {
    const Args schedule = option == "--every" ? Args{"--cron", "0 * * * *"} : Args{"--every", "1h"};
    Args args{"add", "x"};
    args.insert(args.end(), schedule.begin(), schedule.end());
    args.insert(args.end(), {option, "", "--", "/bin/true"});
    const std::string message = usage_message(args, /*with_json=*/false);
    EXPECT_EQ(message, option + " cannot be empty") << option;
  }
}

TEST_F(Messages, EveryValueOptionOfOtherCommandsGivenAnEmptyValueIsRefusedNamingIt) {
  const std::vector<Args> commands{{"ls"},
                                   {"runs"},
                                   {"next", "x"},
                                   {"prune"},
                                   {"cron", "explain", "0 9 * * *"},
                                   {"schedule", "preview"}};
  size_t checked = 0;
  for (const Args& command : commands) {
    for (const std::string& option : value_options(command)) {
      Args args = command;
      args.insert(args.end(), {option, ""});
      EXPECT_EQ(usage_message(args, /*with_json=*/false), option + " cannot be empty") << option;
      ++checked;
    }
  }
  // ls: --status --limit --offset; runs: --status --limit --offset; next:
  // --from; prune: --older-than --keep; cron explain: --from --tz;
  // schedule preview: --cron --every --at --from --tz.
  EXPECT_GE(checked, 16u);
}

// ---------------------------------------------------------------------------
// --help and --version.

TEST_F(Messages, HelpAndVersionWithJsonAreOneDocument) {
  const RunResult help = run_orrery({"--help"});
  for (const Args& args : {Args{"--help", "--json"}, Args{"--json", "--help"}}) {
    const RunResult result = run_orrery(args);
    ASSERT_EQ(result.exit_code, 0) << describe(args, result);
    EXPECT_EQ(result.err, "");
    const json document = json::parse(result.out, nullptr, false);
    ASSERT_FALSE(document.is_discarded()) << describe(args, result);
    EXPECT_EQ(document, json({{"help", help.out}}));
  }
  const RunResult add_help = run_orrery({"add", "--help", "--json"});
  const json add_document = json::parse(add_help.out, nullptr, false);
  ASSERT_FALSE(add_document.is_discarded()) << add_help.out;
  EXPECT_TRUE(contains(add_document["help"].get<std::string>(), "--max-attempts"));

  const RunResult version = run_orrery({"--version"});
  ASSERT_EQ(version.exit_code, 0);
  const std::string text = version.out.substr(0, version.out.find('\n'));
  ASSERT_EQ(text.rfind("orrery ", 0), 0u) << text;
  const RunResult result = run_orrery({"--version", "--json"});
  ASSERT_EQ(result.exit_code, 0) << describe({"--version", "--json"}, result);
  EXPECT_EQ(result.err, "");
  const json document = json::parse(result.out, nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << result.out;
  EXPECT_EQ(document, json({{"version", text.substr(7)}}));
}

// Output that cannot be written is a failure with a message, never exit 0:
// stdout on a full device or closed, for a plain document, a JSON one, help.
TEST_F(Messages, OutputThatCannotBeWrittenFailsTheCommand) {
  ASSERT_EQ(run({"add", "w", "--every", "1h", "--", "/bin/true"}).exit_code, 0);
  for (const std::string& redirect : {std::string(">/dev/full"), std::string(">&-")}) {
    for (const Args& args : {Args{"ls"}, Args{"--json", "ls"}, Args{"show", "w"},
                             Args{"cron", "explain", "@daily"}, Args{"--help"}}) {
      Args shell{"-c", "exec \"$0\" \"$@\" " + redirect, ORRERY_BINARY};
      const Args full = with_home(args);
      shell.insert(shell.end(), full.begin(), full.end());
      const RunResult result = run_program("/bin/sh", shell);
      EXPECT_EQ(result.exit_code, 70) << redirect << " " << describe(full, result);
      EXPECT_EQ(result.err, "orrery: cannot write the output: standard output is closed or full\n")
          << redirect << " " << describe(full, result);
    }
  }
}

}  // namespace
}  // namespace orrery
