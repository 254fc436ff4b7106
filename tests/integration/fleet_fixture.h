// The fleet's black-box fixture (docs/fleet.md): a real git repository with
// one commit on main, a fake `claude` on PATH that edits its worktree and
// answers in claude's JSON (110 tokens a call), a route `issues` whose
// workflow `fix` has one templated agent step in a worktree merging through
// the queue, and the daemon.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "workflow_fixture.h"

namespace orrery {

class FleetFixture : public WorkflowFixture {
 protected:
  void SetUp() override {
    WorkflowFixture::SetUp();
    repo_ = tmp_ + "/repo";
    record_ = tmp_ + "/record";
    std::filesystem::create_directories(record_);
    sh("git init --quiet -b main " + repo_ + " && git -C " + repo_ +
       " config user.name Person && git -C " + repo_ + " config user.email p@example.com");
    write_file("repo/README", "one\ntwo\nthree\n");
    sh("git -C " + repo_ + " add README && git -C " + repo_ + " commit --quiet -m first");
    path_ = std::getenv("PATH");
    setenv("PATH", (tmp_ + "/bin:" + path_).c_str(), 1);
    setenv("FLEET_RECORD", record_.c_str(), 1);
  }

  void TearDown() override {
    WorkflowFixture::TearDown();
    setenv("PATH", path_.c_str(), 1);
    unsetenv("FLEET_RECORD");
  }

  static void sh(const std::string& line) { ASSERT_EQ(std::system(line.c_str()), 0) << line; }

  std::string git(const std::string& args) const {
    std::string text;
    FILE* pipe = ::popen(("git -C " + repo_ + " " + args + " 2>/dev/null").c_str(), "r");
    if (pipe == nullptr) return text;
    char buffer[4096];
    size_t got = 0;
    while ((got = fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, got);
    ::pclose(pipe);
    return text;
  }

  // A fake claude: records its prompt (and the feedback file, if any) per
  // item and attempt, runs `first` in its worktree when the prompt has no
  // previous attempt and `again` when it has, and answers as claude does,
  // with 110 tokens of usage.
  void fake_claude(const std::string& first, const std::string& again) {
    std::filesystem::create_directories(tmp_ + "/bin");
    write_file(
        "bin/claude",
        "#!/bin/sh\n"
        "n=1; while [ -e \"$FLEET_RECORD/prompt-$ORRERY_ITEM_KEY-$n\" ]; do n=$((n+1)); "
        "done\n"
        "prompt=\"$FLEET_RECORD/prompt-$ORRERY_ITEM_KEY-$n\"\n"
        "cat > \"$prompt\"\n"
        "if [ -n \"$ORRERY_FEEDBACK\" ]; then cp \"$ORRERY_FEEDBACK\" "
        "\"$FLEET_RECORD/feedback-$ORRERY_ITEM_KEY-$n\"; fi\n"
        "if grep -q '## The previous attempt' \"$prompt\"; then\n" +
            again + "\nelse\n" + first +
            "\nfi\n"
            // The final message ends with a goal update whose evidence
            // names the item and attempt (progress, for a goal's turn).
            "cat <<'JSON' | sed \"s/WORK/$ORRERY_ITEM_KEY-$n/\"\n"
            R"({"type":"result","result":"done\n```json\n{\"goal\": {\"evidence\": )"
            R"({\"work\": \"WORK\"}}}\n```\n","usage":{"input_tokens":100,"output_tokens":10}})"
            "\nJSON\n");
    std::filesystem::permissions(tmp_ + "/bin/claude", std::filesystem::perms::owner_all);
  }

  // The prompt is a template (docs/workflows.md, "Prompt templates").
  void fix_workflow() {
    create("fix",
           "name: fix\nsteps:\n  - id: fix\n    target: {type: agent, provider: claude, "
           "prompt: 'Fix the issue {{ item.key }}: {{ item.title? }}'}\n    worktree: "
           "required\n    repo: " +
               repo_ + "\n    merge: queue\n");
    json_of({"route", "add", "issues", "--workflow", "fix", "--max-running", "2", "--max-attempts",
             "3", "--retry-delay", "1s"});
  }

  json items() const { return json_of({"items", "--limit", "100"}); }

  // Polls until every item rests (succeeded or dead), up to 90 s.
  bool all_rest() const {
    return eventually(
        [&] {
          for (const json& it : items()) {
            const std::string status = it["status"];
            if (status != "succeeded" && status != "dead_letter") return false;
          }
          return true;
        },
        std::chrono::seconds(90));
  }

  std::string recorded(const std::string& name) const { return read_file(record_ + "/" + name); }

  std::string repo_;
  std::string record_;
  std::string path_;
};

}  // namespace orrery
