// Black-box tests of run execution (docs/execution.md, docs/scrubbing.md, docs/cli.md): `add`
// then `trigger LOOP [--wait] [--json]`, `runs`, `run show RUN --json` and
// `logs RUN_OR_LOOP [--stderr]`, run against the real binary, with real
// target processes, in a fresh data directory per test.
//
// Synchronisation: `trigger --wait` returns only after the supervisor has
// finalized the run, so a test that waits on it needs no sleep. Only the
// runs that are deliberately detached (trigger without --wait) are waited for
// by bounded polling of `run show --json`.
//
// Expected values are worked out by hand; the reasoning is next to each.
#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cli_fixture.h"
#include "run_binary.h"
#include "support/process_group.h"

namespace orrery {
namespace {

using testing::group_alive;
using testing::read_file;

using nlohmann::json;
using Args = std::vector<std::string>;
namespace fs = std::filesystem;

constexpr int kExitWorkFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNotFound = 3;
constexpr int kExitConflict = 4;

constexpr size_t kTailLimit = 256 * 1024;     // docs/execution.md: 256 KiB per stream
constexpr size_t kTenMiB = 10 * 1024 * 1024;  // 10485760

// ---------------------------------------------------------------------------
// Helpers.

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool is_json_time(const json& value) {
  return value.is_string() && is_time_text(value.get<std::string>());
}

bool is_hex_id(const std::string& id) {
  return id.size() == 32 && id.find_first_not_of("0123456789abcdef") == std::string::npos;
}

bool is_json_id(const json& value) {
  return value.is_string() && is_hex_id(value.get<std::string>());
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

// `length` random letters and digits: a value nobody else would write.
std::string random_alnum(size_t length) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  std::random_device device;
  std::string text;
  for (size_t i = 0; i < length; ++i) text += kChars[device() % (sizeof kChars - 1)];
  return text;
}

std::string repeat(const std::string& unit, size_t times) {
  std::string text;
  text.reserve(unit.size() * times);
  for (size_t i = 0; i < times; ++i) text += unit;
  return text;
}

// Whether `text` is well-formed UTF-8 (RFC 3629): no stray continuation
// bytes, no truncated sequence, no overlong form, no surrogate, nothing past
// U+10FFFF. Returns the offset of the first bad byte through `bad_at`.
bool valid_utf8(const std::string& text, size_t* bad_at = nullptr) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char lead = static_cast<unsigned char>(text[i]);
    size_t length = 0;
    std::uint32_t code = 0;
    std::uint32_t minimum = 0;
    if (lead < 0x80) {
      ++i;
      continue;
    } else if ((lead & 0xE0) == 0xC0) {
      length = 2, code = lead & 0x1F, minimum = 0x80;
    } else if ((lead & 0xF0) == 0xE0) {
      length = 3, code = lead & 0x0F, minimum = 0x800;
    } else if ((lead & 0xF8) == 0xF0) {
      length = 4, code = lead & 0x07, minimum = 0x10000;
    } else {
      if (bad_at) *bad_at = i;
      return false;
    }
    bool ok = i + length <= text.size();
    for (size_t k = 1; ok && k < length; ++k) {
      const unsigned char next = static_cast<unsigned char>(text[i + k]);
      ok = (next & 0xC0) == 0x80;
      code = (code << 6) | (next & 0x3F);
    }
    ok = ok && code >= minimum && code <= 0x10FFFF && !(code >= 0xD800 && code <= 0xDFFF);
    if (!ok) {
      if (bad_at) *bad_at = i;
      return false;
    }
    i += length;
  }
  return true;
}

TEST(RunCliUtf8Check, TheDecoderAcceptsAndRejectsWhatItShould) {
  EXPECT_TRUE(valid_utf8("plain ascii"));
  EXPECT_TRUE(valid_utf8("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80"));  // é € 😀
  EXPECT_FALSE(valid_utf8("\xA9"));                                 // stray continuation
  EXPECT_FALSE(valid_utf8("\xE2\x82"));                             // truncated €
  EXPECT_FALSE(valid_utf8("\xC0\xAF"));                             // overlong '/'
  EXPECT_FALSE(valid_utf8("\xED\xA0\x80"));                         // surrogate U+D800
  EXPECT_FALSE(valid_utf8("\xF4\x90\x80\x80"));                     // past U+10FFFF
  EXPECT_FALSE(valid_utf8("\xFF"));
}

