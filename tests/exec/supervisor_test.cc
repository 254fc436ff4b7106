// The supervisor against a real store and real targets, with faults injected
// through a Store that fails some calls and an Env that fails some writes
// (docs/execution.md, "Heartbeats and finishing", "Logs").
#include "exec/supervisor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "core/ids.h"
#include "exec/claim_keeper.h"
#include "exec/clock.h"
#include "exec/kept_outcome.h"
#include "exec/process_identity.h"
#include "exec/recovery.h"
#include "store/home_layout.h"
#include "store/sqlite/sqlite_store.h"
#include "support/fake_probe.h"
#include "support/fault_env.h"
#include "support/forwarding_roles.h"
#include "support/temp_dir.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using testing::read_file;

TimeMs wall_now() { return wall_clock_now(); }

// A claim ledger whose heartbeats, finishes and process records fail as the test says.
class FlakyLedger final : public testing::ForwardingLedger {
 public:
  using ForwardingLedger::ForwardingLedger;
  std::function<std::optional<Error>(int call)> heartbeat_fault;
  std::function<std::optional<Error>(int call)> finalize_fault;
  std::optional<Error> record_fault;
  int record_failures = -1;  // how many records fail with record_fault; -1: all
  int records = 0;
  int heartbeats = 0;
  int finalizes = 0;

  Status heartbeat_claim(const Claim& claim, DurationMs lease_ms, TimeMs now) override {
    ++heartbeats;
    if (heartbeat_fault) {
      if (auto fault = heartbeat_fault(heartbeats)) return *fault;
    }
    return inner_.heartbeat_claim(claim, lease_ms, now);
  }
  Status finish_claim(const Claim& claim, const RunOutcome& outcome, TimeMs now) override {
    ++finalizes;
    if (finalize_fault) {
      if (auto fault = finalize_fault(finalizes)) return *fault;
    }
    return inner_.finish_claim(claim, outcome, now);
  }
  Status record_process(const Claim& claim, const ProcessIdentity& target, std::optional<int> pgid,
                        const ProcessIdentity& supervisor, TimeMs now) override {
    ++records;
    if (record_fault && (record_failures < 0 || records <= record_failures)) return *record_fault;
    return inner_.record_process(claim, target, pgid, supervisor, now);
  }
};

bool process_gone(int pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t close = text.rfind(')');
  return close == std::string::npos || text[close + 2] == 'Z';
}

class SupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(
        {dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000, probe_, wall_now()});
    ASSERT_TRUE(opened.ok());
    store_ = std::move(*opened);
    flaky_ = std::make_unique<FlakyLedger>(*store_);
  }

  // Adds a loop running `shell` and claims a slot of it now.
  void claim(const std::string& shell, DurationMs lease_ms = 1500, int max_attempts = 1) {
    const TimeMs now = wall_now();
    Loop loop;
    loop.id = make_id(now, {});
    loop.name = "supervised-" + std::to_string(++loops_);
    loop.schedule.type = ScheduleType::kInterval;
    loop.schedule.every_ms = 3'600'000;
    loop.target.shell = true;
    loop.target.command_line = shell;
    loop.lease_ms = lease_ms;
    loop.max_attempts = max_attempts;
    loop.created_at = loop.updated_at = now;
    ASSERT_TRUE(store_->create_loop(loop).ok());
    auto claimed = store_->claim_slot({loop.id, now}, "test", now, {});
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    claim_ = (*claimed)->claim;
    slot_ = {loop.id, now};
  }

  // Claims the same slot again: its next attempt.
  void reclaim() {
    auto claimed = store_->claim_slot(slot_, "test", wall_now(), {});
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    claim_ = (*claimed)->claim;
  }

  Status supervise_it(Env& env = system_env()) {
    return supervise(*store_, *flaky_, {dir_.path(), claim_.id, claim_.token}, env);
  }

  orrery::Run run() {
    auto run = store_->get_run(claim_.id);
    EXPECT_TRUE(run.ok() && run->has_value());
    return **run;
  }

  std::string run_dir() const { return HomeLayout(dir_.path()).run(claim_.id).path(); }

  testing::TempDir dir_;
  std::shared_ptr<SystemProcessProbe> probe_ = std::make_shared<SystemProcessProbe>();
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<FlakyLedger> flaky_;
  Claim claim_;
  SlotRequest slot_;
  int loops_ = 0;
};

// Not only the errors that look temporary (busy, I/O): a read-only or
// refused database (usage), a vanished row (not found) are retried too; only
// a conflict loses the claim.
TEST_F(SupervisorTest, EveryHeartbeatErrorButAConflictIsRetriedAndTheTargetLives) {
  for (const ErrorCode code :
       {ErrorCode::kUnavailable, ErrorCode::kInternal, ErrorCode::kUsage, ErrorCode::kNotFound}) {
    claim("sleep 0.8; echo done", 1000);
    flaky_->heartbeats = 0;
    flaky_->heartbeat_fault = [code](int call) -> std::optional<Error> {
      if (call <= 3) return Error{code, "the database is read-only"};
      return std::nullopt;
    };
    const Status supervised = supervise_it();
    ASSERT_TRUE(supervised.ok()) << supervised.error().message;
    const orrery::Run finished = run();
    EXPECT_EQ(finished.status, RunStatus::kSucceeded) << finished.error;
    EXPECT_EQ(finished.stdout_tail, "done\n");
    EXPECT_GE(flaky_->heartbeats, 4);
  }
}

