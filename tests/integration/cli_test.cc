// Black-box tests of the CLI contract (docs/cli.md): they run the real
// binary and check exit codes, stdout, stderr and the --json documents.
//
// Expected fire times are worked out by hand from the calendar: 2026-01-01 is
// a Thursday, so 2026-03-01 is a Sunday, 2026-10-01 a Thursday and 2026-11-27
// a Friday. Europe/Berlin is UTC+1 (CET) in winter and UTC+2 (CEST) from the
// last Sunday of March (2026-03-29, 01:00Z) to the last Sunday of October
// (2026-10-25, 01:00Z); America/New_York is UTC-5 in winter, UTC-4 in summer;
// Asia/Tokyo is UTC+9 all year.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "run_binary.h"

namespace orrery {
namespace {

using nlohmann::json;
using Args = std::vector<std::string>;
using Times = std::vector<std::string>;

constexpr int kExitUsage = 2;

// Runs a command that must succeed with --json and returns its document.
json run_json(const Args& args, const EnvVars& env = {}) {
  const RunResult result = run_orrery(args, env);
  EXPECT_EQ(result.exit_code, 0) << describe(args, result);
  EXPECT_EQ(result.err, "") << describe(args, result);
  json document = json::parse(result.out, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(document.is_discarded()) << "stdout is not one JSON document\n"
                                        << describe(args, result);
  return document;
}

// The "next" list of a document, checked against the contract: an array of
// YYYY-MM-DDTHH:MM:SS.mmmZ strings, strictly increasing, all after `from`
// (also in that format). The format sorts like the instants it names.
Times next_times(const json& document, const std::string& from) {
  EXPECT_TRUE(document.contains("next") && document["next"].is_array()) << document.dump();
  if (!document.contains("next") || !document["next"].is_array()) return {};
  Times times;
  for (const json& item : document["next"]) {
    EXPECT_TRUE(item.is_string()) << item.dump();
    if (!item.is_string()) continue;
    const std::string time = item.get<std::string>();
    EXPECT_TRUE(is_time_text(time)) << time;
    EXPECT_GT(time, from) << "not after --from";
    if (!times.empty()) {
      EXPECT_GT(time, times.back()) << "not strictly increasing";
    }
    times.push_back(time);
  }
  return times;
}

// A usage error as the contract prescribes: exit 2, exactly one line
// "orrery: …" on stderr, nothing on stdout. Returns the message.
std::string expect_usage_error(const Args& args, const EnvVars& env = {}) {
  const RunResult result = run_orrery(args, env);
  EXPECT_EQ(result.exit_code, kExitUsage) << describe(args, result);
  EXPECT_EQ(result.out, "") << describe(args, result);
  EXPECT_EQ(result.err.rfind("orrery: ", 0), 0u) << describe(args, result);
  EXPECT_EQ(lines(result.err).size(), 1u) << describe(args, result);
  EXPECT_TRUE(!result.err.empty() && result.err.back() == '\n') << describe(args, result);
  std::string message = result.err;
  if (message.rfind("orrery: ", 0) == 0) message.erase(0, 8);
  if (!message.empty() && message.back() == '\n') message.pop_back();
  return message;
}

// The same, with --json: the line on stderr plus {"error": {"code": "usage",
// "message": …}} on stdout, the message the same as on stderr.
void expect_json_usage_error(const Args& args) {
  const RunResult result = run_orrery(args);
  EXPECT_EQ(result.exit_code, kExitUsage) << describe(args, result);
  ASSERT_EQ(result.err.rfind("orrery: ", 0), 0u) << describe(args, result);
  EXPECT_EQ(lines(result.err).size(), 1u) << describe(args, result);
  json document = json::parse(result.out, nullptr, false);
  ASSERT_FALSE(document.is_discarded()) << describe(args, result);
  ASSERT_TRUE(document.is_object() && document.contains("error")) << describe(args, result);
  EXPECT_EQ(document["error"]["code"], "usage") << describe(args, result);
  const std::string message = result.err.substr(8, result.err.size() - 9);
  EXPECT_EQ(document["error"]["message"], message) << describe(args, result);
}

// ---------------------------------------------------------------------------
// The test helper itself.

TEST(RunBinaryTest, CapturesLargeStdoutAndStderrSeparately) {
  // 300 000 bytes on each stream is far beyond a pipe's buffer: reading only
  // one pipe at a time would deadlock. The shell here is the program under
  // test of the helper, not a way of starting orrery.
  const RunResult result =
      run_program("/bin/sh", {"-c",
                              "head -c 300000 /dev/zero | tr '\\0' o; "
                              "head -c 300000 /dev/zero | tr '\\0' e >&2; "
                              "head -c 300000 /dev/zero | tr '\\0' o; exit 3"});
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_EQ(result.term_signal, 0);
  EXPECT_EQ(result.out, std::string(600000, 'o'));
  EXPECT_EQ(result.err, std::string(300000, 'e'));
}

TEST(RunBinaryTest, PassesExtraEnvironmentAndArgumentsVerbatim) {
  const RunResult result = run_program("/usr/bin/env", {}, {{"TZ", "Asia/Tokyo"}});
  EXPECT_EQ(result.exit_code, 0);
  const std::vector<std::string> entries = lines(result.out);
  EXPECT_EQ(std::count(entries.begin(), entries.end(), "TZ=Asia/Tokyo"), 1);

  // No shell: quotes, spaces and globs reach the program unchanged.
  const RunResult echo = run_program("/bin/echo", {"a  b", "*", "'c'"});
  EXPECT_EQ(echo.out, "a  b * 'c'\n");
}

// ---------------------------------------------------------------------------
// --version, --help

TEST(CliTest, VersionPrintsTheVersionAndExitsZero) {
  const RunResult result = run_orrery({"--version"});
  EXPECT_EQ(result.exit_code, 0) << describe({"--version"}, result);
  const std::string version = result.out.substr(0, result.out.find('\n'));
  EXPECT_TRUE(version.rfind("orrery ", 0) == 0 &&
              version.find_first_not_of("0123456789.", 7) == std::string::npos &&
              std::count(version.begin(), version.end(), '.') == 2)
      << describe({"--version"}, result);
  EXPECT_NE(result.out.find("orrery"), std::string::npos) << result.out;
  EXPECT_EQ(result.err, "");
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliTest, HelpListsEveryCommandWithItsDescriptionAndTheGlobalOptions) {
  const RunResult result = run_orrery({"--help"});
  ASSERT_EQ(result.exit_code, 0) << describe({"--help"}, result);
  EXPECT_EQ(result.err, "");
  const std::vector<std::pair<std::string, std::string>> commands{
      {"add", "Add a loop"},
      {"ls", "List loops"},
      {"show", "Show a loop"},
      {"pause", "Pause a loop"},
      {"resume", "Resume a paused loop"},
      {"archive", "Archive a loop"},
      {"unarchive", "Restore an archived loop"},
      {"rm", "Delete a loop"},
      {"rename", "Rename a loop"},
      {"next", "List a loop's next slots"},
      {"prune", "Delete finished runs"},
      {"trigger", "Run a loop now"},
      {"runs", "List runs"},
      {"run", "Work with one run"},
      {"logs", "Print a run's log"},
      {"cron", "Work with cron expressions"},
      {"schedule", "Work with schedules"}};
  std::set<std::string> seen;
  for (const std::string& line : lines(result.out)) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    for (const auto& [command, description] : commands) {
      if (line.compare(start, command.size() + 1, command + " ") == 0 && has(line, description)) {
        seen.insert(command);
      }
    }
  }
  for (const auto& [command, description] : commands) {
    EXPECT_EQ(seen.count(command), 1u) << command << " (" << description << ") not listed\n"
                                       << result.out;
  }
  EXPECT_FALSE(has(result.out, "supervise")) << result.out;
  for (const char* global : {"--home", "--db", "--json", "--version", "--help"}) {
    EXPECT_TRUE(has(result.out, global)) << global << "\n" << result.out;
  }
}

TEST(CliTest, CommandHelpShowsItsUsageArgumentsAndOptions) {
  const std::vector<std::pair<Args, std::vector<std::string>>> cases{
      {{"ls"}, {"--all", "--archived", "--status", "--limit", "--offset"}},
      {{"runs"}, {"LOOP", "--status", "--limit", "--offset"}},
      {{"run", "show"}, {"RUN", "prefix"}},
      {{"logs"}, {"RUN_OR_LOOP", "--stderr", "--follow"}},
      {{"rename"}, {"LOOP", "NEW_NAME"}},
      {{"next"}, {"LOOP", "-n", "--from"}},
      {{"prune"}, {"--older-than", "--keep", "--dry-run"}},
      {{"trigger"}, {"LOOP", "--wait"}},
      {{"cron", "explain"}, {"EXPR", "-n", "--from", "--tz"}},
      {{"schedule", "preview"}, {"--cron", "--every", "--at", "-n", "--from", "--tz"}}};
  for (const auto& [command, parts] : cases) {
    Args args = command;
    args.push_back("--help");
    const RunResult result = run_orrery(args);
    ASSERT_EQ(result.exit_code, 0) << describe(args, result);
    EXPECT_EQ(result.err, "") << describe(args, result);
    std::string path = "orrery";
    for (const std::string& word : command) path += " " + word;
    EXPECT_TRUE(has(result.out, "Usage: " + path)) << describe(args, result);
    for (const std::string& part : parts) {
      EXPECT_TRUE(has(result.out, part)) << part << "\n" << describe(args, result);
    }
  }
}

// ---------------------------------------------------------------------------
// cron explain

TEST(CronExplainTest, HumanOutputShowsDescriptionAndNextTimesInTheZone) {
  // 2026-11-27 is a Friday and 12:00Z is 13:00 in Berlin, past 09:00: the next
  // weekdays are Mon 30 Nov, Tue 1 Dec, Wed 2 Dec, at 09:00 CET (+01:00).
  const Args args{
      "cron", "explain", "0 9 * * 1-5", "--tz", "Europe/Berlin", "--from", "2026-11-27T12:00:00Z",
      "-n",   "3"};
  const RunResult result = run_orrery(args);
  ASSERT_EQ(result.exit_code, 0) << describe(args, result);
  EXPECT_EQ(result.err, "");
  EXPECT_NE(result.out.find("at 09:00 on Monday through Friday"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("Europe/Berlin"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("0 9 * * 1-5"), std::string::npos) << result.out;
  const size_t first = result.out.find("2026-11-30 09:00 +01:00");
  const size_t second = result.out.find("2026-12-01 09:00 +01:00");
  const size_t third = result.out.find("2026-12-02 09:00 +01:00");
  ASSERT_NE(first, std::string::npos) << result.out;
  ASSERT_NE(second, std::string::npos) << result.out;
  ASSERT_NE(third, std::string::npos) << result.out;
  EXPECT_LT(first, second);
  EXPECT_LT(second, third);
  EXPECT_EQ(result.out.find("2026-12-03"), std::string::npos) << "-n 3 shows three\n" << result.out;
  // The first time is on the "next" line; no colour codes when not on a TTY.
  for (const std::string& line : lines(result.out)) {
    if (line.find("2026-11-30") != std::string::npos) {
      EXPECT_EQ(line.rfind("next", 0), 0u) << line;
    }
  }
  EXPECT_EQ(result.out.find('\x1b'), std::string::npos) << result.out;
}

TEST(CronExplainTest, JsonWeekdaysInBerlin) {
  // As above: 09:00 CET is 08:00Z.
  json document = run_json({"cron", "explain", "0 9 * * 1-5", "--json", "--from",
                            "2026-11-27T12:00:00Z", "--tz", "Europe/Berlin", "-n", "3"});
  ASSERT_TRUE(document.is_object()) << document.dump();
  EXPECT_EQ(document["expression"], "0 9 * * 1-5");
  EXPECT_EQ(document["timezone"], "Europe/Berlin");
  EXPECT_EQ(document["description"], "at 09:00 on Monday through Friday");
  EXPECT_EQ(
      next_times(document, "2026-11-27T12:00:00.000Z"),
      (Times{"2026-11-30T08:00:00.000Z", "2026-12-01T08:00:00.000Z", "2026-12-02T08:00:00.000Z"}));
}

TEST(CronExplainTest, JsonFindsTheNextLeapDayYearsAway) {
  // After 2026-03-01 the next 29 February is in 2028; midnight EST is 05:00Z.
  json document = run_json({"cron", "explain", "0 0 29 2 *", "--tz", "America/New_York", "--from",
                            "2026-03-01T00:00:00Z", "-n", "1", "--json"});
  EXPECT_EQ(document["timezone"], "America/New_York");
  EXPECT_EQ(next_times(document, "2026-03-01T00:00:00.000Z"), (Times{"2028-02-29T05:00:00.000Z"}));
}

TEST(CronExplainTest, JsonDefaultsToFiveTimesStrictlyAfterFrom) {
  // --from is exactly a midnight: that midnight is not "after" it.
  json document = run_json(
      {"cron", "explain", "@daily", "--tz", "UTC", "--from", "2026-01-01T00:00:00Z", "--json"});
  EXPECT_EQ(
      next_times(document, "2026-01-01T00:00:00.000Z"),
      (Times{"2026-01-02T00:00:00.000Z", "2026-01-03T00:00:00.000Z", "2026-01-04T00:00:00.000Z",
             "2026-01-05T00:00:00.000Z", "2026-01-06T00:00:00.000Z"}));
}

TEST(CronExplainTest, FromAcceptsAnOffsetAndLocalWallTime) {
  // 2026-11-27T13:00+01:00 and "2026-11-27 13:00" in Berlin are both 12:00Z.
  const Times expected{"2026-11-30T08:00:00.000Z"};
  for (const std::string from : {"2026-11-27T13:00+01:00", "2026-11-27 13:00"}) {
    json document = run_json({"cron", "explain", "0 9 * * mon-fri", "--tz", "Europe/Berlin",
                              "--from", from, "-n", "1", "--json"});
    EXPECT_EQ(next_times(document, "2026-11-27T12:00:00.000Z"), expected) << from;
  }
}

TEST(CronExplainTest, BothDayFieldsRestrictedMatchEither) {
  // Vixie cron: day 13 OR Friday. After Fri 2026-11-27: Fri 4 Dec, Fri 11 Dec,
  // Sun 13 Dec (the 13th), Fri 18 Dec.
  json document = run_json({"cron", "explain", "0 0 13 * 5", "--tz", "UTC", "--from",
                            "2026-11-27T12:00:00Z", "-n", "4", "--json"});
  EXPECT_EQ(next_times(document, "2026-11-27T12:00:00.000Z"),
            (Times{"2026-12-04T00:00:00.000Z", "2026-12-11T00:00:00.000Z",
                   "2026-12-13T00:00:00.000Z", "2026-12-18T00:00:00.000Z"}));
}

TEST(CronExplainTest, StarStepDayOfMonthMustMatchTogetherWithWeekday) {
  // A day-of-month starting with '*' is "unrestricted", so both fields must
  // match: Fridays on odd days. Fridays after 2026-11-27: 4 Dec (even),
  // 11 Dec (odd), 18 Dec (even), 25 Dec (odd), 1 Jan 2027 (odd).
  json document = run_json({"cron", "explain", "0 0 */2 * 5", "--tz", "UTC", "--from",
                            "2026-11-27T12:00:00Z", "-n", "3", "--json"});
  EXPECT_EQ(
      next_times(document, "2026-11-27T12:00:00.000Z"),
      (Times{"2026-12-11T00:00:00.000Z", "2026-12-25T00:00:00.000Z", "2027-01-01T00:00:00.000Z"}));
}

TEST(CronExplainTest, FixedTimeJobFiresOnceAfterTheSpringGap) {
  // Berlin 2026-03-29: 02:00 CET jumps to 03:00 CEST at 01:00Z, so 02:30 does
  // not exist and fires at the first instant after the gap (01:00Z). Then
  // 02:30 CEST = 00:30Z.
  json document = run_json({"cron", "explain", "30 2 * * *", "--tz", "Europe/Berlin", "--from",
                            "2026-03-28T12:00:00Z", "-n", "3", "--json"});
  EXPECT_EQ(
      next_times(document, "2026-03-28T12:00:00.000Z"),
      (Times{"2026-03-29T01:00:00.000Z", "2026-03-30T00:30:00.000Z", "2026-03-31T00:30:00.000Z"}));
}

TEST(CronExplainTest, FixedTimeJobFiresOnceInTheRepeatedAutumnHour) {
  // Berlin 2026-10-25: 03:00 CEST goes back to 02:00 CET at 01:00Z, so 02:30
  // happens at 00:30Z (CEST) and 01:30Z (CET); a fixed-time job fires at the
  // first only. The next day 02:30 CET is 01:30Z.
  json document = run_json({"cron", "explain", "30 2 * * *", "--tz", "Europe/Berlin", "--from",
                            "2026-10-24T12:00:00Z", "-n", "2", "--json"});
  EXPECT_EQ(next_times(document, "2026-10-24T12:00:00.000Z"),
            (Times{"2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"}));
}

TEST(CronExplainTest, WildcardJobFollowsRealTimeThroughBothTransitions) {
  // Minute '*/30' makes it a wildcard job. In the repeated hour it fires at
  // 02:00 and 02:30 of both CEST (00:00Z, 00:30Z) and CET (01:00Z, 01:30Z).
  json autumn = run_json({"cron", "explain", "*/30 2 * * *", "--tz", "Europe/Berlin", "--from",
                          "2026-10-24T12:00:00Z", "-n", "5", "--json"});
  EXPECT_EQ(
      next_times(autumn, "2026-10-24T12:00:00.000Z"),
      (Times{"2026-10-25T00:00:00.000Z", "2026-10-25T00:30:00.000Z", "2026-10-25T01:00:00.000Z",
             "2026-10-25T01:30:00.000Z", "2026-10-26T01:00:00.000Z"}));
  // In spring no 02:xx exists on 29 March, so it skips to 02:00 CEST on the
  // 30th (00:00Z).
  json spring = run_json({"cron", "explain", "*/30 2 * * *", "--tz", "Europe/Berlin", "--from",
                          "2026-03-28T12:00:00Z", "-n", "2", "--json"});
  EXPECT_EQ(next_times(spring, "2026-03-28T12:00:00.000Z"),
            (Times{"2026-03-30T00:00:00.000Z", "2026-03-30T00:30:00.000Z"}));
}

TEST(CronExplainTest, JsonWorksBeforeAndAfterTheCommand) {
  const Args rest{"explain", "0 9 * * 1-5",          "--tz", "Europe/Berlin",
                  "--from",  "2026-11-27T12:00:00Z", "-n",   "3"};
  Args before{"--json", "cron"};
  before.insert(before.end(), rest.begin(), rest.end());
  Args after{"cron"};
  after.insert(after.end(), rest.begin(), rest.end());
  after.push_back("--json");

  json first = run_json(before);
  json second = run_json(after);
  EXPECT_EQ(first, second);
  EXPECT_EQ(first["next"][0], "2026-11-30T08:00:00.000Z");
}

TEST(CronExplainTest, CountBounds) {
  const Args base{"cron", "explain", "* * * * *", "--tz", "UTC", "--from", "2026-01-01T00:00:00Z"};
  for (const std::string n : {"0", "1001", "-1"}) {
    Args args = base;
    args.insert(args.end(), {"-n", n});
    const std::string message = expect_usage_error(args);
    EXPECT_NE(message.find("-n"), std::string::npos) << message;
  }
  Args zero_json = base;
  zero_json.insert(zero_json.end(), {"-n", "0", "--json"});
  expect_json_usage_error(zero_json);

  // The bounds themselves are accepted: one minute, and 1000 minutes (the
  // 1000th minute after 00:00 is 16:40).
  Args one = base;
  one.insert(one.end(), {"-n", "1", "--json"});
  EXPECT_EQ(next_times(run_json(one), "2026-01-01T00:00:00.000Z"),
            (Times{"2026-01-01T00:01:00.000Z"}));
  Args thousand = base;
  thousand.insert(thousand.end(), {"-n", "1000", "--json"});
  const Times times = next_times(run_json(thousand), "2026-01-01T00:00:00.000Z");
  ASSERT_EQ(times.size(), 1000u);
  EXPECT_EQ(times.back(), "2026-01-01T16:40:00.000Z");
}

TEST(CronExplainTest, ThousandTimesInHumanOutput) {
  // About 50 KB of text: more than a pipe holds at once.
  const Args args{"cron", "explain", "* * * * *", "--tz", "UTC", "--from", "2026-01-01T00:00:00Z",
                  "-n",   "1000"};
  const RunResult result = run_orrery(args);
  ASSERT_EQ(result.exit_code, 0) << describe(args, result);
  const std::vector<std::string> output = lines(result.out);
  EXPECT_EQ(std::count_if(
                output.begin(), output.end(),
                [](const std::string& line) { return line.find(" +00:00") != std::string::npos; }),
            1000);
  EXPECT_NE(result.out.find("2026-01-01 16:40 +00:00"), std::string::npos);
}

TEST(CronExplainTest, DayOfMonthOutOfRangeHasAnExactMessage) {
  EXPECT_EQ(expect_usage_error({"cron", "explain", "0 0 32 * *", "--tz", "UTC"}),
            "day-of-month 32 out of range 1-31 in '0 0 32 * *'");
}

struct InvalidCase {
  const char* name;
  Args args;
  const char* message_part;  // the message must contain this
};

class InvalidInputTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidInputTest, ExitsTwoWithOneLineOnStderrAndNothingOnStdout) {
  const std::string message = expect_usage_error(GetParam().args);
  EXPECT_NE(message.find(GetParam().message_part), std::string::npos) << message;
}

TEST_P(InvalidInputTest, WithJsonAlsoPrintsTheErrorDocument) {
  Args args = GetParam().args;
  args.push_back("--json");
  expect_json_usage_error(args);
}

Args explain(std::string expression, Args more = {"--tz", "UTC"}) {
  Args args{"cron", "explain", std::move(expression)};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

INSTANTIATE_TEST_SUITE_P(
    CronExplain, InvalidInputTest,
    ::testing::Values(
        InvalidCase{"DayOfMonth32", explain("0 0 32 * *"), "day-of-month 32 out of range 1-31"},
        InvalidCase{"Minute61", explain("61 * * * *"), "minute 61 out of range 0-59"},
        InvalidCase{"Hour24", explain("0 24 * * *"), "hour 24 out of range 0-23"},
        InvalidCase{"FourFields", explain("0 9 * *"), "4 fields"},
        InvalidCase{"SixFields", explain("0 0 9 * * *"), "6 fields"},
        InvalidCase{"EmptyExpression", explain(""), "empty cron expression"},
        InvalidCase{"UnknownMacro", explain("@fortnightly"), "unknown cron macro '@fortnightly'"},
        InvalidCase{"BadMonthName", explain("0 0 1 foo *"), "month value 'foo'"},
        InvalidCase{"ZeroStep", explain("*/0 * * * *"), "minute step '0'"},
        InvalidCase{"UnknownZone", explain("0 9 * * *", {"--tz", "Mars/Olympus_Mons"}),
                    "unknown time zone 'Mars/Olympus_Mons'"},
        InvalidCase{"BadFrom", explain("0 9 * * *", {"--tz", "UTC", "--from", "yesterday"}),
                    "invalid time 'yesterday'"},
        InvalidCase{"FromDay30OfFebruary",
                    explain("0 9 * * *", {"--tz", "UTC", "--from", "2026-02-30T00:00:00Z"}),
                    "invalid time '2026-02-30T00:00:00Z'"},
        InvalidCase{"NeverFires", explain("0 0 31 2 *"), "never fires"},
        InvalidCase{"NeverFiresInAprilOrJune", explain("0 0 31 4,6 *"), "never fires"},
        InvalidCase{"CountTooLarge", explain("0 9 * * *", {"--tz", "UTC", "-n", "1001"}), "1001"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) { return info.param.name; });

// ---------------------------------------------------------------------------
// Errors from argument parsing.

TEST(CliTest, UnknownOptionIsAUsageError) {
  expect_usage_error({"cron", "explain", "0 9 * * *", "--bogus"});
  expect_json_usage_error({"cron", "explain", "0 9 * * *", "--bogus", "--json"});
}

TEST(CliTest, UnknownCommandIsAUsageError) {
  // docs/architecture.md: a rejected input names the value, so a typo is visible.
  const std::string message = expect_usage_error({"frobnicate"});
  EXPECT_NE(message.find("frobnicate"), std::string::npos) << message;
  const std::string sub = expect_usage_error({"cron", "explian", "* * * * *"});
  EXPECT_NE(sub.find("explian"), std::string::npos) << sub;
  expect_json_usage_error({"--json", "frobnicate"});
}

TEST(CliTest, MissingCommandOrSubcommandIsAUsageError) {
  expect_usage_error({});
  expect_usage_error({"cron"});
  expect_usage_error({"schedule"});
  expect_usage_error({"cron", "explain"});  // EXPR is required
}

TEST(CliTest, OptionMissingItsValueIsAUsageError) {
  expect_usage_error({"cron", "explain", "0 9 * * *", "-n"});
  expect_usage_error({"cron", "explain", "0 9 * * *", "-n", "many"});
}

// ---------------------------------------------------------------------------
// schedule preview

TEST(SchedulePreviewTest, IntervalIsFixedRateFromTheStart) {
  // 90 minutes = 5 400 000 ms; slots are from + k × 90m.
  json document = run_json({"schedule", "preview", "--every", "90m", "--from",
                            "2026-01-01T00:00:00Z", "-n", "3", "--json"});
  ASSERT_TRUE(document.contains("schedule")) << document.dump();
  json& schedule = document["schedule"];
  EXPECT_EQ(schedule["type"], "interval");
  EXPECT_EQ(schedule["every_ms"], 5400000);
  EXPECT_EQ(schedule["anchor"], "fixed_rate");
  EXPECT_EQ(
      next_times(document, "2026-01-01T00:00:00.000Z"),
      (Times{"2026-01-01T01:30:00.000Z", "2026-01-01T03:00:00.000Z", "2026-01-01T04:30:00.000Z"}));
}

TEST(SchedulePreviewTest, IntervalAcceptsCombinedUnits) {
  // 1h30m is the same interval as 90m; 1d crosses into the next days.
  json combined = run_json({"schedule", "preview", "--every", "1h30m", "--from",
                            "2026-01-01T00:00:00Z", "-n", "1", "--json"});
  EXPECT_EQ(combined["schedule"]["every_ms"], 5400000);
  EXPECT_EQ(next_times(combined, "2026-01-01T00:00:00.000Z"), (Times{"2026-01-01T01:30:00.000Z"}));
  json daily = run_json({"schedule", "preview", "--every", "1d", "--from", "2026-12-31T06:00:00Z",
                         "-n", "2", "--json"});
  EXPECT_EQ(daily["schedule"]["every_ms"], 86400000);
  EXPECT_EQ(next_times(daily, "2026-12-31T06:00:00.000Z"),
            (Times{"2027-01-01T06:00:00.000Z", "2027-01-02T06:00:00.000Z"}));
}

TEST(SchedulePreviewTest, IntervalHumanOutput) {
  const Args args{"schedule", "preview", "--every", "90m",
                  "--tz",     "UTC",     "--from",  "2026-01-01T00:00:00Z",
                  "-n",       "2"};
  const RunResult result = run_orrery(args);
  ASSERT_EQ(result.exit_code, 0) << describe(args, result);
  EXPECT_EQ(result.err, "");
  EXPECT_NE(result.out.find("interval"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("1h30m"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("2026-01-01 01:30 +00:00"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("2026-01-01 03:00 +00:00"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("04:30"), std::string::npos) << result.out;
}

TEST(SchedulePreviewTest, OnceInTheFutureGivesExactlyThatTime) {
  json document = run_json({"schedule", "preview", "--at", "2026-06-01T12:00:00Z", "--from",
                            "2026-01-01T00:00:00Z", "-n", "5", "--json"});
  EXPECT_EQ(document["schedule"]["type"], "once");
  EXPECT_EQ(document["schedule"]["at"], "2026-06-01T12:00:00.000Z");
  EXPECT_EQ(next_times(document, "2026-01-01T00:00:00.000Z"), (Times{"2026-06-01T12:00:00.000Z"}));
}

TEST(SchedulePreviewTest, OnceAcceptsOffsetsAndLocalWallTime) {
  // 14:00+02:00 is 12:00Z; "2026-06-01 09:00" in New York (EDT, -4) is 13:00Z.
  json offset = run_json({"schedule", "preview", "--at", "2026-06-01T14:00:00+02:00", "--from",
                          "2026-01-01T00:00:00Z", "--json"});
  EXPECT_EQ(next_times(offset, "2026-01-01T00:00:00.000Z"), (Times{"2026-06-01T12:00:00.000Z"}));
  json local = run_json({"schedule", "preview", "--at", "2026-06-01 09:00", "--tz",
                         "America/New_York", "--from", "2026-01-01T00:00:00Z", "--json"});
  EXPECT_EQ(local["schedule"]["at"], "2026-06-01T13:00:00.000Z");
  EXPECT_EQ(next_times(local, "2026-01-01T00:00:00.000Z"), (Times{"2026-06-01T13:00:00.000Z"}));
}

TEST(SchedulePreviewTest, OnceNotAfterFromGivesNoTimes) {
  // Before --from, and exactly at it (slots are strictly after --from).
  for (const std::string at : {"2025-12-31T23:59:59Z", "2026-01-01T00:00:00Z"}) {
    json document = run_json(
        {"schedule", "preview", "--at", at, "--from", "2026-01-01T00:00:00Z", "-n", "3", "--json"});
    ASSERT_TRUE(document.contains("next")) << document.dump();
    EXPECT_TRUE(document["next"].is_array()) << document.dump();
    EXPECT_TRUE(document["next"].empty()) << at << ": " << document.dump();
  }
}

TEST(SchedulePreviewTest, RelativeTimesShareOneNow) {
  // --at +2h and --from +1h are both taken from the same "now": one slot,
  // the once time itself. --at +1h with --from +2h: none.
  json one = run_json({"schedule", "preview", "--at", "+2h", "--from", "+1h", "--json"});
  ASSERT_EQ(one["next"].size(), 1u) << one.dump();
  EXPECT_EQ(one["next"][0], one["schedule"]["at"]);
  EXPECT_TRUE(is_time_text(one["next"][0].get<std::string>())) << one.dump();
  json none = run_json({"schedule", "preview", "--at", "+1h", "--from", "+2h", "--json"});
  EXPECT_TRUE(none["next"].empty()) << none.dump();
}

TEST(SchedulePreviewTest, CronWithZone) {
  json document = run_json({"schedule", "preview", "--cron", "0 9 * * 1-5", "--tz", "Europe/Berlin",
                            "--from", "2026-11-27T12:00:00Z", "-n", "3", "--json"});
  json& schedule = document["schedule"];
  EXPECT_EQ(schedule["type"], "cron");
  EXPECT_EQ(schedule["expression"], "0 9 * * 1-5");
  EXPECT_EQ(schedule["timezone"], "Europe/Berlin");
  EXPECT_EQ(
      next_times(document, "2026-11-27T12:00:00.000Z"),
      (Times{"2026-11-30T08:00:00.000Z", "2026-12-01T08:00:00.000Z", "2026-12-02T08:00:00.000Z"}));
}

TEST(SchedulePreviewTest, JsonBeforeTheCommandToo) {
  json document = run_json({"--json", "schedule", "preview", "--every", "90m", "--from",
                            "2026-01-01T00:00:00Z", "-n", "1"});
  EXPECT_EQ(next_times(document, "2026-01-01T00:00:00.000Z"), (Times{"2026-01-01T01:30:00.000Z"}));
}

INSTANTIATE_TEST_SUITE_P(
    SchedulePreview, InvalidInputTest,
    ::testing::Values(
        InvalidCase{"CronAndEvery",
                    {"schedule", "preview", "--cron", "0 9 * * *", "--every", "5m"},
                    "exactly one schedule"},
        InvalidCase{"EveryAndAt",
                    {"schedule", "preview", "--every", "5m", "--at", "2026-06-01T12:00:00Z"},
                    "exactly one schedule"},
        InvalidCase{"NoSchedule", {"schedule", "preview", "-n", "3"}, "exactly one schedule"},
        InvalidCase{"EveryZero", {"schedule", "preview", "--every", "0s"}, "0s"},
        InvalidCase{"EveryNegative", {"schedule", "preview", "--every=-5m"}, "-5m"},
        InvalidCase{"EveryNoUnit", {"schedule", "preview", "--every", "5 minutes"}, "5 minutes"},
        InvalidCase{"BadAt", {"schedule", "preview", "--at", "noon"}, "invalid time 'noon'"},
        InvalidCase{"BadCron",
                    {"schedule", "preview", "--cron", "0 0 32 * *", "--tz", "UTC"},
                    "day-of-month 32 out of range 1-31 in '0 0 32 * *'"},
        InvalidCase{"CronNeverFires",
                    {"schedule", "preview", "--cron", "0 0 30 2 *", "--tz", "UTC"},
                    "never fires"},
        InvalidCase{"UnknownZone",
                    {"schedule", "preview", "--cron", "0 9 * * *", "--tz", "Nowhere/Town"},
                    "unknown time zone 'Nowhere/Town'"},
        InvalidCase{"CountZero", {"schedule", "preview", "--every", "5m", "-n", "0"}, "-n 0"},
        InvalidCase{
            "CountTooLarge", {"schedule", "preview", "--every", "5m", "-n", "1001"}, "-n 1001"}),
    [](const ::testing::TestParamInfo<InvalidCase>& info) { return info.param.name; });

TEST(SchedulePreviewTest, NegativeIntervalAsSeparateArgumentIsRejected) {
  // "-5m" after --every may be read as a value or as an unknown option; either
  // way it is a usage error.
  expect_usage_error({"schedule", "preview", "--every", "-5m", "--from", "2026-01-01T00:00:00Z"});
}

// ---------------------------------------------------------------------------
// The machine's zone: $TZ when --tz is absent.

TEST(TimeZoneTest, TzEnvironmentIsTheDefaultZone) {
  // 09:00 in Tokyo (UTC+9) is 00:00Z; --from is exactly such a 09:00, so the
  // first time is the next day's.
  json document = run_json(
      {"cron", "explain", "0 9 * * *", "--from", "2026-01-01T00:00:00Z", "-n", "2", "--json"},
      {{"TZ", "Asia/Tokyo"}});
  EXPECT_EQ(document["timezone"], "Asia/Tokyo");
  EXPECT_EQ(next_times(document, "2026-01-01T00:00:00.000Z"),
            (Times{"2026-01-02T00:00:00.000Z", "2026-01-03T00:00:00.000Z"}));
}

TEST(TimeZoneTest, TzEnvironmentAppliesToLocalTimesAndCronSchedules) {
  // "2026-06-01 09:00" in Tokyo is 00:00Z.
  json once = run_json({"schedule", "preview", "--at", "2026-06-01 09:00", "--from",
                        "2026-01-01T00:00:00Z", "--json"},
                       {{"TZ", "Asia/Tokyo"}});
  EXPECT_EQ(once["schedule"]["at"], "2026-06-01T00:00:00.000Z");
  json cron = run_json({"schedule", "preview", "--cron", "0 9 * * *", "--from",
                        "2026-01-01T00:00:00Z", "-n", "1", "--json"},
                       {{"TZ", "Asia/Tokyo"}});
  EXPECT_EQ(cron["schedule"]["timezone"], "Asia/Tokyo");
  EXPECT_EQ(next_times(cron, "2026-01-01T00:00:00.000Z"), (Times{"2026-01-02T00:00:00.000Z"}));
}

TEST(TimeZoneTest, TzOptionOverridesTheEnvironment) {
  json document = run_json({"cron", "explain", "0 9 * * *", "--tz", "UTC", "--from",
                            "2026-01-01T00:00:00Z", "-n", "1", "--json"},
                           {{"TZ", "Asia/Tokyo"}});
  EXPECT_EQ(document["timezone"], "UTC");
  EXPECT_EQ(next_times(document, "2026-01-01T00:00:00.000Z"), (Times{"2026-01-01T09:00:00.000Z"}));
}

TEST(TimeZoneTest, TzWithLeadingColonNamesTheSameZone) {
  // POSIX allows TZ=":Asia/Tokyo" for a zone file name.
  json document = run_json(
      {"cron", "explain", "0 9 * * *", "--from", "2026-01-01T00:00:00Z", "-n", "1", "--json"},
      {{"TZ", ":Asia/Tokyo"}});
  EXPECT_EQ(document["timezone"], "Asia/Tokyo");
}

}  // namespace
}  // namespace orrery
