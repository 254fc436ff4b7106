// Stranded workers put on hold (exec/worker_recovery.h) over a real SQLite
// store: a lease that ran out holds the worker wherever it is; a live one
// whose attempt is unknown is left alone; nothing is ever failed.
#include "exec/worker_recovery.h"

#include <gtest/gtest.h>

#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

using testing::TempDir;

constexpr TimeMs kNow = 1'800'000'000'000;

class WorkerRecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kNow});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
  }

  // A running worker of step `step`, its lease one minute from kNow.
  Worker running(const std::string& step, const std::string& host) {
    Worker worker;
    worker.workflow_run_id = "run";
    worker.step_id = step;
    worker.repo = "/r";
    worker.branch = "orrery/run/" + step;
    worker.worktree_path = dir_.file(step);
    worker.host = host;
    worker.base_revision = std::string(40, 'a');
    Worker made = *store_->create_worker(worker, kNow);
    for (auto [from, to] : {std::pair{WorkerState::kPlanned, WorkerState::kLeased},
                            {WorkerState::kLeased, WorkerState::kStarting},
                            {WorkerState::kStarting, WorkerState::kRunning}}) {
      WorkerChange change;
      change.worker_id = made.id;
      change.from = from;
      change.to = to;
      change.lease_owner = "run/" + step + "/1";
      change.lease_ms = 60'000;
      made = *store_->change_worker(change, kNow);
    }
    return made;
  }

  TempDir dir_;
  std::shared_ptr<testing::FakeProbe> probe_ = std::make_shared<testing::FakeProbe>();
  std::unique_ptr<Store> store_;
};

TEST_F(WorkerRecoveryTest, ALiveLeaseIsLeftAndAnExpiredOneHoldsTheWorker) {
  const Worker here = running("a", probe_->host_name());
  const Worker there = running("b", "another-host");
  EXPECT_EQ(*hold_stranded_workers(*store_, *probe_, kNow + 1000), 0);
  EXPECT_EQ(hold_if_stranded(*store_, *probe_, here, kNow + 1000)->state, WorkerState::kRunning);
  EXPECT_EQ(*hold_stranded_workers(*store_, *probe_, kNow + 60'001), 2);
  for (const Worker& worker : {here, there}) {
    const Worker held = **store_->get_worker(worker.id);
    EXPECT_EQ(held.state, WorkerState::kHold);
    EXPECT_NE(held.hold_reason.find("lease expired"), std::string::npos) << held.hold_reason;
    EXPECT_NE(held.hold_reason.find("is gone"), std::string::npos);  // no worktree was made
    EXPECT_TRUE(held.lease_owner.empty());
  }
  // A held worker is not held again.
  EXPECT_EQ(*hold_stranded_workers(*store_, *probe_, kNow + 120'000), 0);
}

TEST_F(WorkerRecoveryTest, AWorkerThatMovedOnMeanwhileIsReadAgainNotForced) {
  const Worker worker = running("a", probe_->host_name());
  WorkerChange report;
  report.worker_id = worker.id;
  report.from = WorkerState::kRunning;
  report.to = WorkerState::kReported;
  ASSERT_TRUE(store_->change_worker(report, kNow + 10).ok());
  // `worker` is the running one as read before the report.
  auto after = hold_if_stranded(*store_, *probe_, worker, kNow + 60'001);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->state, WorkerState::kReported);
}

}  // namespace
}  // namespace orrery
