// Black-box tests of the loop-management commands (docs/scheduling.md, docs/storage.md,
// docs/cli.md): add, ls, show, pause, resume, archive, unarchive, rename, rm and next, run against
// the real binary with a fresh data directory per test.
//
// Expected values are worked out by hand. Times the binary takes from its own
// clock ("now") are bracketed by the test's clock read just before and just
// after the command; relative values (next_run_at - created_at for an
// interval, --at +1h - created_at) are exact because one invocation uses one
// "now". 2026-11-27 is a Friday; Europe/Berlin is UTC+1 in November.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "home_fixture.h"
#include "run_binary.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

using nlohmann::json;
using Args = std::vector<std::string>;
namespace fs = std::filesystem;

constexpr int kExitUsage = 2;
constexpr int kExitNotFound = 3;
constexpr int kExitConflict = 4;

constexpr std::int64_t kMinute = 60'000;
constexpr std::int64_t kHour = 60 * kMinute;

// ---------------------------------------------------------------------------
// Helpers.

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Polls until `done` holds, up to `limit_ms`; whether it came to hold.
bool within(int limit_ms, const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return true;
}

bool is_json_time(const json& value) {
  return value.is_string() && is_time_text(value.get<std::string>());
}

bool is_loop_id(const json& value) {
  if (!value.is_string()) return false;
  const std::string id = value.get<std::string>();
  return id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

std::int64_t wall_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

void write_bytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

// The permission bits of a file, or -1 when it does not exist.
int mode_of(const fs::path& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return -1;
  return int(info.st_mode & 07777);
}

// Every regular file under `root`, recursively.
std::vector<fs::path> files_under(const fs::path& root) {
  std::vector<fs::path> files;
  std::error_code error;
  for (auto it = fs::recursive_directory_iterator(root, error);
       !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file()) files.push_back(it->path());
  }
  return files;
}

// A value nobody else would write: a secret for this test only.
std::string unique_secret() {
  std::random_device device;
  std::string text = "s3cr3t-";
  static constexpr char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 24; ++i) text += kHex[device() % 16];
  return text;
}

// Whether every key of the document is snake_case, except the keys of
// objects whose keys are user data (target.env, machine).
void expect_snake_case_keys(const json& document, const std::string& where = "") {
  if (document.is_array()) {
    for (const json& item : document) expect_snake_case_keys(item, where + "[]");
    return;
  }
  if (!document.is_object()) return;
  for (const auto& [key, value] : document.items()) {
    const bool snake =
        !key.empty() &&
        key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") == std::string::npos;
    EXPECT_TRUE(snake) << "key '" << key << "' at " << where << " is not snake_case";
    const std::string path = where + "." + key;
    if (path == ".target.env" || path == ".machine") continue;
    expect_snake_case_keys(value, path);
  }
}

// The loop document of docs/cli.md: the contract's keys, snake_case, times
// in the contract's format, durations as integers.
void expect_loop_document(json loop) {
  ASSERT_TRUE(loop.is_object()) << loop.dump();
  for (const char* key :
       {"id", "name", "description", "status", "archived", "schedule", "target", "next_run_at",
        "catch_up", "catch_up_limit", "catch_up_window_ms", "overlap", "max_attempts",
        "retry_delay_ms", "lease_ms", "timeout_ms", "expires_at", "created_at", "updated_at"}) {
    EXPECT_TRUE(loop.contains(key)) << "missing " << key << " in " << loop.dump();
  }
  expect_snake_case_keys(loop);
  EXPECT_TRUE(is_loop_id(loop["id"])) << loop.dump();
  EXPECT_TRUE(is_json_time(loop["created_at"])) << loop.dump();
  EXPECT_TRUE(is_json_time(loop["updated_at"])) << loop.dump();
  for (const char* key : {"next_run_at", "expires_at", "retry_scheduled_for"}) {
    if (loop.contains(key) && !loop[key].is_null()) {
      EXPECT_TRUE(is_json_time(loop[key])) << key << ": " << loop.dump();
    }
  }
  for (const char* key : {"catch_up_limit", "max_attempts", "retry_delay_ms", "lease_ms"}) {
    EXPECT_TRUE(loop.contains(key) && loop[key].is_number_integer()) << key << ": " << loop.dump();
  }
  for (const char* key : {"catch_up_window_ms", "timeout_ms"}) {
    EXPECT_TRUE(loop.contains(key) && (loop[key].is_null() || loop[key].is_number_integer()))
        << key << ": " << loop.dump();
  }
  ASSERT_TRUE(loop["schedule"].is_object()) << loop.dump();
  EXPECT_TRUE(loop["schedule"].contains("type")) << loop.dump();
  EXPECT_TRUE(loop["schedule"].contains("jitter_ms")) << loop.dump();
  ASSERT_TRUE(loop["target"].is_object()) << loop.dump();
  EXPECT_TRUE(loop["target"].contains("type")) << loop.dump();
}

// ---------------------------------------------------------------------------
// The fixture: a fresh temporary directory per test; the data directory is
// <tmp>/home, which does not exist until orrery creates it.

