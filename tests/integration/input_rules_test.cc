// Black-box tests of the input rules of docs/cli.md and the limits of
// docs/scheduling.md, through the real binary: every duration has a maximum,
// every time stays within 1970-9999, names and stored text follow the text
// rules, paths are made absolute, --tz applies to every time, options that
// cannot take effect are refused, prompt files and executables are checked
// at `add`, and --log-limit. Each refusal exits 2 and stores nothing.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "home_fixture.h"
#include "run_binary.h"
#include "support/numbered.h"

namespace orrery {
namespace {

using testing::numbered;

using nlohmann::json;
using Args = std::vector<std::string>;
namespace fs = std::filesystem;

constexpr int kExitUsage = 2;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class InputRules : public HomeFixture {
 protected:
  // `add NAME ARGS... -- /bin/true` (unless ARGS has its own target) as JSON.
  RunResult add(const std::string& name, Args args, bool with_target = true) {
    Args full{"--json", "add", name};
    full.insert(full.end(), args.begin(), args.end());
    if (with_target) full.insert(full.end(), {"--", "/bin/true"});
    RunResult result = run(full);
    if (result.exit_code == 0) ++stored_;
    return result;
  }

  json added(const std::string& name, const Args& args, bool with_target = true) {
    const RunResult result = add(name, args, with_target);
    EXPECT_EQ(result.exit_code, 0) << describe(args, result);
    json document = json::parse(result.out, nullptr, false);
    EXPECT_TRUE(document.is_object()) << result.out;
    return document;
  }

  // Refused with exit 2, one line naming every part, and nothing stored.
  void expect_refused(const RunResult& result, const std::vector<std::string>& parts,
                      const std::string& what) {
    EXPECT_EQ(result.exit_code, kExitUsage) << what << "\n" << result.err;
    for (const std::string& part : parts) {
      EXPECT_TRUE(contains(result.err, part)) << what << ": '" << part << "' not in " << result.err;
    }
    EXPECT_EQ(loop_count(), stored_) << what << ": a refused add stored a loop";
  }

  size_t loop_count() const {
    const RunResult listed = run({"--json", "ls", "--all"});
    const json loops = json::parse(listed.out, nullptr, false);
    return loops.is_array() ? loops.size() : 0;
  }

  // Runs orrery in `directory` (the black-box way to give `add` a cwd).
  RunResult run_in(const std::string& directory, const Args& args) const {
    Args shell{"-c", "cd \"$1\" && shift && exec \"$@\"", "sh", directory, ORRERY_BINARY};
    const Args full = with_home(args);
    shell.insert(shell.end(), full.begin(), full.end());
    return run_program("/bin/sh", shell);
  }

  size_t stored_ = 0;  // loops added successfully through add()
};

// ---------------------------------------------------------------------------
// C9: every duration has a maximum.

struct DurationCase {
  Args before;  // options that make the tested one meaningful
  std::string option;
  std::string maximum;
};

const DurationCase kDurationCases[] = {
    {{}, "--every", "365d"},
    {{"--every", "1h"}, "--jitter", "365d"},
    {{"--dynamic", "--max", "365d"}, "--min", "365d"},
    {{"--dynamic"}, "--max", "365d"},
    {{"--every", "1h"}, "--catch-up-window", "365d"},
    {{"--every", "1h"}, "--timeout", "365d"},
    {{"--every", "1h"}, "--idle-timeout", "365d"},
    {{"--every", "1h"}, "--lease", "30d"},
    {{"--every", "1h", "--max-attempts", "2"}, "--retry-delay", "30d"},
};

TEST_F(InputRules, EveryDurationOptionRefusesValuesBeyondItsMaximumNamingIt) {
  for (const DurationCase& c : kDurationCases) {
    for (const std::string& value : {std::string("9223372036854775807"), c.maximum + "1s"}) {
      Args args = c.before;
      args.insert(args.end(), {c.option, value});
      const RunResult refused = add("d", args);
      EXPECT_EQ(refused.exit_code, kExitUsage) << describe(args, refused);
      EXPECT_TRUE(contains(refused.err,
                           c.option + " " + value + " is longer than the maximum of " + c.maximum))
          << refused.err;
    }
    Args at_maximum = c.before;
    at_maximum.insert(at_maximum.end(), {c.option, c.maximum});
    const RunResult accepted = add("max" + c.option, at_maximum);
    EXPECT_EQ(accepted.exit_code, 0) << describe(at_maximum, accepted);
  }
  // The values of the issue: refused, and no refused add stored anything.
  for (const std::string value : {"106752d", "106751991167d"}) {
    expect_refused(add("d", {"--timeout", value, "--every", "1h"}), {"--timeout", value},
                   "--timeout " + value);
  }
}

TEST_F(InputRules, PreviewAndPruneRefuseHugeDurationsAtOnce) {
  for (const std::string value : {"9223372036854775807", "106751991167d", "366d"}) {
    const RunResult preview = run({"schedule", "preview", "--every", value});
    EXPECT_EQ(preview.exit_code, kExitUsage) << preview.err;
    EXPECT_TRUE(contains(preview.err, "--every " + value + " is longer than the maximum of 365d"))
        << preview.err;
  }
  const RunResult prune = run({"prune", "--older-than", "9223372036854775807"});
  EXPECT_EQ(prune.exit_code, kExitUsage) << prune.err;
  EXPECT_TRUE(contains(prune.err, "--older-than")) << prune.err;
}

// C10: times stay within 1970-9999; a schedule ends with "no next slot".
TEST_F(InputRules, SchedulesNearTheYear9999EndWithoutPrintingLaterYears) {
  const std::vector<std::pair<Args, json>> cases = {
      {{"schedule", "preview", "--every", "365d", "--from", "9998-06-01T00:00:00Z", "-n", "10"},
       json({"9999-06-01T00:00:00.000Z"})},
      {{"schedule", "preview", "--cron", "0 0 1 1 *", "--tz", "UTC", "--from",
        "9997-06-01T00:00:00Z", "-n", "10"},
       json({"9998-01-01T00:00:00.000Z", "9999-01-01T00:00:00.000Z"})},
      {{"cron", "explain", "0 0 1 1 *", "--tz", "UTC", "--from", "9997-06-01T00:00:00Z", "-n",
        "10"},
       json({"9998-01-01T00:00:00.000Z", "9999-01-01T00:00:00.000Z"})},
      {{"cron", "explain", "59 23 31 12 *", "--tz", "Pacific/Kiritimati", "--from",
        "9999-06-01T00:00:00Z"},
       json({"9999-12-31T09:59:00.000Z"})},
      {{"schedule", "preview", "--at", "9999-12-31T23:59:59Z", "--from", "9999-12-31T00:00:00Z"},
       json({"9999-12-31T23:59:59.000Z"})}};
  for (const auto& [command, expected] : cases) {
    Args as_json = command;
    as_json.insert(as_json.begin(), "--json");
    const RunResult result = run(as_json);
    ASSERT_EQ(result.exit_code, 0) << describe(as_json, result);
    EXPECT_EQ(json::parse(result.out)["next"], expected) << describe(as_json, result);
    const RunResult human = run(command);
    EXPECT_EQ(human.exit_code, 0) << describe(command, human);
    EXPECT_FALSE(contains(human.out, "10000-")) << describe(command, human);
  }
}

TEST_F(InputRules, NextOfALoopTerminatesForTheLargestInterval) {
  ASSERT_EQ(add("big", {"--every", "365d"}).exit_code, 0);
  const RunResult many = run({"--json", "next", "big", "-n", "1000"});
  ASSERT_EQ(many.exit_code, 0) << many.err;
  EXPECT_EQ(json::parse(many.out)["next"].size(), 1000u);
  const RunResult last =
      run({"--json", "next", "big", "--from", "9990-01-01T00:00:00Z", "-n", "1000", "--tz", "UTC"});
  ASSERT_EQ(last.exit_code, 0) << last.err;
  const json slots = json::parse(last.out)["next"];
  EXPECT_GE(slots.size(), 9u);
  EXPECT_LE(slots.size(), 10u);
  EXPECT_EQ(slots.back().get<std::string>().substr(0, 5), "9999-") << slots.dump();
}

// ---------------------------------------------------------------------------
// D13: names and text.

TEST_F(InputRules, NamesBreakingTheRulesAreRefusedAndNothingIsStored) {
  const std::vector<std::pair<std::string, std::string>> names = {
      {"a\nb", "control character"},
      {"tab\there", "control character"},
      {"esc\x1b[31m", "control character"},
      {"del\x7f", "control character"},
      {"c1\xc2\x9b", "control character"},
      {" ", "white space"},
      {" lead", "white space"},
      {"trail ", "white space"},
      {std::string(101, 'n'), "at most 100"},
      {std::string(10'000, 'n'), "at most 100"},
      {"bad\xff", "not valid UTF-8"},
      {"", "cannot be empty"}};
  for (const auto& [name, why] : names) {
    expect_refused(add(name, {"--every", "1h"}), {"loop name", why}, why);
  }
  std::string hundred;
  for (int i = 0; i < 100; ++i) hundred += "\xc3\xa9";
  EXPECT_EQ(add(hundred, {"--every", "1h"}).exit_code, 0);
  EXPECT_EQ(add("two words \xe2\x9c\x93", {"--every", "1h"}).exit_code, 0);
}

// Invisible characters (Unicode's default-ignorable code points), the first
// and last of each range, as UTF-8: refused by add and rename alike.
TEST_F(InputRules, NamesWithAnInvisibleCharacterAreRefusedByAddAndRename) {
  const std::vector<std::pair<std::string, std::string>> invisible = {
      {"\xc2\xad", "U+00AD"},          {"\xcd\x8f", "U+034F"},
      {"\xd8\x9c", "U+061C"},          {"\xe1\x85\x9f", "U+115F"},
      {"\xe1\x85\xa0", "U+1160"},      {"\xe1\x9e\xb4", "U+17B4"},
      {"\xe1\xa0\x8b", "U+180B"},      {"\xe1\xa0\x8f", "U+180F"},
      {"\xe2\x80\x8b", "U+200B"},      {"\xe2\x80\x8c", "U+200C"},
      {"\xe2\x80\x8d", "U+200D"},      {"\xe2\x81\xa0", "U+2060"},
      {"\xe2\x81\xa4", "U+2064"},      {"\xe3\x85\xa4", "U+3164"},
      {"\xef\xb8\x80", "U+FE00"},      {"\xef\xb8\x8f", "U+FE0F"},
      {"\xef\xbb\xbf", "U+FEFF"},      {"\xef\xbe\xa0", "U+FFA0"},
      {"\xef\xbf\xb0", "U+FFF0"},      {"\xf0\x9b\xb2\xa0", "U+1BCA0"},
      {"\xf0\x9d\x85\xb3", "U+1D173"}, {"\xf3\xa0\x80\x81", "U+E0001"},
      {"\xf3\xa0\x87\xaf", "U+E01EF"}, {"\xf3\xa0\xbf\xbf", "U+E0FFF"}};
  ASSERT_EQ(add("zw", {"--every", "1h"}).exit_code, 0);
  for (const auto& [character, code] : invisible) {
    const std::string name = "z" + character + "w";
    expect_refused(add(name, {"--every", "1h"}), {"loop name", "invisible character " + code},
                   code);
    const RunResult renamed = run({"rename", "zw", name});
    EXPECT_EQ(renamed.exit_code, kExitUsage) << code << ": " << renamed.err;
    EXPECT_FALSE(contains(renamed.err, character)) << code << ": shown raw";
  }
  EXPECT_EQ(run({"show", "zw"}).exit_code, 0);  // still its name
}

TEST_F(InputRules, RenameFollowsTheNameRules) {
  ASSERT_EQ(add("good", {"--every", "1h"}).exit_code, 0);
  for (const std::string& name :
       {std::string("x\ny"), std::string(" "), std::string(101, 'r'), std::string("\xff")}) {
    const RunResult renamed = run({"rename", "good", name});
    EXPECT_EQ(renamed.exit_code, kExitUsage) << renamed.err;
    EXPECT_TRUE(contains(renamed.err, "loop name")) << renamed.err;
  }
  EXPECT_EQ(run({"show", "good"}).exit_code, 0);
}

TEST_F(InputRules, StoredTextMustBeValidUtf8) {
  const std::vector<Args> cases = {{"--every", "1h", "--description", "bad\xff"},
                                   {"--every", "1h", "--env", "A=\xc3"},
                                   {"--every", "1h", "--machine", "os=\x80"}};
  for (const Args& args : cases) {
    expect_refused(add("t", args), {args[2], "not valid UTF-8"}, args[2]);
  }
  expect_refused(add("t", {"--every", "1h", "--shell", "echo \xed\xa0\x80"}, false),
                 {"--shell", "not valid UTF-8"}, "--shell");
  expect_refused(add("t", {"--every", "1h", "--", "/bin/echo", "\xfe"}, false),
                 {"the command after --", "not valid UTF-8"}, "argv");
}

// ---------------------------------------------------------------------------
// D14: paths are absolute at add.

TEST_F(InputRules, RelativePathsAreStoredAbsoluteAgainstTheDirectoryOfAdd) {
  fs::create_directories(tmp_ + "/work/sub");
  std::ofstream(tmp_ + "/work/prompt.md") << "review the code\n";
  const std::vector<std::pair<std::string, std::string>> cwds = {
      {"sub", tmp_ + "/work/sub"}, {".", tmp_ + "/work"}, {"./sub/../sub/", tmp_ + "/work/sub"}};
  int n = 0;
  for (const auto& [given, stored] : cwds) {
    const RunResult result = run_in(tmp_ + "/work", {"--json", "add", numbered("p", n++), "--every",
                                                     "1h", "--cwd", given, "--", "/bin/true"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_EQ(json::parse(result.out)["target"]["cwd"], stored) << given;
  }
  const RunResult agent =
      run_in(tmp_ + "/work", {"--json", "add", "agent", "--every", "1h", "--agent", "codex",
                              "--prompt-file", "prompt.md", "--add-dir", ".", "--add-dir", "sub"});
  ASSERT_EQ(agent.exit_code, 0) << agent.err;
  const json target = json::parse(agent.out)["target"];
  EXPECT_EQ(target["prompt_file"], tmp_ + "/work/prompt.md");
  EXPECT_EQ(target["add_dirs"], json({tmp_ + "/work", tmp_ + "/work/sub"}));
}

// ---------------------------------------------------------------------------
// D15: a time without an offset is wall time in --tz.

TEST_F(InputRules, TzAppliesToEveryTimeOfAdd) {
  json once = added("berlin", {"--at", "2099-06-01 09:00", "--tz", "Europe/Berlin"});
  EXPECT_EQ(once["schedule"]["at"], "2099-06-01T08:00:00.000Z");  // +01:00 after 2037
  json tokyo =
      added("tokyo", {"--every", "1h", "--expires", "2099-06-01 09:00", "--tz", "Asia/Tokyo"});
  EXPECT_EQ(tokyo["expires_at"], "2099-06-01T00:00:00.000Z");
  json utc = added("utc", {"--every", "1h", "--expires", "2099-06-01 09:00", "--tz", "UTC"});
  EXPECT_EQ(utc["expires_at"], "2099-06-01T09:00:00.000Z");
  // An offset in the text wins.
  json offset = added("offset", {"--at", "2099-06-01T09:00:00+02:00", "--tz", "Asia/Tokyo"});
  EXPECT_EQ(offset["schedule"]["at"], "2099-06-01T07:00:00.000Z");
  expect_refused(add("zone", {"--every", "1h", "--tz", "Mars/Olympus"}), {"--tz", "Mars/Olympus"},
                 "bad zone");
}

TEST_F(InputRules, TzAppliesToFromInPreviewNextAndCronExplain) {
  const Args from{"--from", "2030-01-15 10:00", "--tz", "Asia/Tokyo", "-n", "1"};
  Args preview{"--json", "schedule", "preview", "--every", "1h"};
  preview.insert(preview.end(), from.begin(), from.end());
  EXPECT_EQ(json::parse(run(preview).out)["next"], json({"2030-01-15T02:00:00.000Z"}));
  Args explain{"--json", "cron", "explain", "0 * * * *"};
  explain.insert(explain.end(), from.begin(), from.end());
  EXPECT_EQ(json::parse(run(explain).out)["next"], json({"2030-01-15T02:00:00.000Z"}));
  ASSERT_EQ(add("hourly", {"--every", "1h"}).exit_code, 0);
  Args next{"--json", "next", "hourly"};
  next.insert(next.end(), from.begin(), from.end());
  EXPECT_EQ(json::parse(run(next).out)["next"], json({"2030-01-15T02:00:00.000Z"}));
  // The human forms show the zone's wall time.
  const RunResult human =
      run({"next", "hourly", "--from", "2030-01-15 10:00", "--tz", "Asia/Tokyo", "-n", "1"});
  EXPECT_TRUE(contains(human.out, "2030-01-15 11:00 +09:00")) << human.out;
}

// ---------------------------------------------------------------------------
// D16: options that cannot take effect are refused.

TEST_F(InputRules, OptionsThatCannotTakeEffectAreRefusedNamingTheOption) {
  const std::vector<std::pair<Args, std::string>> cases = {
      {{"--dynamic", "--jitter", "1m"}, "--jitter"},
      {{"--at", "+1h", "--expires", "+10m"}, "--expires"},
      {{"--every", "1h", "--expires", "+2s"}, "--expires"},
      {{"--cron", "0 0 1 1 *", "--tz", "UTC", "--expires", "+1d"}, "--expires"},
      {{"--every", "1h", "--retry-delay", "5m"}, "--retry-delay"},
      {{"--every", "1h", "--retry-backoff", "exponential"}, "--retry-backoff"},
      {{"--at", "+1h", "--catch-up-limit", "5"}, "--catch-up-limit"},
      {{"--dynamic", "--catch-up-limit", "5"}, "--catch-up-limit"},
      {{"--every", "1h", "--timeout", "1m", "--idle-timeout", "5m"}, "--idle-timeout"},
      {{"--every", "1h", "--fixed-delay", "--min", "1m"}, "--min"},
      {{"--cron", "* * * * *", "--fixed-delay"}, "--fixed-delay"}};
  for (const auto& [args, option] : cases) {
    expect_refused(add("c", args), {option}, option);
  }
  const std::vector<std::pair<Args, std::string>> agents = {
      {{"--agent", "gemini", "--prompt", "p", "--effort", "high"}, "--effort"},
      {{"--agent", "cursor", "--prompt", "p", "--effort", "high"}, "--effort"},
      {{"--agent", "gemini", "--prompt", "p", "--config-isolation", "none"}, "--config-isolation"},
      {{"--agent", "codewith", "--prompt", "p", "--config-isolation", "safe"},
       "--config-isolation"}};
  for (const auto& [args, option] : agents) {
    Args full{"--every", "1h"};
    full.insert(full.end(), args.begin(), args.end());
    expect_refused(add("a", full, false), {option}, option);
  }
}

// ---------------------------------------------------------------------------
// D18: prompt files and executables are checked at add.

TEST_F(InputRules, APromptFileMustBeANonEmptyRegularFileAndTheReasonIsGiven) {
  const std::string fifo = tmp_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::ofstream(tmp_ + "/empty.md").close();
  fs::create_directories(tmp_ + "/dir");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {fifo, "is not a regular file"},
      {tmp_ + "/dir", "is a directory"},
      {tmp_ + "/empty.md", "is empty"},
      {tmp_ + "/missing.md", "No such file or directory"},
      {"/dev/null", "is not a regular file"}};
  for (const auto& [path, why] : cases) {
    expect_refused(add("p", {"--every", "1h", "--agent", "claude", "--prompt-file", path}, false),
                   {"--prompt-file", path, why}, path);
  }
}

TEST_F(InputRules, AnExecutablePathMustExistAndBeExecutable) {
  std::ofstream(tmp_ + "/plain.txt") << "not a program\n";
  chmod((tmp_ + "/plain.txt").c_str(), 0644);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/nonexistent/bin/x", "No such file or directory"},
      {tmp_ + "/plain.txt", "is not executable"},
      {"/tmp", "is a directory"},
      {"./missing-here", "No such file or directory"}};
  for (const auto& [path, why] : cases) {
    expect_refused(add("x", {"--every", "1h", "--", path}, false), {"executable", why}, path);
  }
  // A bare name is looked up in the target's PATH when it runs.
  EXPECT_EQ(add("bare", {"--every", "1h", "--", "no-such-program-here"}, false).exit_code, 0);
  // A relative path is made absolute against the directory of add.
  fs::create_directories(tmp_ + "/bin");
  fs::copy_file("/bin/true", tmp_ + "/bin/ok");
  const RunResult relative =
      run_in(tmp_, {"--json", "add", "rel", "--every", "1h", "--", "bin/ok", "arg"});
  ASSERT_EQ(relative.exit_code, 0) << relative.err;
  EXPECT_EQ(json::parse(relative.out)["target"]["command"], tmp_ + "/bin/ok");
}

// ---------------------------------------------------------------------------
// A4: --log-limit.

TEST_F(InputRules, LogLimitIsParsedBoundedAndShown) {
  EXPECT_EQ(added("default", {"--every", "1h"})["log_limit_bytes"], 64LL << 20);
  const std::vector<std::pair<std::string, std::int64_t>> sizes = {{"64KiB", 64 << 10},
                                                                   {"512KiB", 512 << 10},
                                                                   {"1MB", 1'000'000},
                                                                   {"1GiB", 1LL << 30},
                                                                   {"16GiB", 16LL << 30}};
  int n = 0;
  for (const auto& [text, bytes] : sizes) {
    EXPECT_EQ(added(numbered("l", n++), {"--every", "1h", "--log-limit", text})["log_limit_bytes"],
              bytes)
        << text;
  }
  for (const std::string text : {"1KiB", "65535", "17GiB", "lots", "1.5MiB"}) {
    expect_refused(add("bad", {"--every", "1h", "--log-limit", text}), {"--log-limit", text}, text);
  }
  const std::string shown = run({"show", "default"}).out;
  EXPECT_TRUE(contains(shown, "log limit")) << shown;
  EXPECT_TRUE(contains(shown, "64MiB per stream")) << shown;
}

// ---------------------------------------------------------------------------
// F: a stored target from a newer version is refused, not run as another.

TEST_F(InputRules, AStoredTargetWithAnUnknownTypeOrProviderIsRefused) {
  ASSERT_EQ(add("cmd", {"--every", "1h"}).exit_code, 0);
  ASSERT_EQ(add("ag", {"--every", "1h", "--agent", "claude", "--prompt", "p"}, false).exit_code, 0);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2((home_ + "/orrery.db").c_str(), &db, SQLITE_OPEN_READWRITE, nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db,
                         "UPDATE loops SET target_json = json_set(target_json, '$.type', "
                         "'container') WHERE name = 'cmd';"
                         "UPDATE loops SET target_json = json_set(target_json, "
                         "'$.agent.provider', 'claude-next') WHERE name = 'ag';",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  const RunResult command = run({"show", "cmd"});
  EXPECT_NE(command.exit_code, 0);
  EXPECT_TRUE(contains(command.err, "unknown target type 'container'")) << command.err;
  const RunResult agent = run({"show", "ag"});
  EXPECT_NE(agent.exit_code, 0);
  EXPECT_TRUE(contains(agent.err, "unknown agent provider 'claude-next'")) << agent.err;
}

}  // namespace
}  // namespace orrery
