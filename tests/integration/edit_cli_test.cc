// Black-box tests of `orrery edit` (docs/cli.md): only the given options
// change, a schedule change replans the next slot, bad input changes
// nothing (the loop document and the secrets file are compared before and
// after), --secret-env rewrites the secrets file, and a run in progress
// keeps the loop it started with.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "cli_fixture.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using nlohmann::json;
using testing::read_file;
namespace fs = std::filesystem;

std::int64_t wall_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// `text` with every relative time ("(in 59m59s)", "(3s ago)") replaced by
// "(relative)": the one part of a human document that depends on when it
// was printed.
std::string without_relative_times(const std::string& text) {
  std::string out;
  size_t from = 0;
  while (true) {
    const size_t open = text.find('(', from);
    const size_t close = open == std::string::npos ? open : text.find(')', open);
    if (close == std::string::npos) return out + text.substr(from);
    const std::string inside = text.substr(open + 1, close - open - 1);
    const bool relative = inside.rfind("in ", 0) == 0 ||
                          (inside.size() > 4 && inside.substr(inside.size() - 4) == " ago");
    out += text.substr(from, open - from) + (relative ? "(relative)" : "(" + inside + ")");
    from = close + 1;
  }
}

class EditCli : public CliFixture {
 protected:
  json edit(const std::string& loop, const Args& options) const {
    Args args{"edit", loop};
    args.insert(args.end(), options.begin(), options.end());
    return json_of(args);
  }

  std::string secrets_of(const json& loop) const {
    const std::string path = home_ + "/secrets/" + loop["id"].get<std::string>() + ".env";
    return fs::exists(path) ? read_file(path) : "(none)";
  }
};

TEST_F(EditCli, OnlyTheGivenOptionsChange) {
  const json before = add(
      "poll", {"--every", "1h", "--description", "old", "--env", "A=1", "--", "/bin/echo", "hi"});
  const json edited = edit("poll", {"--description", "new", "--overlap", "queue", "--max-attempts",
                                    "3", "--timeout", "10m"});
  EXPECT_EQ(edited, show_loop("poll"));
  json expected = before;
  expected["description"] = "new";
  expected["overlap"] = "queue";
  expected["max_attempts"] = 3;
  expected["timeout_ms"] = 600'000;
  expected["updated_at"] = edited["updated_at"];
  EXPECT_EQ(edited, expected);
  EXPECT_GE(time_ms(edited["updated_at"].get<std::string>()),
            time_ms(before["updated_at"].get<std::string>()));
}

// The human output is `show`'s.
TEST_F(EditCli, PrintsTheLoopAsShowDoes) {
  add("poll", {"--every", "1h", "--", "true"});
  const RunResult edited = run({"edit", "poll", "--description", "checks the service"});
  EXPECT_EQ(edited.exit_code, 0) << edited.err;
  EXPECT_EQ(edited.err, "");
  // The two commands run at different instants, so the next run's distance
  // from now may differ by a second; everything else is the same text.
  EXPECT_EQ(without_relative_times(edited.out), without_relative_times(run({"show", "poll"}).out));
  EXPECT_TRUE(contains(edited.out, "checks the service")) << edited.out;
}