class LoopCli : public HomeFixture {
 protected:
  // Runs a command that must succeed, with --json, and returns its document.
  json ok_json(Args args) const {
    args.push_back("--json");
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
    EXPECT_EQ(result.err, "") << describe(with_home(args), result);
    json document = json::parse(result.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(document.is_discarded()) << "stdout is not one JSON document\n"
                                          << describe(with_home(args), result);
    return document;
  }

  // Runs a command that must succeed without --json and returns its stdout.
  std::string ok_text(const Args& args) const {
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
    EXPECT_EQ(result.err, "") << describe(with_home(args), result);
    return result.out;
  }

  // Adds a loop (--json) and returns its document.
  json add(const std::string& name, const Args& rest) const {
    Args args{"add", name};
    args.insert(args.end(), rest.begin(), rest.end());
    args.insert(args.begin(), "--json");  // before "--" of a command target
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
    EXPECT_EQ(result.err, "") << describe(with_home(args), result);
    json document = json::parse(result.out, nullptr, false);
    EXPECT_FALSE(document.is_discarded()) << describe(with_home(args), result);
    return document;
  }

  json add_every(const std::string& name, const std::string& every = "10m") const {
    return add(name, {"--every", every, "--", "/bin/true"});
  }

  // All loops, archived too, as JSON.
  json all_loops() const { return ok_json({"ls", "--all"}); }

  // A failure as the contract prescribes, checked twice: without --json
  // (exit code, exactly one line "orrery: …" on stderr, nothing on stdout)
  // and with --json (the same line, plus {"error": {code, message}} on
  // stdout with the same message). Returns the message.
  std::string expect_error(const Args& args, int exit_code, const std::string& code,
                           const EnvVars& env = {}) const {
    const RunResult plain = run(args, env);
    const std::string what = describe(with_home(args), plain);
    EXPECT_EQ(plain.exit_code, exit_code) << what;
    EXPECT_EQ(plain.out, "") << what;
    EXPECT_EQ(plain.err.rfind("orrery: ", 0), 0u) << what;
    EXPECT_EQ(lines(plain.err).size(), 1u) << what;
    EXPECT_TRUE(!plain.err.empty() && plain.err.back() == '\n') << what;
    std::string message = plain.err;
    if (message.rfind("orrery: ", 0) == 0) message.erase(0, 8);
    if (!message.empty() && message.back() == '\n') message.pop_back();

    Args json_args{"--json"};
    json_args.insert(json_args.end(), args.begin(), args.end());
    const RunResult with_json = run(json_args, env);
    const std::string json_what = describe(with_home(json_args), with_json);
    EXPECT_EQ(with_json.exit_code, exit_code) << json_what;
    EXPECT_EQ(with_json.err, plain.err) << json_what;
    json document = json::parse(with_json.out, nullptr, false);
    EXPECT_FALSE(document.is_discarded()) << json_what;
    if (!document.is_discarded()) {
      EXPECT_TRUE(document.is_object() && document.size() == 1 && document.contains("error"))
          << json_what;
      EXPECT_EQ(document["error"]["code"], code) << json_what;
      EXPECT_EQ(document["error"]["message"], message) << json_what;
    }
    return message;
  }

  std::string db_path() const { return home_ + "/orrery.db"; }
  std::string secrets_file(const std::string& id) const {
    return home_ + "/secrets/" + id + ".env";
  }
};

// ---------------------------------------------------------------------------
// add: schedules and targets.

TEST_F(LoopCli, AddEveryGivesAnIntervalLoopAndShowReturnsTheSameDocument) {
  const std::int64_t before = wall_now_ms();
  json loop = add_every("tick", "10m");
  const std::int64_t after = wall_now_ms();
  expect_loop_document(loop);
  EXPECT_EQ(loop["name"], "tick");
  EXPECT_EQ(loop["description"], "");
  EXPECT_EQ(loop["status"], "active");
  EXPECT_EQ(loop["archived"], false);
  EXPECT_EQ(loop["schedule"], json({{"type", "interval"},
                                    {"every_ms", 600000},
                                    {"anchor", "fixed_rate"},
                                    {"jitter_ms", 0}}));
  // The defaults of docs/scheduling.md: catch-up latest, limit 50, overlap skip, one
  // attempt, retry after 1m, lease 30m.
  EXPECT_EQ(loop["catch_up"], "latest");
  EXPECT_EQ(loop["catch_up_limit"], 50);
  EXPECT_EQ(loop["catch_up_window_ms"], nullptr);
  EXPECT_EQ(loop["overlap"], "skip");
  EXPECT_EQ(loop["max_attempts"], 1);
  EXPECT_EQ(loop["retry_delay_ms"], 60000);
  EXPECT_EQ(loop["lease_ms"], 1800000);
  EXPECT_EQ(loop["timeout_ms"], nullptr);
  EXPECT_EQ(loop["expires_at"], nullptr);
  json& target = loop["target"];
  EXPECT_EQ(target["type"], "command");
  EXPECT_EQ(target["shell"], false);
  EXPECT_EQ(target["command"], "/bin/true");
  EXPECT_EQ(target["args"], json::array());
  EXPECT_EQ(target["secret_env"], json::array());
  // The first slot of an interval loop is creation + D.
  const std::int64_t created = time_ms(loop["created_at"].get<std::string>());
  EXPECT_GE(created, before);
  EXPECT_LE(created, after);
  EXPECT_EQ(loop["updated_at"], loop["created_at"]);
  EXPECT_EQ(time_ms(loop["next_run_at"].get<std::string>()) - created, 10 * kMinute) << loop.dump();

  EXPECT_EQ(ok_json({"show", "tick"}), loop);
  EXPECT_EQ(ok_json({"show", loop["id"].get<std::string>()}), loop);
}

TEST_F(LoopCli, AddEveryWithFixedDelay) {
  json loop = add("delayed", {"--every", "1h30m", "--fixed-delay", "--", "/bin/true"});
  expect_loop_document(loop);
  EXPECT_EQ(loop["schedule"]["type"], "interval");
  EXPECT_EQ(loop["schedule"]["every_ms"], 5400000);
  EXPECT_EQ(loop["schedule"]["anchor"], "fixed_delay");
  EXPECT_EQ(time_ms(loop["next_run_at"].get<std::string>()) -
                time_ms(loop["created_at"].get<std::string>()),
            90 * kMinute);
  EXPECT_EQ(ok_json({"show", "delayed"}), loop);
}

TEST_F(LoopCli, AddCronWithZoneAndShellTarget) {
  // Every weekday at 09:00 in Berlin: 08:00Z in winter, 07:00Z in summer,
  // so the slot is on a whole hour UTC, within 3 days and 1 hour of now
  // (Friday 09:01 Berlin to Monday 09:00 Berlin is 71h59m).
  json loop =
      add("nightly", {"--cron", "0 9 * * 1-5", "--tz", "Europe/Berlin", "--shell", "echo hi | wc"});
  expect_loop_document(loop);
  EXPECT_EQ(loop["schedule"], json({{"type", "cron"},
                                    {"expression", "0 9 * * 1-5"},
                                    {"timezone", "Europe/Berlin"},
                                    {"jitter_ms", 0}}));
  EXPECT_EQ(loop["target"]["type"], "command");
  EXPECT_EQ(loop["target"]["shell"], true);
  EXPECT_EQ(loop["target"]["command"], "echo hi | wc");
  const std::int64_t created = time_ms(loop["created_at"].get<std::string>());
  const std::int64_t next = time_ms(loop["next_run_at"].get<std::string>());
  EXPECT_GT(next, created);
  EXPECT_LE(next - created, 72 * kHour);
  EXPECT_EQ(next % kHour, 0) << loop.dump();
  EXPECT_EQ(ok_json({"show", "nightly"}), loop);

  // --from a Friday 12:00Z (13:00 Berlin): Mon 30 Nov, Tue 1 Dec, Wed 2 Dec
  // at 09:00 CET = 08:00Z.
  json next_slots = ok_json({"next", "nightly", "-n", "3", "--from", "2026-11-27T12:00:00Z"});
  EXPECT_EQ(next_slots, json({{"loop_id", loop["id"]},
                              {"next",
                               {"2026-11-30T08:00:00.000Z", "2026-12-01T08:00:00.000Z",
                                "2026-12-02T08:00:00.000Z"}}}));
}

TEST_F(LoopCli, AddAtRelativeTimeGivesAOnceLoop) {
  json loop = add("later", {"--at", "+1h", "--", "/bin/echo", "once"});
  expect_loop_document(loop);
  EXPECT_EQ(loop["schedule"]["type"], "once");
  ASSERT_TRUE(is_json_time(loop["schedule"]["at"])) << loop.dump();
  EXPECT_EQ(loop["schedule"]["jitter_ms"], 0);
  // +1h is taken from the invocation's now, which is also created_at.
  EXPECT_EQ(time_ms(loop["schedule"]["at"].get<std::string>()) -
                time_ms(loop["created_at"].get<std::string>()),
            kHour);
  EXPECT_EQ(loop["next_run_at"], loop["schedule"]["at"]);
  EXPECT_EQ(loop["target"]["command"], "/bin/echo");
  EXPECT_EQ(loop["target"]["args"], json({"once"}));
  EXPECT_EQ(ok_json({"show", "later"}), loop);
}

TEST_F(LoopCli, AddDynamicWithMinAndMax) {
  json loop = add("dyn", {"--dynamic", "--min", "1m", "--max", "1h", "--", "/bin/true"});
  expect_loop_document(loop);
  EXPECT_EQ(loop["schedule"],
            json({{"type", "dynamic"}, {"min_ms", 60000}, {"max_ms", 3600000}, {"jitter_ms", 0}}));
  // Nothing has chosen yet: the first run is min after creation.
  EXPECT_EQ(time_ms(loop["next_run_at"].get<std::string>()) -
                time_ms(loop["created_at"].get<std::string>()),
            kMinute);
  EXPECT_EQ(ok_json({"show", "dyn"}), loop);
}

TEST_F(LoopCli, AddWithEveryOptionStoresEachValue) {
  const std::string cwd = tmp_;  // an existing directory
  const std::string secret = unique_secret();
  json loop = add("full", {"--cron",
                           "*/15 9-17 * * mon-fri",
                           "--tz",
                           "Europe/Berlin",
                           "--jitter",
                           "30s",
                           "--catch-up",
                           "all",
                           "--catch-up-limit",
                           "20",
                           "--catch-up-window",
                           "2h",
                           "--overlap",
                           "queue",
                           "--max-attempts",
                           "3",
                           "--retry-delay",
                           "45s",
                           "--retry-backoff",
                           "exponential",
                           "--lease",
                           "90s",
                           "--timeout",
                           "10m",
                           "--idle-timeout",
                           "2m",
                           "--expires",
                           "2099-01-01T01:00:00+01:00",
                           "--cwd",
                           cwd,
                           "--env",
                           "A=1",
                           "--env",
                           "B=two words",
                           "--env",
                           "C=x=y",
                           "--secret-env",
                           "API_TOKEN=" + secret,
                           "--description",
                           "the full set",
                           "--machine",
                           "os=linux",
                           "--machine",
                           "gpu=yes",
                           "--",
                           "/bin/echo",
                           "hello",
                           "world"});
  expect_loop_document(loop);
  EXPECT_EQ(loop["description"], "the full set");
  EXPECT_EQ(loop["schedule"], json({{"type", "cron"},
                                    {"expression", "*/15 9-17 * * mon-fri"},
                                    {"timezone", "Europe/Berlin"},
                                    {"jitter_ms", 30000}}));
  EXPECT_EQ(loop["catch_up"], "all");
  EXPECT_EQ(loop["catch_up_limit"], 20);
  EXPECT_EQ(loop["catch_up_window_ms"], 7200000);
  EXPECT_EQ(loop["overlap"], "queue");
  EXPECT_EQ(loop["max_attempts"], 3);
  EXPECT_EQ(loop["retry_delay_ms"], 45000);
  EXPECT_EQ(loop["retry_backoff"], "exponential");
  EXPECT_EQ(loop["lease_ms"], 90000);
  EXPECT_EQ(loop["timeout_ms"], 600000);
  EXPECT_EQ(loop["idle_timeout_ms"], 120000);
  // 01:00 at +01:00 is midnight UTC.
  EXPECT_EQ(loop["expires_at"], "2099-01-01T00:00:00.000Z");
  EXPECT_EQ(loop["machine"], json({{"os", "linux"}, {"gpu", "yes"}}));
  json& target = loop["target"];
  EXPECT_EQ(target["type"], "command");
  EXPECT_EQ(target["shell"], false);
  EXPECT_EQ(target["command"], "/bin/echo");
  EXPECT_EQ(target["args"], json({"hello", "world"}));
  EXPECT_EQ(target["cwd"], cwd);
  // A value is everything after the first '='.
  EXPECT_EQ(target["env"], json({{"A", "1"}, {"B", "two words"}, {"C", "x=y"}}));
  EXPECT_EQ(target["secret_env"], json({"API_TOKEN"}));
  // A cron slot on a quarter hour in Berlin (a whole-hour offset from UTC) is
  // on a quarter hour UTC; the jitter adds the same offset below 30s to all.
  const std::int64_t next = time_ms(loop["next_run_at"].get<std::string>());
  EXPECT_GT(next, time_ms(loop["created_at"].get<std::string>()));
  EXPECT_LT(next % (15 * kMinute), 30000) << loop.dump();

  json shown = ok_json({"show", "full"});
  EXPECT_EQ(shown, loop);
  EXPECT_FALSE(contains(shown.dump(), secret));

  // The jitter offset is the same for every slot of the loop: next_run_at's
  // distance past its quarter hour. From Friday 2026-11-27 12:00Z (13:00
  // Berlin, a slot itself), the slots strictly after are 12:00Z + offset
  // (when the offset is not zero; 12:15Z otherwise), then 15 and 30 minutes
  // later.
  const std::int64_t offset = next % (15 * kMinute);
  const std::int64_t noon = time_ms(json("2026-11-27T12:00:00.000Z").get<std::string>());
  const std::int64_t first = offset > 0 ? noon + offset : noon + 15 * kMinute;
  json slots = ok_json({"next", "full", "-n", "3", "--from", "2026-11-27T12:00:00Z"});
  ASSERT_EQ(slots["next"].size(), 3u) << slots.dump();
  EXPECT_EQ(time_ms(slots["next"][0].get<std::string>()), first) << slots.dump();
  EXPECT_EQ(time_ms(slots["next"][1].get<std::string>()), first + 15 * kMinute) << slots.dump();
  EXPECT_EQ(time_ms(slots["next"][2].get<std::string>()), first + 30 * kMinute) << slots.dump();
}

// CLI11 lets options come before positionals; a repeatable K=V option takes
// exactly one value per occurrence, so it cannot swallow NAME.
TEST_F(LoopCli, RepeatableOptionsBeforeNameTakeOneValueEach) {
  const Args args{"--json",   "add",          "--env",        "A=1",   "--machine",
                  "os=linux", "--secret-env", "S=v4lue-0f-s", "early", "--every",
                  "1m",       "--",           "/bin/true"};
  const RunResult result = run(args);
  ASSERT_EQ(result.exit_code, 0) << describe(with_home(args), result);
  json loop = json::parse(result.out);
  EXPECT_EQ(loop["name"], "early") << loop.dump();
  EXPECT_EQ(loop["target"]["env"], json({{"A", "1"}})) << loop.dump();
  EXPECT_EQ(loop["machine"], json({{"os", "linux"}})) << loop.dump();
  EXPECT_EQ(loop["target"]["secret_env"], json({"S"})) << loop.dump();
  EXPECT_EQ(loop["target"]["command"], "/bin/true") << loop.dump();
}

// Every option `orrery add --help` lists is one this file exercises (or one
// the contract names for agent and workflow targets); and every option the
// tests here use is listed.
TEST_F(LoopCli, AddHelpListsExactlyTheOptionsCoveredHere) {
  const RunResult result = run_orrery({"add", "--help"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  std::set<std::string> listed;
  for (size_t at = result.out.find("--"); at != std::string::npos;
       at = result.out.find("--", at + 2)) {
    const size_t end = result.out.find_first_not_of("abcdefghijklmnopqrstuvwxyz-", at + 2);
    const std::string option = result.out.substr(at, end - at);
    if (option.size() > 2) listed.insert(option);
  }
  const std::set<std::string> covered{"--help",
                                      "--cron",
                                      "--every",
                                      "--fixed-delay",
                                      "--at",
                                      "--dynamic",
                                      "--min",
                                      "--max",
                                      "--tz",
                                      "--jitter",
                                      "--catch-up",
                                      "--catch-up-limit",
                                      "--catch-up-window",
                                      "--overlap",
                                      "--max-attempts",
                                      "--retry-delay",
                                      "--retry-backoff",
                                      "--lease",
                                      "--timeout",
                                      "--idle-timeout",
                                      "--expires",
                                      "--log-limit",
                                      "--cwd",
                                      "--env",
                                      "--secret-env",
                                      "--machine",
                                      "--description",
                                      "--shell",
                                      "--agent",
                                      "--workflow"};
  // Agent options are covered by agent_cli_test.cc; --input belongs to workflow
  // targets, which this version refuses; --feed is covered by admission_test.cc.
  const std::set<std::string> contract_only{"--prompt",     "--prompt-file",      "--model",
                                            "--effort",     "--permission-mode",  "--sandbox",
                                            "--agent-name", "--config-isolation", "--add-dir",
                                            "--agent-arg",  "--auth-profile",     "--input",
                                            "--feed"};
  for (const std::string& option : listed) {
    EXPECT_TRUE(covered.count(option) == 1 || contract_only.count(option) == 1)
        << option << " is listed by add --help but not covered by these tests";
  }
  for (const std::string& option : covered) {
    EXPECT_EQ(listed.count(option), 1u) << option << " is missing from add --help";
  }
}

TEST_F(LoopCli, AddHumanOutputNamesTheLoopAndGlobalOptionsMayFollowTheCommand) {
  const Args args{"add", "plain", "--every", "5m", "--home", home_, "--", "/bin/true"};
  const RunResult result = run_orrery(args);
  ASSERT_EQ(result.exit_code, 0) << describe(args, result);
  EXPECT_EQ(result.err, "");
  EXPECT_TRUE(contains(result.out, "plain")) << result.out;
  json loops = all_loops();
  ASSERT_EQ(loops.size(), 1u) << loops.dump();
  EXPECT_TRUE(contains(result.out, loops[0]["id"].get<std::string>())) << result.out;
  // The human `show` names the loop and its schedule.
  const std::string shown = ok_text({"show", "plain"});
  EXPECT_TRUE(contains(shown, loops[0]["id"].get<std::string>())) << shown;
  EXPECT_TRUE(contains(shown, "plain")) << shown;
  EXPECT_TRUE(contains(shown, "active")) << shown;
}

// ---------------------------------------------------------------------------
// Storage: the data directory, file modes, secrets.

TEST_F(LoopCli, DataDirectoryIsPrivateAndDatabaseFilesAreOwnerOnly) {
  ASSERT_EQ(mode_of(home_), -1);  // orrery creates it
  add_every("one");
  EXPECT_EQ(mode_of(home_), 0700);
  EXPECT_EQ(mode_of(db_path()), 0600);
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string file = db_path() + suffix;
    if (fs::exists(file)) {
      EXPECT_EQ(mode_of(file), 0600) << file;
    }
  }
}

TEST_F(LoopCli, OrreryHomeFromTheEnvironment) {
  const EnvVars env{{"ORRERY_HOME", home_}};
  const Args args{"--json", "add", "envhome", "--every", "1h", "--", "/bin/true"};
  const RunResult added = run_orrery(args, env);
  ASSERT_EQ(added.exit_code, 0) << describe(args, added);
  EXPECT_EQ(mode_of(home_), 0700);
  EXPECT_EQ(mode_of(db_path()), 0600);
  json loop = json::parse(added.out);
  // The same directory through --home, and through the environment again.
  json listed = all_loops();
  ASSERT_EQ(listed.size(), 1u) << listed.dump();
  EXPECT_EQ(listed[0], loop);
  const RunResult shown = run_orrery({"--json", "show", "envhome"}, env);
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_EQ(json::parse(shown.out), loop);
}

TEST_F(LoopCli, SecretEnvValueIsKeptOutOfTheDatabase) {
  const std::string secret = unique_secret();
  json loop = add("secretive", {"--every", "1h", "--secret-env", "API_TOKEN=" + secret, "--env",
                                "PLAIN=visible", "--", "/bin/true"});
  EXPECT_EQ(loop["target"]["secret_env"], json({"API_TOKEN"}));
  EXPECT_EQ(loop["target"]["env"], json({{"PLAIN", "visible"}}));
  EXPECT_FALSE(contains(loop.dump(), secret));
  const std::string id = loop["id"].get<std::string>();

  // Not in the database file, its WAL, or any other file outside secrets/;
  // the plain --env value is (so the search would find a stored value).
  const std::string db = read_file(db_path());
  ASSERT_FALSE(db.empty());
  std::string stored = db;
  if (fs::exists(db_path() + "-wal")) stored += read_file(db_path() + "-wal");
  EXPECT_TRUE(contains(stored, "visible"));
  EXPECT_TRUE(contains(stored, "API_TOKEN"));
  EXPECT_FALSE(contains(stored, secret));
  for (const fs::path& file : files_under(home_)) {
    if (file.parent_path() == fs::path(home_) / "secrets") continue;
    EXPECT_FALSE(contains(read_file(file), secret)) << file;
  }
  // Nor in what the commands print.
  EXPECT_FALSE(contains(ok_text({"show", id}), secret));
  EXPECT_FALSE(contains(ok_text({"ls"}), secret));

  // The value lives in <home>/secrets/<id>.env, owner-only.
  EXPECT_EQ(read_file(secrets_file(id)), "API_TOKEN=" + secret + "\n");
  EXPECT_EQ(mode_of(secrets_file(id)), 0600);
  EXPECT_EQ(mode_of(home_ + "/secrets"), 0700);

  // rm removes it.
  json removed = ok_json({"rm", id});
  EXPECT_EQ(removed["deleted"], id);
  EXPECT_FALSE(fs::exists(secrets_file(id)));
}

// ---------------------------------------------------------------------------
// ls

TEST_F(LoopCli, ListFiltersByArchivedAndStatus) {
  EXPECT_EQ(ok_json({"ls"}), json::array());  // a fresh home
  json active = add_every("alpha");
  json paused = add_every("bravo");
  json archived = add_every("charlie");
  ok_json({"pause", "bravo"});
  ok_json({"archive", "charlie"});

  const auto names = [](const json& loops) {
    EXPECT_TRUE(loops.is_array()) << loops.dump();
    std::vector<std::string> result;
    for (const json& loop : loops) result.push_back(loop["name"].get<std::string>());
    std::sort(result.begin(), result.end());
    return result;
  };
  using Names = std::vector<std::string>;
  EXPECT_EQ(names(ok_json({"ls"})), (Names{"alpha", "bravo"}));
  EXPECT_EQ(names(ok_json({"ls", "--all"})), (Names{"alpha", "bravo", "charlie"}));
  EXPECT_EQ(names(ok_json({"ls", "--archived"})), (Names{"charlie"}));
  EXPECT_EQ(names(ok_json({"ls", "--status", "paused"})), (Names{"bravo"}));
  EXPECT_EQ(names(ok_json({"ls", "--status", "active"})), (Names{"alpha"}));
  // The archived loop is paused too.
  EXPECT_EQ(names(ok_json({"ls", "--all", "--status", "paused"})), (Names{"bravo", "charlie"}));
  for (const json& loop : ok_json({"ls", "--all"})) expect_loop_document(loop);

  // Human output: a header line, then one row per loop.
  const std::string table = ok_text({"ls"});
  const std::vector<std::string> rows = lines(table);
  ASSERT_EQ(rows.size(), 3u) << table;
  for (const char* header : {"ID", "NAME", "STATUS", "SCHEDULE", "NEXT", "TARGET"}) {
    EXPECT_TRUE(contains(rows[0], header)) << table;
  }
  EXPECT_EQ(rows[0].rfind("ID", 0), 0u) << table;
  EXPECT_TRUE(contains(table, "alpha")) << table;
  EXPECT_TRUE(contains(table, "bravo")) << table;
  EXPECT_FALSE(contains(table, "charlie")) << table;
  EXPECT_TRUE(shows_handle(table, active["id"].get<std::string>(), " ")) << table;
  EXPECT_TRUE(shows_handle(table, paused["id"].get<std::string>(), " ")) << table;
}

TEST_F(LoopCli, ListRejectsBadFilters) {
  add_every("alpha");
  const std::string status = expect_error({"ls", "--status", "sleeping"}, kExitUsage, "usage");
  EXPECT_TRUE(contains(status, "sleeping")) << status;
  expect_error({"ls", "--all", "--archived"}, kExitUsage, "usage");
}

// ---------------------------------------------------------------------------
// pause, resume, archive, unarchive, rename, rm

TEST_F(LoopCli, PauseAndResume) {
  json loop = add_every("worker", "10m");
  json paused = ok_json({"pause", "worker"});
  expect_loop_document(paused);
  EXPECT_EQ(paused["status"], "paused");
  EXPECT_EQ(paused["archived"], false);
  EXPECT_EQ(paused["id"], loop["id"]);
  EXPECT_GT(paused["updated_at"].get<std::string>(), loop["updated_at"].get<std::string>());
  EXPECT_EQ(ok_json({"show", "worker"}), paused);

  // Pausing a paused loop is an illegal transition: a conflict, nothing changes.
  const std::string message = expect_error({"pause", "worker"}, kExitConflict, "conflict");
  EXPECT_TRUE(contains(message, "paused")) << message;
  EXPECT_EQ(ok_json({"show", "worker"}), paused);

  const std::int64_t before = wall_now_ms();
  json resumed = ok_json({"resume", "worker"});
  const std::int64_t after = wall_now_ms();
  expect_loop_document(resumed);
  EXPECT_EQ(resumed["status"], "active");
  // The next slot counts from the resume: now + 10m, strictly after now.
  const std::int64_t next = time_ms(resumed["next_run_at"].get<std::string>());
  EXPECT_GT(next, before);
  EXPECT_GE(next, before + 10 * kMinute) << resumed.dump();
  EXPECT_LE(next, after + 10 * kMinute) << resumed.dump();
  EXPECT_EQ(ok_json({"show", "worker"}), resumed);

  // Resuming an active loop is a conflict too.
  expect_error({"resume", "worker"}, kExitConflict, "conflict");

  // Human output.
  const std::string text = ok_text({"pause", "worker"});
  EXPECT_TRUE(contains(text, "worker")) << text;
}

TEST_F(LoopCli, ArchiveAndUnarchiveRestoreThePreviousStatus) {
  add_every("was-active");
  add_every("was-paused");
  ok_json({"pause", "was-paused"});

  for (const std::string name : {"was-active", "was-paused"}) {
    json archived = ok_json({"archive", name});
    EXPECT_EQ(archived["archived"], true) << name;
    EXPECT_EQ(archived["status"], "paused") << name;
    EXPECT_EQ(ok_json({"show", name}), archived);
    // Archived loops cannot be archived again, paused or resumed.
    expect_error({"archive", name}, kExitConflict, "conflict");
    expect_error({"pause", name}, kExitConflict, "conflict");
    expect_error({"resume", name}, kExitConflict, "conflict");
  }

  const std::int64_t before = wall_now_ms();
  json active = ok_json({"unarchive", "was-active"});
  EXPECT_EQ(active["archived"], false);
  EXPECT_EQ(active["status"], "active");
  EXPECT_GT(time_ms(active["next_run_at"].get<std::string>()), before);
  EXPECT_EQ(ok_json({"show", "was-active"}), active);

  json paused = ok_json({"unarchive", "was-paused"});
  EXPECT_EQ(paused["archived"], false);
  EXPECT_EQ(paused["status"], "paused");
  EXPECT_EQ(ok_json({"show", "was-paused"}), paused);

  // Unarchiving a loop that is not archived is a conflict.
  expect_error({"unarchive", "was-active"}, kExitConflict, "conflict");
}

TEST_F(LoopCli, RenameChangesTheNameAndRefusesAnEmptyOne) {
  json loop = add_every("old-name");
  json renamed = ok_json({"rename", "old-name", "new-name"});
  EXPECT_EQ(renamed["name"], "new-name");
  EXPECT_EQ(renamed["id"], loop["id"]);
  EXPECT_EQ(ok_json({"show", "new-name"}), renamed);
  expect_error({"show", "old-name"}, kExitNotFound, "not_found");

  const std::string message = expect_error({"rename", "new-name", ""}, kExitUsage, "usage");
  EXPECT_TRUE(contains(message, "name")) << message;
  EXPECT_EQ(ok_json({"show", "new-name"}), renamed);
}

TEST_F(LoopCli, RemoveDeletesTheLoop) {
  json keep = add_every("keep");
  json loop = add_every("doomed");
  const std::string id = loop["id"].get<std::string>();
  json removed = ok_json({"rm", "doomed"});
  EXPECT_EQ(removed["deleted"], id);
  const std::string message = expect_error({"show", id}, kExitNotFound, "not_found");
  EXPECT_TRUE(contains(message, id)) << message;
  expect_error({"rm", id}, kExitNotFound, "not_found");
  EXPECT_EQ(all_loops(), json::array({keep}));
}

TEST_F(LoopCli, RemoveIsRefusedWhileARunIsRunningAndSaysHowToStopIt) {
  json loop = add("busy", {"--every", "1h", "--", "sleep", "30"});
  const std::string id = loop["id"].get<std::string>();
  const std::string run_id = ok_json({"trigger", "busy"})["run_id"].get<std::string>();
  json run;
  ASSERT_TRUE(within(4000, [&] {
    run = ok_json({"run", "show", run_id});
    return run["supervisor_pid"].is_number();
  })) << run.dump();
  const int supervisor = run["supervisor_pid"].get<int>();
  const std::string message = expect_error({"rm", "busy"}, kExitConflict, "conflict");
  EXPECT_EQ(message, "cannot delete loop busy: run " + run_id +
                         " is running; stop it with: kill -TERM " + std::to_string(supervisor) +
                         " (its supervisor; the run is cancelled), then delete the loop");
  // Nothing was deleted: the loop, its run and the run's directory remain.
  EXPECT_EQ(ok_json({"show", id})["id"], id);
  EXPECT_EQ(ok_json({"run", "show", run_id})["status"], "running");
  EXPECT_TRUE(fs::exists(home_ + "/runs/" + run_id));
  // Stopped as the message says, the loop can be deleted.
  ASSERT_EQ(::kill(supervisor, SIGTERM), 0);
  ASSERT_TRUE(within(4000, [&] {
    return ok_json({"run", "show", run_id})["status"] != "running";
  }));
  EXPECT_EQ(ok_json({"rm", "busy"})["deleted"], id);
  EXPECT_FALSE(fs::exists(home_ + "/runs/" + run_id));
}

TEST_F(LoopCli, ALoopPastItsExpiryIsShownExpiredAndCannotBeTriggered) {
  json loop = add("e1", {"--every", "1s", "--expires", "+2s", "--", "/bin/true"});
  const std::int64_t expires = time_ms(loop["expires_at"].get<std::string>());
  EXPECT_EQ(loop["status"], "active");
  // Once the expiry has passed, every view says expired (no daemon runs here).
  ASSERT_TRUE(within(4000, [&] { return wall_now_ms() > expires + 50; }));
  EXPECT_EQ(ok_json({"show", "e1"})["status"], "expired");
  const json listed = ok_json({"ls", "--all"});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["status"], "expired");
  EXPECT_EQ(listed[0]["next_run_at"], nullptr);
  const std::string message = expect_error({"trigger", "e1", "--wait"}, kExitConflict, "conflict");
  EXPECT_TRUE(contains(message, "e1")) << message;
  EXPECT_TRUE(contains(message, "expired")) << message;
  EXPECT_EQ(ok_json({"runs", "e1"}), json::array());
}

// ---------------------------------------------------------------------------
// LOOP resolution

TEST_F(LoopCli, LoopIsFoundByIdByIdPrefixAndByName) {
  json loop = add_every("findme");
  const std::string id = loop["id"].get<std::string>();
  EXPECT_EQ(ok_json({"show", id}), loop);
  EXPECT_EQ(ok_json({"show", "findme"}), loop);
  EXPECT_EQ(ok_json({"show", id.substr(0, 6)}), loop);
  EXPECT_EQ(ok_json({"show", id.substr(0, 10)}), loop);
  // Five characters are too few to be a prefix.
  expect_error({"show", id.substr(0, 5)}, kExitNotFound, "not_found");
  // A longer string that only starts like the id is not it.
  expect_error({"show", id + "0"}, kExitNotFound, "not_found");
}

TEST_F(LoopCli, PrefixSharedByTwoLoopsIsAmbiguousAndALongerOneIsNot) {
  json first = add_every("one");
  json second = add_every("two");
  const std::string a = first["id"].get<std::string>();
  const std::string b = second["id"].get<std::string>();
  size_t common = 0;
  while (common < a.size() && a[common] == b[common]) ++common;
  ASSERT_LT(common, a.size());
  // Ids are time-ordered: two made a moment apart share their first hex digits.
  if (common >= 6) {
    const std::string message = expect_error({"show", a.substr(0, 6)}, kExitConflict, "conflict");
    EXPECT_TRUE(contains(message, a) && contains(message, b)) << message;
  }
  const size_t distinct = std::max<size_t>(6, common + 1);
  EXPECT_EQ(ok_json({"show", a.substr(0, distinct)}), first);
  EXPECT_EQ(ok_json({"show", b.substr(0, distinct)}), second);
}

TEST_F(LoopCli, TwoLoopsWithOneNameAreAmbiguousByNameButNotById) {
  json first = add_every("twin");
  json second = add_every("twin");
  const std::string a = first["id"].get<std::string>();
  const std::string b = second["id"].get<std::string>();
  ASSERT_NE(a, b);
  for (const char* command : {"show", "pause", "rm", "next"}) {
    const std::string message = expect_error({command, "twin"}, kExitConflict, "conflict");
    EXPECT_TRUE(contains(message, a)) << command << ": " << message;
    EXPECT_TRUE(contains(message, b)) << command << ": " << message;
  }
  expect_error({"rename", "twin", "x"}, kExitConflict, "conflict");
  EXPECT_EQ(ok_json({"show", a}), first);
  EXPECT_EQ(ok_json({"show", b}), second);
  EXPECT_EQ(all_loops().size(), 2u);
}

TEST_F(LoopCli, UnknownLoopIsNotFoundForEveryCommand) {
  add_every("present");
  for (const Args& args : std::vector<Args>{{"show", "absent"},
                                            {"pause", "absent"},
                                            {"resume", "absent"},
                                            {"archive", "absent"},
                                            {"unarchive", "absent"},
                                            {"rename", "absent", "other"},
                                            {"rm", "absent"},
                                            {"next", "absent"},
                                            {"show", "0123456789abcdef"}}) {
    const std::string message = expect_error(args, kExitNotFound, "not_found");
    EXPECT_TRUE(contains(message, args[1])) << message;
  }
}

// ---------------------------------------------------------------------------
// next

TEST_F(LoopCli, NextListsTheLoopsComingSlots) {
  json loop = add_every("ticker", "10m");
  json next = ok_json({"next", "ticker", "-n", "3"});
  ASSERT_TRUE(next.is_object()) << next.dump();
  EXPECT_EQ(next["loop_id"], loop["id"]);
  ASSERT_TRUE(next["next"].is_array() && next["next"].size() == 3) << next.dump();
  for (const json& time : next["next"]) EXPECT_TRUE(is_json_time(time)) << next.dump();
  // From the stored next slot on, 10 minutes apart.
  EXPECT_EQ(next["next"][0], loop["next_run_at"]);
  const std::int64_t first = time_ms(next["next"][0].get<std::string>());
  EXPECT_EQ(time_ms(next["next"][1].get<std::string>()), first + 10 * kMinute);
  EXPECT_EQ(time_ms(next["next"][2].get<std::string>()), first + 20 * kMinute);

  // Five by default.
  EXPECT_EQ(ok_json({"next", "ticker"})["next"].size(), 5u);
}

TEST_F(LoopCli, NextFromATimeStartsThereAndStrictlyIncreases) {
  add_every("ticker", "10m");
  EXPECT_EQ(
      ok_json({"next", "ticker", "-n", "3", "--from", "2026-01-01T00:00:00Z"})["next"],
      json({"2026-01-01T00:10:00.000Z", "2026-01-01T00:20:00.000Z", "2026-01-01T00:30:00.000Z"}));
  // Any ISO 8601 is accepted: 01:00+01:00 is midnight UTC.
  EXPECT_EQ(ok_json({"next", "ticker", "-n", "1", "--from", "2026-01-01T01:00:00+01:00"})["next"],
            json({"2026-01-01T00:10:00.000Z"}));

  add("cron", {"--cron", "*/20 * * * *", "--tz", "UTC", "--", "/bin/true"});
  EXPECT_EQ(ok_json({"next", "cron", "-n", "4", "--from", "2026-01-01T00:00:00Z"})["next"],
            json({"2026-01-01T00:20:00.000Z", "2026-01-01T00:40:00.000Z",
                  "2026-01-01T01:00:00.000Z", "2026-01-01T01:20:00.000Z"}));

  // Human output lists the times.
  const std::string text = ok_text({"next", "ticker", "-n", "2", "--from", "+1h"});
  EXPECT_EQ(lines(text).size(), 2u) << text;
}

TEST_F(LoopCli, NextRejectsBadCountsAndTimes) {
  add_every("ticker");
  for (const char* count : {"0", "1001", "-1"}) {
    const std::string message = expect_error({"next", "ticker", "-n", count}, kExitUsage, "usage");
    EXPECT_TRUE(contains(message, count)) << message;
  }
  expect_error({"next", "ticker", "-n", "many"}, kExitUsage, "usage");
  const std::string message =
      expect_error({"next", "ticker", "--from", "yesterday"}, kExitUsage, "usage");
  EXPECT_TRUE(contains(message, "yesterday")) << message;
}

// ---------------------------------------------------------------------------
// Bad input to add: the contract's error, and nothing stored.

struct BadAdd {
  const char* name;
  Args args;  // after "add"
  int exit_code;
  const char* code;
  std::vector<std::string> message_parts;  // the message contains each
};
// args.front() is NAME.

// Names the case in gtest's messages instead of dumping its bytes.
void PrintTo(const BadAdd& bad, std::ostream* out) { *out << bad.name; }

class LoopCliBadAdd : public LoopCli, public ::testing::WithParamInterface<BadAdd> {};

TEST_P(LoopCliBadAdd, IsRefusedWithOneLineAndStoresNothing) {
  // One loop already there, so "nothing stored" compares a non-empty list.
  add_every("baseline");
  json before = all_loops();
  const std::vector<fs::path> files_before = files_under(home_);

  // A secret rides along (after NAME, where the contract puts the options):
  // a refused add must not write it anywhere either.
  const std::string secret = unique_secret();
  const Args& rest = GetParam().args;
  Args args{"add", rest.front(), "--secret-env", "LEAK=" + secret};
  args.insert(args.end(), rest.begin() + 1, rest.end());
  const std::string message = expect_error(args, GetParam().exit_code, GetParam().code);
  for (const std::string& part : GetParam().message_parts) {
    EXPECT_TRUE(contains(message, part)) << "'" << part << "' not in: " << message;
  }

  EXPECT_EQ(all_loops(), before);
  EXPECT_FALSE(fs::exists(home_ + "/secrets"));
  for (const fs::path& file : files_under(home_)) {
    EXPECT_FALSE(contains(read_file(file), secret)) << file;
  }
}

// A bad add into a home that does not exist yet does not need to create it,
// and must not leave a loop behind when it does.
TEST_P(LoopCliBadAdd, InAFreshHomeStoresNothing) {
  Args args{"add"};
  args.insert(args.end(), GetParam().args.begin(), GetParam().args.end());
  const RunResult result = run(args);
  EXPECT_EQ(result.exit_code, GetParam().exit_code) << describe(with_home(args), result);
  EXPECT_EQ(all_loops(), json::array());
}

const Args kTrue{"--", "/bin/true"};

Args concat(Args a, const Args& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

Args every(Args options) { return concat(concat({"x", "--every", "1m"}, options), kTrue); }

INSTANTIATE_TEST_SUITE_P(
    LoopCli, LoopCliBadAdd,
    ::testing::Values(
        BadAdd{"NoSchedule", concat({"x"}, kTrue), kExitUsage, "usage", {"schedule"}},
        BadAdd{"TwoSchedules",
               concat({"x", "--every", "1m", "--cron", "* * * * *"}, kTrue),
               kExitUsage,
               "usage",
               {"one schedule"}},
        BadAdd{"EveryAndAt",
               concat({"x", "--every", "1m", "--at", "+1h"}, kTrue),
               kExitUsage,
               "usage",
               {"one schedule"}},
        BadAdd{"NoTarget", {"x", "--every", "1m"}, kExitUsage, "usage", {"target"}},
        BadAdd{"TwoTargets",
               concat({"x", "--every", "1m", "--shell", "true"}, kTrue),
               kExitUsage,
               "usage",
               {"one target"}},
        BadAdd{"InvalidCron",
               concat({"x", "--cron", "0 0 32 * *", "--tz", "UTC"}, kTrue),
               kExitUsage,
               "usage",
               {"day-of-month 32", "0 0 32 * *"}},
        BadAdd{"CronThatNeverFires",
               concat({"x", "--cron", "0 0 30 2 *", "--tz", "UTC"}, kTrue),
               kExitUsage,
               "usage",
               {"never fires"}},
        BadAdd{"InvalidEveryDuration",
               concat({"x", "--every", "soon"}, kTrue),
               kExitUsage,
               "usage",
               {"--every", "soon"}},
        BadAdd{"ZeroEvery", concat({"x", "--every", "0s"}, kTrue), kExitUsage, "usage", {"0s"}},
        BadAdd{"InvalidAt",
               concat({"x", "--at", "noon"}, kTrue),
               kExitUsage,
               "usage",
               {"--at", "noon"}},
        BadAdd{"AtInThePast",
               concat({"x", "--at", "2020-01-01T00:00:00Z"}, kTrue),
               kExitUsage,
               "usage",
               {"2020-01-01T00:00:00Z", "future"}},
        BadAdd{"UnknownZone",
               concat({"x", "--cron", "0 9 * * *", "--tz", "Mars/Olympus_Mons"}, kTrue),
               kExitUsage,
               "usage",
               {"Mars/Olympus_Mons"}},
        BadAdd{"CommandWithSpacesWithoutShell",
               {"x", "--every", "1m", "--", "echo hello"},
               kExitUsage,
               "usage",
               {"echo hello", "--shell"}},
        BadAdd{
            "AgentOptionTheProviderLacks",
            {"x", "--every", "1m", "--agent", "claude", "--prompt", "x", "--sandbox", "read-only"},
            kExitUsage,
            "usage",
            {"--sandbox is supported only"}},
        BadAdd{"UnknownAgentProvider",
               {"x", "--every", "1m", "--agent", "chatgpt", "--prompt", "x"},
               kExitUsage,
               "usage",
               {"invalid agent provider 'chatgpt'"}},
        BadAdd{"UnknownWorkflowTarget",
               {"x", "--every", "1m", "--workflow", "w"},
               kExitNotFound,
               "not_found",
               {"no workflow has the id or name 'w'"}},
        BadAdd{"WorkflowTargetWithBadVersion",
               {"x", "--every", "1m", "--workflow", "w@0"},
               kExitUsage,
               "usage",
               {"the version after @ must be a whole number from 1"}},
        BadAdd{"WorkflowInputThatIsNotAnObject",
               {"x", "--every", "1m", "--workflow", "w", "--input", "[1]"},
               kExitUsage,
               "usage",
               {"--input must be a JSON object"}},
        BadAdd{"MachineLabelWithoutValue",
               every({"--machine", "os="}),
               kExitUsage,
               "usage",
               {"--machine 'os='", "the value is empty"}},
        BadAdd{"MachineLabelWithTwoValues",
               every({"--machine", "os=linux", "--machine", "os=mac"}),
               kExitUsage,
               "usage",
               {"--machine gives the label os two values"}},
        BadAdd{"LeaseShorterThanOneSecond",
               every({"--lease", "500ms"}),
               kExitUsage,
               "usage",
               {"--lease", "500ms", "1s"}},
        BadAdd{"CatchUpLimitZero",
               every({"--catch-up-limit", "0"}),
               kExitUsage,
               "usage",
               {"0", "1-1000"}},
        BadAdd{"CatchUpLimit1001",
               every({"--catch-up-limit", "1001"}),
               kExitUsage,
               "usage",
               {"1001", "1-1000"}},
        BadAdd{"CatchUpSometimes",
               every({"--catch-up", "sometimes"}),
               kExitUsage,
               "usage",
               {"--catch-up", "sometimes", "latest"}},
        BadAdd{"OverlapMaybe",
               every({"--overlap", "maybe"}),
               kExitUsage,
               "usage",
               {"--overlap", "maybe", "skip"}},
        BadAdd{"RetryBackoffUnknown",
               every({"--retry-backoff", "linear"}),
               kExitUsage,
               "usage",
               {"linear"}},
        BadAdd{"MaxAttemptsZero",
               every({"--max-attempts", "0"}),
               kExitUsage,
               "usage",
               {"--max-attempts", "0"}},
        BadAdd{"EnvWithoutEquals",
               every({"--env", "NOEQUALS"}),
               kExitUsage,
               "usage",
               {"--env", "NOEQUALS"}},
        BadAdd{"EnvWithABadName", every({"--env", "1X=y"}), kExitUsage, "usage", {"1X"}},
        BadAdd{"SecretEnvWithoutEquals",
               every({"--secret-env", "NOVALUE"}),
               kExitUsage,
               "usage",
               {"--secret-env", "NOVALUE"}},
        BadAdd{"CwdDoesNotExist",
               every({"--cwd", "/does/not/exist"}),
               kExitUsage,
               "usage",
               {"--cwd", "/does/not/exist"}},
        BadAdd{"ExpiresInThePast",
               every({"--expires", "2020-01-01T00:00:00Z"}),
               kExitUsage,
               "usage",
               {"--expires", "2020-01-01T00:00:00Z"}},
        BadAdd{"InvalidTimeout",
               every({"--timeout", "forever"}),
               kExitUsage,
               "usage",
               {"--timeout", "forever"}},
        BadAdd{"MinWithoutDynamic",
               every({"--min", "1m"}),
               kExitUsage,
               "usage",
               {"--min", "--dynamic"}},
        BadAdd{"DynamicMaxBelowMin",
               concat({"x", "--dynamic", "--min", "1h", "--max", "1m"}, kTrue),
               kExitUsage,
               "usage",
               {"--max"}},
        BadAdd{"FixedDelayWithoutEvery",
               concat({"x", "--cron", "* * * * *", "--tz", "UTC", "--fixed-delay"}, kTrue),
               kExitUsage,
               "usage",
               {"--fixed-delay"}},
        BadAdd{"JitterWithDynamic",
               concat({"x", "--dynamic", "--jitter", "1m"}, kTrue),
               kExitUsage,
               "usage",
               {"--jitter", "--dynamic"}},
        BadAdd{"ExpiresBeforeTheFirstSlot",
               concat({"x", "--at", "2099-01-01T10:00:00Z", "--expires", "2099-01-01T09:00:00Z"},
                      kTrue),
               kExitUsage,
               "usage",
               {"--expires", "2099-01-01T09:00:00Z", "never run"}},
        BadAdd{"EveryBeyondItsMaximum",
               concat({"x", "--every", "9223372036854775807"}, kTrue),
               kExitUsage,
               "usage",
               {"--every", "9223372036854775807", "365d"}},
        BadAdd{"EmptyName", concat({"", "--every", "1m"}, kTrue), kExitUsage, "usage", {"name"}},
        BadAdd{"UnknownOption", every({"--bogus"}), kExitUsage, "usage", {"--bogus"}}),
    [](const ::testing::TestParamInfo<BadAdd>& info) { return info.param.name; });

// ---------------------------------------------------------------------------
// The database itself.

// Reads PRAGMA user_version of a database file, or sets it when `set` is given.
int user_version(const std::string& path, std::optional<int> set = {}) {
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db);
    sqlite3_close(db);
    return -1;
  }
  if (set) {
    const std::string sql = "PRAGMA user_version = " + std::to_string(*set);
    char* error = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << (error ? error : "?");
      sqlite3_free(error);
    }
  }
  int version = -1;
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &statement, nullptr) == SQLITE_OK &&
      sqlite3_step(statement) == SQLITE_ROW) {
    version = sqlite3_column_int(statement, 0);
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);  // the last connection: the WAL is checkpointed into the file
  return version;
}

