#include "engine/admitting.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/ids.h"
#include "engine/daemon_lease.h"
#include "store/home_layout.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_processes.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

constexpr TimeMs kNow = 1'796'083'200'000;  // 2026-12-01T00:00:00.000Z
constexpr DurationMs kMinute = 60'000;

// The admission step on a real store whose daemon lease a live process holds.
class Admitting : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kNow - kMinute});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    probe_->start(daemon_);
    auto lease = acquire_lease(*store_, daemon_, 3'600'000, kNow - kMinute);
    ASSERT_TRUE(lease.ok()) << lease.error().message;
    settings_.location = {dir_.path(), ""};
    settings_.fence = {lease->lease_id};
    settings_.claimant = "daemon@test-host:4242";
    WorkflowSpec spec;
    spec.name = "work";
    WorkflowStep step;
    step.id = "s";
    step.target.argv = {"/bin/true"};
    spec.steps.push_back(step);
    auto workflow = store_->create_workflow(spec, make_id(kNow, {1}), kNow);
    ASSERT_TRUE(workflow.ok()) << workflow.error().message;
    Route route;
    route.name = "r";
    route.workflow_id = workflow->id;
    route.workflow_name = workflow->name;
    route.workflow_version = workflow->version;
    route.max_running = 2;
    auto created = store_->create_route(route, kNow);
    ASSERT_TRUE(created.ok()) << created.error().message;
    route_ = *created;
  }

  void enqueue(const std::string& key, const std::string& project = "") {
    WorkItem item;
    item.route_id = route_.id;
    item.key = key;
    item.project = project;
    ASSERT_TRUE(store_->enqueue_item(item, kNow).ok());
  }

  AdmissionReport step(bool plan, int max_admissions = 100) {
    AdmissionSettings admission;
    admission.plan = plan;
    admission.max_admissions = max_admissions;
    auto report = run_admission(
        *store_, settings_, admission, kNow,
        [this](const std::string& run_id) -> Status {
          started_.push_back(run_id);
          return Ok{};
        },
        [](const std::string&) {});
    EXPECT_TRUE(report.ok()) << (report ? "" : report.error().message);
    return report.ok() ? *report : AdmissionReport{};
  }

  int running() {
    ItemFilter filter;
    filter.status = ItemStatus::kRunning;
    return int(store_->list_items(filter).value().size());
  }

  testing::TempDir dir_;
  std::shared_ptr<testing::FakeProcesses> probe_ = std::make_shared<testing::FakeProcesses>();
  std::unique_ptr<SqliteStore> store_;
  ProcessIdentity daemon_{4242, kNow - 2 * kMinute};
  TickSettings settings_;
  Route route_;
  std::vector<std::string> started_;
};

TEST_F(Admitting, AStepThatPlansAdmitsAndStartsWithinTheLimitAndSaysItChangedTheQueue) {
  enqueue("a");
  enqueue("b");
  enqueue("c");
  const AdmissionReport report = step(true);
  EXPECT_TRUE(report.planned);
  EXPECT_EQ(report.admitted, 2);
  EXPECT_EQ(report.started, 2);
  EXPECT_TRUE(report.changed());
  EXPECT_EQ(started_.size(), 2u);
  EXPECT_EQ(running(), 2);
  const AdmissionReport full = step(true);
  EXPECT_EQ(full.admitted, 0);
  EXPECT_FALSE(full.changed()) << "a held queue is left alone until something changes";
}

TEST_F(Admitting, AStepThatNeedNotPlanReadsNoQueueButStillStartsWhatWasAdmitted) {
  enqueue("a");
  const AdmissionReport skipped = step(false);
  EXPECT_FALSE(skipped.planned);
  EXPECT_EQ(skipped.admitted, 0);
  EXPECT_EQ(running(), 0);
  // An item a dead daemon left admitted is started without a plan.
  ASSERT_EQ(store_->admit_items({store_->resolve_item("r/a").value().id}, 0, kNow, settings_.fence)
                .value()
                .size(),
            1u);
  const AdmissionReport started = step(false);
  EXPECT_FALSE(started.planned);
  EXPECT_EQ(started.started, 1);
  EXPECT_EQ(running(), 1);
}

TEST_F(Admitting, AFullPageAsksForAnotherTickAtOnceOnlyWhileItAdmits) {
  route_.max_running = 10;
  route_.max_per_project = 1;
  ASSERT_TRUE(store_->update_route(route_, kNow).ok());
  // Two pages of two: the first page is both of project p (one admitted),
  // the next one finds p full and admits q.
  enqueue("1", "p");
  enqueue("2", "p");
  enqueue("3", "q");
  const AdmissionReport first = step(true, 2);
  EXPECT_EQ(first.admitted, 1);
  EXPECT_TRUE(first.more);
  const AdmissionReport second = step(true, 2);
  EXPECT_EQ(second.admitted, 1);
  EXPECT_EQ(running(), 2);
  EXPECT_FALSE(step(true, 2).more) << "p and q are full: nothing to read";
}

TEST_F(Admitting, ARunThatCannotBePublishedReturnsItsItemFreeThreeTimesThenADeadLetter) {
  // A file where the runs' directories go: every publication fails.
  const std::string home = dir_.file("home");
  std::filesystem::create_directories(home);
  const std::filesystem::path runs =
      std::filesystem::path(HomeLayout(home).workflow_run("x")).parent_path();
  std::filesystem::create_directories(runs.parent_path());
  std::ofstream(runs.string()) << "not a directory";
  settings_.location.home = home;
  enqueue("a");
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const AdmissionReport report = step(true);
    EXPECT_EQ(report.admitted, 1);
    EXPECT_EQ(report.started, 0);
    const WorkItem item = store_->resolve_item("r/a").value();
    EXPECT_EQ(item.status, ItemStatus::kQueued) << attempt;
    EXPECT_EQ(item.attempts, 0) << "a return spends no attempt";
    EXPECT_NE(item.last_reason.find("could not be published"), std::string::npos)
        << item.last_reason;
  }
  step(true);
  const WorkItem dead = store_->resolve_item("r/a").value();
  EXPECT_EQ(dead.status, ItemStatus::kDeadLetter);
  EXPECT_TRUE(started_.empty());
  EXPECT_TRUE(store_->list_workflow_runs({}).value().empty()) << "nothing half published";
}

}  // namespace
}  // namespace orrery
