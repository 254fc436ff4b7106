// Black-box tests of what commands print (docs/cli.md): stored text escaped
// in human output and never breaking JSON, one JSON document from every
// command, lists that are never cut silently, runs addressed by id prefix,
// and resume/unarchive saying when the loop runs next.
//
// Rows a user could no longer create through `add` (names with control
// characters or invalid UTF-8 from older versions, thousands of loops) are
// written straight into the database with SQLite, then read through the
// binary.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
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
constexpr int kExitNotFound = 3;
constexpr int kExitConflict = 4;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::int64_t wall_now_ms() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

class Output : public HomeFixture {
 protected:
  // Runs a command that must succeed with nothing on stderr; its stdout.
  std::string ok_text(const Args& args) const {
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
    EXPECT_EQ(result.err, "") << describe(with_home(args), result);
    return result.out;
  }

  // Runs a command with --json (first, before any "--"); stdout must be
  // exactly one JSON document.
  json json_of(const Args& args, int exit_code = 0) const {
    Args full{"--json"};
    full.insert(full.end(), args.begin(), args.end());
    const RunResult result = run(full);
    EXPECT_EQ(result.exit_code, exit_code) << describe(with_home(full), result);
    if (exit_code == 0) {
      EXPECT_EQ(result.err, "") << describe(with_home(full), result);
    }
    json document = json::parse(result.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(document.is_discarded()) << "stdout is not one JSON document\n"
                                          << describe(with_home(full), result);
    return document;
  }

  std::string add_every(const std::string& name, const Args& target = {"--", "/bin/true"}) const {
    Args args{"add", name, "--every", "1h"};
    args.insert(args.end(), target.begin(), target.end());
    return json_of(args)["id"].get<std::string>();
  }

  // Runs SQL on the home's database (after orrery created it).
  void sql(const std::string& statements) const {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((home_ + "/orrery.db").c_str(), &db), SQLITE_OK);
    char* error = nullptr;
    const int status = sqlite3_exec(db, statements.c_str(), nullptr, nullptr, &error);
    EXPECT_EQ(status, SQLITE_OK) << (error ? error : "") << "\n" << statements;
    sqlite3_free(error);
    sqlite3_close(db);
  }

  // Copies a row of `table` 2^doublings times, each copy with an id made
  // from its rowid (32 hex digits) and `rest` applied ("name = 'c' || rowid").
  void copy_rows(const std::string& table, int doublings, const std::string& rest) const {
    std::string statements = "CREATE TEMP TABLE copies AS SELECT * FROM " + table + " LIMIT 1;";
    for (int i = 0; i < doublings; ++i) statements += "INSERT INTO copies SELECT * FROM copies;";
    statements += "UPDATE copies SET id = printf('%032x', rowid), " + rest + ";";
    statements += "INSERT INTO " + table + " SELECT * FROM copies;";
    sql(statements);
  }
};

// ---------------------------------------------------------------------------
// Escaping.

// A name with ESC sequences, a newline, a tab, DEL and a C1 control, as a
// database written by an older version may hold.
const std::string kHostileName = "evil\x1b[2J\x1b[31m\nsecond\tline\x7f\xc2\x9b";
const std::string kHostileShown = "evil\\x1b[2J\\x1b[31m\\nsecond\\tline\\x7f\\u{009B}";