TEST_F(LoopCli, DatabaseNewerThanTheBinaryIsRefusedAndLeftAlone) {
  EXPECT_EQ(ok_json({"ls"}), json::array());
  const int supported = user_version(db_path());
  ASSERT_GE(supported, 1);
  ASSERT_LT(supported, 99);
  ASSERT_EQ(user_version(db_path(), 99), 99);
  ASSERT_FALSE(fs::exists(db_path() + "-wal"));
  const std::string bytes = read_file(db_path());

  const std::string message = expect_error({"ls"}, kExitConflict, "conflict");
  EXPECT_TRUE(contains(message, "99")) << message;
  EXPECT_TRUE(contains(message, "version " + std::to_string(supported))) << message;
  // Adding is refused the same way, and writes nothing.
  expect_error({"add", "x", "--every", "1m", "--", "/bin/true"}, kExitConflict, "conflict");

  EXPECT_EQ(read_file(db_path()), bytes);
  if (fs::exists(db_path() + "-wal")) {
    EXPECT_EQ(fs::file_size(db_path() + "-wal"), 0u);
  }
  EXPECT_EQ(user_version(db_path()), 99);
}

TEST_F(LoopCli, FileThatIsNotADatabaseIsRefusedAndLeftAlone) {
  ASSERT_TRUE(fs::create_directory(home_));
  std::mt19937 random(20261129);
  std::string bytes(8192, '\0');
  for (char& byte : bytes) byte = char(random() & 0xff);
  write_bytes(db_path(), bytes);

  const std::string message = expect_error({"ls"}, kExitUsage, "usage");
  EXPECT_TRUE(contains(message, db_path())) << message;
  expect_error({"add", "x", "--every", "1m", "--", "/bin/true"}, kExitUsage, "usage");
  EXPECT_EQ(read_file(db_path()), bytes);
}

