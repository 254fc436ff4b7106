// Black-box tests that no listing is cut silently (docs/cli.md, "Paging"):
// every listing, given more rows than its page, ends its table with how many
// more there are and the command for the rest; that command, pasted into a
// shell, shows exactly the rest; with --json the array stays the page and the
// same note goes to stderr; pages never overlap and together hold every row.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "support/numbered.h"
#include "workflow_fixture.h"

namespace orrery {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

// A 32-hex id for rows made by SQL.
std::string hex_id(const std::string& kind, int n) {
  std::string id = kind + std::to_string(n);
  id.resize(32, '0');
  for (char& c : id) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) c = 'a';
  }
  return id;
}

class ListingPages : public WorkflowFixture {
 protected:
  struct Listing {
    std::string name;               // for messages
    Args args;                      // the listing with its filters
    std::string noun;               // as the --json note names the rows
    std::function<void(int)> make;  // makes the listing's N rows
    std::string id_field = "id";    // what tells two JSON rows apart
  };

  RunResult in_shell(const std::string& command) const {
    // The command as printed, pasted into sh: "orrery" is the binary under test.
    EXPECT_EQ(command.rfind("orrery ", 0), 0u) << command;
    return run_program("/bin/sh", {"-c", "exec \"$ORRERY_BIN\" " + command.substr(7)},
                       {{"ORRERY_BIN", ORRERY_BINARY}, {"ORRERY_HOME", home_}});
  }

  std::vector<Listing> listings() {
    std::vector<Listing> all;
    all.push_back(
        {"ls", {"ls"}, "loops", [this](int n) {
           for (int i = 0; i < n; ++i)
             json_of({"add", testing::numbered("loop-", i), "--every", "1h", "--", "true"});
         }});
    all.push_back({"runs", {"runs"}, "runs", [this](int n) {
                     json_of({"add", "job", "--every", "1h", "--", "true"});
                     for (int i = 0; i < n; ++i) json_of({"trigger", "job", "--wait"});
                   }});
    all.push_back(
        {"items with a project that needs quoting",
         {"items", "--project", "my web's"},
         "items",
         [this](int n) {
           workflow("w");
           json_of({"route", "add", "r", "--workflow", "w"});
           json_of({"enqueue", "r", "--key", "elsewhere"});
           for (int i = 0; i < n; ++i) {
             json_of({"enqueue", "r", "--key", testing::numbered("k", i), "--project", "my web's"});
           }
         }});
    all.push_back({"workflow runs", {"workflow", "runs", "w"}, "workflow runs", [this](int n) {
                     workflow("w");
                     for (int i = 0; i < n; ++i) json_of({"workflow", "run", "w", "--wait"});
                   }});
    all.push_back({"goal ls", {"goal", "ls"}, "goals", [this](int n) {
                     for (int i = 0; i < n; ++i) {
                       const std::string loop = testing::numbered("g", i);
                       json_of({"add", loop, "--every", "1h", "--", "true"});
                       json_of({"goal", "create", "--loop", loop, "--objective", "o"});
                     }
                   }});
    all.push_back({"worker ls", {"worker", "ls", "--state", "hold"}, "workers", [this](int n) {
                     seed();
                     for (int i = 0; i < n; ++i) insert_worker(hex_id("w", i), "hold");
                     insert_worker(hex_id("w", 99), "planned");
                   }});
    all.push_back(
        {"queue ls", {"queue", "ls", "--state", "conflict"}, "queue entries", [this](int n) {
           seed();
           for (int i = 0; i < n; ++i) {
             insert_worker(hex_id("w", i), "hold");
             insert_entry(hex_id("e", i), hex_id("w", i), "conflict");
           }
         }});
    return all;
  }

  // The database, made by a command that writes.
  void seed() { json_of({"add", "seed", "--every", "1h", "--", "true"}); }

  std::string ok_text(const Args& args) const {
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
    return result.out;
  }

  void workflow(const std::string& name) {
    create(name, "name: " + name +
                     "\nsteps:\n  - id: s\n    target: {type: command, command: \"true\"}\n");
  }

  void insert_worker(const std::string& id, const std::string& state) {
    sql("INSERT INTO workers (id, workflow_run_id, step_id, repo, branch, worktree_path, host, "
        "state, base_revision, created_at, updated_at) VALUES ('" +
        id + "', '" + id + "', 's', '/repo', 'b-" + id + "', '/wt/" + id + "', 'h', '" + state +
        "', 'abc', 1, 1)");
  }

