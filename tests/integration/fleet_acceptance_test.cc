// The fleet end to end, as a user runs it (docs/fleet.md), on each backend:
// a fake `gh` (printing what `gh issue list --jq` prints) feeds nine issues
// into a route with --max-running 2 through a feeding loop; the daemon runs
// the route's workflow, whose templated agent step (a fake `claude` in
// claude's JSON, 110 tokens a call) works in a worktree of a real repository
// and merges through a verifying queue; a goal with a token budget governs
// the workflow. Clean changes merge exactly once; a change that fails
// verification comes back with its feedback and is fixed on the retry; two
// changes to one line give one merge and one conflict that is fed back and
// then lands on top; the goal stops admission at its budget and the fleet
// goes on when it is raised; every item ends as its change did, and
// `status` agrees.
#include <memory>
#include <set>

#include "fleet_fixture.h"
#include "support/pg_test_database.h"

namespace orrery {
namespace {

constexpr int kIssues = 9;
constexpr int kTokensPerCall = 110;
constexpr int kBudget = 5 * kTokensPerCall;

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class FleetAcceptance : public FleetFixture, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgres") {
      database_ = std::make_unique<testing::PgTestDatabase>();
      ASSERT_TRUE(database_->ok());
      setenv("ORRERY_DB", database_->url().c_str(), 1);
    }
    FleetFixture::SetUp();
  }
  void TearDown() override {
    FleetFixture::TearDown();
    unsetenv("ORRERY_DB");
    database_.reset();
  }

  // A fake gh: `gh issue list … --jq …` prints one object per issue, as
  // the jq program of docs/admission.md makes them. The two issues that
  // change one line come first (priority 10), so they are admitted together.
  void fake_gh() {
    std::string lines;
    for (int n = 1; n <= kIssues; ++n) {
      lines += json{{"key", "issue-" + std::to_string(n)},
                    {"intent", "bug number " + std::to_string(n)},
                    {"priority", n == 4 || n == 5 ? 10 : 0},
                    {"project", "web"},
                    {"subject", {{"kind", "issue"}, {"id", std::to_string(n)}}}}
                   .dump() +
               "\n";
    }
    write_file("issues.jsonl", lines);
    std::filesystem::create_directories(tmp_ + "/bin");
    write_file(
        "bin/gh",
        "#!/bin/sh\n[ \"$1 $2\" = 'issue list' ] || { echo \"gh: unknown command $1 $2\" >&2; "
        "exit 1; }\ncat " +
            tmp_ + "/issues.jsonl\n");
    std::filesystem::permissions(tmp_ + "/bin/gh", std::filesystem::perms::owner_all);
  }

  // issue-3's first change breaks verification; issue-4 and issue-5 both
  // rewrite line 2 of README, each waiting for the other to start; the
  // rest write a file of their own. A retry writes its change afresh.
  void fake_agent() {
    fake_claude(
        "case \"$ORRERY_ITEM_KEY\" in\n"
        "  issue-3) echo oops > broken.txt; echo fixed > issue-3.txt ;;\n"
        "  issue-4|issue-5) touch \"$FLEET_RECORD/started-$ORRERY_ITEM_KEY\"; i=0;\n"
        "    while [ $(ls \"$FLEET_RECORD\" | grep -c '^started-') -lt 2 ] && [ $i -lt 600 ]; do\n"
        "      sleep 0.05; i=$((i+1)); done\n"
        "    sed -i \"2s/.*/$ORRERY_ITEM_KEY/\" README ;;\n"
        "  *) echo \"$ORRERY_ITEM_KEY\" > \"$ORRERY_ITEM_KEY.txt\" ;;\n"
        "esac",
        "case \"$ORRERY_ITEM_KEY\" in\n"
        "  issue-3) echo fixed > issue-3.txt ;;\n"
        "  issue-4|issue-5) echo \"$ORRERY_ITEM_KEY\" >> README ;;\n"
        "  *) echo \"$ORRERY_ITEM_KEY\" > \"$ORRERY_ITEM_KEY.txt\" ;;\n"
        "esac");
  }

  json item(const std::string& key) const { return json_of({"item", "show", "issues/" + key}); }
  json runs() const { return json_of({"workflow", "runs", "fix", "--limit", "1000"}); }

  static std::int64_t tokens_of(const json& run) {
    const json& tokens = run["accounting"]["tokens"];
    return tokens["input"].get<std::int64_t>() + tokens["output"].get<std::int64_t>();
  }

  std::unique_ptr<testing::PgTestDatabase> database_;
};

