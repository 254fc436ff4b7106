// Black-box tests of the admission queue (docs/admission.md) with the real
// binary and daemon: limits kept while items run, the order of admission
// (effective priority, aging, age), retries to a dead letter and a requeue,
// idempotent enqueues from parallel processes, pause and resume, cancelling
// a running item, a crash between admission and start and a daemon killed
// again and again, feeds, cooldowns, pruning, and the commands' refusals.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "workflow_fixture.h"

namespace orrery {
namespace {

class Admission : public WorkflowFixture {
 protected:
  // A workflow of one shell step.
  void workflow(const std::string& name, const std::string& command) {
    create(name, "name: " + name +
                     "\nsteps:\n  - id: work\n    target: {type: command, shell: true, " +
                     "command: " + json(command).dump() + "}\n");
  }

  json items(const Args& more = {}) const {
    Args args{"items", "--limit", "1000"};
    args.insert(args.end(), more.begin(), more.end());
    return json_of(args);
  }

  json item(const std::string& ref) const { return json_of({"item", "show", ref}); }

  // Polls until every item of the route has a status in `statuses`.
  bool all_items(const std::set<std::string>& statuses,
                 std::chrono::milliseconds limit = std::chrono::seconds(30)) const {
    return eventually(
        [&] {
          for (const json& it : items()) {
            if (statuses.count(it["status"].get<std::string>()) == 0) return false;
          }
          return true;
        },
        limit);
  }
};

TEST_F(Admission, LimitsHoldWhileThirtyItemsOfFourProjectsRunAndAllSucceed) {
  const std::string log = tmp_ + "/concurrency.log";
  // Each run writes "+ project" when it starts and "- project" when it ends.
  workflow("work", "p=${ORRERY_ITEM_KEY%-*}; echo \"+ $p\" >> " + log +
                       "; sleep 0.2; echo \"- $p\" >> " + log);
  json_of(
      {"route", "add", "r", "--workflow", "work", "--max-running", "3", "--max-per-project", "1"});
  const std::vector<std::string> projects{"web", "api", "cli", "docs"};
  std::string batch;
  for (int i = 0; i < 30; ++i) {
    const std::string& project = projects[i % 4];
    batch += json{{"key", project + "-" + std::to_string(i)}, {"project", project}}.dump() + "\n";
  }
  json_of({"enqueue", "r", "--from-json", write_file("batch.jsonl", batch)});
  start_daemon();
  int most_holding = 0;
  ASSERT_TRUE(eventually(
      [&] {
        const json list = items();
        int holding = 0;
        std::map<std::string, int> by_project;
        bool done = true;
        for (const json& it : list) {
          const std::string status = it["status"];
          if (status == "admitted" || status == "running") {
            ++holding;
            EXPECT_LE(++by_project[it["project"].get<std::string>()], 1) << list.dump();
          }
          done = done && status == "succeeded";
        }
        most_holding = std::max(most_holding, holding);
        EXPECT_LE(holding, 3) << list.dump();
        return done;
      },
      std::chrono::seconds(60)))
      << items().dump();
  EXPECT_GE(most_holding, 1);
  // What ran at once, as the targets saw it.
  int running = 0;
  int most = 0;
  std::map<std::string, int> of_project;
  for (const std::string& line : lines(read_file(log))) {
    const std::string project = line.substr(2);
    if (line[0] == '+') {
      most = std::max(most, ++running);
      EXPECT_LE(++of_project[project], 1) << "two runs of " << project << " at once";
    } else {
      --running;
      --of_project[project];
    }
  }
  EXPECT_LE(most, 3);
  EXPECT_EQ(lines(read_file(log)).size(), 60u);
}

TEST_F(Admission, AFailingItemIsRetriedThenADeadLetterWithItsErrorAndARequeueRunsItAgain) {
  const std::string flag = tmp_ + "/fixed";
  workflow("flaky", "echo attempt >> " + tmp_ + "/attempts; test -e " + flag);
  json_of(
      {"route", "add", "r", "--workflow", "flaky", "--max-attempts", "3", "--retry-delay", "1s"});
  json_of({"enqueue", "r", "--key", "k"});
  start_daemon();
  ASSERT_TRUE(all_items({"dead_letter"})) << items().dump();
  json dead = item("r/k");
  EXPECT_EQ(dead["attempts"], 3);
  EXPECT_NE(dead["last_reason"].get<std::string>().find("exit status 1"), std::string::npos)
      << dead.dump();
  EXPECT_EQ(lines(read_file(tmp_ + "/attempts")).size(), 3u);
  // The retries waited for the delay: three runs took at least two delays.
  const json runs = json_of({"workflow", "runs"});
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_GE(time_ms(runs[0]["created_at"]) - time_ms(runs[2]["created_at"]), 2000);

  write_file("fixed", "");
  const json requeued = json_of({"item", "requeue", "r/k", "--reason", "fixed the flag"});
  EXPECT_EQ(requeued["attempts"], 0);
  ASSERT_TRUE(all_items({"succeeded"})) << items().dump();
  EXPECT_EQ(item("r/k")["attempts"], 1);
  EXPECT_EQ(json_of({"workflow", "runs"}).size(), 4u);
}

TEST_F(Admission, ItemsAreAdmittedByEffectivePriorityThenAgeAndAgingLiftsAnOldLowOne) {
  const std::string log = tmp_ + "/order.log";
  workflow("work", "echo \"$ORRERY_ITEM_KEY\" >> " + log);
  json_of(
      {"route", "add", "r", "--workflow", "work", "--max-running", "1", "--priority-aging", "10s"});
  json_of({"enqueue", "r", "--key", "old-low"});
  // 100 minutes in the queue: raised by 600 at one each 10 s. (A slow rate,
  // so that a loaded machine's seconds between the commands below do not
  // lift one item over another.)
  exec_sql("UPDATE work_items SET queued_at = queued_at - 6000000 WHERE item_key = 'old-low'");
  json_of({"enqueue", "r", "--key", "mid-older", "--priority", "2"});
  json_of({"enqueue", "r", "--key", "high", "--priority", "5"});
  json_of({"enqueue", "r", "--key", "mid-newer", "--priority", "2"});
  json_of({"enqueue", "r", "--key", "low"});
  EXPECT_GE(item("r/old-low")["effective_priority"], 600);
  EXPECT_EQ(item("r/high")["effective_priority"], 5);
  start_daemon();
  ASSERT_TRUE(all_items({"succeeded"})) << items().dump();
  EXPECT_EQ(lines(read_file(log)),
            (std::vector<std::string>{"old-low", "high", "mid-older", "mid-newer", "low"}));
}

TEST_F(Admission, TwentyParallelEnqueuesOfOneKeyMakeOneItemAndAFinishedOneIsNotReset) {
  workflow("work", "true");
  json_of({"route", "add", "r", "--workflow", "work"});
  std::vector<std::thread> threads;
  std::vector<RunResult> results(20);
  for (int i = 0; i < 20; ++i) {
    threads.emplace_back([&, i] {
      results[i] =
          run({"--json", "enqueue", "r", "--key", "same", "--priority", std::to_string(i)});
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::map<std::string, int> outcomes;
  for (const RunResult& result : results) {
    ASSERT_EQ(result.exit_code, 0) << result.err;
    ++outcomes[json::parse(result.out)["outcome"].get<std::string>()];
  }
  EXPECT_EQ(outcomes["created"], 1);
  EXPECT_EQ(outcomes["created"] + outcomes["refreshed"] + outcomes["duplicate"], 20);
  EXPECT_EQ(items().size(), 1u);
  start_daemon();
  ASSERT_TRUE(all_items({"succeeded"}));
  const json again = json_of({"enqueue", "r", "--key", "same", "--priority", "99"});
  EXPECT_EQ(again["outcome"], "duplicate");
  EXPECT_EQ(again["item"]["status"], "succeeded");
  EXPECT_NE(again["item"]["priority"], 99);
  EXPECT_EQ(json_of({"workflow", "runs"}).size(), 1u);
}

TEST_F(Admission, APausedRoutesItemsAreDeferredAndSaySoUntilItResumes) {
  workflow("work", "true");
  json_of({"route", "add", "r", "--workflow", "work"});
  json_of({"route", "pause", "r"});
  json_of({"enqueue", "r", "--key", "k"});
  start_daemon();
  const json waiting = item("r/k");
  EXPECT_EQ(waiting["status"], "deferred");
  EXPECT_EQ(waiting["waiting_on"], "route paused");
  EXPECT_EQ(json_of({"route", "show", "r"})["counts"]["deferred"], 1);
  json_of({"route", "resume", "r"});
  ASSERT_TRUE(all_items({"succeeded"})) << items().dump();
}

TEST_F(Admission, WhyAnItemWaitsNamesTheLimitAndTheItemsHoldingIt) {
  workflow("slow", "sleep 30");
  json_of({"route", "add", "r", "--workflow", "slow", "--max-running", "1"});
  json_of({"enqueue", "r", "--key", "first", "--priority", "5"});
  json_of({"enqueue", "r", "--key", "second"});
  start_daemon();
  ASSERT_TRUE(eventually([&] { return item("r/first")["status"] == "running"; }));
  const json second = item("r/second");
  EXPECT_EQ(second["status"], "queued");
  EXPECT_EQ(second["waiting_on"], "route max_running 1 reached (item first)");
  // Cancelling the running item cancels its run, and the next is admitted.
  const std::string run_id = item("r/first")["workflow_run_id"];
  json_of({"item", "cancel", "r/first"});
  EXPECT_EQ(workflow_run_finished(run_id, std::chrono::seconds(20))["status"], "cancelled");
  EXPECT_EQ(item("r/first")["status"], "cancelled");
  EXPECT_TRUE(eventually([&] { return item("r/second")["status"] == "running"; }));
  json_of({"item", "cancel", "r/second"});
}

TEST_F(Admission, AnItemLeftAdmittedByADeadDaemonRunsOnceWithoutSpendingAnAttempt) {
  workflow("work", "echo ran >> " + tmp_ + "/ran");
  json_of({"route", "add", "r", "--workflow", "work"});
  json_of({"enqueue", "r", "--key", "k"});
  // The state a daemon killed between its admission and the run's start leaves.
  exec_sql("UPDATE work_items SET status = 'admitted', attempts = 1, admissions = 1");
  start_daemon();
  ASSERT_TRUE(all_items({"succeeded"})) << items().dump();
  const json done = item("r/k");
  EXPECT_EQ(done["attempts"], 1);
  EXPECT_EQ(lines(read_file(tmp_ + "/ran")).size(), 1u);
  EXPECT_EQ(show_workflow_run(done["workflow_run_id"])["item_id"], done["id"]);
}

// The class of "kill -9 at any step of admission": the daemon is killed
// outright at 8 points of progress (as items are admitted, started and
// settled), then started again each time.
TEST_F(Admission, ADaemonKilledAgainAndAgainLosesNoItemRunsNoneTwiceAndKeepsTheLimits) {
  const std::string log = tmp_ + "/ran.log";
  workflow("work", "echo \"+ $ORRERY_ITEM_KEY\" >> " + log + "; sleep 0.1; echo \"- " +
                       "$ORRERY_ITEM_KEY\" >> " + log);
  json_of(
      {"route", "add", "r", "--workflow", "work", "--max-running", "4", "--max-per-project", "2"});
  std::string batch;
  for (int i = 0; i < 40; ++i) {
    const std::string project = std::string("p") + std::to_string(i % 5);
    batch += json{{"key", project + "-" + std::to_string(i)}, {"project", project}}.dump() + "\n";
  }
  json_of({"enqueue", "r", "--from-json", write_file("batch.jsonl", batch)});
  // Every sample of the queue keeps the limits.
  const auto progress = [&] {
    const json list = items();
    int holding = 0;
    int moved = 0;
    std::map<std::string, int> by_project;
    for (const json& it : list) {
      const std::string status = it["status"];
      if (status == "admitted" || status == "running") {
        ++holding;
        EXPECT_LE(++by_project[it["project"].get<std::string>()], 2) << list.dump();
      }
      moved += status != "queued";
      moved += status == "running" || status == "succeeded";
      moved += status == "succeeded";
    }
    EXPECT_LE(holding, 4) << list.dump();
    return moved;
  };
  int daemon = start_daemon();
  for (int kill = 1; kill <= 8; ++kill) {
    ASSERT_TRUE(eventually([&] { return progress() >= kill * 14; }, std::chrono::seconds(60)))
        << items().dump() << daemon_log();
    ASSERT_EQ(::kill(daemon, SIGKILL), 0);
    ASSERT_EQ(::waitpid(daemon, nullptr, 0), daemon);
    daemon = start_daemon();
  }
  ASSERT_TRUE(all_items({"succeeded"}, std::chrono::seconds(90))) << items().dump();
  std::map<std::string, int> starts;
  for (const std::string& line : lines(read_file(log))) starts[line.substr(2)] += line[0] == '+';
  std::set<std::string> runs;
  for (const json& it : items()) {
    const std::string key = it["key"];
    EXPECT_EQ(starts[key], 1) << key << " ran " << starts[key] << " times";
    EXPECT_EQ(it["attempts"], 1) << it.dump();
    EXPECT_TRUE(runs.insert(it["workflow_run_id"].get<std::string>()).second) << it.dump();
    EXPECT_EQ(show_workflow_run(it["workflow_run_id"])["item_id"], it["id"]);
  }
  EXPECT_EQ(runs.size(), 40u);
}

TEST_F(Admission, BadInputIsRefusedWithItsExitCodeAndStoresNothing) {
  workflow("work", "true");
  EXPECT_EQ(run({"route", "add", "r"}).exit_code, 2);  // no --workflow
  EXPECT_EQ(run({"route", "add", "r", "--workflow", "nope"}).exit_code, 3);
  EXPECT_EQ(run({"route", "add", "r", "--workflow", "work", "--max-running", "0"}).exit_code, 2);
  EXPECT_EQ(run({"route", "add", "r", "--workflow", "work", "--retry-backoff", "x"}).exit_code, 2);
  EXPECT_EQ(json_of({"route", "ls"}).size(), 0u);
  json_of({"route", "add", "r", "--workflow", "work"});
  EXPECT_EQ(run({"route", "add", "r", "--workflow", "work"}).exit_code, 4);
  EXPECT_EQ(run({"enqueue", "nope", "--key", "k"}).exit_code, 3);
  for (const Args& bad : std::vector<Args>{
           {"enqueue", "r"},
           {"enqueue", "r", "--key", ""},
           {"enqueue", "r", "--key", std::string(201, 'k')},
           {"enqueue", "r", "--key", "k", "--priority", "1000001"},
           {"enqueue", "r", "--key", "k", "--input", "[1]"},
           {"enqueue", "r", "--key", "k", "--input", "{bad"},
           {"enqueue", "r", "--key", "k", "--subject", ":1"},
           {"enqueue", "r", "--key", "k", "--dedupe", "d"},
           {"enqueue", "r", "--key", "k", "--from-json", "-"},
           {"enqueue", "r", "--from-json", tmp_ + "/missing"},
           {"items", "--status", "done"},
           {"items", "--limit", "0"},
       }) {
    const RunResult result = run(bad);
    EXPECT_EQ(result.exit_code, 2) << describe(with_home(bad), result);
    EXPECT_NE(result.err, "") << describe(with_home(bad), result);
  }
  EXPECT_EQ(items().size(), 0u);
  EXPECT_EQ(run({"item", "show", "r/none"}).exit_code, 3);
  json_of({"enqueue", "r", "--key", "k"});
  EXPECT_EQ(run({"item", "requeue", "r/k"}).exit_code, 4);  // queued, not finished
  const RunResult batch =
      run({"enqueue", "r", "--from-json",
           write_file("b.jsonl", "{\"key\": \"a\"}\nnope\n{\"key\": \"b\"}\n")});
  EXPECT_EQ(batch.exit_code, 2);
  EXPECT_NE(batch.err.find("the 2 valid ones were"), std::string::npos) << batch.err;
  EXPECT_EQ(items().size(), 3u);
}

TEST_F(Admission, AFeedEnqueuesTheValidLinesOfASucceededRunReportsTheRestAndRepeatsNothing) {
  workflow("work", "true");
  json_of({"route", "add", "r", "--workflow", "work"});
  // Five items, the first again, two invalid lines and a blank one.
  std::string lines;
  for (const char* key : {"1", "2", "3", "4", "5"}) {
    lines += json{{"key", key}, {"intent", std::string("issue ") + key}}.dump() + "\n";
  }
  lines += "{\"key\": \"1\", \"priority\": 9}\nnot json\n\n{\"key\": \"6\", \"colour\": 1}\n";
  const std::string printer = write_file("issues.jsonl", lines);
  json_of({"add", "issues", "--every", "1h", "--feed", "r", "--shell", "cat " + printer});
  json_of({"add", "broken", "--every", "1h", "--feed", "r", "--shell",
           "echo '{\"key\": \"never\"}'; exit 1"});
  EXPECT_EQ(json_of({"show", "issues"})["feed_route_id"], json_of({"route", "show", "r"})["id"]);
  start_daemon();

  const auto fed = [&](const std::string& run_id) {
    json feed;
    EXPECT_TRUE(eventually([&] {
      feed = json_of({"run", "show", run_id})["feed"];
      return feed.is_object() && feed["status"] == "fed";
    })) << feed.dump();
    return feed;
  };
  const json first = fed(json_of({"trigger", "issues", "--wait"})["id"]);
  EXPECT_EQ(first["route_name"], "r");
  EXPECT_EQ(first["created"], 5);
  EXPECT_EQ(first["refreshed"], 1);
  EXPECT_EQ(first["duplicate"], 0);
  EXPECT_EQ(first["invalid"], 2);
  ASSERT_EQ(first["invalid_lines"].size(), 2u);
  EXPECT_EQ(first["invalid_lines"][0]["line"], 7);
  EXPECT_EQ(first["invalid_lines"][1]["line"], 9);
  EXPECT_NE(first["invalid_lines"][1]["error"].get<std::string>().find("colour"),
            std::string::npos);
  ASSERT_TRUE(all_items({"succeeded"})) << items().dump();
  EXPECT_EQ(items().size(), 5u);
  EXPECT_EQ(item("r/1")["priority"], 9);
  EXPECT_EQ(item("r/3")["invocation"]["intent"], "issue 3");
  const json routes = json_of({"status"})["routes"];
  ASSERT_EQ(routes.size(), 1u);
  EXPECT_EQ(routes[0]["counts"]["succeeded"], 5);
  EXPECT_NE(run({"status"}).out.find("routes     r: 5 succeeded\n"), std::string::npos)
      << run({"status"}).out;

  // A failed run feeds nothing; the same lines again change nothing.
  const RunResult failed = run({"--json", "trigger", "broken", "--wait"});
  EXPECT_EQ(failed.exit_code, 1) << failed.err;
  EXPECT_TRUE(json::parse(failed.out)["feed"].is_null()) << failed.out;
  const std::string again = json_of({"trigger", "issues", "--wait"})["id"];
  const json second = fed(again);
  EXPECT_EQ(second["created"], 0);
  EXPECT_EQ(second["refreshed"], 0);
  EXPECT_EQ(second["duplicate"], 6);
  EXPECT_EQ(second["invalid"], 2);
  EXPECT_EQ(items().size(), 5u);
  EXPECT_EQ(json_of({"workflow", "runs"}).size(), 5u);
  const RunResult shown = run({"run", "show", again});
  EXPECT_NE(shown.out.find("route r: 0 created, 0 refreshed, 6 duplicate, 2 invalid"),
            std::string::npos)
      << shown.out;
  EXPECT_NE(shown.out.find("line 7: not valid JSON"), std::string::npos) << shown.out;
  // The route stays while a loop feeds it; show and edit name it.
  EXPECT_EQ(run({"route", "rm", "r", "--force"}).exit_code, 4);
  for (const Args& shows :
       std::vector<Args>{{"show", "issues"}, {"edit", "issues", "--description", "tracker"}}) {
    const RunResult shown_loop = run(shows);
    EXPECT_NE(shown_loop.out.find(" route r (each line a succeeded run prints is an item)\n"),
              std::string::npos)
        << shown_loop.out;
  }
  json_of({"edit", "issues", "--no-feed"});
  EXPECT_TRUE(json_of({"show", "issues"})["feed_route_id"].is_null());
  EXPECT_EQ(run({"route", "rm", "r"}).exit_code, 4);  // broken feeds it still
  json_of({"edit", "broken", "--no-feed"});
  EXPECT_EQ(run({"route", "rm", "r"}).exit_code, 0);
}

TEST_F(Admission, AnItemWaitsOutItsProvidersCooldownNamingItAndIsAdmittedAfter) {
  // A fake claude on PATH for the daemon and the runs it starts.
  const std::string bin = tmp_ + "/bin";
  std::filesystem::create_directories(bin);
  write_file("bin/claude",
             "#!/bin/sh\ncat > /dev/null\necho '{\"type\":\"result\",\"result\":\"done\"}'\n");
  std::filesystem::permissions(bin + "/claude", std::filesystem::perms::owner_all);
  struct PathGuard {
    std::string path = std::getenv("PATH");
    ~PathGuard() { setenv("PATH", path.c_str(), 1); }
  } guard;
  setenv("PATH", (bin + ":" + guard.path).c_str(), 1);
  create("ask",
         "name: ask\nsteps:\n  - {id: a, target: {type: agent, provider: claude, "
         "prompt: fix it}}\n");
  json_of({"route", "add", "r", "--workflow", "ask"});
  json_of({"enqueue", "r", "--key", "k"});
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  sql("INSERT INTO cooldowns (account, until_at, hits, reason, updated_at) VALUES ('claude', " +
      std::to_string(now + 3000) + ", 1, 'usage limit', " + std::to_string(now) + ")");
  start_daemon();
  const json waiting = item("r/k");
  EXPECT_EQ(waiting["status"], "queued");
  EXPECT_EQ(waiting["waiting_on"].get<std::string>().rfind("claude cooldown until ", 0), 0u)
      << waiting.dump();
  EXPECT_EQ(waiting["attempts"], 0);
  ASSERT_TRUE(all_items({"succeeded"}, std::chrono::seconds(20))) << items().dump();
  const json done = item("r/k");
  EXPECT_EQ(done["attempts"], 1);
  EXPECT_GE(time_ms(json_of({"workflow", "runs"})[0]["created_at"]), now + 3000);
}

TEST_F(Admission, PruneDeletesOnlyFinishedItemsOlderThanItsAgeAndADryRunCountsThem) {
  workflow("work", "true");
  json_of({"route", "add", "r", "--workflow", "work"});
  for (const char* key : {"old-done", "old-cancelled", "old-queued", "new-done"}) {
    json_of({"enqueue", "r", "--key", key});
  }
  json_of({"item", "cancel", "r/old-cancelled"});
  start_daemon();
  ASSERT_TRUE(all_items({"succeeded", "cancelled"})) << items().dump();
  stop_daemon();
  json_of({"enqueue", "r", "--key", "old-queued"});
  // Three items last changed two days ago, one of them queued again.
  sql("UPDATE work_items SET updated_at = updated_at - 172800000 WHERE item_key LIKE 'old-%'");
  sql("UPDATE work_items SET status = 'queued' WHERE item_key = 'old-queued'");
  const json dry = json_of({"prune", "--older-than", "1d", "--dry-run"});
  EXPECT_EQ(dry["items"], 2);
  EXPECT_EQ(items().size(), 4u);
  const json pruned = json_of({"prune", "--older-than", "1d"});
  EXPECT_EQ(pruned["items"], 2);
  std::set<std::string> kept;
  for (const json& it : items()) kept.insert(it["key"].get<std::string>());
  EXPECT_EQ(kept, (std::set<std::string>{"old-queued", "new-done"}));
  EXPECT_EQ(json_of({"prune", "--keep", "1"})["items"], 0);  // items go by age only
  const RunResult human = run({"prune", "--older-than", "1d", "--dry-run"});
  EXPECT_EQ(human.out, "would delete 0 finished runs and 0 finished work items\n");
}

TEST_F(Admission, AFeedWhoseOutputIsGoneFailsSayingSoAndOneLeftPendingIsFedByTheNextDaemon) {
  workflow("work", "true");
  json_of({"route", "add", "r", "--workflow", "work"});
  json_of({"add", "gone", "--every", "1h", "--feed", "r", "--shell", "echo '{\"key\": \"a\"}'"});
  json_of({"add", "kept", "--every", "1h", "--feed", "r", "--shell", "echo '{\"key\": \"b\"}'"});
  // No daemon yet: both feeds wait, pending.
  const std::string gone = json_of({"trigger", "gone", "--wait"})["id"];
  const std::string kept = json_of({"trigger", "kept", "--wait"})["id"];
  EXPECT_EQ(json_of({"run", "show", kept})["feed"]["status"], "pending");
  std::filesystem::remove_all(home_ + "/runs/" + gone);
  start_daemon();
  json feed;
  ASSERT_TRUE(eventually([&] {
    feed = json_of({"run", "show", gone})["feed"];
    return feed["status"] != "pending";
  })) << feed.dump();
  EXPECT_EQ(feed["status"], "failed");
  EXPECT_NE(feed["error"].get<std::string>().find("standard output log is missing"),
            std::string::npos)
      << feed.dump();
  ASSERT_TRUE(eventually([&] {
    return json_of({"run", "show", kept})["feed"]["status"] == "fed";
  }));
  const json all = items();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]["key"], "b");
  EXPECT_NE(daemon_log().find("the feed of run " + gone + " failed"), std::string::npos)
      << daemon_log();
}

TEST_F(Admission, AnAdmissionStepThatFailsEveryTickLeavesTheLoopsRunning) {
  workflow("work", "true");
  json_of({"route", "add", "r", "--workflow", "work"});
  json_of({"enqueue", "r", "--key", "k"});
  // A row no orrery wrote: every read of the queue fails on it.
  sql("UPDATE routes SET retry_backoff = 'bogus'");
  json_of({"add", "tick", "--every", "1s", "--", "true"});
  start_daemon();
  ASSERT_TRUE(eventually([&] {
    int succeeded = 0;
    for (const json& run : json_of({"runs", "tick"})) {
      succeeded += run["status"] == "succeeded";
    }
    return succeeded >= 2;
  })) << daemon_log();
  EXPECT_NE(daemon_log().find("store error"), std::string::npos) << daemon_log();
  EXPECT_NE(daemon_log().find("bogus"), std::string::npos) << daemon_log();
}

}  // namespace
}  // namespace orrery