// Whether process `pid` is alive (exists and is not a zombie).
bool process_alive(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno != ESRCH;
  const std::string stat = read_file("/proc/" + std::to_string(pid) + "/stat");
  const size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

// The run document of docs/cli.md: the contract's keys and their types.
void expect_run_document(const json& run) {
  ASSERT_TRUE(run.is_object()) << run.dump();
  for (const char* key :
       {"id", "loop_id", "loop_name", "scheduled_for", "attempt", "status", "started_at",
        "finished_at", "exit_code", "signal", "duration_ms", "error", "skip_reason", "pid",
        "supervisor_pid", "usage", "created_at", "updated_at"}) {
    EXPECT_TRUE(run.contains(key)) << "missing " << key << " in " << run.dump();
  }
  EXPECT_TRUE(is_json_id(run["id"])) << run.dump();
  EXPECT_TRUE(is_json_id(run["loop_id"])) << run.dump();
  EXPECT_TRUE(run["loop_name"].is_string()) << run.dump();
  EXPECT_TRUE(is_json_time(run["scheduled_for"])) << run.dump();
  EXPECT_TRUE(run["attempt"].is_number_integer()) << run.dump();
  EXPECT_TRUE(run["status"].is_string()) << run.dump();
  for (const char* key : {"created_at", "updated_at"}) {
    EXPECT_TRUE(is_json_time(run[key])) << key << ": " << run.dump();
  }
  for (const char* key : {"started_at", "finished_at"}) {
    EXPECT_TRUE(run[key].is_null() || is_json_time(run[key])) << key << ": " << run.dump();
  }
  for (const char* key : {"exit_code", "signal", "duration_ms", "pid", "supervisor_pid"}) {
    EXPECT_TRUE(run[key].is_null() || run[key].is_number_integer()) << key << ": " << run.dump();
  }
  for (const char* key : {"error", "skip_reason"}) {
    EXPECT_TRUE(run[key].is_null() || run[key].is_string()) << key << ": " << run.dump();
  }
  ASSERT_TRUE(run["usage"].is_object()) << run.dump();
  for (const char* key : {"input_tokens", "output_tokens", "cost_usd"}) {
    EXPECT_TRUE(run["usage"].contains(key)) << "missing usage." << key << " in " << run.dump();
  }
  // A finished run: its duration is finished_at - started_at, to the ms.
  if (run["status"] != "running" && is_json_time(run["started_at"]) &&
      is_json_time(run["finished_at"]) && run["duration_ms"].is_number_integer()) {
    EXPECT_EQ(run["duration_ms"].get<std::int64_t>(),
              time_ms(run["finished_at"].get<std::string>()) -
                  time_ms(run["started_at"].get<std::string>()))
        << run.dump();
  }
}

// What `run show --json` adds: the stored tails.
void expect_shown_run_document(const json& run) {
  expect_run_document(run);
  EXPECT_TRUE(run.contains("stdout") && run["stdout"].is_string()) << run.dump();
  EXPECT_TRUE(run.contains("stderr") && run["stderr"].is_string()) << run.dump();
}

// ---------------------------------------------------------------------------
// The fixture: CliFixture (a fresh data directory, JSON helpers, the process
// groups a test started killed in TearDown) plus this file's helpers.

class RunCli : public CliFixture {
 protected:
  // Adds a loop with an hourly schedule (nothing fires by itself: there is
  // no daemon) and the given options and target; returns its document.
  json add(const std::string& name, const Args& options_and_target) const {
    Args args{"add", name, "--every", "1h"};
    args.insert(args.end(), options_and_target.begin(), options_and_target.end());
    json loop = json_of(args);
    EXPECT_TRUE(is_json_id(loop["id"])) << loop.dump();
    return loop;
  }

  // `trigger LOOP --wait --json`: the finished run's document.
  json trigger_wait(const std::string& loop, int exit_code, const EnvVars& env = {}) const {
    json run = json_of({"trigger", loop, "--wait"}, exit_code, env);
    expect_shown_run_document(run);
    EXPECT_NE(run["status"], "running") << run.dump();
    return run;
  }

  json show(const std::string& run_id) const {
    json run = json_of({"run", "show", run_id});
    expect_shown_run_document(run);
    return run;
  }

  // `logs ARGS…`, which must succeed with nothing on stderr; its stdout.
  std::string logs(const Args& args) const {
    Args full{"logs"};
    full.insert(full.end(), args.begin(), args.end());
    const RunResult result = run(full);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(full), result);
    EXPECT_EQ(result.err, "") << describe(with_home(full), result);
    return result.out;
  }

  // Polls `run show --json` until the run leaves `running` or `limit`
  // passes; for deliberately detached runs only.
  json wait_until_finished(const std::string& run_id,
                           std::chrono::milliseconds limit = std::chrono::seconds(10)) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    json run = show(run_id);
    while (run["status"] == "running" && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      run = show(run_id);
    }
    return run;
  }

  // Polls `run show --json` until the target's pid is recorded; detached runs only.
  json wait_until_started(const std::string& run_id,
                          std::chrono::milliseconds limit = std::chrono::seconds(10)) const {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    json run = show(run_id);
    while (run["pid"].is_null() && run["status"] == "running" &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      run = show(run_id);
    }
    return run;
  }
};

// ---------------------------------------------------------------------------
// Exit codes and outcomes.

// A run never starts without a secret it was given: a secrets file removed,
// emptied, damaged or replaced by a FIFO after `add` fails the run with the
// reason (and nothing blocks on the FIFO).
TEST_F(RunCli, ARunWhoseSecretIsGoneFailsInsteadOfRunningWithoutIt) {
  struct Damage {
    std::string name;
    std::function<void(const std::string&)> apply;
    std::string reason;  // the start of the run's error
  };
  const std::vector<Damage> damages = {
      {"removed", [](const std::string& path) { fs::remove(path); },
       "the value of --secret-env TOKEN is missing from "},
      {"emptied", [](const std::string& path) { std::ofstream(path, std::ios::trunc); },
       "the value of --secret-env TOKEN is missing from "},
      {"damaged", [](const std::string& path) { std::ofstream(path) << "no equals sign\n"; },
       "the secrets file "},
      {"fifo",
       [](const std::string& path) {
         fs::remove(path);
         mkfifo(path.c_str(), 0600);
       },
       "the secrets file "}};
  for (const Damage& damage : damages) {
    const json loop = add("s-" + damage.name, {"--secret-env", "TOKEN=abc", "--shell", "echo run"});
    damage.apply(home_ + "/secrets/" + loop["id"].get<std::string>() + ".env");
    const json run = trigger_wait("s-" + damage.name, 1);
    EXPECT_EQ(run["status"], "failed") << damage.name;
    EXPECT_EQ(run["error"].get<std::string>().rfind(damage.reason, 0), 0u)
        << damage.name << ": " << run.dump();
    EXPECT_EQ(run["stdout"], "") << damage.name;
  }
}

