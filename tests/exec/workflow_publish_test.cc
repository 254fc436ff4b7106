#include "exec/workflow_publish.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "exec/process_identity.h"
#include "exec/step_supervisor.h"
#include "store/home_layout.h"
#include "store/sqlite/sqlite_store.h"
#include "support/forwarding_roles.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'780'000'000'000;

std::string read_text(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// Publishing fails when the commit is refused: the manifest is written
// before the commit and removed after the rollback.
class FailingCommitStore : public testing::ForwardingWorkflowRuns {
 public:
  using ForwardingWorkflowRuns::ForwardingWorkflowRuns;
  Result<PublishedRun> publish_workflow_run(const NewWorkflowRun& run, const PublishHooks& hooks,
                                            TimeMs) override {
    if (auto written = hooks.before_commit(run.run); !written) return written.error();
    manifest_seen = std::filesystem::exists(HomeLayout(home).manifest(run.run.id));
    hooks.after_rollback(run.run);
    return unavailable_error("the database stayed busy");
  }
  std::string home;
  bool manifest_seen = false;
};

class WorkflowPublish : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kNow});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    WorkflowSpec spec;
    spec.name = "build";
    for (const char* id : {"fetch", "make"}) {
      WorkflowStep step;
      step.id = id;
      step.target.argv = {"/bin/true"};
      step.retries = 2;
      spec.steps.push_back(step);
    }
    spec.steps[1].depends_on = {"fetch"};
    auto created = store_->create_workflow(spec, "01a2000000000000000000000000000a", kNow);
    ASSERT_TRUE(created.ok());
    request_.workflow = *created;
    request_.input_json = R"({"branch":"main"})";
    request_.cwd = "/srv/repo";
    request_.max_parallel = 3;
  }

  std::string home() const { return dir_.path() + "/home"; }

  testing::TempDir dir_;
  std::shared_ptr<SystemProcessProbe> probe_ = std::make_shared<SystemProcessProbe>();
  std::unique_ptr<SqliteStore> store_;
  WorkflowRunRequest request_;
};

TEST_F(WorkflowPublish, WritesTheRunItsStepsAndItsManifest) {
  auto published = publish_workflow_run(*store_, home(), request_, kNow);
  ASSERT_TRUE(published.ok()) << published.error().message;
  EXPECT_FALSE(published->existed);
  const WorkflowRun& run = published->run;
  EXPECT_EQ(run.status, WorkflowRunStatus::kPending);
  EXPECT_EQ(run.cwd, "/srv/repo");
  EXPECT_EQ(run.max_parallel, 3);
  auto steps = store_->list_step_runs(run.id);
  ASSERT_TRUE(steps.ok());
  ASSERT_EQ(steps->size(), 2u);
  EXPECT_EQ((*steps)[0].step_id, "fetch");
  EXPECT_EQ((*steps)[1].sequence, 2);
  EXPECT_EQ((*steps)[1].max_attempts, 3);
  const auto manifest = nlohmann::json::parse(read_text(HomeLayout(home()).manifest(run.id)));
  EXPECT_EQ(manifest["run_id"], run.id);
  EXPECT_EQ(manifest["workflow_name"], "build");
  EXPECT_EQ(manifest["input"]["branch"], "main");
  EXPECT_EQ(manifest["steps"], nlohmann::json::array({"fetch", "make"}));
  auto events = store_->list_workflow_events(run.id, 0, 10);
  ASSERT_TRUE(events.ok());
  ASSERT_EQ(events->size(), 1u);
  EXPECT_EQ((*events)[0].event_type, "created");
}

TEST_F(WorkflowPublish, ARepeatedIdempotencyKeyReturnsTheFirstRun) {
  request_.idempotency_key = "deploy-42";
  auto first = publish_workflow_run(*store_, home(), request_, kNow);
  auto second = publish_workflow_run(*store_, home(), request_, kNow + 5);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_TRUE(second->existed);
  EXPECT_EQ(second->run.id, first->run.id);
  request_.idempotency_key = "deploy-43";
  auto third = publish_workflow_run(*store_, home(), request_, kNow + 6);
  ASSERT_TRUE(third.ok());
  EXPECT_NE(third->run.id, first->run.id);
}

