// The agent fleet, black-box (docs/fleet.md): a route whose workflow's
// agent step works in a worktree of a real repository and merges through
// the queue, run by the daemon, with a fake `claude` on PATH that edits its
// worktree and answers in claude's JSON. An item succeeds only when its
// change is merged; a rejected or conflicting change fails the attempt, and
// the next attempt's agent gets the record in its prompt and in
// $ORRERY_FEEDBACK, makes a new change and merges — no change is lost.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "fleet_fixture.h"

namespace orrery {
namespace {

using Fleet = FleetFixture;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST_F(Fleet, ARejectedChangeFailsItsAttemptAndTheNextAttemptIsToldWhyAndMerges) {
  json_of({"queue", "config", repo_, "--verify",
           "if [ -e broken.txt ]; then echo broken.txt must not exist; exit 4; fi"});
  fake_claude("echo oops > broken.txt; echo fix > fix.txt", "echo fix > fix.txt");
  fix_workflow();
  json_of({"enqueue", "issues", "--key", "issue-7", "--intent", "the {{ parser }} crashes"});
  start_daemon();
  ASSERT_TRUE(all_rest()) << items().dump(1);

  const json item = json_of({"item", "show", "issues/issue-7"});
  EXPECT_EQ(item["status"], "succeeded") << item.dump(1);
  EXPECT_EQ(item["attempts"], 2) << item.dump(1);
  const std::string reasons = item["last_reason"];
  EXPECT_TRUE(contains(reasons, "succeeded but its change did not merge")) << reasons;
  EXPECT_TRUE(contains(reasons, "rejected: ")) << reasons;
  EXPECT_TRUE(contains(reasons, "merged onto main")) << reasons;
  EXPECT_TRUE(item["feedback"].is_null()) << "a success clears it: " << item.dump(1);
  EXPECT_EQ(run({"item", "show", "issues/issue-7"}).out.find("\nfeedback"), std::string::npos);

  // The first attempt knew nothing; the second was told, in words and as a file.
  EXPECT_FALSE(std::filesystem::exists(record_ + "/feedback-issue-7-1"));
  const std::string prompt = recorded("prompt-issue-7-2");
  EXPECT_EQ(recorded("prompt-issue-7-1"), "Fix the issue issue-7: the {{ parser }} crashes");
  EXPECT_TRUE(contains(prompt,
                       "Fix the issue issue-7: the {{ parser }} crashes\n\n"
                       "## The previous attempt\n"))
      << prompt;
  EXPECT_TRUE(contains(prompt, "failed with exit status 4")) << prompt;
  EXPECT_TRUE(contains(prompt, "broken.txt must not exist")) << prompt;
  // show-run shows the prompt the step's attempt was given.
  const json shown = json_of({"workflow", "show-run", item["workflow_run_id"]});
  EXPECT_EQ(shown["prompts"]["fix"], prompt) << shown.dump(1);
  EXPECT_TRUE(contains(run({"workflow", "show-run", item["workflow_run_id"]}).out,
                       "prompt of fix:\n  Fix the issue issue-7: the {{ parser }} crashes\n"));
  const json feedback = json::parse(recorded("feedback-issue-7-2"));
  EXPECT_EQ(feedback["attempt"], 1);
  EXPECT_EQ(feedback["outcome"], "rejected");
  EXPECT_EQ(feedback["changes"][0]["merge"]["verify"]["exit_code"], 4);

  // One rejected entry, one merged; main has the fix and not the mistake.
  std::multiset<std::string> states;
  for (const json& entry : json_of({"queue", "ls"})) states.insert(entry["state"]);
  EXPECT_EQ(states, (std::multiset<std::string>{"merged", "rejected"}));
  EXPECT_EQ(git("show main:fix.txt"), "fix\n");
  EXPECT_EQ(git("show main:broken.txt"), "");

  // The first attempt's held worker is released once the item succeeded:
  // cancelled with the reason, its worktree gone, its branch kept.
  json first;
  for (const json& worker : json_of({"worker", "ls"})) {
    if (worker["workflow_run_id"] != item["workflow_run_id"]) first = worker;
  }
  ASSERT_FALSE(first.is_null());
  ASSERT_TRUE(eventually([&] {
    return json_of({"worker", "show", first["id"]})["state"] == "cancelled";
  })) << json_of({"worker", "show", first["id"]}).dump(1);
  const json released = json_of({"worker", "show", first["id"]});
  const std::string why = released["events"].back()["reason"];
  EXPECT_TRUE(contains(
      why, "released: work item " + item["id"].get<std::string>() + " succeeded on attempt 2"))
      << why;
  EXPECT_FALSE(std::filesystem::exists(first["worktree_path"].get<std::string>()));
  EXPECT_NE(git("rev-parse --verify " + first["branch"].get<std::string>()), "");
}

// Two items change the same line at the same time: one merges, the other
// conflicts, and its next attempt — told the files, starting from main as
// it is now — adds its change on top. Both changes are on main.
TEST_F(Fleet, TwoItemsChangingTheSameLineBothReachMainOneAfterItsConflict) {
  json_of({"queue", "config", repo_, "--verify", "none"});
  // Both first attempts wait until both have started, so neither sees the other.
  fake_claude(
      "touch \"$FLEET_RECORD/started-$ORRERY_ITEM_KEY\"; i=0; while [ $(ls \"$FLEET_RECORD\" | "
      "grep -c '^started-') -lt 2 ] && [ $i -lt 400 ]; do sleep 0.05; i=$((i+1)); done; "
      "sed -i \"2s/.*/$ORRERY_ITEM_KEY/\" README",
      "echo \"$ORRERY_ITEM_KEY\" >> README");
  fix_workflow();
  json_of({"enqueue", "issues", "--key", "left"});
  json_of({"enqueue", "issues", "--key", "right"});
  start_daemon();
  ASSERT_TRUE(all_rest()) << items().dump(1);

  int retried = 0;
  for (const json& item : items()) {
    EXPECT_EQ(item["status"], "succeeded") << item.dump(1);
    if (item["attempts"] == 2) {
      ++retried;
      const std::string key = item["key"];
      EXPECT_EQ(recorded("prompt-" + key + "-1"), "Fix the issue " + key + ": ");
      const std::string prompt = recorded("prompt-" + key + "-2");
      EXPECT_TRUE(contains(prompt, "conflicted with `main` in: README")) << prompt;
      EXPECT_EQ(json::parse(recorded("feedback-" + key + "-2"))["outcome"], "conflict");
    }
  }
  EXPECT_EQ(retried, 1) << items().dump(1);
  const std::string readme = git("show main:README");
  EXPECT_TRUE(contains(readme, "left\n") && contains(readme, "right\n")) << readme;
}

// Cancelling an item drops its change from the merge queue: it never lands.
TEST_F(Fleet, ACancelledItemsChangeWaitingInTheQueueIsDroppedAndNeverMerges) {
  const std::string gate = tmp_ + "/gate";
  json_of({"queue", "config", repo_, "--verify",
           "i=0; while [ ! -e " + gate + " ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done"});
  fake_claude("echo \"$ORRERY_ITEM_KEY\" > \"$ORRERY_ITEM_KEY.txt\"", "true");
  fix_workflow();
  json_of({"enqueue", "issues", "--key", "first"});
  json_of({"enqueue", "issues", "--key", "second"});
  start_daemon();
  // One entry is being verified (the gate holds it), the other waits behind it.
  json waiting;
  ASSERT_TRUE(eventually(
      [&] {
        waiting = nullptr;
        bool verifying = false;
        for (const json& entry : json_of({"queue", "ls"})) {
          if (entry["state"] == "waiting") waiting = entry;
          verifying = verifying || entry["state"] == "ready";
        }
        return verifying && !waiting.is_null();
      },
      std::chrono::seconds(30)));
  const json worker = json_of({"worker", "show", waiting["worker_id"]});
  json cancelled;
  for (const json& item : items())
    if (item["workflow_run_id"] == worker["workflow_run_id"]) cancelled = item;
  ASSERT_FALSE(cancelled.is_null());
  json_of({"item", "cancel", cancelled["id"]});
  const json dropped = json_of({"queue", "show", waiting["id"]});
  EXPECT_EQ(dropped["state"], "rejected");
  EXPECT_TRUE(contains(dropped["reason"],
                       "its work item " + cancelled["id"].get<std::string>() + " was cancelled"))
      << dropped.dump(1);
  write_file("gate", "");
  ASSERT_TRUE(eventually(
      [&] {
        for (const json& item : items())
          if (item["status"] != "succeeded" && item["status"] != "cancelled") return false;
        return true;
      },
      std::chrono::seconds(60)))
      << items().dump(1);
  const std::string key = cancelled["key"];
  const std::string other = key == "first" ? "second" : "first";
  EXPECT_EQ(git("show main:" + other + ".txt"), other + "\n");
  EXPECT_EQ(git("show main:" + key + ".txt"), "");
  EXPECT_EQ(json_of({"item", "show", cancelled["id"]})["status"], "cancelled");
}

// A template is checked when the workflow is created: an unknown name is
// refused with exit 2, naming it and what is known, and nothing is stored.
TEST_F(Fleet, AnUnknownNameInAPromptIsRefusedWhenTheWorkflowIsCreated) {
  const std::string spec = write_file(
      "typo.yaml",
      "name: typo\nsteps:\n  - id: fix\n    target: {type: agent, provider: claude, prompt: "
      "'Fix {{ item.titel }}'}\n");
  const std::string error = expect_error({"workflow", "create", spec}, 2);
  EXPECT_TRUE(contains(error, "{{ item.titel }}") && contains(error, "known: item.id")) << error;
  EXPECT_TRUE(json_of({"workflow", "ls", "--all"}).empty());
}

}  // namespace
}  // namespace orrery