TEST_F(RunCli, TrueSucceedsWithExitCodeZero) {
  const json loop = add("ok", {"--", "/bin/true"});
  const json run = trigger_wait("ok", 0);
  EXPECT_EQ(run["status"], "succeeded");
  EXPECT_EQ(run["exit_code"], 0);
  EXPECT_EQ(run["signal"], nullptr);
  EXPECT_EQ(run["error"], nullptr);
  EXPECT_EQ(run["skip_reason"], nullptr);
  EXPECT_EQ(run["attempt"], 1);
  EXPECT_EQ(run["loop_id"], loop["id"]);
  EXPECT_EQ(run["loop_name"], "ok");
  EXPECT_EQ(run["stdout"], "");
  EXPECT_EQ(run["stderr"], "");
  EXPECT_EQ(run["usage"],
            json({{"input_tokens", nullptr}, {"output_tokens", nullptr}, {"cost_usd", nullptr}}));
  // Started and recorded: the target's pid and the supervisor's.
  EXPECT_TRUE(run["pid"].is_number_integer()) << run.dump();
  EXPECT_TRUE(run["supervisor_pid"].is_number_integer()) << run.dump();
  EXPECT_NE(run["pid"], run["supervisor_pid"]) << run.dump();
  ASSERT_TRUE(is_json_time(run["started_at"])) << run.dump();
  ASSERT_TRUE(is_json_time(run["finished_at"])) << run.dump();
  // A manual slot is "now": the slot, the claim and the start coincide.
  EXPECT_EQ(run["scheduled_for"], run["started_at"]) << run.dump();
  EXPECT_LE(time_ms(run["created_at"].get<std::string>()),
            time_ms(run["started_at"].get<std::string>()))
      << run.dump();
  EXPECT_GE(time_ms(run["finished_at"].get<std::string>()),
            time_ms(run["started_at"].get<std::string>()))
      << run.dump();
  EXPECT_EQ(run["updated_at"], run["finished_at"]) << run.dump();

  // The store holds what --wait printed.
  EXPECT_EQ(show(run["id"].get<std::string>()), run);
}

TEST_F(RunCli, WaitWithoutJsonPrintsTheRunAndExitsZero) {
  add("ok", {"--", "/bin/true"});
  const RunResult result = run({"trigger", "ok", "--wait"});
  EXPECT_EQ(result.exit_code, 0) << describe(with_home({"trigger", "ok", "--wait"}), result);
  EXPECT_EQ(result.err, "");
  EXPECT_TRUE(contains(result.out, "succeeded")) << result.out;
}

TEST_F(RunCli, ExitStatusThreeFailsAndTriggerExitsOne) {
  add("three", {"--shell", "exit 3"});
  const json run = trigger_wait("three", kExitWorkFailed);
  EXPECT_EQ(run["status"], "failed");
  EXPECT_EQ(run["exit_code"], 3);
  EXPECT_EQ(run["signal"], nullptr);
  EXPECT_EQ(run["error"], "exit status 3");

  // Without --json: still the run's document (human), still exit 1.
  const RunResult plain = run_orrery(with_home({"trigger", "three", "--wait"}));
  EXPECT_EQ(plain.exit_code, kExitWorkFailed) << describe({"trigger", "three", "--wait"}, plain);
  EXPECT_EQ(plain.err, "");
  EXPECT_TRUE(contains(plain.out, "failed")) << plain.out;
}

// A supervisor that cannot start, whatever makes <home>/runs unusable: the
// run is recorded failed and trigger reports it as a failed run (exit 1,
// never a usage error), with --wait and without.
TEST_F(RunCli, ATriggerWhoseSupervisorCannotStartIsAFailedRunNotAUsageError) {
  namespace fs = std::filesystem;
  add("unstartable", {"--", "/bin/true"});
  const std::string runs = home_ + "/runs";
  const std::vector<std::pair<std::string, std::function<void()>>> breakages = {
      {"a dangling symlink", [&] { fs::create_symlink(tmp_ + "/nowhere/at/all", runs); }},
      {"a regular file", [&] { std::ofstream(runs) << "not a directory"; }},
      {"a symlink to a file", [&] {
         std::ofstream(tmp_ + "/file") << "x";
         fs::create_symlink(tmp_ + "/file", runs);
       }}};
  for (const auto& [what, breakage] : breakages) {
    fs::remove_all(runs);
    breakage();
    const RunResult waited = run_orrery(with_home({"--json", "trigger", "unstartable", "--wait"}));
    EXPECT_EQ(waited.exit_code, kExitWorkFailed) << what << ": " << waited.err;
    EXPECT_TRUE(contains(waited.err, "could not start")) << what << ": " << waited.err;
    const json run = json::parse(waited.out, nullptr, false);
    ASSERT_TRUE(run.is_object()) << what << ": " << waited.out;
    EXPECT_EQ(run["status"], "failed") << what << ": " << run.dump();
    EXPECT_TRUE(contains(run["error"].get<std::string>(), "could not start")) << what << run.dump();
    const RunResult plain = run_orrery(with_home({"trigger", "unstartable"}));
    EXPECT_EQ(plain.exit_code, kExitWorkFailed) << what << ": " << plain.err;
    EXPECT_TRUE(contains(plain.err, "could not start")) << what << ": " << plain.err;
    ASSERT_EQ(lines(plain.out).size(), 1u) << what << ": " << plain.out;
    EXPECT_EQ(show(lines(plain.out)[0])["status"], "failed") << what;
  }
  EXPECT_TRUE(json_of({"runs", "--status", "running"}).empty());
}

TEST_F(RunCli, DeathBySignalFailsNamingTheSignal) {
  add("killed", {"--shell", "kill -KILL $$"});
  const json run = trigger_wait("killed", kExitWorkFailed);
  EXPECT_EQ(run["status"], "failed");
  EXPECT_EQ(run["exit_code"], nullptr);
  EXPECT_EQ(run["signal"], SIGKILL);
  ASSERT_TRUE(run["error"].is_string()) << run.dump();
  const std::string error = run["error"];
  EXPECT_TRUE(contains(error, "signal 9")) << error;
  EXPECT_TRUE(contains(error, "Killed") || contains(error, "KILL")) << error;
}