// The target that traps SIGTERM records it in `marker`: it was asked to
// stop before it was killed.
std::string trapping_target(const std::string& marker) {
  return "trap 'echo term > \"" + marker + "\"; exit 0' TERM; echo started; " +
         "while :; do sleep 0.05; done";
}

TEST_F(SupervisorTest, ARefusedHeartbeatStopsTheTargetAndLeavesTheRunToRecovery) {
  const std::string marker = dir_.file("terminated");
  claim(trapping_target(marker), 1000);
  flaky_->heartbeat_fault = [](int) -> std::optional<Error> {
    return conflict_error("cannot heartbeat run: the claim was lost");
  };
  const Status supervised = supervise_it();
  ASSERT_FALSE(supervised.ok());
  EXPECT_EQ(supervised.error().code, ErrorCode::kConflict);
  EXPECT_EQ(flaky_->heartbeats, 1);  // no retry of a refused claim
  EXPECT_EQ(flaky_->finalizes, 0);
  EXPECT_FALSE(std::filesystem::exists(kept_outcome_path(run_dir())));
  const orrery::Run left = run();
  EXPECT_EQ(left.status, RunStatus::kRunning);
  ASSERT_TRUE(left.target.has_value());
  EXPECT_TRUE(process_gone(left.target->pid));
  EXPECT_EQ(read_file(marker), "term\n");  // SIGTERM first, not SIGKILL
}

TEST_F(SupervisorTest, ALeaseThatRunsOutWhileRetryingStopsTheTargetAndKeepsTheOutcome) {
  for (const ErrorCode code : {ErrorCode::kUnavailable, ErrorCode::kUsage}) {
    const std::string marker = dir_.file("terminated-" + std::to_string(int(code)));
    claim(trapping_target(marker), 1000);
    flaky_->heartbeats = 0;
    flaky_->heartbeat_fault = [code](int) -> std::optional<Error> {
      return Error{code, "the database is busy or read-only"};
    };
    flaky_->finalize_fault = flaky_->heartbeat_fault;  // the store stays unusable
    const auto started = std::chrono::steady_clock::now();
    const Status supervised = supervise_it();
    ASSERT_FALSE(supervised.ok());
    EXPECT_NE(supervised.error().message.find("the outcome is kept in"), std::string::npos)
        << supervised.error().message;
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4));
    EXPECT_GE(flaky_->heartbeats, 3);
    EXPECT_TRUE(process_gone(run().target->pid));
    EXPECT_EQ(read_file(marker), "term\n");
    auto kept = read_kept_outcome(run_dir());
    ASSERT_TRUE(kept.ok() && kept->has_value());
    EXPECT_EQ((*kept)->outcome.status, RunStatus::kFailed);
    EXPECT_NE((*kept)->outcome.error.find("before it ran out"), std::string::npos)
        << (*kept)->outcome.error;
    EXPECT_EQ((*kept)->outcome.stdout_tail, "started\n");

    const testing::FakeProbe nobody_alive;
    auto recovered = recover_runs(*store_, nobody_alive, dir_.path(), wall_now() + 10'000,
                                  RecoveryOptions{}, {});
    ASSERT_TRUE(recovered.ok()) << recovered.error().message;
    ASSERT_EQ(recovered->recorded.size(), 1u);
    EXPECT_EQ(run().status, RunStatus::kFailed);
    EXPECT_EQ(run().finished_at, (*kept)->finished_at);
  }
}

TEST_F(SupervisorTest, AFinishRetriedAfterTransientErrorsIsWritten) {
  claim("echo out; exit 3");
  flaky_->finalize_fault = [](int call) -> std::optional<Error> {
    if (call <= 2) return unavailable_error("database busy");
    return std::nullopt;
  };
  ASSERT_TRUE(supervise_it().ok());
  EXPECT_EQ(flaky_->finalizes, 3);
  EXPECT_EQ(run().status, RunStatus::kFailed);
  EXPECT_EQ(run().exit_code, 3);
  EXPECT_FALSE(std::filesystem::exists(kept_outcome_path(run_dir())));
}

