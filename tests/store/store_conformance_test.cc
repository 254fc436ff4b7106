// The Store conformance suite: every backend must pass it unchanged (the
// fixture and the backends are in store_conformance.h).
#include "store/store_conformance.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "core/retry_policy.h"  // kMaxFreeReattempts
#include "support/numbered.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)
using testing::FakeProbe;

// ---------------------------------------------------------------- loops

TEST_P(StoreConformance, CreatedLoopReadsBackWithEveryField) {
  Loop loop = make_loop("nightly review");
  loop.description = "reviews the day's commits";
  loop.schedule = {};
  loop.schedule.type = ScheduleType::kCron;
  loop.schedule.expression = "0 3 * * *";
  loop.schedule.timezone = "Europe/Berlin";
  loop.schedule.jitter_ms = 30'000;
  loop.target.shell = true;
  loop.target.argv.clear();
  loop.target.command_line = "make review | tee review.log";
  loop.target.cwd = "/srv/repo";
  loop.target.env = {{"MODE", "strict"}, {"EMPTY", ""}};
  loop.target.secret_env = {"API_TOKEN"};
  loop.machine = {{"gpu", "none"}};
  loop.catch_up = {CatchUpMode::kAll, 20, 3'600'000};
  loop.overlap = OverlapPolicy::kQueue;
  loop.retry_delay_ms = 5000;
  loop.retry_backoff = RetryBackoff::kExponential;
  loop.timeout_ms = 600'000;
  loop.idle_timeout_ms = 60'000;
  loop.expires_at = kNow + 86'400'000;
  loop.retry_scheduled_for = kNow - kMinute;
  ASSERT_TRUE(store_->create_loop(loop).ok());

  auto read = store_->get_loop(loop.id);
  ASSERT_TRUE(read.ok() && read->has_value());
  const Loop& got = **read;
  EXPECT_EQ(got.name, loop.name);
  EXPECT_EQ(got.description, loop.description);
  EXPECT_EQ(got.status, LoopStatus::kActive);
  EXPECT_FALSE(got.archived);
  EXPECT_EQ(got.schedule.type, ScheduleType::kCron);
  EXPECT_EQ(got.schedule.expression, "0 3 * * *");
  EXPECT_EQ(got.schedule.timezone, "Europe/Berlin");
  EXPECT_EQ(got.schedule.jitter_ms, 30'000);
  EXPECT_TRUE(got.target.shell);
  EXPECT_EQ(got.target.command_line, loop.target.command_line);
  EXPECT_EQ(got.target.cwd, "/srv/repo");
  EXPECT_EQ(got.target.env, loop.target.env);
  EXPECT_EQ(got.target.secret_env, loop.target.secret_env);
  EXPECT_EQ(got.machine, loop.machine);
  EXPECT_EQ(got.catch_up.mode, CatchUpMode::kAll);
  EXPECT_EQ(got.catch_up.limit, 20);
  EXPECT_EQ(got.catch_up.window, 3'600'000);
  EXPECT_EQ(got.overlap, OverlapPolicy::kQueue);
  EXPECT_EQ(got.max_attempts, 2);
  EXPECT_EQ(got.retry_delay_ms, 5000);
  EXPECT_EQ(got.retry_backoff, RetryBackoff::kExponential);
  EXPECT_EQ(got.lease_ms, kMinute);
  EXPECT_EQ(got.timeout_ms, 600'000);
  EXPECT_EQ(got.idle_timeout_ms, 60'000);
  EXPECT_EQ(got.expires_at, loop.expires_at);
  EXPECT_EQ(got.next_run_at, loop.next_run_at);
  EXPECT_EQ(got.retry_scheduled_for, loop.retry_scheduled_for);
  EXPECT_EQ(got.created_at, kNow);
  EXPECT_EQ(got.updated_at, kNow);
}

TEST_P(StoreConformance, EveryScheduleTypeRoundTrips) {
  Loop once = make_loop("once");
  once.schedule = {};
  once.schedule.type = ScheduleType::kOnce;
  once.schedule.at = kNow + 5000;
  Loop dynamic = make_loop("dynamic");
  dynamic.schedule = {};
  dynamic.schedule.type = ScheduleType::kDynamic;
  dynamic.schedule.min_ms = 1000;
  dynamic.schedule.max_ms = 9000;
  Loop delay = make_loop("delay");
  delay.schedule.anchor = IntervalAnchor::kFixedDelay;
  for (const Loop* loop : {&once, &dynamic, &delay}) ASSERT_TRUE(store_->create_loop(*loop).ok());
  EXPECT_EQ((*store_->get_loop(once.id))->schedule.at, kNow + 5000);
  EXPECT_EQ((*store_->get_loop(dynamic.id))->schedule.min_ms, 1000);
  EXPECT_EQ((*store_->get_loop(dynamic.id))->schedule.max_ms, 9000);
  EXPECT_EQ((*store_->get_loop(delay.id))->schedule.anchor, IntervalAnchor::kFixedDelay);
  EXPECT_EQ((*store_->get_loop(delay.id))->schedule.every_ms, kMinute);
}

TEST_P(StoreConformance, EmptyNameIsRefusedAndNothingStored) {
  Loop loop = make_loop("");
  auto created = store_->create_loop(loop);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().code, ErrorCode::kUsage);
  EXPECT_EQ(*store_->count_loops(loops(LoopFilter::Archived::kInclude)), 0);
}

TEST_P(StoreConformance, ResolveByIdPrefixOrName) {
  const Loop loop = add_loop("backup");
  EXPECT_EQ(store_->resolve_loop(loop.id)->id, loop.id);
  EXPECT_EQ(store_->resolve_loop(loop.id.substr(0, 20))->id, loop.id);
  EXPECT_EQ(store_->resolve_loop("backup")->id, loop.id);
  auto short_prefix = store_->resolve_loop(loop.id.substr(0, 5));
  ASSERT_FALSE(short_prefix.ok());
  EXPECT_EQ(short_prefix.error().code, ErrorCode::kNotFound);
  auto unknown = store_->resolve_loop("nope");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
  EXPECT_EQ(unknown.error().message, "no loop has the id or name 'nope'");
}

// A name that is also an id prefix, of one loop or of many: the name wins;
// a prefix that is nobody's name still finds its loop.
TEST_P(StoreConformance, ANameGivenExactlyWinsOverTheIdsItIsAPrefixOf) {
  std::vector<Loop> others;
  for (int i = 0; i < 12; ++i) others.push_back(add_loop(testing::numbered("other-", i)));
  for (const size_t length : {size_t(6), size_t(8), size_t(20), size_t(32)}) {
    const std::string prefix = others[0].id.substr(0, length);
    const Loop named = add_loop(prefix);
    auto resolved = store_->resolve_loop(prefix);
    ASSERT_TRUE(resolved.ok()) << prefix << ": " << resolved.error().message;
    EXPECT_EQ(resolved->id, length == 32 ? others[0].id : named.id) << prefix;
  }
  // Ids share their leading time digits: a short common prefix names none.
  const std::string common = others[0].id.substr(0, 6);
  const Loop named_common = add_loop(common + "x");
  EXPECT_EQ(store_->resolve_loop(common + "x")->id, named_common.id);
  EXPECT_EQ(store_->resolve_loop(others[5].id.substr(0, 30))->id, others[5].id);
}

TEST_P(StoreConformance, AnAmbiguousNameIsAConflictListingTheCandidates) {
  const Loop first = add_loop("sync");
  const Loop second = add_loop("sync");
  auto resolved = store_->resolve_loop("sync");
  ASSERT_FALSE(resolved.ok());
  EXPECT_EQ(resolved.error().code, ErrorCode::kConflict);
  EXPECT_NE(resolved.error().message.find(first.id), std::string::npos);
  EXPECT_NE(resolved.error().message.find(second.id), std::string::npos);
  EXPECT_EQ(resolved.error().message.rfind("'sync' matches 2 loops: ", 0), 0u);
  // Only the first candidates are listed; the count then says so.
  for (int i = 0; i < 10; ++i) add_loop("sync");
  auto many = store_->resolve_loop("sync");
  ASSERT_FALSE(many.ok());
  EXPECT_EQ(many.error().message.rfind("'sync' matches at least 10 loops: ", 0), 0u)
      << many.error().message;
}

TEST_P(StoreConformance, ListAndCountFilterByStatusAndArchive) {
  Loop active = add_loop("active");
  Loop paused = make_loop("paused");
  paused.status = LoopStatus::kPaused;
  ASSERT_TRUE(store_->create_loop(paused).ok());
  Loop archived = make_loop("archived");
  archived.status = LoopStatus::kPaused;
  archived.archived = true;
  archived.archived_from_status = LoopStatus::kActive;
  ASSERT_TRUE(store_->create_loop(archived).ok());

  EXPECT_EQ(store_->list_loops({})->size(), 2u);
  EXPECT_EQ(*store_->count_loops({}), 2);
  EXPECT_EQ(store_->list_loops(loops(LoopFilter::Archived::kExclude, LoopStatus::kPaused))->size(),
            1u);
  EXPECT_EQ(store_->list_loops(loops(LoopFilter::Archived::kOnly))->front().id, archived.id);
  EXPECT_EQ(*store_->count_loops(loops(LoopFilter::Archived::kInclude)), 3);
  EXPECT_EQ(*store_->count_loops(loops(LoopFilter::Archived::kInclude, LoopStatus::kPaused)), 2);
  EXPECT_EQ((*store_->get_loop(archived.id))->archived_from_status, LoopStatus::kActive);
}

TEST_P(StoreConformance, DueLoopsAreActiveUnarchivedAndDueSoonestFirst) {
  Loop later = make_loop("later");
  later.next_run_at = kNow - 1000;
  Loop sooner = make_loop("sooner");
  sooner.next_run_at = kNow - 5000;
  Loop future = make_loop("future");
  future.next_run_at = kNow + 1;
  Loop paused = make_loop("paused");
  paused.next_run_at = kNow - 9000;
  paused.status = LoopStatus::kPaused;
  Loop archived = make_loop("archived");
  archived.next_run_at = kNow - 9000;
  archived.archived = true;
  for (const Loop* loop : {&later, &sooner, &future, &paused, &archived}) {
    ASSERT_TRUE(store_->create_loop(*loop).ok());
  }
  auto due = store_->due_loops(kNow, 10);
  ASSERT_TRUE(due.ok());
  ASSERT_EQ(due->size(), 2u);
  EXPECT_EQ((*due)[0], (DueLoop{sooner.id, kNow - 5000}));
  EXPECT_EQ((*due)[1], (DueLoop{later.id, kNow - 1000}));
  EXPECT_EQ(store_->due_loops(kNow, 1)->size(), 1u);
}

TEST_P(StoreConformance, AnUpdateOfAPartNeedsThatPartsVersionAsRead) {
  Loop loop = add_loop("guarded");
  Loop renamed = loop;
  renamed.name = "renamed";
  ASSERT_TRUE(store_->update_loop_parts(renamed, {.config = true}, {}, kNow + 1).ok());
  const Loop after = **store_->get_loop(loop.id);
  EXPECT_EQ(after.name, "renamed");
  EXPECT_EQ(after.config_version, 2);
  EXPECT_EQ(after.state_version, 1);
  EXPECT_EQ(after.updated_at, kNow + 1);
  // A second writer of the configuration read version 1: refused, nothing written.
  Loop stale = loop;
  stale.name = "stale";
  auto refused = store_->update_loop_parts(stale, {.config = true}, {}, kNow + 2);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_EQ(refused.error().message, "loop stale changed while it was being updated; try again");
  EXPECT_EQ((*store_->get_loop(loop.id))->name, "renamed");
  Loop missing = make_loop("missing");
  for (LoopParts parts : {LoopParts{true, false}, LoopParts{false, true}, LoopParts{true, true}}) {
    EXPECT_EQ(store_->update_loop_parts(missing, parts, {}, kNow).error().code,
              ErrorCode::kNotFound);
  }
  Loop empty = after;
  empty.name = "";
  EXPECT_EQ(store_->update_loop_parts(empty, {.config = true}, {}, kNow + 1).error().code,
            ErrorCode::kUsage);
  EXPECT_EQ(store_->update_loop_parts(after, {}, {}, kNow + 1).error().code, ErrorCode::kUsage);
  expect_unchanged(loop.id, after);
}

TEST_P(StoreConformance, EachPartIsWrittenOnlyWithItsOwnVersionAndOnlyItsColumns) {
  const Loop loop = add_loop("parts");
  // The state part: the schedule state changes, the configuration does not.
  Loop paused = loop;
  paused.status = LoopStatus::kPaused;
  paused.next_run_at.reset();
  paused.missed_count = 4;
  paused.name = "ignored";  // configuration: not written with the state part
  ASSERT_TRUE(store_->update_loop_parts(paused, {.state = true}, {}, kNow + 1).ok());
  Loop got = **store_->get_loop(loop.id);
  EXPECT_EQ(got.status, LoopStatus::kPaused);
  EXPECT_FALSE(got.next_run_at.has_value());
  EXPECT_EQ(got.missed_count, 4);
  EXPECT_EQ(got.name, "parts");
  EXPECT_EQ(got.config_version, 1);
  EXPECT_EQ(got.state_version, 2);
  // The configuration part with a stale state version but a current
  // configuration version: written, and the state is left as it is.
  Loop renamed = loop;  // state_version 1 (stale), config_version 1 (current)
  renamed.name = "renamed";
  renamed.status = LoopStatus::kActive;  // state: not written with the configuration
  ASSERT_TRUE(store_->update_loop_parts(renamed, {.config = true}, {}, kNow + 2).ok());
  got = **store_->get_loop(loop.id);
  EXPECT_EQ(got.name, "renamed");
  EXPECT_EQ(got.status, LoopStatus::kPaused);
  EXPECT_EQ(got.config_version, 2);
  EXPECT_EQ(got.state_version, 2);
  // Both parts: both versions must match; one stale version refuses both.
  Loop both = got;
  both.name = "both";
  both.status = LoopStatus::kActive;
  both.state_version = 1;
  EXPECT_EQ(store_->update_loop_parts(both, {true, true}, {}, kNow + 3).error().code,
            ErrorCode::kConflict);
  expect_unchanged(loop.id, got);
  both.state_version = 2;
  ASSERT_TRUE(store_->update_loop_parts(both, {true, true}, {}, kNow + 3).ok());
  got = **store_->get_loop(loop.id);
  EXPECT_EQ(got.name, "both");
  EXPECT_EQ(got.status, LoopStatus::kActive);
  EXPECT_EQ(got.config_version, 3);
  EXPECT_EQ(got.state_version, 3);
}

TEST_P(StoreConformance, ANewLoopStartsAtVersionOneWhateverItCarries) {
  Loop loop = make_loop("fresh");
  loop.config_version = 7;
  loop.state_version = 9;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  const Loop got = **store_->get_loop(loop.id);
  EXPECT_EQ(got.config_version, 1);
  EXPECT_EQ(got.state_version, 1);
}

TEST_P(StoreConformance, DeleteRemovesTheLoopAndItsRunsAndNamesThem) {
  const Loop loop = add_loop("doomed");
  const Loop other = add_loop("other");
  const ClaimedRun first_run = claim(loop, kNow);
  const ClaimedRun second_run = claim(loop, kNow + kMinute);
  finish(first_run.claim, RunStatus::kSucceeded);
  finish(second_run.claim, RunStatus::kFailed);
  const std::string first = first_run.run.id;
  const std::string second = second_run.run.id;
  const ClaimedRun kept_run = claim(other, kNow);
  finish(kept_run.claim, RunStatus::kSucceeded);
  const std::string kept = kept_run.run.id;
  auto deleted = store_->delete_loop(loop.id);
  ASSERT_TRUE(deleted.ok());
  std::vector<std::string> ids = *deleted;
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> expected{first, second};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ids, expected);
  EXPECT_FALSE(store_->get_loop(loop.id)->has_value());
  EXPECT_EQ(*store_->count_runs(std::nullopt), 1);
  EXPECT_TRUE(store_->get_run(kept)->has_value());
  EXPECT_TRUE(store_->delete_loop(other.id)->size() == 1u);
  EXPECT_EQ(store_->delete_loop(loop.id).error().code, ErrorCode::kNotFound);
}

TEST_P(StoreConformance, LoopsPastTheirExpiryExpire) {
  Loop old = make_loop("old");
  old.expires_at = kNow - 1;
  Loop fresh = make_loop("fresh");
  fresh.expires_at = kNow + 1;
  ASSERT_TRUE(store_->create_loop(old).ok());
  ASSERT_TRUE(store_->create_loop(fresh).ok());
  EXPECT_EQ(*store_->expire_loops(kNow, {}), 1);
  EXPECT_EQ((*store_->get_loop(old.id))->status, LoopStatus::kExpired);
  EXPECT_FALSE((*store_->get_loop(old.id))->next_run_at.has_value());
  EXPECT_EQ((*store_->get_loop(fresh.id))->status, LoopStatus::kActive);
}

// ---------------------------------------------------------------- claims

TEST_P(StoreConformance, ClaimingANewSlotCreatesARunningRun) {
  const Loop loop = add_loop("claims");
  const ClaimedRun claimed = claim(loop, kNow);
  EXPECT_EQ(claimed.run.status, RunStatus::kRunning);
  EXPECT_EQ(claimed.run.attempt, 1);
  EXPECT_EQ(claimed.run.loop_name, "claims");
  EXPECT_EQ(claimed.run.started_at, kNow);
  EXPECT_EQ(claimed.run.lease_expires_at, kNow + kMinute);
  EXPECT_EQ(claimed.claim.claimed_by, "runner-a");
  EXPECT_EQ(claimed.claim.token.rfind("g1-", 0), 0u) << claimed.claim.token;
  EXPECT_TRUE(is_id(claimed.run.id));
}

TEST_P(StoreConformance, ASlotWithALiveLeaseIsNotClaimedAgain) {
  const Loop loop = add_loop("held");
  claim(loop, kNow);
  EXPECT_FALSE(claimable(loop, kNow, kNow + 1000));
  EXPECT_EQ(run_at(loop, kNow).claimed_by, "runner-a");
}

TEST_P(StoreConformance, SucceededAndSkippedSlotsAreNeverClaimedAgain) {
  const Loop loop = add_loop("final");
  finish(claim(loop, kNow).claim, RunStatus::kSucceeded);
  EXPECT_FALSE(claimable(loop, kNow, kNow + 10 * kMinute));
  ASSERT_TRUE(store_->record_skipped(loop, kNow + kMinute, "missed", kNow, {}).ok());
  EXPECT_FALSE(claimable(loop, kNow + kMinute, kNow + 10 * kMinute));
}

TEST_P(StoreConformance, AFailedSlotIsRetriedWhileAttemptsRemain) {
  const Loop loop = add_loop("retry");  // max_attempts 2
  finish(claim(loop, kNow).claim, RunStatus::kFailed);
  const ClaimedRun second = claim(loop, kNow, "runner-b", kNow + 2000);
  EXPECT_EQ(second.run.attempt, 2);
  EXPECT_EQ(second.claim.token.rfind("g2-", 0), 0u) << second.claim.token;
  EXPECT_EQ(second.run.error, "");
  finish(second.claim, RunStatus::kTimedOut, kNow + 3000);
  EXPECT_FALSE(claimable(loop, kNow, kNow + 4000));
  EXPECT_EQ(run_at(loop, kNow).status, RunStatus::kTimedOut);
}

TEST_P(StoreConformance, AnExpiredSlotWhoseSupervisorDiedIsReclaimed) {
  const Loop loop = add_loop("reclaim");
  const ClaimedRun first = claim(loop, kNow);
  ASSERT_TRUE(store_->record_process(first.claim, {4321, 111}, 4321, {4300, 100}, kNow).ok());
  const ClaimedRun second = claim(loop, kNow, "runner-b", kNow + kMinute);
  EXPECT_EQ(second.run.attempt, 1);
  EXPECT_EQ(second.claim.token.rfind("g2-", 0), 0u);
  EXPECT_FALSE(second.run.supervisor.has_value());
}

TEST_P(StoreConformance, AnExpiredSlotWhoseSupervisorLivesIsNotReclaimed) {
  const Loop loop = add_loop("alive");
  const ClaimedRun first = claim(loop, kNow);
  probe_->start({4300, 100});
  ASSERT_TRUE(store_->record_process(first.claim, {4321, 111}, 4321, {4300, 100}, kNow).ok());
  EXPECT_FALSE(claimable(loop, kNow, kNow + 2 * kMinute));
  EXPECT_EQ(run_at(loop, kNow).claim_token, first.claim.token);
}

TEST_P(StoreConformance, APidReusedByAnotherProcessDoesNotCountAsAlive) {
  const Loop loop = add_loop("reused");
  const ClaimedRun first = claim(loop, kNow);
  ASSERT_TRUE(store_->record_process(first.claim, {4321, 111}, 4321, {4300, 100}, kNow).ok());
  probe_->start({4300, 999});  // the same pid, started later by something else
  EXPECT_TRUE(claimable(loop, kNow, kNow + 2 * kMinute));
}

TEST_P(StoreConformance, AStaleClaimantsFinalizeChangesNothing) {
  const Loop loop = add_loop("stale");
  const ClaimedRun first = claim(loop, kNow);
  const ClaimedRun second = claim(loop, kNow, "runner-b", kNow + kMinute);
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  auto stale = store_->finish_claim(first.claim, outcome, kNow + kMinute + 1);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code, ErrorCode::kConflict);
  const orrery::Run run = run_at(loop, kNow);
  EXPECT_EQ(run.status, RunStatus::kRunning);
  EXPECT_EQ(run.claim_token, second.claim.token);
}