TEST_F(RunCli, MissingExecutableFailsClearly) {
  add("missing", {"--", "orrery-no-such-program-7f3a"});
  const json run = trigger_wait("missing", kExitWorkFailed);
  EXPECT_EQ(run["status"], "failed");
  EXPECT_EQ(run["error"], "executable not found in PATH: orrery-no-such-program-7f3a");
  EXPECT_EQ(run["exit_code"], nullptr);
  EXPECT_EQ(run["signal"], nullptr);
  EXPECT_EQ(run["pid"], nullptr);  // nothing was started
  EXPECT_TRUE(is_json_time(run["finished_at"])) << run.dump();
}

// ---------------------------------------------------------------------------
// Output: captured per stream, stored as tails, streamed to log files.

TEST_F(RunCli, StdoutAndStderrAreCapturedSeparately) {
  add("both", {"--shell", "echo out1; echo err1 >&2; echo out2; printf 'err2' >&2"});
  const json run = trigger_wait("both", 0);
  const std::string id = run["id"];
  EXPECT_EQ(run["stdout"], "out1\nout2\n");
  EXPECT_EQ(run["stderr"], "err1\nerr2");
  EXPECT_EQ(logs({id}), "out1\nout2\n");
  EXPECT_EQ(logs({id, "--stderr"}), "err1\nerr2");
  EXPECT_EQ(logs({"--stderr", id}), "err1\nerr2");
  // By loop name and by loop id: the newest run's log.
  EXPECT_EQ(logs({"both"}), "out1\nout2\n");
  EXPECT_EQ(logs({run["loop_id"].get<std::string>(), "--stderr"}), "err1\nerr2");
}

TEST_F(RunCli, LogsOfALoopShowItsNewestRun) {
  add("counted", {"--shell", "echo \"$ORRERY_RUN_ID\"; echo \"e-$ORRERY_RUN_ID\" >&2"});
  const json first = trigger_wait("counted", 0);
  const json second = trigger_wait("counted", 0);
  const std::string first_id = first["id"];
  const std::string second_id = second["id"];
  ASSERT_NE(first_id, second_id);
  EXPECT_EQ(logs({"counted"}), second_id + "\n");
  EXPECT_EQ(logs({"counted", "--stderr"}), "e-" + second_id + "\n");
  // Each run keeps its own log.
  EXPECT_EQ(logs({first_id}), first_id + "\n");
  EXPECT_EQ(logs({second_id}), second_id + "\n");
}

TEST_F(RunCli, LogsAndRunShowOfUnknownThingsAreNotFound) {
  add("quiet", {"--", "/bin/true"});
  expect_error({"logs", "nothing-by-this-name"}, kExitNotFound);
  // A loop without runs has no newest run.
  expect_error({"logs", "quiet"}, kExitNotFound);
  expect_error({"run", "show", "0123456789abcdef0123456789abcdef"}, kExitNotFound);
}

// 10 MiB of 'a' on one line: the tail keeps the last 256 KiB = 262144 bytes,
// so the marker counts 10485760 - 262144 = 10223616 dropped bytes. The log
// file keeps everything.
TEST_F(RunCli, TenMebibytesOfOutputKeepA256KibTailWithAMarker) {
  add("flood", {"--shell", "head -c 10485760 /dev/zero | tr '\\0' a"});
  const json run = trigger_wait("flood", 0);
  EXPECT_EQ(run["status"], "succeeded");
  const std::string stored = run["stdout"];
  const std::string marker = "[truncated 10223616 bytes]\n";
  EXPECT_LE(stored.size(), kTailLimit + marker.size());
  EXPECT_EQ(stored.rfind(marker, 0), 0u) << stored.substr(0, 80);
  EXPECT_TRUE(stored == marker + std::string(kTailLimit, 'a'))
      << "stored tail of " << stored.size() << " bytes starts with " << stored.substr(0, 80);
  EXPECT_TRUE(valid_utf8(stored));

  const std::string log = logs({run["id"].get<std::string>()});
  EXPECT_EQ(log.size(), kTenMiB);
  EXPECT_TRUE(log == std::string(kTenMiB, 'a'));
}

// "é€" is 5 bytes (C3 A9 | E2 82 AC); `yes` repeats "é€\n", tr drops the
// newlines, head keeps 10485760 bytes = 2097152 whole units. The last
// 262144 bytes start 262144 mod 5 = 4 bytes into a unit from the end, i.e.
// at the second byte of an "é" (A9, a continuation byte), which must be
// dropped: the tail is "€" then 52428 × "é€" (3 + 262140 = 262143 bytes),
// and the marker counts 10485760 - 262143 = 10223617 bytes.
TEST_F(RunCli, TruncatedMultiByteOutputStaysValidUtf8) {
  const std::string e_acute = "\xC3\xA9";
  const std::string euro = "\xE2\x82\xAC";
  add("utf8", {"--shell", "yes '" + e_acute + euro + "' | tr -d '\\n' | head -c 10485760"});
  const json run = trigger_wait("utf8", 0);
  EXPECT_EQ(run["status"], "succeeded");
  const std::string stored = run["stdout"];
  const std::string marker = "[truncated 10223617 bytes]\n";
  EXPECT_LE(stored.size(), kTailLimit + marker.size());
  size_t bad_at = 0;
  EXPECT_TRUE(valid_utf8(stored, &bad_at)) << "invalid UTF-8 at byte " << bad_at;
  EXPECT_EQ(stored.rfind(marker, 0), 0u) << stored.substr(0, 80);
  EXPECT_TRUE(stored == marker + euro + repeat(e_acute + euro, 52428))
      << "stored tail of " << stored.size() << " bytes starts with " << stored.substr(0, 80);

  const std::string log = logs({run["id"].get<std::string>()});
  EXPECT_EQ(log.size(), kTenMiB);
  EXPECT_TRUE(valid_utf8(log));
}

