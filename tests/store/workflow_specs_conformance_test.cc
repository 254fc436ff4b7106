// The Store conformance suite, workflow specs (docs/workflows.md,
// "Storage"): versions of a name, the stored spec, finding a workflow by
// id, id prefix, name and version, and listing. Every backend must pass it.
#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using WorkflowSpecs = WorkflowConformance;

TEST_P(WorkflowSpecs, CreatingANameAgainMakesTheNextVersion) {
  for (int version = 1; version <= 3; ++version) {
    const Workflow created = add_workflow("build", {"a", "b:a"}, kNow + version);
    EXPECT_EQ(created.version, version);
    EXPECT_EQ(created.name, "build");
    EXPECT_EQ(created.status, WorkflowStatus::kActive);
    EXPECT_EQ(created.created_at, kNow + version);
    EXPECT_EQ(created.updated_at, kNow + version);
  }
  // Another name counts from 1.
  EXPECT_EQ(add_workflow("deploy").version, 1);
}

TEST_P(WorkflowSpecs, TheSpecIsStoredWhole) {
  WorkflowSpec spec = make_spec("full", {"a", "b:a", "c"});
  spec.steps[1].continue_on_failure = true;
  spec.steps[1].timeout_ms = 90'000;
  spec.steps[1].retries = 3;
  spec.steps[1].account = "claude:work";
  spec.steps[1].depends_on = {"a", "c"};
  spec.steps[2].target.type = TargetType::kAgent;
  spec.steps[2].target.argv.clear();
  spec.steps[2].target.agent = AgentTarget{};
  spec.steps[2].target.agent->prompt = "summarise";
  spec.steps[2].target.agent->model = "sonnet";
  spec.steps[0].target.env = {{"A", "1"}, {"B", "two words"}};
  spec.steps[0].target.cwd = "/srv/work";
  const std::string id = next_id();
  const Workflow created = ok_value(store_->create_workflow(spec, id, kNow));
  EXPECT_EQ(created.id, id);
  EXPECT_EQ(created.spec, spec);
  auto read = ok_value(store_->get_workflow(id));
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->spec, spec);
  EXPECT_EQ(read->version, 1);
}

TEST_P(WorkflowSpecs, GettingAnUnknownIdGivesNothing) {
  add_workflow("build");
  EXPECT_FALSE(ok_value(store_->get_workflow(next_id())).has_value());
  EXPECT_FALSE(ok_value(store_->get_workflow("")).has_value());
}

TEST_P(WorkflowSpecs, CreatingWithoutAnIdOrNameIsRefusedAndStoresNothing) {
  auto no_id = store_->create_workflow(make_spec("build"), "", kNow);
  ASSERT_FALSE(no_id.ok());
  EXPECT_EQ(no_id.error().code, ErrorCode::kUsage);
  auto no_name = store_->create_workflow(make_spec(""), next_id(), kNow);
  ASSERT_FALSE(no_name.ok());
  EXPECT_EQ(no_name.error().code, ErrorCode::kUsage);
  EXPECT_TRUE(ok_value(store_->list_workflows(true)).empty());
}

TEST_P(WorkflowSpecs, ResolvingAnIdGivesThatVersion) {
  const Workflow first = add_workflow("build");
  const Workflow second = add_workflow("build");
  EXPECT_EQ(ok_value(store_->resolve_workflow(first.id, std::nullopt)).version, 1);
  EXPECT_EQ(ok_value(store_->resolve_workflow(second.id, std::nullopt)).version, 2);
  EXPECT_EQ(ok_value(store_->resolve_workflow(first.id, 1)).id, first.id);
  // A version the id does not name.
  EXPECT_TRUE(is_not_found(store_->resolve_workflow(first.id, 2)));
}

TEST_P(WorkflowSpecs, ResolvingAPrefixOfSixOrMoreCharactersFindsTheId) {
  const Workflow workflow = add_workflow("build");
  for (size_t length : {6, 10, 31}) {
    EXPECT_EQ(ok_value(store_->resolve_workflow(workflow.id.substr(0, length), std::nullopt)).id,
              workflow.id)
        << length;
  }
  EXPECT_TRUE(is_not_found(store_->resolve_workflow(workflow.id.substr(0, 6), 2)));
  // Shorter than six is not a prefix: nothing has that name.
  EXPECT_TRUE(is_not_found(store_->resolve_workflow(workflow.id.substr(0, 5), std::nullopt)));
}

TEST_P(WorkflowSpecs, AnAmbiguousPrefixIsAConflictListingTheCandidates) {
  const Workflow a = add_workflow("one");
  const Workflow b = add_workflow("two");
  ASSERT_EQ(a.id.substr(0, 12), b.id.substr(0, 12));  // same time: same leading digits
  auto resolved = store_->resolve_workflow(a.id.substr(0, 12), std::nullopt);
  ASSERT_TRUE(is_conflict(resolved));
  EXPECT_NE(resolved.error().message.find(a.id), std::string::npos);
  EXPECT_NE(resolved.error().message.find(b.id), std::string::npos);
}

TEST_P(WorkflowSpecs, ResolvingANameGivesItsNewestVersionOrTheOneAskedFor) {
  add_workflow("build");
  add_workflow("build");
  const Workflow third = add_workflow("build");
  add_workflow("other");
  EXPECT_EQ(ok_value(store_->resolve_workflow("build", std::nullopt)).id, third.id);
  for (int version = 1; version <= 3; ++version) {
    const Workflow found = ok_value(store_->resolve_workflow("build", version));
    EXPECT_EQ(found.version, version);
    EXPECT_EQ(found.name, "build");
  }
  for (int missing : {0, 4, 100}) {
    auto resolved = store_->resolve_workflow("build", missing);
    ASSERT_TRUE(is_not_found(resolved)) << missing;
    EXPECT_NE(resolved.error().message.find("no version " + std::to_string(missing)),
              std::string::npos);
  }
}

TEST_P(WorkflowSpecs, ResolvingUnknownTextIsNotFoundAndEmptyTextAUsageError) {
  add_workflow("build");
  for (std::string text : {"nothing", "buil", "0123456789ab", "BUILD"}) {
    EXPECT_TRUE(is_not_found(store_->resolve_workflow(text, std::nullopt))) << text;
    EXPECT_TRUE(is_not_found(store_->resolve_workflow(text, 1))) << text;
  }
  auto empty = store_->resolve_workflow("", std::nullopt);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::kUsage);
}

TEST_P(WorkflowSpecs, ListingGivesEachNamesNewestOrEveryVersionByName) {
  add_workflow("zeta");
  add_workflow("alpha");
  add_workflow("alpha");
  add_workflow("mid");
  add_workflow("zeta");
  add_workflow("zeta");
  const auto names = [](const std::vector<Workflow>& workflows) {
    std::vector<std::string> out;
    for (const Workflow& w : workflows) out.push_back(w.name + "@" + std::to_string(w.version));
    return out;
  };
  EXPECT_EQ(names(ok_value(store_->list_workflows(false))),
            (std::vector<std::string>{"alpha@2", "mid@1", "zeta@3"}));
  EXPECT_EQ(
      names(ok_value(store_->list_workflows(true))),
      (std::vector<std::string>{"alpha@2", "alpha@1", "mid@1", "zeta@3", "zeta@2", "zeta@1"}));
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkflowSpecs, backends(), backend_name);

}  // namespace
}  // namespace orrery