TEST_P(StoreConformance, ClaimHolderWritesNeedTokenAndLiveLease) {
  const Loop loop = add_loop("guards");
  const ClaimedRun claimed = claim(loop, kNow);
  Claim wrong_token = claimed.claim;
  wrong_token.token = "g1-forged";
  Claim wrong_claimant = claimed.claim;
  wrong_claimant.claimed_by = "intruder";
  RunOutcome outcome;
  for (const Claim& bad : {wrong_token, wrong_claimant}) {
    EXPECT_EQ(store_->heartbeat_claim(bad, kMinute, kNow + 1).error().code, ErrorCode::kConflict);
    EXPECT_EQ(store_->finish_claim(bad, outcome, kNow + 1).error().code, ErrorCode::kConflict);
    EXPECT_EQ(store_->record_process(bad, {1, 1}, 1, {2, 2}, kNow + 1).error().code,
              ErrorCode::kConflict);
    EXPECT_EQ(store_->record_supervisor(bad, {2, 2}, kNow + 1).error().code, ErrorCode::kConflict);
  }
  // Once the lease has expired even the rightful claimant is refused.
  EXPECT_FALSE(store_->heartbeat_claim(claimed.claim, kMinute, kNow + kMinute).ok());
  EXPECT_FALSE(store_->finish_claim(claimed.claim, outcome, kNow + kMinute).ok());
  EXPECT_EQ(run_at(loop, kNow).status, RunStatus::kRunning);
}