// A four-byte sequence at the cut: 300000 lines "ü€😀\n" (2 + 3 + 4 + 1 = 10
// bytes each: C3 BC | E2 82 AC | F0 9F 98 80 | 0A) = 3000000 bytes. The last
// 262144 = 26214 × 10 + 4 bytes start with the last 4 bytes of a line,
// 9F 98 80 0A: the emoji's three continuation bytes are dropped, so the tail
// is "\n" + 26214 whole lines (1 + 262140 = 262141 bytes) and the marker
// counts 3000000 - 262141 = 2737859 bytes.
TEST_F(RunCli, TruncationNeverCutsAFourByteSequence) {
  const std::string line = "\xC3\xBC\xE2\x82\xAC\xF0\x9F\x98\x80";
  add("emoji", {"--shell", "yes '" + line + "' | head -n 300000"});
  const json run = trigger_wait("emoji", 0);
  EXPECT_EQ(run["status"], "succeeded");
  const std::string stored = run["stdout"];
  size_t bad_at = 0;
  EXPECT_TRUE(valid_utf8(stored, &bad_at)) << "invalid UTF-8 at byte " << bad_at;
  const std::string marker = "[truncated 2737859 bytes]\n";
  EXPECT_TRUE(stored == marker + "\n" + repeat(line + "\n", 26214))
      << "stored tail of " << stored.size() << " bytes starts with " << stored.substr(0, 80);
}

// ---------------------------------------------------------------------------
// Environment and working directory.

TEST_F(RunCli, TargetSeesTheRunEnvironmentAndLoopEnv) {
  const json loop = add("envy", {"--env", "MODE=fast", "--env", "SPACED=two words", "--shell",
                                 "echo $ORRERY_LOOP_NAME $MODE; printf '%s\\n' \"$ORRERY_RUN_ID\" "
                                 "\"$ORRERY_LOOP_ID\" \"$ORRERY_SCHEDULED_FOR\" "
                                 "\"$ORRERY_ATTEMPT\" \"$ORRERY_HOME\" \"$SPACED\" "
                                 "\"$PASSED_THROUGH\""});
  // The caller's own environment reaches the target, but the run's own
  // values win over inherited ORRERY_* (as when triggered from inside
  // another run) and the loop's --env wins over an inherited value.
  const EnvVars env{{"ORRERY_LOOP_NAME", "outer"},
                    {"ORRERY_RUN_ID", "outer-run"},
                    {"ORRERY_ATTEMPT", "7"},
                    {"MODE", "inherited"},
                    {"PASSED_THROUGH", "yes"}};
  const json run = trigger_wait("envy", 0, env);
  const std::vector<std::string> printed = lines(run["stdout"].get<std::string>());
  ASSERT_EQ(printed.size(), 8u) << run.dump();
  EXPECT_EQ(printed[0], "envy fast");
  EXPECT_EQ(printed[1], run["id"]);
  EXPECT_EQ(printed[2], loop["id"]);
  EXPECT_TRUE(is_time_text(printed[3])) << printed[3];
  EXPECT_EQ(printed[3], run["scheduled_for"]);
  EXPECT_EQ(printed[4], "1");
  EXPECT_EQ(printed[5], home_);
  EXPECT_EQ(printed[6], "two words");
  EXPECT_EQ(printed[7], "yes");
  EXPECT_EQ(run["stderr"], "");
}

TEST_F(RunCli, TargetRunsInItsWorkingDirectory) {
  const std::string work = tmp_ + "/work dir";
  fs::create_directory(work);
  add("where", {"--cwd", work, "--shell", "pwd; ls"});
  std::ofstream(work + "/marker.txt") << "x";
  const json run = trigger_wait("where", 0);
  EXPECT_EQ(run["stdout"], work + "\nmarker.txt\n");

  // A command target (no shell) too.
  add("where2", {"--cwd", work, "--", "/bin/pwd", "-P"});
  EXPECT_EQ(trigger_wait("where2", 0)["stdout"], work + "\n");
}

// ORRERY_HOME must name the data directory from wherever the target runs:
// with `--home rel` given in <tmp> and the target in <tmp>/work, a relative
// "rel" would point at <tmp>/work/rel, which does not exist. orrery runs
// through a shell here only to start it in <tmp>.
TEST_F(RunCli, OrreryHomeIsAbsoluteWhenHomeWasGivenRelative) {
  const std::string work = tmp_ + "/work";
  fs::create_directory(work);
  const std::string orrery = ORRERY_BINARY;
  const std::string script =
      "cd \"$1\" && \"$2\" --home rel add rel --every 1h --cwd \"$3\" "
      "--shell 'echo \"$ORRERY_HOME\"; test -f \"$ORRERY_HOME/orrery.db\"' >/dev/null && "
      "exec \"$2\" --home rel --json trigger rel --wait";
  const RunResult result = run_program("/bin/sh", {"-c", script, "sh", tmp_, orrery, work});
  const json run = json::parse(result.out, nullptr, false);
  ASSERT_TRUE(run.is_object()) << result.out << result.err;
  EXPECT_EQ(run["stdout"], tmp_ + "/rel\n") << run.dump();
  EXPECT_EQ(run["status"], "succeeded") << run.dump();
  EXPECT_EQ(result.exit_code, 0) << result.err;
}

// ---------------------------------------------------------------------------
// Timeouts.

// The whole group ignores SIGTERM (an ignored signal stays ignored across
// fork and exec): the outer shell, its sleep, the inner shell and its sleep.
// So SIGTERM at 1 s does nothing and SIGKILL 2 s later ends them all: the
// target (the outer shell) dies of signal 9, timed_out, after at least 3 s.
TEST_F(RunCli, TotalTimeoutKillsTheWholeGroupIncludingAGrandchildIgnoringTerm) {
  add("stubborn", {"--timeout", "1s", "--shell",
                   "sh -c \"trap \\\"\\\" TERM; sleep 60\" & trap \"\" TERM; sleep 60"});
  const json run = trigger_wait("stubborn", kExitWorkFailed);
  ASSERT_TRUE(run["pid"].is_number_integer()) << run.dump();
  const pid_t pgid = run["pid"].get<pid_t>();  // the target leads its own group
  groups_to_kill_.push_back(pgid);
  EXPECT_FALSE(group_alive(pgid)) << "a process of group " << pgid << " survived";
  EXPECT_EQ(run["status"], "timed_out");
  EXPECT_EQ(run["error"], "timed out after 1s");
  EXPECT_EQ(run["signal"], SIGKILL);
  EXPECT_EQ(run["exit_code"], nullptr);
  EXPECT_GE(run["duration_ms"].get<std::int64_t>(), 3000) << run.dump();
  EXPECT_LT(run["duration_ms"].get<std::int64_t>(), 30000) << run.dump();
}