// A new schedule's first slot counts from the edit, as a new loop's would.
TEST_F(EditCli, AScheduleChangeReplansTheNextSlot) {
  add("poll", {"--every", "1h", "--", "true"});
  const std::vector<std::pair<Args, std::int64_t>> cases{
      {{"--every", "2m"}, 120'000}, {{"--every", "90s"}, 90'000}, {{"--at", "+10m"}, 600'000}};
  for (const auto& [options, delay] : cases) {
    const std::int64_t earliest = wall_now_ms();
    const json edited = edit("poll", options);
    const std::int64_t latest = wall_now_ms();
    const std::int64_t next = time_ms(edited["next_run_at"].get<std::string>());
    EXPECT_GE(next, earliest + delay) << options[1];
    EXPECT_LE(next, latest + delay) << options[1];
  }
  // Not a schedule change: the next slot stays.
  const json before = show_loop("poll");
  EXPECT_EQ(edit("poll", {"--lease", "5m"})["next_run_at"], before["next_run_at"]);
  EXPECT_EQ(edit("poll", {"--at", before["schedule"]["at"].get<std::string>()})["next_run_at"],
            before["next_run_at"]);
}

// Bad input of every kind: exit 2, one line, and the loop and its secrets as they were.
TEST_F(EditCli, BadInputChangesNothing) {
  add("poll", {"--every", "1h", "--secret-env", "TOKEN=keep", "--", "true"});
  const json before = show_loop("poll");
  const std::string secrets = secrets_of(before);
  const std::vector<std::pair<Args, std::string>> cases{
      {{}, "edit needs an option to change"},
      {{"--every", "400d"}, "--every 400d is longer than the maximum of 365d"},
      {{"--every", "0s"}, "--every"},
      {{"--overlap", "sometimes"}, "--overlap"},
      {{"--lease", "10ms"}, "--lease 10ms is shorter than the minimum of 1s"},
      {{"--cron", "61 * * * *"}, "minute 61"},
      {{"--cron", "@daily", "--every", "1h"}, "give only one schedule"},
      {{"--tz", "Mars/Base"}, "--tz"},
      {{"--retry-delay", "5m"}, "--retry-delay has no effect with a single attempt"},
      {{"--max-attempts", "abc"}, "--max-attempts 'abc' is not a whole number"},
      {{"--max-attempts", "0"}, "--max-attempts 0 out of range 1-100"},
      {{"--expires", "2000-01-01T00:00Z"}, "is not in the future"},
      {{"--cwd", "/nonexistent/orrery-dir"}, "--cwd /nonexistent/orrery-dir is not an existing"},
      {{"--env", "1BAD=x"}, "is not a valid environment variable name"},
      {{"--env", "TOKEN=x"}, "--secret-env TOKEN is given twice"},
      {{"--secret-env", "NEW=a\nb"}, "a value cannot contain a newline"},
      {{"--secret-env", "TOKEN=a", "--secret-env", "TOKEN=b"}, "is given twice"},
      {{"--model", "opus"}, "need --agent PROVIDER"},
      {{"--shell", "true", "--", "true"}, "give only one target"},
      {{"--", "/nonexistent/orrery-bin"}, "executable /nonexistent/orrery-bin"},
      {{"--description", ""}, "--description cannot be empty"},
      {{"--bogus"}, "unknown option '--bogus' for orrery edit"},
      // Bytes that are not UTF-8, in every kind of stored text.
      {{"--description", "caf\xe9"}, "--description 'caf\\xe9' is not valid UTF-8"},
      {{"--env", "A=\xff"}, "--env 'A=\\xff' is not valid UTF-8"},
      {{"--machine", "host=\xc3"}, "--machine 'host=\\xc3' is not valid UTF-8"},
      {{"--shell", "echo \xfe"}, "--shell 'echo \\xfe' is not valid UTF-8"},
      {{"--", "/bin/echo", "\x80"}, "is not valid UTF-8"},
      // Every numeric option at and past its limits, and overflowing.
      {{"--max-attempts", "-1"}, "--max-attempts -1 out of range 1-100"},
      {{"--max-attempts", "101"}, "--max-attempts 101 out of range 1-100"},
      {{"--max-attempts", "99999999999999999999"}, "--max-attempts '99999999999999999999' is too"},
      {{"--catch-up-limit", "0"}, "--catch-up-limit 0 out of range 1-1000"},
      {{"--catch-up-limit", "1001"}, "--catch-up-limit 1001 out of range 1-1000"},
      {{"--log-limit", "1"}, "--log-limit 1 is out of range 64KiB to 16GiB"},
      {{"--log-limit", "17GiB"}, "--log-limit 17GiB is out of range 64KiB to 16GiB"},
      {{"--log-limit", "99999999999999999999999"}, "--log-limit: invalid size"},
      {{"--every", "-1s"}, "a duration cannot be negative"},
      {{"--every", "999ms"}, "--every 999ms is shorter than the minimum of 1s"},
      {{"--timeout", "366d"}, "--timeout 366d is longer than the maximum of 365d"},
      {{"--jitter", "366d"}, "--jitter 366d is longer than the maximum of 365d"},
      {{"--lease", "31d"}, "--lease 31d is longer than the maximum of 30d"},
      {{"--every", "99999999999999999999d"}, "--every: invalid duration"},
  };
  for (const auto& [options, message] : cases) {
    Args args{"edit", "poll"};
    args.insert(args.end(), options.begin(), options.end());
    const std::string error = expect_error(args, 2);
    EXPECT_TRUE(contains(error, message)) << error << " (wanted: " << message << ")";
    EXPECT_EQ(show_loop("poll"), before) << error;
    EXPECT_EQ(secrets_of(before), secrets) << error;
  }
}

TEST_F(EditCli, AnUnknownLoopIsNotFound) {
  add("poll", {"--every", "1h", "--", "true"});
  const std::string error = expect_error({"edit", "nope", "--every", "2h"}, 3);
  EXPECT_TRUE(contains(error, "nope")) << error;
}

// --secret-env rewrites the secrets file; the run gets the new value, scrubbed.
TEST_F(EditCli, SecretEnvRewritesTheSecretsFile) {
  const json loop = add("secret", {"--every", "1h", "--secret-env", "TOKEN=first-value-1234",
                                   "--shell", "echo \"$TOKEN\" | wc -c; echo \"$OTHER\""});
  EXPECT_EQ(secrets_of(loop), "TOKEN=first-value-1234\n");
  const json edited = edit("secret", {"--secret-env", "TOKEN=second-value-12345", "--secret-env",
                                      "OTHER=other-secret-value"});
  EXPECT_EQ(edited["target"]["secret_env"], json({"TOKEN", "OTHER"}));
  EXPECT_EQ(secrets_of(loop), "TOKEN=second-value-12345\nOTHER=other-secret-value\n");
  const json run = json_of({"trigger", "secret", "--wait"});
  EXPECT_EQ(run["stdout"], "19\n[SCRUBBED]\n");
  // Editing anything else leaves the file alone.
  edit("secret", {"--description", "x"});
  EXPECT_EQ(secrets_of(loop), "TOKEN=second-value-12345\nOTHER=other-secret-value\n");
}

// A run in progress keeps the loop it started with; the edit applies from the next run.
TEST_F(EditCli, ARunInProgressKeepsTheLoopItStartedWith) {
  const std::string gate = tmp_ + "/gate";
  add("slow", {"--every", "1h", "--shell",
               "while [ ! -e '" + gate + "' ]; do sleep 0.02; done; echo first"});
  const std::string id = trigger("slow");
  ASSERT_EQ(started(id)["status"], "running");
  edit("slow", {"--shell", "echo second", "--timeout", "1m"});
  std::ofstream(gate).put('\n');
  const json first = finished(id);
  EXPECT_EQ(first["status"], "succeeded") << first.dump();
  EXPECT_EQ(first["stdout"], "first\n");
  const json second = json_of({"trigger", "slow", "--wait"});
  EXPECT_EQ(second["stdout"], "second\n");
}

// A target given replaces the target; its environment stays.
TEST_F(EditCli, ATargetReplacesTheTarget) {
  add("t", {"--every", "1h", "--env", "GREETING=hello", "--", "/bin/echo", "one"});
  const json shell = edit("t", {"--shell", "echo \"$GREETING\" two"});
  EXPECT_EQ(shell["target"]["shell"], true);
  EXPECT_EQ(json_of({"trigger", "t", "--wait"})["stdout"], "hello two\n");
  const json command = edit("t", {"--", "/bin/echo", "three"});
  EXPECT_EQ(command["target"]["shell"], false);
  EXPECT_EQ(json_of({"trigger", "t", "--wait"})["stdout"], "three\n");
}

// The daemon is woken by the edit: the new schedule runs without waiting
// for the old one's slot an hour away.
TEST_F(EditCli, TheDaemonFollowsAnEdit) {
  start_daemon();
  add("e", {"--every", "1h", "--", "true"});
  edit("e", {"--every", "1s"});
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  json runs = json_of({"runs", "e"});
  while (runs.empty() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    runs = json_of({"runs", "e"});
  }
  ASSERT_FALSE(runs.empty()) << daemon_log();
  EXPECT_EQ(finished(runs.back()["id"].get<std::string>())["status"], "succeeded");
}

}  // namespace
}  // namespace orrery