TEST_P(StoreConformance, HeartbeatExtendsTheLease) {
  const Loop loop = add_loop("heartbeat");
  const ClaimedRun claimed = claim(loop, kNow);
  ASSERT_TRUE(store_->heartbeat_claim(claimed.claim, kMinute, kNow + 50'000).ok());
  EXPECT_EQ(run_at(loop, kNow).lease_expires_at, kNow + 50'000 + kMinute);
  EXPECT_TRUE(store_->heartbeat_claim(claimed.claim, kMinute, kNow + 100'000).ok());
}

TEST_P(StoreConformance, RecordProcessKeepsTargetAndSupervisorIdentities) {
  const Loop loop = add_loop("process");
  const ClaimedRun claimed = claim(loop, kNow);
  ASSERT_TRUE(store_->record_process(claimed.claim, {4321, 111}, 4321, {4300, 100}, kNow).ok());
  const orrery::Run run = run_at(loop, kNow);
  ASSERT_TRUE(run.target && run.supervisor);
  EXPECT_EQ(run.target->pid, 4321);
  EXPECT_EQ(run.target->started_at, 111);
  EXPECT_EQ(run.pgid, 4321);
  EXPECT_EQ(run.supervisor->pid, 4300);
  EXPECT_EQ(run.supervisor->started_at, 100);
}

// The starter records the supervisor before it records anything itself; the
// supervisor's own record (with the target) later completes the row.
TEST_P(StoreConformance, RecordSupervisorKeepsItsIdentityAndNotATarget) {
  const Loop loop = add_loop("starter");
  const ClaimedRun claimed = claim(loop, kNow);
  ASSERT_TRUE(store_->record_supervisor(claimed.claim, {4300, 100}, kNow).ok());
  orrery::Run run = run_at(loop, kNow);
  ASSERT_TRUE(run.supervisor.has_value());
  EXPECT_EQ(run.supervisor->pid, 4300);
  EXPECT_EQ(run.supervisor->started_at, 100);
  EXPECT_FALSE(run.target.has_value());
  ASSERT_TRUE(store_->record_process(claimed.claim, {4321, 111}, 4321, {4300, 100}, kNow).ok());
  run = run_at(loop, kNow);
  ASSERT_TRUE(run.target.has_value());
  EXPECT_EQ(run.target->pid, 4321);
  EXPECT_EQ(run.supervisor->pid, 4300);
}

TEST_P(StoreConformance, FinalizeRecordsTheOutcomeAndReleasesTheClaim) {
  const Loop loop = add_loop("outcome");
  const ClaimedRun claimed = claim(loop, kNow);
  RunOutcome outcome;
  outcome.status = RunStatus::kFailed;
  outcome.exit_code = 3;
  outcome.error = "exit status 3";
  outcome.stdout_tail = "out";
  outcome.stderr_tail = "err";
  outcome.usage = {120, 45, 0.25};
  ASSERT_TRUE(store_->finish_claim(claimed.claim, outcome, kNow + 1500).ok());
  const orrery::Run run = run_at(loop, kNow);
  EXPECT_EQ(run.status, RunStatus::kFailed);
  EXPECT_EQ(run.exit_code, 3);
  EXPECT_EQ(run.finished_at, kNow + 1500);
  EXPECT_EQ(run.duration_ms, 1500);
  EXPECT_EQ(run.error, "exit status 3");
  EXPECT_EQ(run.stdout_tail, "out");
  EXPECT_EQ(run.stderr_tail, "err");
  EXPECT_EQ(run.usage.input_tokens, 120);
  EXPECT_EQ(run.usage.output_tokens, 45);
  EXPECT_EQ(run.usage.cost_usd, 0.25);
  EXPECT_EQ(run.claim_token, "");
  EXPECT_FALSE(run.lease_expires_at.has_value());
  // Finishing twice is refused: the claim is spent.
  EXPECT_EQ(store_->finish_claim(claimed.claim, outcome, kNow + 1600).error().code,
            ErrorCode::kConflict);
}

TEST_P(StoreConformance, ARunCannotFinishAsRunningOrSkipped) {
  const Loop loop = add_loop("bad outcome");
  const ClaimedRun claimed = claim(loop, kNow);
  for (RunStatus status : {RunStatus::kRunning, RunStatus::kSkipped}) {
    RunOutcome outcome;
    outcome.status = status;
    EXPECT_EQ(store_->finish_claim(claimed.claim, outcome, kNow + 1).error().code,
              ErrorCode::kUsage);
  }
  EXPECT_EQ(run_at(loop, kNow).status, RunStatus::kRunning);
}

TEST_P(StoreConformance, ASkippedSlotHasAttemptOneAndNoStart) {
  const Loop loop = add_loop("skips");
  auto skipped = store_->record_skipped(loop, kNow, "overlap", kNow + 5, {});
  ASSERT_TRUE(skipped.ok());
  EXPECT_EQ(skipped->status, RunStatus::kSkipped);
  EXPECT_EQ(skipped->attempt, 1);
  EXPECT_FALSE(skipped->started_at.has_value());
  EXPECT_EQ(skipped->finished_at, kNow + 5);
  EXPECT_EQ(skipped->skip_reason, "overlap");
  // A slot that already has a run keeps it.
  claim(loop, kNow + kMinute);
  auto existing = store_->record_skipped(loop, kNow + kMinute, "missed", kNow, {});
  ASSERT_TRUE(existing.ok());
  EXPECT_EQ(existing->status, RunStatus::kRunning);
}

TEST_P(StoreConformance, ManySlotsAreClaimedInOneCall) {
  const Loop a = add_loop("a");
  const Loop b = add_loop("b");
  claim(a, kNow);  // already held
  auto claimed = store_->claim_slots(
      {{a.id, kNow}, {a.id, kNow + kMinute}, {b.id, kNow}, {b.id, kNow + kMinute}}, "batch", kNow,
      {});
  ASSERT_TRUE(claimed.ok());
  EXPECT_EQ(claimed->size(), 3u);
  EXPECT_EQ(*store_->count_runs(RunStatus::kRunning), 4);
  auto unknown =
      store_->claim_slots({{"0123456789abcdef0123456789abcdef", kNow}}, "batch", kNow, {});
  EXPECT_EQ(unknown.error().code, ErrorCode::kNotFound);
}

TEST_P(StoreConformance, RunsListNewestFirstWithFilters) {
  const Loop a = add_loop("a");
  const Loop b = add_loop("b");
  claim(a, kNow, "r", kNow);
  finish(claim(a, kNow + kMinute, "r", kNow + 10).claim, RunStatus::kSucceeded, kNow + 20);
  claim(b, kNow, "r", kNow + 30);
  auto all = store_->list_runs({});
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].loop_id, b.id);
  EXPECT_EQ((*all)[2].scheduled_for, kNow);
  EXPECT_EQ(store_->list_runs(runs(a.id))->size(), 2u);
  EXPECT_EQ(store_->list_runs(runs(a.id, RunStatus::kRunning))->size(), 1u);
  EXPECT_EQ(store_->list_runs(runs(std::nullopt, std::nullopt, 1))->size(), 1u);
  EXPECT_EQ(*store_->count_runs(RunStatus::kSucceeded), 1);
  EXPECT_EQ(*store_->count_runs(std::nullopt), 3);
}

TEST_P(StoreConformance, RunsAndLoopsPageWithLimitAndOffsetAndCountWhatMatches) {
  std::vector<std::string> loop_ids;
  for (int i = 0; i < 5; ++i) add_loop("page-" + std::to_string(i), kNow + i);
  const auto listed = store_->list_loops({});
  ASSERT_TRUE(listed.ok());
  for (const Loop& loop : *listed) loop_ids.push_back(loop.id);
  ASSERT_EQ(loop_ids.size(), 5u);
  std::vector<std::string> paged;
  for (int offset = 0; offset < 6; offset += 2) {
    LoopFilter page;
    page.limit = 2;
    page.offset = offset;
    const auto loops_page = store_->list_loops(page);
    ASSERT_TRUE(loops_page.ok());
    for (const Loop& loop : *loops_page) paged.push_back(loop.id);
  }
  EXPECT_EQ(paged, loop_ids);
  LoopFilter beyond;
  beyond.offset = 5;
  EXPECT_TRUE(store_->list_loops(beyond)->empty());

  const Loop a = store_->resolve_loop("page-0").value();
  const Loop b = store_->resolve_loop("page-1").value();
  for (int i = 0; i < 3; ++i) claim(a, kNow + i * kMinute, "r", kNow + i);
  finish(claim(b, kNow, "r", kNow + 10).claim, RunStatus::kFailed, kNow + 20);
  std::vector<std::string> newest_first;
  const auto all_runs = store_->list_runs({});
  ASSERT_TRUE(all_runs.ok());
  for (const orrery::Run& run : *all_runs) newest_first.push_back(run.id);
  ASSERT_EQ(newest_first.size(), 4u);
  RunFilter second_page = runs(std::nullopt, std::nullopt, 3);
  second_page.offset = 3;
  ASSERT_EQ(store_->list_runs(second_page)->size(), 1u);
  EXPECT_EQ(store_->list_runs(second_page)->front().id, newest_first[3]);
  EXPECT_EQ(*store_->count_matching_runs({}), 4);
  EXPECT_EQ(*store_->count_matching_runs(runs(a.id)), 3);
  EXPECT_EQ(*store_->count_matching_runs(runs(a.id, RunStatus::kFailed)), 0);
  EXPECT_EQ(*store_->count_matching_runs(runs(std::nullopt, RunStatus::kFailed)), 1);
  // Limit and offset do not change the count.
  EXPECT_EQ(*store_->count_matching_runs(second_page), 4);
}

TEST_P(StoreConformance, RunsPagedAfterARunStartRightAfterItWhateverWasCreatedSince) {
  const Loop a = add_loop("keyset-a");
  const Loop b = add_loop("keyset-b");
  // Three runs share a creation instant: their order is by id.
  for (int i = 0; i < 6; ++i) claim(i % 2 == 0 ? a : b, kNow + i * kMinute, "r", kNow + i / 3);
  std::vector<std::string> newest_first;
  const auto every_run = store_->list_runs({});
  ASSERT_TRUE(every_run.ok());
  for (const orrery::Run& run : *every_run) newest_first.push_back(run.id);
  ASSERT_EQ(newest_first.size(), 6u);
  std::vector<std::string> paged;
  RunFilter page = runs(std::nullopt, std::nullopt, 2);
  for (int round = 0; round < 10; ++round) {
    const auto listed = store_->list_runs(page);
    ASSERT_TRUE(listed.ok());
    if (listed->empty()) break;
    for (const orrery::Run& run : *listed) paged.push_back(run.id);
    const orrery::Run& last = listed->back();
    page.after = PageKey{last.created_at, last.id};
    EXPECT_EQ(*store_->count_matching_runs(page), std::int64_t(newest_first.size() - paged.size()));
    claim(a, kNow + (100 + round) * kMinute, "r", kNow + 1000 + round);  // newer than every page
  }
  EXPECT_EQ(paged, newest_first);
  RunFilter of_b = runs(b.id, std::nullopt, 100);
  of_b.after = PageKey{kNow + 1, ""};  // before every run created at kNow + 1
  const auto runs_of_b = store_->list_runs(of_b);
  ASSERT_TRUE(runs_of_b.ok());
  for (const orrery::Run& run : *runs_of_b) {
    EXPECT_EQ(run.loop_id, b.id);
    EXPECT_LT(run.created_at, kNow + 1);
  }
  EXPECT_EQ(*store_->count_matching_runs(of_b), 1);  // b's first run, the one created at kNow
}

TEST_P(StoreConformance, ResolveRunByIdOrUniquePrefix) {
  const Loop loop = add_loop("resolve");
  const orrery::Run run = claim(loop, kNow, "r", kNow).run;
  EXPECT_EQ(store_->resolve_run(run.id)->id, run.id);
  for (size_t length : {6u, 12u, 20u, 31u}) {
    auto found = store_->resolve_run(run.id.substr(0, length));
    ASSERT_TRUE(found.ok()) << length << ": " << found.error().message;
    EXPECT_EQ(found->id, run.id);
    EXPECT_EQ(found->loop_name, "resolve");
  }
  // Not found: an unknown id or prefix, text that is no id, a loop's id.
  for (const std::string& text :
       {std::string("ffffff"), std::string(32, 'f'), std::string("no-such-run"), loop.id}) {
    auto missing = store_->resolve_run(text);
    ASSERT_FALSE(missing.ok()) << text;
    EXPECT_EQ(missing.error().code, ErrorCode::kNotFound) << text;
    EXPECT_EQ(missing.error().message, "no run has the id '" + text + "'");
  }
}

TEST_P(StoreConformance, ARunPrefixShorterThanSixIsAUsageError) {
  const Loop loop = add_loop("short");
  const orrery::Run run = claim(loop, kNow, "r", kNow).run;
  for (size_t length : {1u, 3u, 5u}) {
    auto found = store_->resolve_run(run.id.substr(0, length));
    ASSERT_FALSE(found.ok()) << length;
    EXPECT_EQ(found.error().code, ErrorCode::kUsage);
    EXPECT_NE(found.error().message.find("at least 6"), std::string::npos) << found.error().message;
  }
  auto empty = store_->resolve_run("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, ErrorCode::kUsage);
}

TEST_P(StoreConformance, AnAmbiguousRunPrefixIsAConflictListingTheCandidates) {
  // Claimed in the same millisecond: the ids share their first 12 characters.
  const Loop loop = add_loop("twins");
  const auto claimed =
      store_->claim_slots({{loop.id, kNow}, {loop.id, kNow + kMinute}}, "r", kNow, {});
  ASSERT_TRUE(claimed.ok() && claimed->size() == 2u);
  const std::string first = (*claimed)[0].run.id;
  const std::string second = (*claimed)[1].run.id;
  ASSERT_EQ(first.substr(0, 12), second.substr(0, 12));
  for (size_t length : {6u, 12u}) {
    auto resolved = store_->resolve_run(first.substr(0, length));
    ASSERT_FALSE(resolved.ok());
    EXPECT_EQ(resolved.error().code, ErrorCode::kConflict);
    EXPECT_NE(resolved.error().message.find(first), std::string::npos);
    EXPECT_NE(resolved.error().message.find(second), std::string::npos);
    EXPECT_NE(resolved.error().message.find("2 runs"), std::string::npos)
        << resolved.error().message;
  }
  // One character past the common prefix tells them apart.
  size_t common = 0;
  while (first[common] == second[common]) ++common;
  EXPECT_EQ(store_->resolve_run(first.substr(0, common + 1))->id, first);
  EXPECT_EQ(store_->resolve_run(second.substr(0, common + 1))->id, second);
}

TEST_P(StoreConformance, AUsageLimitedAttemptDoesNotCount) {
  Loop loop = make_loop("limited");
  loop.max_attempts = 1;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  RunOutcome limited;
  limited.status = RunStatus::kFailed;
  limited.usage_limited = true;
  ASSERT_TRUE(store_->finish_claim(claim(loop, kNow).claim, limited, kNow + 10).ok());
  EXPECT_TRUE(run_at(loop, kNow).usage_limited);
  // One attempt allowed, yet the slot is claimed again, still as attempt 1.
  const ClaimedRun again = claim(loop, kNow, "runner-b", kNow + 20);
  EXPECT_EQ(again.run.attempt, 1);
  EXPECT_FALSE(again.run.usage_limited);
  finish(again.claim, RunStatus::kFailed, kNow + 30);
  EXPECT_FALSE(claimable(loop, kNow, kNow + 40));
}

// ---------------------------------------------------------------- cooldowns

TEST_P(StoreConformance, CooldownsGrowWithConsecutiveHitsAndExpire) {
  auto first = store_->record_cooldown("claude", std::nullopt, "claude-usage-limit", kNow);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->until_at, kNow + 5 * kMinute);
  EXPECT_EQ(first->hits, 1);
  auto second = store_->record_cooldown("claude", std::nullopt, "claude-usage-limit", kNow + 1000);
  EXPECT_EQ(second->until_at, kNow + 1000 + 10 * kMinute);
  EXPECT_EQ(second->hits, 2);
  // A reset time the provider gave wins, but never shortens a cooldown.
  auto reset = store_->record_cooldown("claude", kNow + 3 * 3'600'000, "x", kNow + 2000);
  EXPECT_EQ(reset->until_at, kNow + 3 * 3'600'000);
  auto earlier = store_->record_cooldown("claude", kNow + 3000, "x", kNow + 2500);
  EXPECT_EQ(earlier->until_at, kNow + 3 * 3'600'000);
  ASSERT_TRUE(store_->record_cooldown("codex:work", std::nullopt, "y", kNow).ok());

  auto active = store_->active_cooldowns(kNow + 6 * kMinute);
  ASSERT_TRUE(active.ok());
  ASSERT_EQ(active->size(), 1u);  // codex:work has ended
  EXPECT_EQ(active->front().account, "claude");
  // Long after the last cooldown ended, a new hit starts from the shortest again.
  auto fresh = store_->record_cooldown("codex:work", std::nullopt, "y", kNow + 86'400'000);
  EXPECT_EQ(fresh->hits, 1);
  EXPECT_EQ(fresh->until_at, kNow + 86'400'000 + 5 * kMinute);
  EXPECT_EQ(store_->record_cooldown("", std::nullopt, "z", kNow).error().code, ErrorCode::kUsage);
}

// ---------------------------------------------------------------- recovery

TEST_P(StoreConformance, RecoveryAbandonsExpiredRunsWhoseSupervisorDied) {
  const Loop loop = add_loop("recover");
  const ClaimedRun dead = claim(loop, kNow);
  ASSERT_TRUE(store_->record_process(dead.claim, {4321, 1}, 4321, {4300, 1}, kNow).ok());
  const ClaimedRun alive = claim(loop, kNow + kMinute);
  probe_->start({4400, 1});
  ASSERT_TRUE(store_->record_process(alive.claim, {4401, 1}, 4401, {4400, 1}, kNow).ok());
  claim(loop, kNow + 2 * kMinute, "runner-a", kNow + kMinute);  // lease still live

  auto recovered = store_->recover_expired_runs(kNow + kMinute, recovery(10, 5000), {});
  ASSERT_TRUE(recovered.ok());
  ASSERT_EQ(recovered->abandoned.size(), 1u);
  EXPECT_EQ(recovered->abandoned[0].id, dead.run.id);
  EXPECT_EQ(recovered->abandoned[0].status, RunStatus::kAbandoned);
  EXPECT_EQ(recovered->abandoned[0].error, "run lease expired before completion");
  ASSERT_EQ(recovered->deferred.size(), 1u);
  EXPECT_EQ(recovered->deferred[0].lease_expires_at, kNow + kMinute + 5000);
  EXPECT_EQ(run_at(loop, kNow + 2 * kMinute).status, RunStatus::kRunning);
  // An abandoned slot is retried while attempts remain.
  EXPECT_TRUE(claimable(loop, kNow, kNow + kMinute + 1));
}

// A run records its claimant's host; seen from another host its pids mean
// nothing (they may be any process there): it is recovered and reclaimed by
// its lease's expiry alone, never deferred for a "living" pid.
TEST_P(StoreConformance, ARunOfAnotherHostIsRecoveredByItsLeaseAlone) {
  const Loop loop = add_loop("elsewhere");
  probe_->set_host("runner-host-a");
  const ClaimedRun first = claim(loop, kNow);
  EXPECT_EQ(first.run.host, "runner-host-a");
  EXPECT_EQ(run_at(loop, kNow).host, "runner-host-a");
  ASSERT_TRUE(store_->record_process(first.claim, {4401, 1}, 4401, {4400, 1}, kNow).ok());
  probe_->start({4400, 1});  // that pid lives here, whatever it is on runner-host-a

  // On the run's own host the living supervisor defers it.
  auto here = store_->recover_expired_runs(kNow + kMinute, recovery(10, 5000), {});
  ASSERT_TRUE(here.ok());
  EXPECT_TRUE(here->abandoned.empty());
  ASSERT_EQ(here->deferred.size(), 1u);
  EXPECT_EQ(here->deferred[0].id, first.run.id);
  const ClaimedRun second = claim(loop, kNow + kMinute);
  ASSERT_TRUE(store_->record_process(second.claim, {4401, 1}, 4401, {4400, 1}, kNow).ok());

  // From another host, the same pid is no reason to wait.
  probe_->set_host("runner-host-b");
  auto there = store_->recover_expired_runs(kNow + kMinute, recovery(10, 5000), {});
  ASSERT_TRUE(there.ok());
  ASSERT_EQ(there->abandoned.size(), 1u);
  EXPECT_EQ(there->abandoned[0].id, second.run.id);
  EXPECT_TRUE(there->deferred.empty());
  // The deferred one is reclaimed from here once its (extended) lease ran out.
  EXPECT_FALSE(claimable(loop, kNow, kNow + kMinute + 4999));
  EXPECT_TRUE(claimable(loop, kNow, kNow + kMinute + 5000));
  EXPECT_EQ(run_at(loop, kNow).host, "runner-host-b");
}

TEST_P(StoreConformance, RecoveryStopsAtItsLimit) {
  const Loop loop = add_loop("batch");
  for (int i = 0; i < 5; ++i) claim(loop, kNow + i * kMinute);
  auto first = store_->recover_expired_runs(kNow + kMinute, recovery(2), {});
  EXPECT_EQ(first->abandoned.size(), 2u);
  auto second = store_->recover_expired_runs(kNow + kMinute, recovery(10), {});
  EXPECT_EQ(second->abandoned.size(), 3u);
}

// ---------------------------------------------------------------- runners

TEST_P(StoreConformance, RunnersAreListedWithTheirRunningRunsAndForgottenWhenLongGone) {
  const RunnerRecord a{
      "daemon@host-a:10", "host-a", "host=host-a,gpu=yes", {10, 5}, "/home/a", kNow, 0, 0};
  const RunnerRecord b{
      "daemon@host-b:20", "host-b", "host=host-b", {20, std::nullopt}, "/srv/b", kNow, 0, 0};
  ASSERT_TRUE(store_->register_runner(b, kNow).ok());
  ASSERT_TRUE(store_->register_runner(a, kNow).ok());
  const Loop loop = add_loop("work");
  claim(loop, kNow, a.id);
  claim(loop, kNow + kMinute, a.id);
  const ClaimedRun done = claim(loop, kNow + 2 * kMinute, a.id);
  finish(done.claim, RunStatus::kSucceeded);
  ASSERT_TRUE(store_->heartbeat_runner(b.id, kNow + 5000).ok());

  auto listed = store_->list_runners();
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->size(), 2u);
  const RunnerRecord& first = (*listed)[0];  // by host
  EXPECT_EQ(first.id, a.id);
  EXPECT_EQ(first.labels, a.labels);
  EXPECT_EQ(first.process.pid, 10);
  EXPECT_EQ(first.process.started_at, 5);
  EXPECT_EQ(first.home, "/home/a");
  EXPECT_EQ(first.last_seen_at, kNow);
  EXPECT_EQ(first.running, 2);  // the finished one does not count
  EXPECT_EQ((*listed)[1].id, b.id);
  EXPECT_EQ((*listed)[1].last_seen_at, kNow + 5000);
  EXPECT_EQ((*listed)[1].running, 0);
  EXPECT_FALSE((*listed)[1].process.started_at.has_value());

  // Registering again replaces the row; removing it ends its heartbeats.
  RunnerRecord again = a;
  again.labels = "host=host-a";
  ASSERT_TRUE(store_->register_runner(again, kNow + 6000).ok());
  ASSERT_TRUE(store_->remove_runner(b.id).ok());
  EXPECT_EQ(store_->heartbeat_runner(b.id, kNow + 7000).error().code, ErrorCode::kNotFound);
  listed = store_->list_runners();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].labels, "host=host-a");

  // A runner not seen for a day is forgotten when another registers.
  ASSERT_TRUE(store_->register_runner(b, kNow + 6000 + kForgetRunnerMs + 1).ok());
  listed = store_->list_runners();
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, b.id);
  EXPECT_EQ(store_->register_runner(RunnerRecord{}, kNow).error().code, ErrorCode::kUsage);
}