// Here only the grandchild ignores SIGTERM: the outer shell and its sleep
// die of the SIGTERM at 1 s, and the target is reaped. The grandchild is
// still in the group and must not outlive the run: it needs the SIGKILL 2 s
// later just as much (docs/execution.md: SIGTERM to the group, SIGKILL 2 s later).
TEST_F(RunCli, TotalTimeoutKillsAGrandchildIgnoringTermAfterTheTargetDied) {
  add("orphan",
      {"--timeout", "1s", "--shell", "sh -c \"trap \\\"\\\" TERM; sleep 60\" & sleep 60"});
  const json run = trigger_wait("orphan", kExitWorkFailed);
  ASSERT_TRUE(run["pid"].is_number_integer()) << run.dump();
  const pid_t pgid = run["pid"].get<pid_t>();
  groups_to_kill_.push_back(pgid);
  EXPECT_EQ(run["status"], "timed_out");
  EXPECT_EQ(run["error"], "timed out after 1s");
  EXPECT_EQ(run["signal"], SIGTERM);
  EXPECT_FALSE(group_alive(pgid)) << "the grandchild ignoring SIGTERM in group " << pgid
                                  << " outlived its run";
}

TEST_F(RunCli, IdleTimeoutStopsATargetThatFallsSilent) {
  add("silent", {"--idle-timeout", "1s", "--shell", "echo start; sleep 30"});
  const json run = trigger_wait("silent", kExitWorkFailed);
  ASSERT_TRUE(run["pid"].is_number_integer()) << run.dump();
  groups_to_kill_.push_back(run["pid"].get<pid_t>());
  EXPECT_EQ(run["status"], "timed_out");
  ASSERT_TRUE(run["error"].is_string()) << run.dump();
  EXPECT_TRUE(contains(run["error"].get<std::string>(), "no output")) << run.dump();
  EXPECT_TRUE(contains(run["error"].get<std::string>(), "1s")) << run.dump();
  EXPECT_EQ(run["stdout"], "start\n");
  // The shell and its sleep do not ignore SIGTERM: they end on the first signal.
  EXPECT_EQ(run["signal"], SIGTERM);
  EXPECT_GE(run["duration_ms"].get<std::int64_t>(), 1000) << run.dump();
  EXPECT_FALSE(group_alive(run["pid"].get<pid_t>()));
}

// Output keeps an idle timeout from firing: four lines 0.4 s apart (1.6 s
// in all, past the 1 s idle timeout) never leave 1 s of silence.
TEST_F(RunCli, OutputKeepsTheIdleTimeoutAway) {
  add("chatty",
      {"--idle-timeout", "1s", "--shell", "for i in 1 2 3 4; do echo $i; sleep 0.4; done"});
  const json run = trigger_wait("chatty", 0);
  EXPECT_EQ(run["status"], "succeeded");
  EXPECT_EQ(run["stdout"], "1\n2\n3\n4\n");
  EXPECT_GE(run["duration_ms"].get<std::int64_t>(), 1600) << run.dump();
}

// ---------------------------------------------------------------------------
// Secrets (docs/execution.md, docs/scrubbing.md): no file under the data directory ever holds an
// unscrubbed secret.

TEST_F(RunCli, SecretsNeverReachAFileUnderTheDataDirectory) {
  const std::string secret = random_alnum(24);
  // The provider token is assembled by the shell ("gh" "p_…"), so that the
  // loop's stored command line does not contain it: only the run's output
  // does.
  const std::string token_tail = random_alnum(36);
  const std::string provider_token = "ghp_" + token_tail;
  const json loop = add("leaky", {"--secret-env", "TOKEN=" + secret, "--shell",
                                  "echo \"$TOKEN\"; "
                                  "printf '%s' \"${TOKEN%????????????}\"; sleep 0.2; "
                                  "printf '%s\\n' \"${TOKEN#????????????}\"; "
                                  "echo \"gh\"\"p_" +
                                      token_tail +
                                      "\"; "
                                      "echo \"the token is $TOKEN\" >&2"});
  const std::string loop_id = loop["id"];
  EXPECT_FALSE(contains(loop.dump(), secret));

  const json run = trigger_wait("leaky", 0);
  const std::string run_id = run["id"];
  // Whole, split across two writes 0.2 s apart, and a provider token.
  EXPECT_EQ(run["stdout"], "[SCRUBBED]\n[SCRUBBED]\n[SCRUBBED]\n");
  EXPECT_EQ(run["stderr"], "the token is [SCRUBBED]\n");
  EXPECT_TRUE(contains(run["stdout"].get<std::string>(), "[SCRUBBED]"));
  EXPECT_EQ(logs({run_id}), "[SCRUBBED]\n[SCRUBBED]\n[SCRUBBED]\n");
  EXPECT_EQ(logs({run_id, "--stderr"}), "the token is [SCRUBBED]\n");
  // Not one half either.
  for (const std::string& part : {secret.substr(0, 12), secret.substr(12)}) {
    EXPECT_FALSE(contains(run.dump(), part)) << part;
  }

  // The secrets file holds the value (so the scan below excludes something
  // real); every other file under the home holds neither value.
  const fs::path secrets_file = fs::path(home_) / "secrets" / (loop_id + ".env");
  ASSERT_TRUE(fs::exists(secrets_file));
  EXPECT_TRUE(contains(read_file(secrets_file), secret));
  const std::vector<fs::path> files = files_under(home_);
  bool saw_db = false, saw_stdout_log = false, saw_supervisor_log = false;
  for (const fs::path& file : files) {
    if (file == secrets_file) continue;
    saw_db = saw_db || file.filename() == "orrery.db";
    saw_stdout_log = saw_stdout_log || file.filename() == "stdout.log";
    saw_supervisor_log = saw_supervisor_log || file.filename() == "supervisor.log";
    const std::string bytes = read_file(file);
    EXPECT_FALSE(contains(bytes, secret)) << "the secret is in " << file;
    EXPECT_FALSE(contains(bytes, provider_token)) << "the provider token is in " << file;
  }
  EXPECT_TRUE(saw_db && saw_stdout_log && saw_supervisor_log) << files.size() << " files";
}