TEST_F(WorkflowPublish, AFailedCommitLeavesNoManifest) {
  FailingCommitStore failing(*store_);
  failing.home = home();
  auto published = publish_workflow_run(failing, home(), request_, kNow);
  ASSERT_FALSE(published.ok());
  EXPECT_TRUE(failing.manifest_seen);  // written before the commit
  auto runs = store_->list_workflow_runs({});
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
  ASSERT_TRUE(std::filesystem::exists(home() + "/workflow-runs"));
  EXPECT_TRUE(std::filesystem::is_empty(home() + "/workflow-runs"));
}

TEST_F(WorkflowPublish, AManifestThatCannotBeWrittenStoresNothing) {
  std::filesystem::create_directories(home());
  std::ofstream(home() + "/workflow-runs") << "a file where the directory goes";
  auto published = publish_workflow_run(*store_, home(), request_, kNow);
  ASSERT_FALSE(published.ok());
  auto runs = store_->list_workflow_runs({});
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
}

TEST(WorkflowInput, AcceptsObjectsInCompactForm) {
  EXPECT_EQ(*check_workflow_input("{}"), "{}");
  EXPECT_EQ(*check_workflow_input(" { \"a\" : [1, 2] } "), R"({"a":[1,2]})");
  EXPECT_EQ(*check_workflow_input(R"({"nested":{"x":null}})"), R"({"nested":{"x":null}})");
}

TEST(WorkflowInput, RefusesWhatIsNotAnObject) {
  for (const char* text : {"[]", "\"text\"", "42", "null", "true"}) {
    auto checked = check_workflow_input(text);
    ASSERT_FALSE(checked.ok()) << text;
    EXPECT_EQ(checked.error().code, ErrorCode::kUsage);
    EXPECT_NE(checked.error().message.find("must be a JSON object"), std::string::npos);
  }
  for (const char* text : {"", "{", "{\"a\":}", "{'a':1}", "\xff"}) {
    auto checked = check_workflow_input(text);
    ASSERT_FALSE(checked.ok()) << text;
    EXPECT_NE(checked.error().message.find("not valid JSON"), std::string::npos);
  }
}

// The reading rule of spec files: a key given twice in one object, at any
// depth and however it is spelt (escapes decode to the same key), is refused
// naming the key and where it is; the same key in different objects is fine.
TEST(WorkflowInput, RefusesAKeyGivenTwiceInAnObjectNamingWhere) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"a":1,"a":2})", "the key 'a' is given twice"},
      {R"({"a":1,"b":2,"a":1})", "the key 'a' is given twice"},
      {R"({"x":{"b":1,"b":2}})", "x: the key 'b' is given twice"},
      {R"({"l":[{"k":1},{"k":1,"k":2}]})", "l[1]: the key 'k' is given twice"},
      {R"({"a":1,"a":2})", "the key 'a' is given twice"},
      {"{\"\xc3\xa9\":1,\"\xc3\xa9\":2}", "the key '\xc3\xa9' is given twice"},
      {R"({"":1,"":2})", "the key '' is given twice"}};
  for (const auto& [text, message] : cases) {
    auto checked = check_workflow_input(text);
    ASSERT_FALSE(checked.ok()) << text;
    EXPECT_EQ(checked.error().code, ErrorCode::kUsage) << text;
    EXPECT_NE(checked.error().message.find(message), std::string::npos)
        << text << ": " << checked.error().message;
  }
  EXPECT_EQ(*check_workflow_input(R"({"a":{"a":1},"b":[{"a":1},{"a":2}]})"),
            R"({"a":{"a":1},"b":[{"a":1},{"a":2}]})");
}

TEST(WorkflowInput, RefusesInputOverTheLimit) {
  const std::string big = "{\"a\":\"" + std::string(kMaxWorkflowInputBytes, 'x') + "\"}";
  auto checked = check_workflow_input(big);
  ASSERT_FALSE(checked.ok());
  EXPECT_NE(checked.error().message.find("65536 bytes"), std::string::npos);
  const std::string fits = "{\"a\":\"" + std::string(kMaxWorkflowInputBytes - 8, 'x') + "\"}";
  EXPECT_TRUE(check_workflow_input(fits).ok());
}

}  // namespace
}  // namespace orrery