  void insert_entry(const std::string& id, const std::string& worker, const std::string& state) {
    sql("INSERT INTO merge_entries (id, worker_id, repo, target, state, base_revision, "
        "candidate_revision, queued_at, created_at, updated_at, finished_at) VALUES ('" +
        id + "', '" + worker + "', '/repo', 'main', '" + state + "', 'abc', 'def', 1, 1, 1, 1)");
  }

  std::set<std::string> ids_of(const std::string& json_text, const std::string& field) const {
    std::set<std::string> ids;
    for (const json& row : json::parse(json_text)) ids.insert(row[field].get<std::string>());
    return ids;
  }
};

TEST_F(ListingPages, EveryListingSaysWhatFollowsItsPageAndTheCommandForItShowsJustThat) {
  constexpr int kRows = 5;
  constexpr int kPage = 2;
  for (const Listing& listing : listings()) {
    SCOPED_TRACE(listing.name);
    TearDown();
    SetUp();
    listing.make(kRows);
    Args first = listing.args;
    first.insert(first.end(), {"--limit", std::to_string(kPage)});

    // For people: the page, then "N more: COMMAND".
    const RunResult table = run(first);
    ASSERT_EQ(table.exit_code, 0) << describe(with_home(first), table);
    const std::vector<std::string> shown = lines_of(table.out);
    ASSERT_EQ(shown.size(), 1u + kPage + 1u) << table.out;
    const std::string note = shown.back();
    const std::string prefix = std::to_string(kRows - kPage) + " more: ";
    ASSERT_EQ(note.rfind(prefix, 0), 0u) << note;
    const std::string next = note.substr(prefix.size());

    // For a program: the array is the page, the note is on stderr.
    Args as_json = first;
    as_json.insert(as_json.begin(), "--json");
    const RunResult page = run(as_json);
    ASSERT_EQ(page.exit_code, 0) << page.err;
    EXPECT_EQ(page.err, testing::numbered("orrery: ", kRows - kPage) + " more " + listing.noun +
                            " not shown: " + next + " --json\n");
    std::set<std::string> seen = ids_of(page.out, listing.id_field);
    EXPECT_EQ(seen.size(), std::size_t(kPage));

    // Following the notes, pasted into a shell, reads every row once.
    std::string command = next;
    std::string last_page = next;
    int pages = 1;
    while (!command.empty()) {
      last_page = command;
      ASSERT_LT(++pages, 10) << "the pages never end: " << command;
      const RunResult rest = in_shell(command + " --json");
      ASSERT_EQ(rest.exit_code, 0) << command << ": " << rest.err;
      for (const std::string& id : ids_of(rest.out, listing.id_field)) {
        EXPECT_TRUE(seen.insert(id).second) << "pages overlap at " << id;
      }
      command.clear();
      const std::string marker = " not shown: ";
      const std::size_t at = rest.err.find(marker);
      if (at != std::string::npos) {
        command = rest.err.substr(at + marker.size());
        command = command.substr(0, command.rfind(" --json"));
      }
    }
    EXPECT_EQ(seen.size(), std::size_t(kRows));
    // The last page says nothing more, for people either.
    const RunResult last = in_shell(last_page);
    ASSERT_EQ(last.exit_code, 0) << last.err;
    EXPECT_EQ(last.out.find(" more: "), std::string::npos) << last.out;
  }
}

TEST_F(ListingPages, GoalTurnsSaysHowManyEarlierTurnsAndTheLimitThatShowsThemAll) {
  json_of({"add", "job", "--every", "1h", "--", "true"});
  const std::string goal = json_of({"goal", "create", "--loop", "job", "--objective", "o"})["id"];
  std::string rows;
  for (int turn = 1; turn <= 25; ++turn) {
    rows +=
        "INSERT INTO goal_turns (goal_id, work_id, turn, spent, run_status, status, "
        "created_at) VALUES ('" +
        goal + testing::numbered("', 'w", turn) + testing::numbered("', ", turn) +
        testing::numbered(", 1, 'succeeded', 'active', ", turn) + ");";
  }
  sql(rows);
  const std::vector<std::string> shown = lines_of(ok_text({"goal", "turns", goal}));
  ASSERT_EQ(shown.size(), 1u + 20u + 1u);
  EXPECT_EQ(shown.back(), "5 more: orrery goal turns " + goal + " --limit 25");
  const RunResult as_json = run({"--json", "goal", "turns", goal});
  EXPECT_EQ(json::parse(as_json.out).size(), 20u);
  EXPECT_EQ(as_json.err, "orrery: 5 more earlier turns not shown: orrery goal turns " + goal +
                             " --limit 25 --json\n");
  const std::vector<std::string> all = lines_of(ok_text({"goal", "turns", goal, "--limit", "25"}));
  EXPECT_EQ(all.size(), 1u + 25u);
}

}  // namespace
}  // namespace orrery