// A line longer than the scrubber's carry (64 KiB) with no blank to cut at:
// 40000 × ("." + a 24-character secret) = 1000000 bytes, then a newline.
// Wherever the stream is cut, no secret may survive: the log is exactly
// 40000 × ".[SCRUBBED]" + "\n", and no file holds the secret.
TEST_F(RunCli, SecretsInALongLineWithoutBlanksAreScrubbed) {
  const std::string secret = random_alnum(24);
  add("longline", {"--secret-env", "TOKEN=" + secret, "--shell",
                   "yes \".$TOKEN\" | tr -d '\\n' | head -c 1000000; echo"});
  const json run = trigger_wait("longline", 0);
  EXPECT_EQ(run["stderr"], "");
  const std::string stored = run["stdout"];
  EXPECT_FALSE(contains(stored, secret)) << "the stored tail holds the secret";
  const std::string log = logs({run["id"].get<std::string>()});
  EXPECT_FALSE(contains(log, secret)) << "the log holds the secret";
  EXPECT_TRUE(log == repeat(".[SCRUBBED]", 40000) + "\n")
      << "the log has " << log.size() << " bytes, expected " << 40000 * 11 + 1;
  const fs::path secrets_file =
      fs::path(home_) / "secrets" / (run["loop_id"].get<std::string>() + ".env");
  for (const fs::path& file : files_under(home_)) {
    if (file == secrets_file) continue;
    EXPECT_FALSE(contains(read_file(file), secret)) << "the secret is in " << file;
  }
}

// ---------------------------------------------------------------------------
// runs: newest first, filters, limit.

TEST_F(RunCli, RunsListsNewestFirstWithFiltersAndLimit) {
  EXPECT_EQ(json_of({"runs"}), json::array());

  add("good", {"--", "/bin/true"});
  add("bad", {"--shell", "exit 3"});
  const std::string good1 = trigger_wait("good", 0)["id"];
  const std::string bad1 = trigger_wait("bad", kExitWorkFailed)["id"];
  const std::string good2 = trigger_wait("good", 0)["id"];

  auto ids = [](const json& runs) {
    std::vector<std::string> result;
    for (const json& run : runs) result.push_back(run["id"]);
    return result;
  };

  const json all = json_of({"runs"});
  ASSERT_TRUE(all.is_array()) << all.dump();
  EXPECT_EQ(ids(all), (std::vector<std::string>{good2, bad1, good1}));
  for (const json& run : all) {
    expect_run_document(run);
    // The list shows what run show shows, without the tails.
    json shown = show(run["id"].get<std::string>());
    shown.erase("stdout");
    shown.erase("stderr");
    EXPECT_EQ(run, shown);
  }
  EXPECT_EQ(all[1]["loop_name"], "bad");
  EXPECT_EQ(all[1]["status"], "failed");
  EXPECT_EQ(all[1]["exit_code"], 3);

  EXPECT_EQ(ids(json_of({"runs", "good"})), (std::vector<std::string>{good2, good1}));
  EXPECT_EQ(ids(json_of({"runs", "bad"})), (std::vector<std::string>{bad1}));
  EXPECT_EQ(ids(json_of({"runs", "--status", "failed"})), (std::vector<std::string>{bad1}));
  EXPECT_EQ(ids(json_of({"runs", "--status", "succeeded"})),
            (std::vector<std::string>{good2, good1}));
  EXPECT_EQ(ids(json_of({"runs", "--status", "running"})), std::vector<std::string>{});
  // A page that leaves runs out says so on stderr; stdout stays one array.
  const RunResult first_page = run({"runs", "--limit", "1", "--json"});
  ASSERT_EQ(first_page.exit_code, 0) << first_page.err;
  EXPECT_EQ(ids(json::parse(first_page.out)), (std::vector<std::string>{good2}));
  EXPECT_EQ(first_page.err,
            "orrery: 2 more runs not shown: orrery runs --limit 1 --offset 1 --json\n");
  EXPECT_EQ(ids(json_of({"runs", "--limit", "2", "--offset", "1"})),
            (std::vector<std::string>{bad1, good1}));
  EXPECT_EQ(ids(json_of({"runs", "good", "--status", "failed"})), std::vector<std::string>{});

  // The human table: a header, then one row per run, newest first.
  const RunResult table = run({"runs"});
  ASSERT_EQ(table.exit_code, 0) << describe(with_home({"runs"}), table);
  const std::vector<std::string> rows = lines(table.out);
  ASSERT_EQ(rows.size(), 4u) << table.out;
  EXPECT_TRUE(contains(rows[1], "good") && contains(rows[1], "succeeded")) << table.out;
  EXPECT_TRUE(contains(rows[2], "bad") && contains(rows[2], "failed")) << table.out;
  EXPECT_TRUE(contains(rows[3], "good") && contains(rows[3], "succeeded")) << table.out;

  expect_error({"runs", "--status", "bogus"}, kExitUsage);
  expect_error({"runs", "--limit", "0"}, kExitUsage);
  expect_error({"runs", "no-such-loop"}, kExitNotFound);
}