TEST_F(SupervisorTest, AFinishThatCannotBeWrittenIsKeptAndRecoveryRecordsIt) {
  for (const ErrorCode code : {ErrorCode::kUnavailable, ErrorCode::kConflict}) {
    claim("echo out; echo err >&2; exit 3");
    flaky_->finalizes = 0;
    flaky_->finalize_fault = [code](int) -> std::optional<Error> {
      return Error{code, "the store failed"};
    };
    const Status supervised = supervise_it();
    ASSERT_FALSE(supervised.ok());
    EXPECT_NE(supervised.error().message.find("the outcome is kept in"), std::string::npos)
        << supervised.error().message;
    if (code == ErrorCode::kConflict) {
      EXPECT_EQ(flaky_->finalizes, 1);  // a refused claim is not retried
    } else {                            // retried, at most kWriteTries times, within the lease
      EXPECT_GE(flaky_->finalizes, 3);
      EXPECT_LE(flaky_->finalizes, kWriteTries);
    }
    ASSERT_TRUE(std::filesystem::exists(kept_outcome_path(run_dir())));
    EXPECT_EQ(run().status, RunStatus::kRunning);

    // Recovery, once the lease has run out and the supervisor is gone.
    const testing::FakeProbe nobody_alive;
    auto recovered = recover_runs(*store_, nobody_alive, dir_.path(), wall_now() + 10'000,
                                  RecoveryOptions{}, {});
    ASSERT_TRUE(recovered.ok()) << recovered.error().message;
    ASSERT_EQ(recovered->recorded.size(), 1u);
    EXPECT_TRUE(recovered->abandoned.empty());
    const orrery::Run recorded = run();
    EXPECT_EQ(recorded.status, RunStatus::kFailed);
    EXPECT_EQ(recorded.exit_code, 3);
    EXPECT_EQ(recorded.error, "exit status 3");
    EXPECT_EQ(recorded.stdout_tail, "out\n");
    EXPECT_EQ(recorded.stderr_tail, "err\n");
    EXPECT_EQ(recorded.attempt, 1);  // recorded, not run again
  }
}

TEST_F(SupervisorTest, ALogWriteThatFailsFailsTheRunAndStopsTheTarget) {
  struct Case {
    const char* file;
    int error;
    const char* shell;
  };
  for (const Case& c : {Case{"stdout.log", ENOSPC, "while :; do echo line; done"},
                        Case{"stderr.log", EIO, "while :; do echo line >&2; done"},
                        Case{"stdout.log", EDQUOT, "echo one line; exec sleep 30"}}) {
    claim(c.shell);
    testing::FaultEnv env;
    env.fail_path = c.file;
    env.bytes_before_failure = 4;
    env.write_error = c.error;
    const Status supervised = supervise_it(env);
    ASSERT_TRUE(supervised.ok()) << supervised.error().message;
    const orrery::Run failed = run();
    EXPECT_EQ(failed.status, RunStatus::kFailed) << c.file;
    EXPECT_EQ(failed.error,
              "cannot write to " + run_dir() + "/" + c.file + ": " + std::strerror(c.error));
    ASSERT_TRUE(failed.target.has_value());
    EXPECT_TRUE(process_gone(failed.target->pid));
  }
}

TEST_F(SupervisorTest, ATargetWhoseRecordFailsNeverRuns) {
  const std::string marker = dir_.file("ran");
  claim("touch '" + marker + "'");
  flaky_->record_fault = unavailable_error("database busy");
  ASSERT_TRUE(supervise_it().ok());
  const orrery::Run failed = run();
  EXPECT_EQ(failed.status, RunStatus::kFailed);
  EXPECT_EQ(failed.error, "cannot record the target process: database busy");
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST_F(SupervisorTest, ARecordThatFailsAFewTimesIsRetriedAndTheTargetRuns) {
  for (const ErrorCode code : {ErrorCode::kUnavailable, ErrorCode::kUsage}) {
    const std::string marker = dir_.file("ran-" + std::to_string(int(code)));
    claim("touch '" + marker + "'");
    flaky_->records = 0;
    flaky_->record_failures = 2;
    flaky_->record_fault = Error{code, "database busy"};
    ASSERT_TRUE(supervise_it().ok());
    EXPECT_EQ(flaky_->records, 3);
    EXPECT_EQ(run().status, RunStatus::kSucceeded) << run().error;
    EXPECT_TRUE(std::filesystem::exists(marker));
  }
}

TEST_F(SupervisorTest, EachAttemptAfterTheFirstIsMarkedInBothLogs) {
  claim("echo attempt $ORRERY_ATTEMPT; exit 1", 1500, 3);
  ASSERT_TRUE(supervise_it().ok());
  EXPECT_EQ(read_file(run_dir() + "/stdout.log"), "attempt 1\n");  // the first: unmarked
  EXPECT_EQ(read_file(run_dir() + "/stderr.log"), "");
  std::string expected_out = "attempt 1\n";
  std::string expected_err;
  for (int attempt : {2, 3}) {
    reclaim();
    ASSERT_TRUE(supervise_it().ok());
    const orrery::Run retried = run();
    ASSERT_EQ(retried.attempt, attempt);
    const std::string marker = "=== attempt " + std::to_string(attempt) + " started " +
                               format_time(*retried.started_at) + " ===\n";
    expected_out += marker + "attempt " + std::to_string(attempt) + "\n";
    expected_err += marker;
    EXPECT_EQ(read_file(run_dir() + "/stdout.log"), expected_out);
    EXPECT_EQ(read_file(run_dir() + "/stderr.log"), expected_err);
  }
}

}  // namespace
}  // namespace orrery