TEST_F(LoopCli, HomeThatCannotBeCreatedIsAUsageError) {
  // Running as root, permission bits would not stop orrery; a regular file
  // where a parent directory should be does.
  const std::string file = tmp_ + "/plain-file";
  write_bytes(file, "not a directory\n");
  const std::string home = file + "/home";
  const Args args{"--home", home, "ls"};
  for (const bool json_output : {false, true}) {
    Args full = args;
    if (json_output) full.push_back("--json");
    const RunResult result = run_orrery(full);
    EXPECT_EQ(result.exit_code, kExitUsage) << describe(full, result);
    EXPECT_EQ(result.err.rfind("orrery: ", 0), 0u) << describe(full, result);
    EXPECT_EQ(lines(result.err).size(), 1u) << describe(full, result);
    EXPECT_TRUE(contains(result.err, file)) << describe(full, result);
    if (json_output) {
      json document = json::parse(result.out, nullptr, false);
      ASSERT_FALSE(document.is_discarded()) << describe(full, result);
      EXPECT_EQ(document["error"]["code"], "usage");
    } else {
      EXPECT_EQ(result.out, "") << describe(full, result);
    }
  }
  EXPECT_EQ(read_file(file), "not a directory\n");
}

// A server that cannot be reached (an unknown host) is exit 2 before anything
// is created, and the message names the URL without its password.
TEST_F(LoopCli, PostgresUrlIsRecognisedAndItsPasswordNeverShown) {
  for (const char* url : {"postgres://x.invalid", "postgresql://user@host.invalid/db",
                          "postgresql://user:hunter2@host.invalid/db?sslmode=require"}) {
    const std::string message = expect_error({"--db", url, "ls"}, kExitUsage, "usage");
    EXPECT_TRUE(contains(message, "cannot connect to the PostgreSQL server")) << message;
    EXPECT_FALSE(contains(message, "hunter2")) << message;
  }
  // ORRERY_DB selects it as well.
  const std::string message = expect_error({"ls"}, kExitUsage, "usage",
                                           {{"ORRERY_DB", "postgres://u:hunter2@x.invalid/db"}});
  EXPECT_TRUE(
      contains(message, "cannot connect to the PostgreSQL server postgres://u:****@x.invalid/db"))
      << message;
  EXPECT_FALSE(fs::exists(db_path()));
  EXPECT_FALSE(fs::exists(home_));
}

TEST_F(LoopCli, APostgresUrlLibpqRefusesIsExit2WithoutThePassword) {
  const std::string message = expect_error(
      {"--db", "postgresql://u:hunter2@h/db?sslmod=require", "ls"}, kExitUsage, "usage");
  EXPECT_EQ(message,
            "--db 'postgresql://u:****@h/db?sslmod=require' is not a PostgreSQL URL libpq "
            "accepts: invalid URI query parameter: \"sslmod\"");
  for (const char* url : {"postgresql://u:hunt%zzer2@h/db", "postgresql://u:hunter2@h@x/db",
                          "Postgres://u:hunter2@h/db", "postgresql://h/db?password=hunter2&x=1"}) {
    const std::string refused = expect_error({"--db", url, "ls"}, kExitUsage, "usage");
    EXPECT_FALSE(contains(refused, "hunter")) << refused;
  }
  EXPECT_FALSE(fs::exists(home_));
}

}  // namespace
}  // namespace orrery