// ---------------------------------------------------------------------------
// trigger without --wait: the run is detached and completes on its own.

TEST_F(RunCli, TriggerWithoutWaitPrintsTheRunIdAndTheRunCompletesDetached) {
  // The target blocks on a FIFO until the test opens it, so the run is
  // certainly still running when trigger has returned.
  const std::string gate = tmp_ + "/gate";
  ASSERT_EQ(::mkfifo(gate.c_str(), 0600), 0);
  add("gated", {"--shell", "read line < '" + gate + "'; echo \"got $line\""});
  const RunResult result = run({"trigger", "gated"});
  ASSERT_EQ(result.exit_code, 0) << describe(with_home({"trigger", "gated"}), result);
  EXPECT_EQ(result.err, "");
  ASSERT_EQ(result.out.size(), 33u) << result.out;
  ASSERT_EQ(result.out.back(), '\n');
  const std::string run_id = result.out.substr(0, 32);
  EXPECT_TRUE(is_hex_id(run_id)) << result.out;

  // Wait (bounded) until the target has started, then release it.
  const json started = wait_until_started(run_id);
  EXPECT_EQ(started["status"], "running") << started.dump();
  EXPECT_EQ(started["finished_at"], nullptr) << started.dump();
  ASSERT_TRUE(started["pid"].is_number_integer()) << started.dump();
  groups_to_kill_.push_back(started["pid"].get<pid_t>());
  int writer = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((writer = ::open(gate.c_str(), O_WRONLY | O_NONBLOCK)) < 0 && errno == ENXIO &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));  // no reader yet
  }
  ASSERT_GE(writer, 0) << "the target never opened the FIFO";
  ASSERT_EQ(::write(writer, "go\n", 3), 3);
  ::close(writer);

  const json finished = wait_until_finished(run_id);
  EXPECT_EQ(finished["status"], "succeeded") << finished.dump();
  EXPECT_EQ(finished["stdout"], "got go\n");
  EXPECT_EQ(finished["exit_code"], 0);
  EXPECT_EQ(json_of({"runs"})[0]["id"], run_id);

  // --json: {"run_id": …}, and that run completes too.
  add("plain", {"--", "/bin/echo", "detached"});
  const json triggered = json_of({"trigger", "plain"});
  ASSERT_TRUE(triggered.is_object() && triggered.size() == 1 && triggered.contains("run_id"))
      << triggered.dump();
  ASSERT_TRUE(is_json_id(triggered["run_id"])) << triggered.dump();
  const json second = wait_until_finished(triggered["run_id"].get<std::string>());
  EXPECT_EQ(second["status"], "succeeded") << second.dump();
  EXPECT_EQ(second["stdout"], "detached\n");
  EXPECT_EQ(second["loop_name"], "plain");
}

// ---------------------------------------------------------------------------
// trigger errors.

TEST_F(RunCli, TriggerOfAnArchivedLoopIsAConflictAndOfAnUnknownOneNotFound) {
  add("old", {"--", "/bin/true"});
  ASSERT_EQ(run({"archive", "old"}).exit_code, 0);
  expect_error({"trigger", "old"}, kExitConflict);
  expect_error({"trigger", "old", "--wait"}, kExitConflict);
  expect_error({"trigger", "nobody"}, kExitNotFound);
  expect_error({"trigger", "nobody", "--wait"}, kExitNotFound);
  // Nothing ran.
  EXPECT_EQ(json_of({"runs"}), json::array());
}

// ---------------------------------------------------------------------------
// A supervisor that dies (SIGKILL: no chance to clean up). Its run is still
// `running` with nothing behind it until `orrery recover` finishes it: the
// run becomes `abandoned` at once (its 1 s lease need not expire first) and
// the target, still running in its own process group, is killed.

TEST_F(RunCli, AKilledSupervisorsRunIsAbandonedByRecoverAndItsTargetKilled) {
  add("lonely", {"--shell", "sleep 30"});  // recover needs no expired lease
  const json triggered = json_of({"trigger", "lonely"});
  const std::string run_id = triggered["run_id"];
  const json started = wait_until_started(run_id);
  ASSERT_EQ(started["status"], "running") << started.dump();
  ASSERT_TRUE(started["pid"].is_number_integer()) << started.dump();
  ASSERT_TRUE(started["supervisor_pid"].is_number_integer()) << started.dump();
  const pid_t target = started["pid"].get<pid_t>();
  const pid_t supervisor = started["supervisor_pid"].get<pid_t>();
  groups_to_kill_.push_back(target);  // the target leads its own group
  ASSERT_TRUE(process_alive(supervisor));
  ASSERT_TRUE(process_alive(target));

  // Kill the supervisor and wait for its death through a pidfd (an event).
  const int pidfd = int(::syscall(SYS_pidfd_open, supervisor, 0));
  ASSERT_GE(pidfd, 0) << std::strerror(errno);
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  pollfd exited{pidfd, POLLIN, 0};
  EXPECT_EQ(::poll(&exited, 1, 10'000), 1) << "the supervisor did not die";
  ::close(pidfd);
  EXPECT_FALSE(process_alive(supervisor));
  EXPECT_TRUE(process_alive(target)) << "the target is its own group: it outlives the supervisor";

  const json recovered = json_of({"recover"});
  ASSERT_EQ(recovered["abandoned"].size(), 1u) << recovered.dump();
  const json after = show(run_id);
  EXPECT_EQ(after["status"], "abandoned") << after.dump();
  EXPECT_EQ(after["error"],
            "the supervisor (pid " + std::to_string(supervisor) + ") died before the run finished");
  EXPECT_TRUE(is_json_time(after["finished_at"])) << after.dump();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (group_alive(target) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_FALSE(group_alive(target)) << "recover did not kill the target's group";
}

}  // namespace
}  // namespace orrery
