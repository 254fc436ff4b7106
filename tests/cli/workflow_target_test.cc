#include "cli/workflow_target.h"

#include <gtest/gtest.h>

#include "exec/process_identity.h"
#include "store/sqlite/sqlite_store.h"
#include "support/temp_dir.h"

namespace orrery::cli {
namespace {

constexpr TimeMs kNow = 1'780'000'000'000;

class WorkflowTarget : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kNow});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    WorkflowSpec spec;
    spec.name = "nightly";
    WorkflowStep step;
    step.id = "only";
    step.target.argv = {"/bin/true"};
    spec.steps = {step};
    for (const char* id :
         {"01a2000000000000000000000000000a", "01a2000000000000000000000000000b"}) {
      auto created = store_->create_workflow(spec, id, kNow);
      ASSERT_TRUE(created.ok());
      versions_.push_back(created->id);
    }
  }

  Target target_of(const std::string& reference, const std::string& input = "{}") {
    Target target;
    target.type = TargetType::kWorkflow;
    target.workflow_id = reference;
    target.input_json = input;
    return target;
  }

  testing::TempDir dir_;
  std::shared_ptr<SystemProcessProbe> probe_ = std::make_shared<SystemProcessProbe>();
  std::unique_ptr<SqliteStore> store_;
  std::vector<std::string> versions_;
};

TEST_F(WorkflowTarget, ANameMeansItsNewestVersion) {
  Target target = target_of("nightly");
  ASSERT_TRUE(resolve_workflow_target(*store_, target).ok());
  EXPECT_EQ(target.workflow_id, versions_[1]);
}

TEST_F(WorkflowTarget, AVersionAfterAtPinsIt) {
  Target target = target_of("nightly@1");
  ASSERT_TRUE(resolve_workflow_target(*store_, target).ok());
  EXPECT_EQ(target.workflow_id, versions_[0]);
  Target by_id = target_of(versions_[0]);
  ASSERT_TRUE(resolve_workflow_target(*store_, by_id).ok());
  EXPECT_EQ(by_id.workflow_id, versions_[0]);
}

TEST_F(WorkflowTarget, BadVersionsAreRefused) {
  for (const char* reference :
       {"nightly@", "nightly@0", "nightly@-1", "nightly@x", "nightly@1x", "nightly@99999999999"}) {
    Target target = target_of(reference);
    auto resolved = resolve_workflow_target(*store_, target);
    ASSERT_FALSE(resolved.ok()) << reference;
    EXPECT_EQ(resolved.error().code, ErrorCode::kUsage) << reference;
    EXPECT_EQ(target.workflow_id, reference);  // unchanged
  }
  Target missing = target_of("nightly@3");
  auto resolved = resolve_workflow_target(*store_, missing);
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, ErrorCode::kNotFound);
}

TEST_F(WorkflowTarget, UnknownWorkflowsAreNotFound) {
  Target target = target_of("weekly");
  auto resolved = resolve_workflow_target(*store_, target);
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, ErrorCode::kNotFound);
}

TEST_F(WorkflowTarget, InputMustBeAnObject) {
  Target target = target_of("nightly", "[1,2]");
  auto resolved = resolve_workflow_target(*store_, target);
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, ErrorCode::kUsage);
  Target spaced = target_of("nightly", " {\"a\" : 1} ");
  ASSERT_TRUE(resolve_workflow_target(*store_, spaced).ok());
  EXPECT_EQ(spaced.input_json, "{\"a\":1}");
}

TEST_F(WorkflowTarget, OtherTargetsAreLeftAlone) {
  Target command;
  command.argv = {"/bin/true"};
  command.workflow_id = "not-a-reference";
  ASSERT_TRUE(resolve_workflow_target(*store_, command).ok());
  EXPECT_EQ(command.workflow_id, "not-a-reference");
}

}  // namespace
}  // namespace orrery::cli