TEST_F(Output, StoredTextWithControlCharactersIsEscapedInEveryHumanView) {
  const std::string id = add_every("plain");
  add_every("other");
  sql("UPDATE loops SET name = CAST(X'" +
      [] {
        std::string hex;
        static constexpr char kHex[] = "0123456789abcdef";
        for (unsigned char c : kHostileName) hex += {kHex[c >> 4], kHex[c & 15]};
        return hex;
      }() +
      "' AS TEXT), description = 'line one' || char(10) || 'line two' || char(27) || '[0m' "
      "WHERE id = '" +
      id + "'");

  const std::string table = ok_text({"ls"});
  EXPECT_FALSE(contains(table, "\x1b")) << table;
  EXPECT_FALSE(contains(table, "\x7f")) << table;
  EXPECT_TRUE(contains(table, kHostileShown)) << table;
  EXPECT_EQ(lines(table).size(), 3u) << "a header and one line per loop\n" << table;

  const std::string shown = ok_text({"show", id});
  EXPECT_FALSE(contains(shown, "\x1b")) << shown;
  EXPECT_TRUE(contains(shown, kHostileShown)) << shown;
  EXPECT_TRUE(contains(shown, "line one\\nline two\\x1b[0m")) << shown;

  for (const Args& args : {Args{"pause", id}, Args{"resume", id}, Args{"rename", id, "tame"}}) {
    const std::string out = ok_text(args);
    EXPECT_EQ(lines(out).size(), args[0] == "resume" ? 2u : 1u) << out;
    EXPECT_FALSE(contains(out, "\x1b")) << out;
  }
  sql("UPDATE loops SET name = CAST(X'6576696c1b5b324a0a78' AS TEXT) WHERE id = '" + id + "'");
  // An error message naming the loop is escaped too, and stays one line.
  const std::string error = expect_error({"resume", id}, kExitConflict);
  EXPECT_TRUE(contains(error, "evil\\x1b[2J\\nx")) << error;
  EXPECT_FALSE(contains(error, "\x1b")) << error;

  // JSON carries the exact text.
  EXPECT_EQ(json_of({"show", id})["name"], "evil\x1b[2J\nx");
}