TEST_P(FleetAcceptance, EveryIssueReachesMainOnceWithinTheBudgetAsRaised) {
  json_of({"queue", "config", repo_, "--verify",
           "if [ -e broken.txt ]; then echo broken.txt must not exist; exit 4; fi"});
  fake_gh();
  fake_agent();
  fix_workflow();
  const std::string goal_id =
      json_of({"goal", "create", "--workflow", "fix", "--objective", "close the reported bugs",
               "--budget", std::to_string(kBudget)})["id"];
  json_of({"add", "issues-feed", "--every", "1h", "--feed", "issues", "--shell",
           "gh issue list --repo acme/web --label agent --json number,title --jq "
           "'.[] | {key: (\"issue-\" + (.number|tostring)), intent: .title}'"});
  start_daemon();
  json_of({"trigger", "issues-feed", "--wait"});
  ASSERT_TRUE(
      eventually([&] { return items().size() == std::size_t(kIssues); }, std::chrono::seconds(30)))
      << items().dump(1);

  // The budget spent, the runs going then finished: nothing more is admitted.
  json limited;
  ASSERT_TRUE(eventually(
      [&] {
        limited = json_of({"goal", "show", goal_id});
        if (limited["status"] != "budget_limited") return false;
        for (const json& it : items()) {
          if (it["status"] == "admitted" || it["status"] == "running") return false;
        }
        return true;
      },
      std::chrono::seconds(120)))
      << limited.dump(1) << items().dump(1);
  const std::string hold = "goal " + goal_id + " budget " +
                           std::to_string(limited["tokens_used"].get<std::int64_t>()) + "/" +
                           std::to_string(kBudget) + " tokens";
  int held = 0;
  // Failed, or queued again with its retry not yet due: a retry's time holds
  // an item before its goal does (docs/admission.md), whichever came first.
  int retrying = 0;
  for (const json& it : items()) {
    const bool retry_due_later = it["status"] == "queued" && it["waiting_on"].is_string() &&
                                 it["waiting_on"].get<std::string>().rfind("retry at ", 0) == 0;
    retrying += it["status"] == "failed" || retry_due_later ? 1 : 0;
    if (it["status"] == "succeeded" || it["status"] == "failed" || retry_due_later) continue;
    EXPECT_EQ(it["status"], "queued") << it.dump(1);
    EXPECT_EQ(it["waiting_on"], hold) << it.dump(1);
    ++held;
  }
  EXPECT_GT(held, 0) << items().dump(1);
  // Every run so far is under the goal, and every token of them is counted.
  std::int64_t spent = 0;
  for (const json& run : runs()) {
    EXPECT_EQ(run["goal_id"], goal_id) << run.dump(1);
    spent += tokens_of(run);
  }
  EXPECT_EQ(limited["tokens_used"], spent);
  EXPECT_GE(spent, kBudget);
  EXPECT_LE(spent, kBudget + 2 * kTokensPerCall) << "at most the runs going when it was reached";
  // `status` says the same as the items (a retry falling due meanwhile
  // moves an item from failed to queued, nowhere else: the goal holds).
  const json before = json_of({"status"});
  ASSERT_EQ(before["routes"].size(), 1u);
  const json& counts = before["routes"][0]["counts"];
  EXPECT_EQ(counts["queued"].get<int>() + counts["failed"].get<int>(), held + retrying)
      << before.dump(1);
  EXPECT_EQ(counts["succeeded"].get<int>() + held + retrying, kIssues) << before.dump(1);

  const std::string raised_at = json_of({"goal", "budget", goal_id, "--add", "5k"})["updated_at"];
  ASSERT_TRUE(all_rest()) << items().dump(1);

  // Every item succeeded, each as its change went.
  int conflicted = 0;
  for (int n = 1; n <= kIssues; ++n) {
    const std::string key = "issue-" + std::to_string(n);
    const json it = item(key);
    EXPECT_EQ(it["status"], "succeeded") << it.dump(1);
    // The prompt: the template filled in from the item, then the goal's section.
    const std::string prompt = recorded("prompt-" + key + "-1");
    EXPECT_EQ(prompt.rfind("Fix the issue " + key + ": bug number " + std::to_string(n) +
                               "\n\n--- orrery goal (goal prompt v1) ---\n",
                           0),
              0u)
        << prompt;
    if (n == 3) {
      EXPECT_EQ(it["attempts"], 2) << it.dump(1);
      EXPECT_TRUE(has(recorded("prompt-issue-3-2"), "broken.txt must not exist"));
      EXPECT_EQ(json::parse(recorded("feedback-issue-3-2"))["outcome"], "rejected");
    } else if (n == 4 || n == 5) {
      if (it["attempts"] == 2) {
        ++conflicted;
        EXPECT_TRUE(has(recorded("prompt-" + key + "-2"), "conflicted with `main` in: README"));
        EXPECT_EQ(json::parse(recorded("feedback-" + key + "-2"))["outcome"], "conflict");
      } else {
        EXPECT_EQ(it["attempts"], 1) << it.dump(1);
      }
    } else {
      EXPECT_EQ(it["attempts"], 1) << it.dump(1);
      // Merged exactly once: one commit on main brought its file.
      EXPECT_EQ(git("show main:" + key + ".txt"), key + "\n");
      EXPECT_EQ(lines(git("log --format=%H main -- " + key + ".txt")).size(), 1u) << key;
    }
  }
  EXPECT_EQ(conflicted, 1);
  const std::string readme = git("show main:README");
  EXPECT_TRUE(has(readme, "issue-4\n") && has(readme, "issue-5\n")) << readme;
  EXPECT_EQ(git("show main:broken.txt"), "");
  std::multiset<std::string> states;
  for (const json& entry : json_of({"queue", "ls"})) states.insert(entry["state"]);
  // Besides the merges: the change verification rejected, and the one that
  // conflicted — rejected in turn once its item succeeded (its worker released).
  EXPECT_EQ(states.count("merged"), std::size_t(kIssues));
  EXPECT_EQ(states.count("rejected"), 2u);
  EXPECT_EQ(states.size(), std::size_t(kIssues + 2));

  // The goal counted every run, each one turn, and nothing ran while it held.
  const json all = runs();
  EXPECT_EQ(all.size(), std::size_t(kIssues + 2)) << all.dump(1);
  std::int64_t total = 0;
  const std::string limited_at = limited["updated_at"];
  for (const json& run : all) {
    EXPECT_EQ(run["goal_id"], goal_id);
    total += tokens_of(run);
    const std::string created = run["created_at"];
    EXPECT_FALSE(created > limited_at && created < raised_at)
        << "a run started while the goal held: " << run.dump(1);
  }
  const json goal = json_of({"goal", "show", goal_id});
  EXPECT_EQ(goal["tokens_used"], total);
  // Every run is recorded as a turn; one that ended after the budget was
  // reached is counted in tokens but not spent.
  const json turns = json_of({"goal", "turns", goal_id, "--limit", "100"});
  EXPECT_EQ(turns.size(), all.size());
  int spent_turns = 0;
  for (const json& turn : turns) spent_turns += turn["spent"].get<bool>() ? 1 : 0;
  EXPECT_EQ(goal["turns"], spent_turns);
  EXPECT_GE(spent_turns, kIssues) << turns.dump(1);
  const json after = json_of({"status"});
  EXPECT_EQ(after["routes"][0]["counts"]["succeeded"], kIssues) << after.dump(1);
}

INSTANTIATE_TEST_SUITE_P(Backends, FleetAcceptance, ::testing::Values("sqlite", "postgres"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace orrery
