#include "exec/recovery.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "core/ids.h"
#include "exec/env.h"
#include "exec/kept_outcome.h"
#include "exec/process_identity.h"
#include "store/sqlite/sqlite_store.h"
#include "support/temp_dir.h"

namespace orrery {
namespace {

// A process that runs until killed, leading its own process group.
pid_t start_target() {
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    pause();
    _exit(0);
  }
  setpgid(pid, pid);
  return pid;
}

// A supervisor killed with SIGKILL (and reaped): its identity as recorded.
ProcessIdentity killed_supervisor() {
  const pid_t pid = fork();
  if (pid == 0) {
    pause();
    _exit(0);
  }
  const auto started = process_start_time(pid);
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  return {pid, started};
}

constexpr TimeMs kNow = 1'780'000'000'000;

// A store with one claimed run of a loop with one-second leases.
class Recovery : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, kNow});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    Loop loop;
    loop.id = make_id(kNow, {});
    loop.name = "recovered";
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = 60'000;
    loop.target.argv = {"sleep", "60"};
    loop.lease_ms = 1000;
    loop.created_at = loop.updated_at = kNow;
    ASSERT_TRUE(store_->create_loop(loop).ok());
    auto claimed = store_->claim_slot({loop.id, kNow}, "test", kNow, {});
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    claim_ = (*claimed)->claim;
  }

  std::string loop_id() const {
    auto run = store_->get_run(claim_.id);
    return run.ok() && run->has_value() ? (*run)->loop_id : "";
  }

  testing::TempDir dir_;
  std::shared_ptr<SystemProcessProbe> probe_ = std::make_shared<SystemProcessProbe>();
  std::unique_ptr<SqliteStore> store_;
  Claim claim_;
};