// ---------------------------------------------------------------- daemon lease

TEST_P(StoreConformance, TheFirstDaemonAcquiresGenerationOne) {
  auto lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  ASSERT_TRUE(lease.ok() && lease->has_value());
  EXPECT_EQ((*lease)->generation, 1);
  EXPECT_EQ((*lease)->lease_id.rfind("L1-", 0), 0u);
  EXPECT_EQ((*lease)->expires_at, kNow + 30'000);
  EXPECT_EQ((*lease)->host, probe_->host_name());
  EXPECT_TRUE(store_->check_fence({(*lease)->lease_id}, kNow + 1).ok());
}

TEST_P(StoreConformance, ALiveLeaseOfAnotherLiveDaemonIsNotTaken) {
  probe_->start({100, 1});
  auto first = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  auto second = store_->acquire_daemon_lease({200, 2}, 30'000, kNow + 1000);
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(second->has_value());
  // The same daemon may acquire again (a restart of its loop), with a new generation.
  auto again = store_->acquire_daemon_lease({100, 1}, 30'000, kNow + 2000);
  ASSERT_TRUE(again.ok() && again->has_value());
  EXPECT_EQ((*again)->generation, 2);
  EXPECT_EQ(store_->check_fence({(*first)->lease_id}, kNow + 2001).error().message,
            "daemon lease lost");
}

TEST_P(StoreConformance, AnExpiredLeaseOrADeadHolderIsTakenOver) {
  probe_->start({100, 1});
  ASSERT_TRUE(store_->acquire_daemon_lease({100, 1}, 30'000, kNow)->has_value());
  auto after_expiry = store_->acquire_daemon_lease({200, 2}, 30'000, kNow + 30'000);
  ASSERT_TRUE(after_expiry.ok() && after_expiry->has_value());
  EXPECT_EQ((*after_expiry)->generation, 2);
  // Holder 200 is not alive on this host: its live lease is taken over.
  auto takeover = store_->acquire_daemon_lease({300, 3}, 30'000, kNow + 31'000);
  ASSERT_TRUE(takeover.ok() && takeover->has_value());
  EXPECT_EQ((*takeover)->generation, 3);
  EXPECT_EQ((*takeover)->holder.pid, 300);
}

TEST_P(StoreConformance, HeartbeatOnlyWhileTheLeaseLives) {
  auto lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  const std::string id = (*lease)->lease_id;
  ASSERT_TRUE(store_->heartbeat_daemon_lease(id, 30'000, kNow + 10'000).ok());
  EXPECT_EQ((*store_->get_daemon_lease())->expires_at, kNow + 40'000);
  auto late = store_->heartbeat_daemon_lease(id, 30'000, kNow + 40'000);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.error().message, "daemon lease lost");
}

TEST_P(StoreConformance, ReleaseEndsTheLeaseAndTheGenerationGoesOn) {
  auto lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  const std::string id = (*lease)->lease_id;
  ASSERT_TRUE(store_->release_daemon_lease(id, kNow + 5'000).ok());
  // Released: expired for every host whatever its clock, its release time kept.
  auto released = store_->get_daemon_lease();
  ASSERT_TRUE(released.ok() && released->has_value());
  EXPECT_TRUE(was_released(**released));
  EXPECT_EQ((*released)->heartbeat_at, kNow + 5'000);
  EXPECT_FALSE(store_->check_fence({id}, kNow + 1).ok());
  EXPECT_FALSE(store_->heartbeat_daemon_lease(id, 30'000, kNow + 1).ok());
  auto next = store_->acquire_daemon_lease({200, 2}, 30'000, kNow + 2);
  EXPECT_EQ((*next)->generation, 2);
}

TEST_P(StoreConformance, EveryFencedWriteFailsOnceTheLeaseIsLost) {
  auto lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  const Fence fence{(*lease)->lease_id};
  Loop loop = add_loop("fenced");
  ASSERT_TRUE(store_->release_daemon_lease(fence.daemon_lease_id, kNow).ok());
  const auto lost = [](const auto& result) {
    return !result.ok() && result.error().code == ErrorCode::kConflict &&
           result.error().message == "daemon lease lost";
  };
  EXPECT_TRUE(lost(store_->claim_slot({loop.id, kNow}, "d", kNow, fence)));
  EXPECT_TRUE(lost(store_->claim_slots({{loop.id, kNow}}, "d", kNow, fence)));
  EXPECT_TRUE(lost(store_->record_skipped(loop, kNow, "missed", kNow, fence)));
  EXPECT_TRUE(lost(store_->expire_loops(kNow, fence)));
  EXPECT_TRUE(lost(store_->recover_expired_runs(kNow, {}, fence)));
  Loop changed = loop;
  changed.name = "changed";
  EXPECT_TRUE(lost(store_->update_loop_parts(changed, {true, true}, fence, kNow)));
  EXPECT_EQ(*store_->count_runs(std::nullopt), 0);
  EXPECT_EQ((*store_->get_loop(loop.id))->name, "fenced");
}

// ---------------------------------------------------------------- pruning

TEST_P(StoreConformance, PruneRemovesOldTerminalRunsOnly) {
  const Loop loop = add_loop("prune");
  finish(claim(loop, kNow, "r", kNow).claim, RunStatus::kSucceeded);
  finish(claim(loop, kNow + kMinute, "r", kNow + 10).claim, RunStatus::kFailed, kNow + 20);
  claim(loop, kNow + 2 * kMinute, "r", kNow + 20);  // running: never pruned
  finish(claim(loop, kNow + 3 * kMinute, "r", kNow + 86'400'000).claim, RunStatus::kSucceeded,
         kNow + 86'400'001);

  auto dry = store_->prune_runs(prune(3'600'000, std::nullopt, true, kNow + 86'400'000));
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->runs, 2);
  EXPECT_EQ(*store_->count_runs(std::nullopt), 4);
  auto pruned = store_->prune_runs(prune(3'600'000, std::nullopt, false, kNow + 86'400'000));
  EXPECT_EQ(pruned->runs, 2);
  EXPECT_EQ(*store_->count_runs(std::nullopt), 2);
  EXPECT_EQ(*store_->count_runs(RunStatus::kRunning), 1);
}

TEST_P(StoreConformance, PruneKeepsTheNewestRunsOfEachLoop) {
  const Loop a = add_loop("a");
  const Loop b = add_loop("b");
  for (int i = 0; i < 4; ++i) {
    finish(claim(a, kNow + i * kMinute, "r", kNow + i).claim, RunStatus::kSucceeded, kNow + i);
    finish(claim(b, kNow + i * kMinute, "r", kNow + i).claim, RunStatus::kSucceeded, kNow + i);
  }
  auto pruned = store_->prune_runs(prune(std::nullopt, 1, false, kNow));
  EXPECT_EQ(pruned->runs, 6);
  EXPECT_EQ(store_->list_runs(runs(a.id))->front().scheduled_for, kNow + 3 * kMinute);
  EXPECT_EQ(store_->list_runs(runs(b.id))->size(), 1u);
}

TEST_P(StoreConformance, PruneNeedsACriterion) {
  auto refused = store_->prune_runs(prune(std::nullopt, std::nullopt, false, kNow));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
  EXPECT_FALSE(store_->prune_runs(prune(std::nullopt, -1, false, kNow)).ok());
}

// ---------------------------------------------------------------- fencing, by time and takeover

TEST_P(StoreConformance, FencedWritesPassWhileTheLeaseLivesAndFailOnceItExpiresByTime) {
  probe_->start({100, 1});
  auto lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  ASSERT_TRUE(lease.ok() && lease->has_value());
  const Fence fence{(*lease)->lease_id};
  Loop loop = add_loop("timed");
  // Live: every fenced write goes through.
  Loop first = loop;
  first.name = "first";
  ASSERT_TRUE(store_->update_loop_parts(first, {.config = true}, fence, kNow + 29'999).ok());
  EXPECT_TRUE(store_->claim_slot({loop.id, kNow}, "d", kNow + 29'999, fence)->has_value());
  // Not released: the lease simply ran out at kNow + 30 s; the fence is
  // checked at now.
  const TimeMs late = kNow + 30'000;
  Loop second = first;
  second.name = "second";
  second.config_version = 2;
  EXPECT_TRUE(lost_lease(store_->update_loop_parts(second, {.config = true}, fence, late)));
  EXPECT_TRUE(lost_lease(store_->claim_slot({loop.id, kNow + kMinute}, "d", late, fence)));
  EXPECT_TRUE(lost_lease(store_->claim_slots({{loop.id, kNow + kMinute}}, "d", late, fence)));
  EXPECT_TRUE(lost_lease(store_->record_skipped(loop, kNow + kMinute, "missed", late, fence)));
  EXPECT_TRUE(lost_lease(store_->expire_loops(late, fence)));
  EXPECT_TRUE(lost_lease(store_->recover_expired_runs(late, {}, fence)));
  EXPECT_EQ((*store_->get_loop(loop.id))->name, "first");
  EXPECT_EQ(*store_->count_runs(std::nullopt), 1);
}

TEST_P(StoreConformance, FencedWritesOfTheOldHolderFailAfterATakeover) {
  auto old_lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  ASSERT_TRUE(old_lease.ok() && old_lease->has_value());
  const Fence old_fence{(*old_lease)->lease_id};
  // Holder 100 is not alive on this host: another daemon takes the live lease over.
  auto new_lease = store_->acquire_daemon_lease({200, 2}, 30'000, kNow + 1000);
  ASSERT_TRUE(new_lease.ok() && new_lease->has_value());
  const Fence new_fence{(*new_lease)->lease_id};
  Loop loop = add_loop("taken");
  const TimeMs now = kNow + 2000;  // well within the old lease's 30 s
  Loop changed = loop;
  changed.name = "by-old";
  EXPECT_TRUE(lost_lease(store_->update_loop_parts(changed, {.config = true}, old_fence, now)));
  EXPECT_TRUE(lost_lease(store_->claim_slot({loop.id, kNow}, "old", now, old_fence)));
  EXPECT_TRUE(lost_lease(store_->record_skipped(loop, kNow, "missed", now, old_fence)));
  EXPECT_TRUE(lost_lease(store_->expire_loops(now, old_fence)));
  EXPECT_TRUE(lost_lease(store_->recover_expired_runs(now, {}, old_fence)));
  EXPECT_EQ(*store_->count_runs(std::nullopt), 0);
  // The new holder's writes pass.
  changed.name = "by-new";
  EXPECT_TRUE(store_->update_loop_parts(changed, {.config = true}, new_fence, now).ok());
  EXPECT_TRUE(store_->claim_slot({loop.id, kNow}, "new", now, new_fence)->has_value());
}

// ---------------------------------------------------------------- claimable loops

TEST_P(StoreConformance, ClaimsRefuseLoopsThatArePausedExpiredCompletedOrArchived) {
  struct Case {
    const char* name;
    LoopStatus status;
    bool archived;
    const char* reason;
    bool manual_allowed;
  };
  const Case cases[] = {
      {"paused", LoopStatus::kPaused, false, "it is paused", true},
      {"expired", LoopStatus::kExpired, false, "it has expired", false},
      {"completed", LoopStatus::kCompleted, false, "it has completed", false},
      {"archived", LoopStatus::kPaused, true, "it is archived", false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Loop loop = make_loop(c.name);
    loop.status = c.status;
    loop.archived = c.archived;
    ASSERT_TRUE(store_->create_loop(loop).ok());
    auto refused = store_->claim_slot({loop.id, kNow}, "daemon", kNow, {});
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
    EXPECT_NE(refused.error().message.find(c.name), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find(c.reason), std::string::npos) << refused.error().message;
    EXPECT_FALSE(store_->get_run_by_slot(loop.id, kNow)->has_value());
    auto manual = store_->claim_slot({loop.id, kNow, true}, "trigger", kNow, {});
    EXPECT_EQ(manual.ok(), c.manual_allowed);
    if (c.manual_allowed) {
      EXPECT_TRUE(manual->has_value());
    } else {
      EXPECT_FALSE(store_->get_run_by_slot(loop.id, kNow)->has_value());
    }
  }
}

TEST_P(StoreConformance, ABatchClaimLeavesOutSlotsOfLoopsThatCannotBeClaimed) {
  const Loop active = add_loop("active");
  Loop paused = make_loop("paused");
  paused.status = LoopStatus::kPaused;
  ASSERT_TRUE(store_->create_loop(paused).ok());
  Loop expired = make_loop("expired");
  expired.status = LoopStatus::kExpired;
  ASSERT_TRUE(store_->create_loop(expired).ok());
  auto claimed = store_->claim_slots({{paused.id, kNow}, {active.id, kNow}, {expired.id, kNow}},
                                     "daemon", kNow, {});
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ(claimed->front().run.loop_id, active.id);
  EXPECT_EQ(*store_->count_runs(std::nullopt), 1);
}

// ---------------------------------------------------------------- free re-attempts

TEST_P(StoreConformance, UsageLimitedReattemptsAreFreeOnlyUpToTheBound) {
  Loop loop = make_loop("limited");
  loop.max_attempts = 2;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  RunOutcome limited;
  limited.status = RunStatus::kFailed;
  limited.usage_limited = true;
  ClaimedRun current = claim(loop, kNow);
  TimeMs now = kNow;
  for (int free = 1; free <= kMaxFreeReattempts; ++free) {
    ASSERT_TRUE(store_->finish_claim(current.claim, limited, ++now).ok());
    current = claim(loop, kNow, "runner", ++now);
    EXPECT_EQ(current.run.attempt, 1) << "free re-attempt " << free;
    EXPECT_EQ(current.run.free_reattempts, free);
  }
  // The bound is used up: the next usage limit costs an attempt...
  ASSERT_TRUE(store_->finish_claim(current.claim, limited, ++now).ok());
  current = claim(loop, kNow, "runner", ++now);
  EXPECT_EQ(current.run.attempt, 2);
  EXPECT_EQ(current.run.free_reattempts, kMaxFreeReattempts);
  // ...and with no attempt left the slot is done.
  ASSERT_TRUE(store_->finish_claim(current.claim, limited, ++now).ok());
  EXPECT_FALSE(claimable(loop, kNow, ++now));
}

TEST_P(StoreConformance, ReclaimsOfAnExpiredLeaseAreFreeOnlyUpToTheBound) {
  Loop loop = make_loop("crashing");
  loop.max_attempts = 2;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  ClaimedRun current = claim(loop, kNow);
  TimeMs now = kNow;
  for (int free = 1; free <= kMaxFreeReattempts; ++free) {
    // The supervisor died (the probe knows no process) and the lease ran out.
    ASSERT_TRUE(
        store_->record_process(current.claim, {500 + free, 1}, 500 + free, {600 + free, 1}, now)
            .ok());
    now += loop.lease_ms;
    current = claim(loop, kNow, "runner", now);
    EXPECT_EQ(current.run.attempt, 1) << "free reclaim " << free;
    EXPECT_EQ(current.run.free_reattempts, free);
  }
  now += loop.lease_ms;
  current = claim(loop, kNow, "runner", now);
  EXPECT_EQ(current.run.attempt, 2);
  now += loop.lease_ms;
  EXPECT_FALSE(claimable(loop, kNow, now));
  // A live supervisor keeps its slot even past the lease.
  const Loop other = add_loop("alive");
  const ClaimedRun held = claim(other, kNow, "runner", now);
  probe_->start({700, 1});
  ASSERT_TRUE(store_->record_process(held.claim, {701, 1}, 701, {700, 1}, now).ok());
  EXPECT_FALSE(claimable(other, kNow, now + other.lease_ms));
}

// ---------------------------------------------------------------- cooldown cap

TEST_P(StoreConformance, ACooldownNeverLastsMoreThanSevenDaysFromNow) {
  EXPECT_EQ(kMaxCooldownMs, 7 * 24 * 3'600'000LL);
  // A reset time far away (a hostile or garbled message) is cut to the cap.
  for (const TimeMs reset :
       {kNow + kMaxCooldownMs + 1, kNow + 100 * kMaxCooldownMs, TimeMs{253'402'300'799'000}}) {
    auto hit = store_->record_cooldown("claude", reset, "limit", kNow);
    ASSERT_TRUE(hit.ok());
    EXPECT_EQ(hit->until_at, kNow + kMaxCooldownMs) << reset;
  }
  // Exactly the cap is kept; a later hit may reach its own now + cap.
  auto exact = store_->record_cooldown("codex", kNow + kMaxCooldownMs, "limit", kNow);
  EXPECT_EQ(exact->until_at, kNow + kMaxCooldownMs);
  auto later = store_->record_cooldown("codex", kNow + 10 * kMaxCooldownMs, "limit", kNow + 1000);
  EXPECT_EQ(later->until_at, kNow + 1000 + kMaxCooldownMs);
  // A capped cooldown is not shortened by a later hit without a reset time...
  auto kept = store_->record_cooldown("codex", std::nullopt, "limit", kNow + 2000);
  EXPECT_EQ(kept->until_at, kNow + 1000 + kMaxCooldownMs);
  // ...and growing defaults stay within the cap, however many hits.
  TimeMs now = kNow;
  for (int i = 0; i < 40; ++i) {
    auto hit = store_->record_cooldown("gemini", std::nullopt, "limit", now);
    ASSERT_TRUE(hit.ok());
    EXPECT_GT(hit->until_at, now);
    EXPECT_LE(hit->until_at, now + kMaxCooldownMs);
    now = hit->until_at;  // the next hit comes as this one ends
  }
}

// ---------------------------------------------------------------- rows

TEST_P(StoreConformance, EveryLoopFieldIsStoredAndReadBack) {
  Loop loop = make_loop("full");
  loop.description = "all fields";
  loop.schedule.type = ScheduleType::kCron;
  loop.schedule.expression = "*/5 * * * *";
  loop.schedule.timezone = "Europe/Berlin";
  loop.schedule.jitter_ms = 1234;
  loop.target.argv = {"/bin/echo", "x"};
  loop.machine = {{"os", "linux"}};
  loop.retry_scheduled_for = kNow + 7;
  loop.catch_up = {CatchUpMode::kAll, 17, 99'000};
  loop.overlap = OverlapPolicy::kQueue;
  loop.max_attempts = 5;
  loop.retry_delay_ms = 4321;
  loop.retry_backoff = RetryBackoff::kExponential;
  loop.lease_ms = 98'765;
  loop.timeout_ms = 55'000;
  loop.idle_timeout_ms = 44'000;
  loop.log_limit_bytes = 12'345'678;
  loop.expires_at = kNow + 86'400'000;
  loop.missed_count = 3;
  loop.updated_at = kNow + 9;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  auto read = store_->get_loop(loop.id);
  ASSERT_TRUE(read.ok() && read->has_value());
  const Loop& got = **read;
  EXPECT_EQ(got.description, loop.description);
  EXPECT_EQ(got.schedule.expression, loop.schedule.expression);
  EXPECT_EQ(got.schedule.timezone, loop.schedule.timezone);
  EXPECT_EQ(got.schedule.jitter_ms, 1234);
  EXPECT_EQ(got.machine, loop.machine);
  EXPECT_EQ(got.retry_scheduled_for, kNow + 7);
  EXPECT_EQ(got.catch_up.mode, CatchUpMode::kAll);
  EXPECT_EQ(got.catch_up.limit, 17);
  EXPECT_EQ(got.catch_up.window, 99'000);
  EXPECT_EQ(got.overlap, OverlapPolicy::kQueue);
  EXPECT_EQ(got.max_attempts, 5);
  EXPECT_EQ(got.retry_delay_ms, 4321);
  EXPECT_EQ(got.retry_backoff, RetryBackoff::kExponential);
  EXPECT_EQ(got.lease_ms, 98'765);
  EXPECT_EQ(got.timeout_ms, 55'000);
  EXPECT_EQ(got.idle_timeout_ms, 44'000);
  EXPECT_EQ(got.log_limit_bytes, 12'345'678);
  EXPECT_EQ(got.expires_at, kNow + 86'400'000);
  EXPECT_EQ(got.missed_count, 3);
  EXPECT_EQ(got.created_at, kNow);
  EXPECT_EQ(got.updated_at, kNow + 9);
  // An update writes every field the same way.
  Loop changed = got;
  changed.log_limit_bytes = 1 << 20;
  changed.schedule = Schedule{};
  changed.schedule.type = ScheduleType::kInterval;
  changed.schedule.every_ms = 90'000;
  changed.schedule.anchor = IntervalAnchor::kFixedDelay;
  ASSERT_TRUE(store_->update_loop_parts(changed, {true, true}, {}, kNow + 10).ok());
  const Loop after = **store_->get_loop(loop.id);
  EXPECT_EQ(after.log_limit_bytes, 1 << 20);
  EXPECT_EQ(after.schedule.type, ScheduleType::kInterval);
  EXPECT_EQ(after.schedule.every_ms, 90'000);
  EXPECT_EQ(after.schedule.anchor, IntervalAnchor::kFixedDelay);
  EXPECT_EQ(after.schedule.expression, "");
  EXPECT_EQ(after.updated_at, kNow + 10);
  EXPECT_EQ(after.config_version, 2);
  EXPECT_EQ(after.state_version, 2);
  EXPECT_EQ(after.retry_scheduled_for, kNow + 7);
  EXPECT_EQ(after.missed_count, 3);
  // The default log limit is 64 MiB.
  EXPECT_EQ((*store_->get_loop(add_loop("plain").id))->log_limit_bytes, 64LL << 20);
}

TEST_P(StoreConformance, ListedRunsLeaveTheOutputTailsToGetRun) {
  const Loop loop = add_loop("tails");
  const ClaimedRun run = claim(loop, kNow);
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  outcome.stdout_tail = std::string(1000, 'o');
  outcome.stderr_tail = "err";
  ASSERT_TRUE(store_->finish_claim(run.claim, outcome, kNow + 5).ok());
  auto listed = store_->list_runs(runs(loop.id));
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ(listed->front().id, run.run.id);
  EXPECT_EQ(listed->front().status, RunStatus::kSucceeded);
  EXPECT_EQ(listed->front().stdout_tail, "");
  EXPECT_EQ(listed->front().stderr_tail, "");
  auto full = store_->get_run(run.run.id);
  EXPECT_EQ((*full)->stdout_tail, outcome.stdout_tail);
  EXPECT_EQ((*full)->stderr_tail, "err");
}

// ---------------------------------------------------------------- pruning ids and bounds

TEST_P(StoreConformance, PruneNamesTheRunsItDeletesAndADryRunNone) {
  const Loop a = add_loop("a");
  const Loop b = add_loop("b");
  std::vector<std::string> a_ids;
  for (int i = 0; i < 5; ++i) {
    const ClaimedRun run = claim(a, kNow + i * kMinute, "r", kNow + i);
    finish(run.claim, RunStatus::kFailed, kNow + i);
    a_ids.push_back(run.run.id);
  }
  const ClaimedRun b_run = claim(b, kNow, "r", kNow);
  finish(b_run.claim, RunStatus::kSucceeded, kNow);
  auto dry = store_->prune_runs(prune(std::nullopt, 2, true, kNow + 10));
  ASSERT_TRUE(dry.ok());
  EXPECT_EQ(dry->runs, 3);
  EXPECT_TRUE(dry->run_ids.empty());
  auto pruned = store_->prune_runs(prune(std::nullopt, 2, false, kNow + 10));
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(pruned->runs, 3);
  std::vector<std::string> ids = pruned->run_ids;
  std::sort(ids.begin(), ids.end());
  std::vector<std::string> expected(a_ids.begin(), a_ids.begin() + 3);  // the oldest three
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(ids, expected);
  EXPECT_TRUE(store_->get_run(b_run.run.id)->has_value());
  // keep 0 deletes every finished run.
  auto all = store_->prune_runs(prune(std::nullopt, 0, false, kNow + 10));
  EXPECT_EQ(all->runs, 3);
  EXPECT_EQ(*store_->count_runs(std::nullopt), 0);
}

TEST_P(StoreConformance, PruneCombinesAgeAndKeepAndOrdersTiesById) {
  const Loop loop = add_loop("ties");
  // Six runs, two per millisecond.
  for (int i = 0; i < 6; ++i) {
    finish(claim(loop, kNow + i * kMinute, "r", kNow + i / 2).claim, RunStatus::kSucceeded,
           kNow + 10);
  }
  // Older than kNow + 2 (four runs) and beyond the newest 3 (three runs): both hold for three.
  auto pruned = store_->prune_runs(prune(kMinute - 2, 3, false, kNow + kMinute));
  ASSERT_TRUE(pruned.ok());
  EXPECT_EQ(pruned->runs, 3);
  auto left = store_->list_runs(runs(loop.id));
  ASSERT_EQ(left->size(), 3u);
  // More than 500 finished runs (one batch) of one loop are all pruned.
  const Loop many = add_loop("many");
  for (int i = 0; i < 520; ++i) {
    finish(claim(many, kNow + i, "r", kNow).claim, RunStatus::kSucceeded, kNow);
  }
  auto big = store_->prune_runs(prune(std::nullopt, 10, false, kNow));
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->runs, 510);
  EXPECT_EQ(big->run_ids.size(), 510u);
  EXPECT_EQ(store_->list_runs(runs(many.id, std::nullopt, 1000))->size(), 10u);
}

// ---------------------------------------------------------------- expiry at claim time

TEST_P(StoreConformance, ClaimsOfALoopPastItsExpiryAreRefusedAndExpireIt) {
  // Expiry at, and before, the claim's now; scheduled and manual claims.
  const DurationMs past[] = {0, 1, kMinute, 30 * kMinute};
  int n = 0;
  for (const DurationMs ago : past) {
    for (const bool manual : {false, true}) {
      SCOPED_TRACE(std::to_string(ago) + (manual ? " manual" : " scheduled"));
      Loop loop = make_loop("ends-" + std::to_string(++n));
      loop.expires_at = kNow - ago;
      ASSERT_TRUE(store_->create_loop(loop).ok());
      auto refused = store_->claim_slot({loop.id, kNow, manual}, "daemon", kNow, {});
      ASSERT_FALSE(refused.ok());
      EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
      EXPECT_NE(refused.error().message.find("loop " + loop.name + " expired at " +
                                             format_time(*loop.expires_at)),
                std::string::npos)
          << refused.error().message;
      EXPECT_FALSE(store_->get_run_by_slot(loop.id, kNow)->has_value());
      const Loop after = **store_->get_loop(loop.id);
      EXPECT_EQ(after.status, LoopStatus::kExpired);
      EXPECT_FALSE(after.next_run_at.has_value());
      // Once expired it stays refused.
      EXPECT_FALSE(store_->claim_slot({loop.id, kNow, manual}, "daemon", kNow + 1, {}).ok());
    }
  }
  // A paused loop past its expiry is refused to a manual claim too.
  Loop paused = make_loop("paused-ended");
  paused.status = LoopStatus::kPaused;
  paused.expires_at = kNow - 1;
  ASSERT_TRUE(store_->create_loop(paused).ok());
  auto manual = store_->claim_slot({paused.id, kNow, true}, "trigger", kNow, {});
  ASSERT_FALSE(manual.ok());
  EXPECT_NE(manual.error().message.find("expired at"), std::string::npos);
  // Before its expiry a loop is claimed as usual.
  Loop later = make_loop("not-yet");
  later.expires_at = kNow + 1;
  ASSERT_TRUE(store_->create_loop(later).ok());
  EXPECT_TRUE(claimable(later, kNow, kNow));
}

TEST_P(StoreConformance, ABatchClaimLeavesOutAndExpiresLoopsPastTheirExpiry) {
  const Loop active = add_loop("active");
  Loop ended = make_loop("ended");
  ended.expires_at = kNow;
  ASSERT_TRUE(store_->create_loop(ended).ok());
  auto claimed = store_->claim_slots({{ended.id, kNow}, {active.id, kNow}}, "daemon", kNow, {});
  ASSERT_TRUE(claimed.ok()) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1u);
  EXPECT_EQ(claimed->front().run.loop_id, active.id);
  EXPECT_EQ((*store_->get_loop(ended.id))->status, LoopStatus::kExpired);
}

// ---------------------------------------------------------------- deleting a running loop

TEST_P(StoreConformance, ALoopWithARunningRunIsNotDeleted) {
  const Loop loop = add_loop("busy");
  const ClaimedRun done = claim(loop, kNow);
  finish(done.claim, RunStatus::kSucceeded);
  const ClaimedRun running = claim(loop, kNow + kMinute);
  // Refused before the process is recorded and after.
  for (const int step : {0, 1}) {
    SCOPED_TRACE(step);
    if (step == 1) {
      ASSERT_TRUE(store_->record_process(running.claim, {4321, 1}, 4321, {4300, 1}, kNow).ok());
    }
    auto refused = store_->delete_loop(loop.id);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
    EXPECT_NE(refused.error().message.find("run " + running.run.id + " is running"),
              std::string::npos)
        << refused.error().message;
    if (step > 0) {
      EXPECT_NE(refused.error().message.find("kill -TERM 4300"), std::string::npos)
          << refused.error().message;
    }
    EXPECT_TRUE(store_->get_loop(loop.id)->has_value());
    EXPECT_EQ(*store_->count_runs(std::nullopt), 2);
  }
  finish(running.claim, RunStatus::kCancelled, kNow + 2000);
  auto deleted = store_->delete_loop(loop.id);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_EQ(deleted->size(), 2u);
}

// ---------------------------------------------------------------- what of a run lives

TEST_P(StoreConformance, ASlotIsNotClaimedAgainWhileTheTargetOfItsLastAttemptLives) {
  const Loop loop = add_loop("orphan");
  const ClaimedRun first = claim(loop, kNow);
  // The supervisor was killed; the target it started still runs.
  probe_->start({4321, 111});
  ASSERT_TRUE(store_->record_process(first.claim, {4321, 111}, 4321, {4300, 100}, kNow).ok());
  EXPECT_FALSE(claimable(loop, kNow, kNow + 2 * kMinute));
  EXPECT_EQ(run_at(loop, kNow).claim_token, first.claim.token);
  // Recovery abandons the run (its caller kills the orphan); until the
  // target is gone the abandoned slot is not retried either.
  auto recovered = store_->recover_expired_runs(kNow + 2 * kMinute, recovery(10, 5000), {});
  ASSERT_TRUE(recovered.ok());
  ASSERT_EQ(recovered->abandoned.size(), 1u);
  EXPECT_TRUE(recovered->deferred.empty());
  EXPECT_FALSE(claimable(loop, kNow, kNow + 3 * kMinute));
  EXPECT_EQ(run_at(loop, kNow).status, RunStatus::kAbandoned);
  probe_->stop(4321);
  const ClaimedRun retry = claim(loop, kNow, "runner-b", kNow + 3 * kMinute);
  EXPECT_EQ(retry.run.attempt, 1);
  EXPECT_EQ(retry.run.free_reattempts, 1);
  // The same for a running row that recovery has not seen yet.
  const ClaimedRun second = claim(loop, kNow + kMinute);
  probe_->start({5321, 222});
  ASSERT_TRUE(store_->record_process(second.claim, {5321, 222}, 5321, {5300, 200}, kNow).ok());
  EXPECT_FALSE(claimable(loop, kNow + kMinute, kNow + 2 * kMinute));
  probe_->stop(5321);
  EXPECT_TRUE(claimable(loop, kNow + kMinute, kNow + 2 * kMinute));
}

TEST_P(StoreConformance, RetriesOfAbandonedRunsAreFreeOnlyUpToTheBound) {
  Loop loop = make_loop("abandoned");
  loop.max_attempts = 2;
  ASSERT_TRUE(store_->create_loop(loop).ok());
  ClaimedRun current = claim(loop, kNow);
  TimeMs now = kNow;
  for (int free = 1; free <= kMaxFreeReattempts; ++free) {
    now += loop.lease_ms;
    auto recovered = store_->recover_expired_runs(now, recovery(10), {});
    ASSERT_TRUE(recovered.ok());
    ASSERT_EQ(recovered->abandoned.size(), 1u);
    current = claim(loop, kNow, "runner", ++now);
    EXPECT_EQ(current.run.attempt, 1) << "free retry " << free;
    EXPECT_EQ(current.run.free_reattempts, free);
  }
  now += loop.lease_ms;
  ASSERT_EQ(store_->recover_expired_runs(now, recovery(10), {})->abandoned.size(), 1u);
  current = claim(loop, kNow, "runner", ++now);
  EXPECT_EQ(current.run.attempt, 2);
  EXPECT_EQ(current.run.free_reattempts, kMaxFreeReattempts);
  now += loop.lease_ms;
  ASSERT_EQ(store_->recover_expired_runs(now, recovery(10), {})->abandoned.size(), 1u);
  EXPECT_FALSE(claimable(loop, kNow, ++now));
}

// ---------------------------------------------------------------- time arithmetic

TEST_P(StoreConformance, DurationsAddedToTimesSaturateAtTheLatestTime) {
  const Loop loop = add_loop("far");
  const ClaimedRun held = claim(loop, kNow);
  for (const DurationMs huge : {kLatestTime, std::numeric_limits<DurationMs>::max()}) {
    SCOPED_TRACE(huge);
    ASSERT_TRUE(store_->heartbeat_claim(held.claim, huge, kNow).ok());
    EXPECT_EQ(run_at(loop, kNow).lease_expires_at, kLatestTime);
    auto lease = store_->acquire_daemon_lease({77, 1}, huge, kNow);
    ASSERT_TRUE(lease.ok() && lease->has_value());
    EXPECT_EQ((*lease)->expires_at, kLatestTime);
    ASSERT_TRUE(store_->heartbeat_daemon_lease((*lease)->lease_id, huge, kNow).ok());
    EXPECT_EQ((*store_->get_daemon_lease())->expires_at, kLatestTime);
  }
  // Recovery's grace for a living supervisor.
  const Loop other = add_loop("graced");
  const ClaimedRun alive = claim(other, kNow);
  probe_->start({900, 1});
  ASSERT_TRUE(store_->record_process(alive.claim, {901, 1}, 901, {900, 1}, kNow).ok());
  auto recovered = store_->recover_expired_runs(
      kNow + kMinute, recovery(10, std::numeric_limits<DurationMs>::max()), {});
  ASSERT_TRUE(recovered.ok());
  ASSERT_EQ(recovered->deferred.size(), 1u);
  EXPECT_EQ(recovered->deferred[0].lease_expires_at, kLatestTime);
}

// ---------------------------------------------------------------- outcomes

TEST_P(StoreConformance, BothWaysOfFinishingRecordTheSameOutcomeColumns) {
  const Loop loop = add_loop("outcomes");
  RunOutcome outcome;
  outcome.status = RunStatus::kFailed;
  outcome.exit_code = 3;
  outcome.error = "exit 3";
  outcome.stdout_tail = "out";
  outcome.stderr_tail = "err";
  outcome.usage.input_tokens = 10;
  outcome.usage.output_tokens = 20;
  outcome.usage.cost_usd = 0.5;
  const ClaimedRun direct = claim(loop, kNow);
  ASSERT_TRUE(store_->finish_claim(direct.claim, outcome, kNow + 4000).ok());
  const ClaimedRun kept = claim(loop, kNow + kMinute);
  ASSERT_TRUE(
      store_->finish_expired_claim(kept.claim, outcome, kNow + 4000, kNow + 5 * kMinute).ok());
  for (const TimeMs slot : {kNow, kNow + kMinute}) {
    SCOPED_TRACE(slot);
    const orrery::Run run = **store_->get_run(run_at(loop, slot).id);
    EXPECT_EQ(run.status, RunStatus::kFailed);
    EXPECT_EQ(run.exit_code, 3);
    EXPECT_EQ(run.error, "exit 3");
    EXPECT_EQ(run.stdout_tail, "out");
    EXPECT_EQ(run.stderr_tail, "err");
    EXPECT_EQ(run.usage.input_tokens, 10);
    EXPECT_EQ(run.usage.output_tokens, 20);
    EXPECT_EQ(run.usage.cost_usd, 0.5);
    EXPECT_EQ(run.finished_at, kNow + 4000);
    EXPECT_EQ(run.claim_token, "");
    EXPECT_FALSE(run.lease_expires_at.has_value());
  }
  // A finish time before the start (a clock stepped back) gives a duration of 0, either way.
  const ClaimedRun early = claim(loop, kNow + 2 * kMinute, "runner-a", kNow + 10'000);
  ASSERT_TRUE(store_->finish_claim(early.claim, outcome, kNow + 9000).ok());
  EXPECT_EQ(run_at(loop, kNow + 2 * kMinute).duration_ms, 0);
  EXPECT_EQ(run_at(loop, kNow).duration_ms, 4000);
  EXPECT_EQ(run_at(loop, kNow + kMinute).duration_ms, 4000);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreConformance, backends(), backend_name);

}  // namespace
}  // namespace orrery