TEST_F(Output, InvalidUtf8InOneRowBreaksNeitherJsonNorTheTable) {
  const std::string bad = add_every("bad");
  const std::string good = add_every("good");
  sql("UPDATE loops SET name = CAST(X'62ff61e6' AS TEXT), description = CAST(X'c0af' AS TEXT) "
      "WHERE id = '" +
      bad + "'");

  const json all = json_of({"ls"});
  ASSERT_TRUE(all.is_array()) << all.dump();
  ASSERT_EQ(all.size(), 2u) << all.dump();
  std::set<std::string> names;
  for (const json& loop : all) names.insert(loop["name"].get<std::string>());
  // Each invalid byte becomes U+FFFD.
  EXPECT_EQ(names, (std::set<std::string>{"good",
                                          "b\xef\xbf\xbd"
                                          "a\xef\xbf\xbd"}));
  const json shown = json_of({"show", bad});
  EXPECT_EQ(shown["description"], "\xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(json_of({"show", good})["name"], "good");

  const std::string table = ok_text({"ls"});
  EXPECT_TRUE(contains(table, "b\\xffa\\xe6")) << table;
  EXPECT_TRUE(contains(ok_text({"show", bad}), "\\xc0\\xaf"));
}

TEST_F(Output, RunShowEscapesOutputButKeepsItsLinesAndLogsPrintItAsItIs) {
  add_every("colours", {"--shell", "printf 'plain\\n\\033[31mred\\033[0m\\ttab\\n'"});
  const json run = json_of({"trigger", "colours", "--wait"});
  const std::string id = run["id"];
  EXPECT_EQ(run["stdout"], "plain\n\x1b[31mred\x1b[0m\ttab\n");

  const std::string shown = ok_text({"run", "show", id});
  EXPECT_FALSE(contains(shown, "\x1b")) << shown;
  EXPECT_TRUE(contains(shown, "plain\n\\x1b[31mred\\x1b[0m\ttab\n")) << shown;

  // logs is the program's output, byte for byte.
  EXPECT_EQ(ok_text({"logs", id}), "plain\n\x1b[31mred\x1b[0m\ttab\n");
  const json logs = json_of({"logs", id});
  EXPECT_EQ(
      logs,
      json({{"run_id", id}, {"stream", "stdout"}, {"text", "plain\n\x1b[31mred\x1b[0m\ttab\n"}}));
  EXPECT_EQ(json_of({"logs", id, "--stderr"}),
            json({{"run_id", id}, {"stream", "stderr"}, {"text", ""}}));
}

// ---------------------------------------------------------------------------
// One JSON document from every command.

TEST_F(Output, EveryCommandWithJsonPrintsExactlyOneDocument) {
  const std::string id = add_every("doc");
  const std::vector<Args> commands{{"ls"},
                                   {"ls", "--all", "--limit", "1"},
                                   {"show", "doc"},
                                   {"next", "doc", "-n", "2"},
                                   {"pause", "doc"},
                                   {"resume", "doc"},
                                   {"archive", "doc"},
                                   {"unarchive", "doc"},
                                   {"rename", "doc", "doc2"},
                                   {"trigger", "doc2", "--wait"},
                                   {"runs"},
                                   {"runs", "doc2", "--limit", "1"},
                                   {"logs", "doc2"},
                                   {"logs", "doc2", "--stderr"},
                                   {"prune", "--keep", "5", "--dry-run"},
                                   {"cron", "explain", "@daily"},
                                   {"schedule", "preview", "--every", "1h"},
                                   {"--version"},
                                   {"--help"},
                                   {"ls", "--help"},
                                   {"rm", "doc2"}};
  for (const Args& command : commands) {
    const json document = json_of(command);
    EXPECT_TRUE(document.is_object() || document.is_array()) << document.dump();
  }
  json_of({"add", "t", "--every", "1h", "--", "/bin/true"});
  const json triggered = json_of({"trigger", "t"});
  EXPECT_TRUE(triggered.contains("run_id")) << triggered.dump();
  EXPECT_TRUE(json_of({"run", "show", triggered["run_id"]}).contains("stdout"));
  // Errors: the error document, whatever failed.
  for (const auto& [args, code] :
       std::vector<std::pair<Args, int>>{{{"show", "missing"}, kExitNotFound},
                                         {{"run", "show", "ffffff"}, kExitNotFound},
                                         {{"ls", "--limit", "x"}, kExitUsage},
                                         {{"nope"}, kExitUsage},
                                         {{"logs", "t", "--follow"}, kExitUsage}}) {
    const json document = json_of(args, code);
    EXPECT_TRUE(document.contains("error")) << document.dump();
  }
}

TEST_F(Output, FollowWithJsonIsRefusedNamingBoth) {
  add_every("f");
  json_of({"trigger", "f", "--wait"});
  const json error = json_of({"logs", "f", "--follow"}, kExitUsage);
  const std::string message = error["error"]["message"];
  EXPECT_TRUE(contains(message, "--follow") && contains(message, "--json")) << message;
}

// ---------------------------------------------------------------------------
// Run ids: a full id or a unique prefix of at least 6 characters.

TEST_F(Output, RunsAreFoundByTheIdsRunsPrintsAndByUniquePrefixes) {
  add_every("prefixed", {"--shell", "echo hello"});
  const std::string first = json_of({"trigger", "prefixed", "--wait"})["id"];
  const std::string second = json_of({"trigger", "prefixed", "--wait"})["id"];

  // The ID column of `runs`, as printed, addresses each run.
  const std::vector<std::string> table = lines(ok_text({"runs"}));
  ASSERT_EQ(table.size(), 3u);
  for (size_t row = 1; row < table.size(); ++row) {
    const std::string shown_id = table[row].substr(0, table[row].find(' '));
    EXPECT_GE(shown_id.size(), 8u) << table[row];  // a handle: docs/cli.md, Ids
    const json run = json_of({"run", "show", shown_id});
    EXPECT_EQ(run["id"], row == 1 ? second : first) << shown_id;
    EXPECT_EQ(ok_text({"logs", shown_id}), "hello\n");
  }
  // Longer prefixes and the full id work too.
  for (size_t length : {13u, 20u, 32u}) {
    EXPECT_EQ(json_of({"run", "show", first.substr(0, length)})["id"], first) << length;
  }

  // Two runs whose ids share their first 31 characters, "abcdef0123…".
  sql("CREATE TEMP TABLE twins AS SELECT * FROM runs WHERE id = '" + first +
      "';"
      "INSERT INTO twins SELECT * FROM twins;"
      "UPDATE twins SET id = 'abcdef0123' || printf('%022x', rowid), "
      "scheduled_for = scheduled_for + rowid;"
      "INSERT INTO runs SELECT * FROM twins;");
  const std::string twin1 = "abcdef0123" + std::string(21, '0') + "1";
  const std::string twin2 = "abcdef0123" + std::string(21, '0') + "2";
  for (const std::string prefix : {"abcdef", "abcdef0123"}) {
    for (const Args& args : {Args{"run", "show", prefix}, Args{"logs", prefix}}) {
      const std::string error = expect_error(args, kExitConflict);
      EXPECT_TRUE(contains(error, twin1) && contains(error, twin2)) << error;
    }
  }
  EXPECT_EQ(json_of({"run", "show", twin1})["id"], twin1);
  EXPECT_EQ(json_of({"run", "show", twin2})["id"], twin2);

  // Too short, and unknown.
  for (const std::string prefix : {"a", "abcde"}) {
    const std::string error = expect_error({"run", "show", prefix}, kExitUsage);
    EXPECT_TRUE(contains(error, "at least 6")) << error;
    const std::string logs = expect_error({"logs", prefix}, kExitNotFound);
    EXPECT_TRUE(contains(logs, "at least 6")) << logs;
  }
  for (const std::string unknown : {"ffffff", "ffffffffffff", "not-a-run"}) {
    expect_error({"run", "show", unknown}, kExitNotFound);
    expect_error({"logs", unknown}, kExitNotFound);
  }
  // logs also takes a loop: its newest run.
  EXPECT_EQ(ok_text({"logs", "prefixed"}), "hello\n");
}

// ---------------------------------------------------------------------------
// Paging: nothing is cut silently.

TEST_F(Output, LsShowsAThousandLoopsAndSaysHowManyMoreAndHowToPage) {
  add_every("seed");
  copy_rows("loops", 10, "name = 'copy-' || rowid");  // 1 + 1024 loops
  const std::vector<std::string> table = lines(ok_text({"ls"}));
  ASSERT_EQ(table.size(), 1u + 1000u + 1u);
  EXPECT_EQ(table.back(), "25 more: orrery ls --offset 1000");
  const std::vector<std::string> rest = lines(ok_text({"ls", "--offset", "1000"}));
  EXPECT_EQ(rest.size(), 1u + 25u) << "the last page has no trailer";

  const std::vector<std::string> page = lines(ok_text({"ls", "--all", "--limit", "10"}));
  ASSERT_EQ(page.size(), 12u);
  EXPECT_EQ(page.back(), "1,015 more: orrery ls --all --limit 10 --offset 10");
  const std::vector<std::string> middle =
      lines(ok_text({"ls", "--status", "active", "--limit", "10", "--offset", "1010"}));
  EXPECT_EQ(middle.back(), "5 more: orrery ls --status active --limit 10 --offset 1020");
  EXPECT_EQ(ok_text({"ls", "--offset", "5000"}), "no loops at offset 5000\n");

  // JSON stays one array; stderr says what was left out.
  const RunResult first = run({"ls", "--json"});
  ASSERT_EQ(first.exit_code, 0);
  EXPECT_EQ(json::parse(first.out).size(), 1000u);
  EXPECT_EQ(first.err, "orrery: 25 more loops not shown: orrery ls --offset 1000 --json\n");
  std::set<std::string> ids;
  for (int offset = 0; offset < 1025; offset += 400) {
    const RunResult result =
        run({"ls", "--json", "--limit", "400", "--offset", std::to_string(offset)});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    for (const json& loop : json::parse(result.out)) ids.insert(loop["id"].get<std::string>());
    EXPECT_EQ(result.err.empty(), offset + 400 >= 1025) << result.err;
  }
  EXPECT_EQ(ids.size(), 1025u) << "pages overlap or leave loops out";
}

TEST_F(Output, RunsSaysHowManyMoreAndHowToPage) {
  const std::string loop = add_every("many");
  json_of({"trigger", "many", "--wait"});
  copy_rows("runs", 7, "scheduled_for = scheduled_for + rowid");  // 1 + 128 runs
  const std::vector<std::string> table = lines(ok_text({"runs"}));
  ASSERT_EQ(table.size(), 1u + 100u + 1u);
  EXPECT_EQ(table.back(), "29 more: orrery runs --offset 100");
  const std::vector<std::string> page =
      lines(ok_text({"runs", "many", "--status", "succeeded", "--limit", "50", "--offset", "50"}));
  ASSERT_EQ(page.size(), 1u + 50u + 1u);
  EXPECT_EQ(page.back(),
            "29 more: orrery runs " + loop + " --status succeeded --limit 50 --offset 100");
  EXPECT_EQ(lines(ok_text({"runs", "--offset", "100"})).size(), 1u + 29u);
  EXPECT_EQ(ok_text({"runs", "--offset", "200"}), "no runs at offset 200\n");

  const RunResult result = run({"runs", "--json", "--limit", "120"});
  ASSERT_EQ(result.exit_code, 0);
  EXPECT_EQ(json::parse(result.out).size(), 120u);
  EXPECT_EQ(result.err,
            "orrery: 9 more runs not shown: orrery runs --limit 120 --offset 120 --json\n");
}

// ---------------------------------------------------------------------------
// resume and unarchive say when the loop runs next.

TEST_F(Output, ResumeAndUnarchiveSayWhenTheNextRunIs) {
  add_every("hourly");
  ok_text({"pause", "hourly"});
  const std::vector<std::string> resumed = lines(ok_text({"resume", "hourly"}));
  ASSERT_EQ(resumed.size(), 2u);
  EXPECT_EQ(resumed[0].rfind("resumed loop hourly (", 0), 0u) << resumed[0];
  EXPECT_EQ(resumed[1].rfind("next run ", 0), 0u) << resumed[1];
  EXPECT_TRUE(contains(resumed[1], "(in 1h)") || contains(resumed[1], "(in 59m59s)")) << resumed[1];

  ok_text({"archive", "hourly"});
  const std::vector<std::string> unarchived = lines(ok_text({"unarchive", "hourly"}));
  ASSERT_EQ(unarchived.size(), 2u);
  EXPECT_EQ(unarchived[1].rfind("next run ", 0), 0u) << unarchived[1];

  // Archived while paused: it comes back paused, without a next run.
  ok_text({"pause", "hourly"});
  ok_text({"archive", "hourly"});
  const std::vector<std::string> paused = lines(ok_text({"unarchive", "hourly"}));
  ASSERT_EQ(paused.size(), 2u);
  EXPECT_EQ(paused[1], "no next run: the loop is paused");
}

// A once loop whose time passed while it was paused (or archived) runs now.
TEST_F(Output, AOnceLoopWhoseTimePassedWhilePausedRunsNow) {
  for (const std::string how : {"resume", "unarchive"}) {
    const std::string name = "once-" + how;
    const std::string id = json_of({"add", name, "--at", "+1h", "--", "/bin/true"})["id"];
    ok_text({how == "resume" ? "pause" : "archive", name});
    // Its time passes: the slot is now an hour ago.
    const std::int64_t past = wall_now_ms() - 3'600'000;
    sql("UPDATE loops SET schedule_at = " + std::to_string(past) +
        ", next_run_at = " + std::to_string(past) + " WHERE id = '" + id + "'");
    const std::int64_t before = wall_now_ms();
    const std::vector<std::string> out = lines(ok_text({how, name}));
    const std::int64_t after = wall_now_ms();
    ASSERT_EQ(out.size(), 2u) << how;
    EXPECT_EQ(out[1].rfind("next run ", 0), 0u) << out[1];
    EXPECT_TRUE(contains(out[1], "(now)")) << out[1];
    const json loop = json_of({"show", name});
    EXPECT_EQ(loop["status"], "active");
    const std::int64_t next = time_ms(loop["next_run_at"].get<std::string>());
    EXPECT_GE(next, before - 1) << how;
    EXPECT_LE(next, after) << how;
  }
}

}  // namespace
}  // namespace orrery