TEST_F(Recovery, AnAbandonedRunsSurvivingTargetIsKilledWithItsGroup) {
  const pid_t target = start_target();
  ASSERT_TRUE(store_
                  ->record_process(claim_, {target, process_start_time(target)}, target,
                                   killed_supervisor(), kNow)
                  .ok());
  auto recovered = recover_runs(*store_, *probe_, dir_.path(), kNow + 1000, RecoveryOptions{}, {});
  ASSERT_TRUE(recovered.ok()) << recovered.error().message;
  ASSERT_EQ(recovered->abandoned.size(), 1u);
  EXPECT_EQ(recovered->abandoned[0].error, "run lease expired before completion");
  int status = 0;
  ASSERT_EQ(waitpid(target, &status, 0), target);
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

// A claim whose supervisor never started (its claimant was killed between
// the claim and the start): abandoned once the start grace has passed,
// however long its lease.
TEST_F(Recovery, AClaimWithNoSupervisorIsAbandonedAfterTheStartGrace) {
  Loop loop;
  loop.id = make_id(kNow, {7});
  loop.name = "unstarted";
  loop.schedule.type = ScheduleType::kInterval;
  loop.schedule.every_ms = 60'000;
  loop.target.argv = {"true"};
  loop.lease_ms = 30 * 60'000;
  loop.created_at = loop.updated_at = kNow;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  for (const TimeMs claimed_at : {kNow, kNow + 5'000}) {
    auto claimed = store_->claim_slot({loop.id, claimed_at}, "daemon@gone:1", claimed_at, {});
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    const std::string id = (*claimed)->run.id;
    for (const DurationMs after : {DurationMs(0), kSupervisorStartGraceMs - 1}) {
      auto early =
          recover_runs(*store_, *probe_, dir_.path(), claimed_at + after, RecoveryOptions{}, {});
      ASSERT_TRUE(early.ok()) << early.error().message;
      EXPECT_EQ((*store_->get_run(id))->status, RunStatus::kRunning) << after;
    }
    auto late = recover_runs(*store_, *probe_, dir_.path(), claimed_at + kSupervisorStartGraceMs,
                             RecoveryOptions{}, {});
    ASSERT_TRUE(late.ok()) << late.error().message;
    const orrery::Run run = **store_->get_run(id);
    EXPECT_EQ(run.status, RunStatus::kAbandoned);
    EXPECT_EQ(run.error,
              "no supervisor started within 30s of the claim (its claimant, daemon@gone:1, "
              "stopped before starting one)");
  }
}

TEST_F(Recovery, ARunWhoseSupervisorLivesIsDeferredAndItsTargetSpared) {
  const pid_t target = start_target();
  ASSERT_TRUE(store_
                  ->record_process(claim_, {target, process_start_time(target)}, target,
                                   current_process(), kNow)
                  .ok());
  auto recovered = recover_runs(*store_, *probe_, dir_.path(), kNow + 1000, RecoveryOptions{}, {});
  ASSERT_TRUE(recovered.ok());
  EXPECT_TRUE(recovered->abandoned.empty());
  EXPECT_EQ(recovered->deferred.size(), 1u);
  EXPECT_EQ(waitpid(target, nullptr, WNOHANG), 0);  // still running
  kill(-target, SIGKILL);
  waitpid(target, nullptr, 0);
}

TEST_F(Recovery, ARunWhoseSupervisorDiedIsAbandonedAtOnceEvenWithALiveLease) {
  const pid_t target = start_target();
  const ProcessIdentity supervisor = killed_supervisor();
  ASSERT_TRUE(
      store_->record_process(claim_, {target, process_start_time(target)}, target, supervisor, kNow)
          .ok());
  for (const TimeMs now : {kNow + 10, kNow + 999}) {  // the lease runs until kNow + 1000
    auto recovered = recover_runs(*store_, *probe_, dir_.path(), now, RecoveryOptions{}, {});
    ASSERT_TRUE(recovered.ok()) << recovered.error().message;
    if (now == kNow + 999) {  // already finished by the first call: nothing more to do
      EXPECT_TRUE(recovered->abandoned.empty());
      continue;
    }
    ASSERT_EQ(recovered->abandoned.size(), 1u);
    EXPECT_EQ(recovered->abandoned[0].status, RunStatus::kAbandoned);
    EXPECT_EQ(
        recovered->abandoned[0].error,
        "the supervisor (pid " + std::to_string(supervisor.pid) + ") died before the run finished");
    EXPECT_EQ(recovered->killed_groups, std::vector<int>{target});
  }
  int status = 0;
  ASSERT_EQ(waitpid(target, &status, 0), target);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

TEST_F(Recovery, AKeptOutcomeOfAnotherClaimIsNotRecorded) {
  ASSERT_TRUE(
      store_->record_process(claim_, {0, std::nullopt}, std::nullopt, killed_supervisor(), kNow)
          .ok());
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  ASSERT_TRUE(std::filesystem::create_directories(dir_.path() + "/runs/" + claim_.id));
  ASSERT_TRUE(keep_outcome(system_env(), dir_.path() + "/runs/" + claim_.id,
                           {"g9-not-this-claim", kNow, outcome})
                  .ok());
  auto recovered = recover_runs(*store_, *probe_, dir_.path(), kNow + 1000, RecoveryOptions{}, {});
  ASSERT_TRUE(recovered.ok()) << recovered.error().message;
  EXPECT_TRUE(recovered->recorded.empty());
  ASSERT_EQ(recovered->abandoned.size(), 1u);
  EXPECT_EQ(recovered->abandoned[0].error, "run lease expired before completion");
}

TEST_F(Recovery, AKeptOutcomeIsRecordedWithItsFinishTime) {
  ASSERT_TRUE(
      store_->record_process(claim_, {0, std::nullopt}, std::nullopt, killed_supervisor(), kNow)
          .ok());
  for (const RunStatus status : {RunStatus::kSucceeded}) {
    RunOutcome outcome;
    outcome.status = status;
    outcome.exit_code = 0;
    outcome.stdout_tail = "kept\n";
    const std::string run_dir = dir_.path() + "/runs/" + claim_.id;
    std::filesystem::create_directories(run_dir);
    ASSERT_TRUE(keep_outcome(system_env(), run_dir, {claim_.token, kNow + 400, outcome}).ok());
    auto recovered =
        recover_runs(*store_, *probe_, dir_.path(), kNow + 5000, RecoveryOptions{}, {});
    ASSERT_TRUE(recovered.ok()) << recovered.error().message;
    ASSERT_EQ(recovered->recorded.size(), 1u);
    const orrery::Run& run = recovered->recorded[0];
    EXPECT_EQ(run.status, status);
    EXPECT_EQ(run.stdout_tail, "kept\n");
    EXPECT_EQ(run.finished_at, kNow + 400);
    EXPECT_EQ(run.duration_ms, 400);
  }
}

// A kept outcome of a run whose supervisor died before its lease ran out
// keeps the finish time it was kept with, as the expired path does.
TEST_F(Recovery, AKeptOutcomeOfADeadSupervisorWithALiveLeaseKeepsItsFinishTime) {
  ASSERT_TRUE(
      store_->record_process(claim_, {0, std::nullopt}, std::nullopt, killed_supervisor(), kNow)
          .ok());
  for (const TimeMs kept_at : {kNow + 100, kNow + 300}) {
    if (kept_at != kNow + 100) {  // a second run of the same loop
      auto claimed = store_->claim_slot({loop_id(), kNow + 1}, "test", kNow, {});
      ASSERT_TRUE(claimed.ok() && claimed->has_value());
      claim_ = (*claimed)->claim;
      ASSERT_TRUE(
          store_->record_process(claim_, {0, std::nullopt}, std::nullopt, killed_supervisor(), kNow)
              .ok());
    }
    RunOutcome outcome;
    outcome.status = RunStatus::kFailed;
    outcome.exit_code = 2;
    const std::string run_dir = dir_.path() + "/runs/" + claim_.id;
    std::filesystem::create_directories(run_dir);
    ASSERT_TRUE(keep_outcome(system_env(), run_dir, {claim_.token, kept_at, outcome}).ok());
    auto recovered = recover_runs(*store_, *probe_, dir_.path(), kNow + 500, RecoveryOptions{}, {});
    ASSERT_TRUE(recovered.ok()) << recovered.error().message;
    ASSERT_EQ(recovered->recorded.size(), 1u);
    EXPECT_EQ(recovered->recorded[0].finished_at, kept_at);
  }
}

// One damaged outcome.json does not stop the recovery of the others.
TEST_F(Recovery, ARunThatCannotBeRecoveredIsReportedAndTheOthersAreRecovered) {
  TimeMs slot = kNow;
  size_t damaged_runs = 0;
  for (const std::string text : {"not json", "{\"claim_token\": 3}", ""}) {
    std::vector<Claim> claims;
    for (int i = 0; i < 3; ++i) {
      auto claimed = store_->claim_slot({loop_id(), ++slot}, "test", kNow, {});
      ASSERT_TRUE(claimed.ok() && claimed->has_value());
      claims.push_back((*claimed)->claim);
      ASSERT_TRUE(store_
                      ->record_process(claims.back(), {0, std::nullopt}, std::nullopt,
                                       killed_supervisor(), kNow)
                      .ok());
    }
    const std::string damaged_dir = dir_.path() + "/runs/" + claims[1].id;
    std::filesystem::create_directories(damaged_dir);
    ASSERT_TRUE(
        write_file_atomically(system_env(), damaged_dir + "/outcome.json", text, 0600).ok());
    auto recovered = recover_runs(*store_, *probe_, dir_.path(), kNow + 500, RecoveryOptions{}, {});
    ASSERT_TRUE(recovered.ok()) << recovered.error().message;
    // This round's damaged run, and each earlier round's, still damaged.
    ASSERT_EQ(recovered->problems.size(), ++damaged_runs) << text;
    const auto problem =
        std::find_if(recovered->problems.begin(), recovered->problems.end(),
                     [&](const RecoveryProblem& p) { return p.run_id == claims[1].id; });
    ASSERT_NE(problem, recovered->problems.end());
    EXPECT_NE(problem->message.find("is damaged"), std::string::npos) << problem->message;
    std::vector<std::string> abandoned;
    for (const orrery::Run& run : recovered->abandoned) abandoned.push_back(run.id);
    EXPECT_EQ(abandoned.size(), 2u) << text;
    for (const int finished : {0, 2}) {
      EXPECT_NE(std::find(abandoned.begin(), abandoned.end(), claims[finished].id),
                abandoned.end());
    }
  }
}

// The store's guard for kept outcomes: only the same claim, only once its
// lease has expired, only while the run is still running.
TEST_F(Recovery, AKeptOutcomeIsWrittenOnlyForTheSameClaimAfterItsLease) {
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  const auto write = [&](const std::string& token, TimeMs now) {
    return store_->finish_expired_claim({claim_.id, "", token}, outcome, now, now);
  };
  for (const TimeMs live : {kNow, kNow + 999}) {  // the lease runs until kNow + 1000
    const Status refused = write(claim_.token, live);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  }
  for (const std::string& other : {std::string("g1-forged"), std::string("")}) {
    EXPECT_EQ(write(other, kNow + 5000).error().code, ErrorCode::kConflict) << other;
  }
  ASSERT_TRUE(write(claim_.token, kNow + 1000).ok());
  EXPECT_EQ(write(claim_.token, kNow + 2000).error().code, ErrorCode::kConflict);  // once
  auto run = store_->get_run(claim_.id);
  ASSERT_TRUE(run.ok() && run->has_value());
  EXPECT_EQ((*run)->status, RunStatus::kSucceeded);
  EXPECT_EQ((*run)->claim_token, "");
}

}  // namespace
}  // namespace orrery
