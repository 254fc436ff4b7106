// The Store conformance suite, across processes: several processes, each
// with its own store on the same place (a SQLite file, a PostgreSQL
// database), race over slots, the daemon lease, fenced writes, cooldowns,
// deletion, expiry, settlement and recovery, and over workflows' versions,
// idempotency keys, engine leases and step reservations; the guards of docs/storage.md
// hold on every backend ("Runs, claims and fencing", "Fencing", "Expiry",
// "Settling a finished run", "Deleting a loop"), and no race ends in an
// error that only says "try again" (a deadlock on PostgreSQL).
//
// The parent closes its store before it forks (no connection crosses a
// fork; the place, its database made and migrated, stays), each child opens
// its own, and the parent opens one again to check. Children begin together
// (support/forked_children.h) and report through exit codes, files and
// pipes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "store/store_conformance.h"
#include "support/forked_children.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)
using testing::ForkedChildren;
using testing::Lockstep;

// Prints why a child failed and returns its exit code.
int child_failed(int code, const std::string& what) {
  std::fprintf(stderr, "child %d: %s\n", int(getpid()), what.c_str());
  return code;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

bool write_lines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path, std::ios::trunc);
  for (const std::string& line : lines) out << line << "\n";
  out.close();
  return bool(out);
}

// What a child does with its own store; its result is its exit code.
using ChildBody = std::function<int(Store&)>;

class StoreConcurrency : public StoreConformance {
 protected:
  std::string file(const std::string& name) const { return dir_.file(name); }

  // Runs each body in a child of its own, all begun at once once each has
  // opened its store; meanwhile the parent, its store open again, runs
  // `parent` (which drives a Lockstep, say). Waits for every child.
  void race(const std::vector<ChildBody>& bodies, const std::function<void()>& parent = {}) {
    store_.reset();  // no connection crosses a fork; the place stays
    ForkedChildren children;
    for (const ChildBody& body : bodies) {
      ASSERT_TRUE(children.fork([&] {
        std::unique_ptr<Store> store = GetParam().open(place_, probe_);
        if (!store) return child_failed(2, "cannot open a store");
        if (!children.ready_and_wait()) return child_failed(3, "not started");
        return body(*store);
      })) << "fork failed";
    }
    ASSERT_TRUE(children.start()) << "the children did not all get ready";
    store_ = GetParam().open(place_, probe_);
    ASSERT_NE(store_, nullptr);
    if (parent) parent();
    if (HasFatalFailure()) return;  // the children are killed
    EXPECT_EQ(children.wait_all(), "");
  }
};

// ---------------------------------------------------------------- slots

constexpr int kClaimers = 4;
constexpr int kSlots = 1000;

// In a child: tries every slot in its own order, finishes each slot it wins;
// writes "slot run_id" per won slot.
int claim_and_finish_every_slot(Store& store, const Loop& loop, int index,
                                const std::string& wins_path) {
  std::vector<int> order(kSlots);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 shuffle_random(std::uint32_t(index + 1) * 7919u);
  std::shuffle(order.begin(), order.end(), shuffle_random);
  const std::string claimant = "claimant-" + std::to_string(index);
  std::vector<std::string> wins;
  for (const int i : order) {
    const TimeMs slot = kNow - TimeMs(kSlots - i) * kMinute;
    // A write that stayed busy past the busy timeout (a loaded machine) is
    // tried again, as the daemon does; any other error fails the child.
    auto claimed = store.claim_slot({loop.id, slot}, claimant, kNow, {});
    for (int retry = 0; !claimed && claimed.error().code == ErrorCode::kUnavailable && retry < 5;
         ++retry) {
      claimed = store.claim_slot({loop.id, slot}, claimant, kNow, {});
    }
    if (!claimed)
      return child_failed(11,
                          "claim of slot " + std::to_string(i) + ": " + claimed.error().message);
    if (!claimed->has_value()) continue;
    const ClaimedRun& won = **claimed;
    if (won.run.scheduled_for != slot || won.claim.claimed_by != claimant) {
      return child_failed(12, "claim of slot " + std::to_string(i) + " returned another run");
    }
    RunOutcome outcome;
    outcome.status = RunStatus::kSucceeded;
    Status finished = store.finish_claim(won.claim, outcome, kNow + 1);
    for (int retry = 0; !finished && finished.error().code == ErrorCode::kUnavailable && retry < 5;
         ++retry) {
      finished = store.finish_claim(won.claim, outcome, kNow + 1);
    }
    if (!finished)
      return child_failed(13,
                          "finish of slot " + std::to_string(i) + ": " + finished.error().message);
    wins.push_back(std::to_string(i) + " " + won.run.id);
  }
  return write_lines(wins_path, wins) ? 0 : child_failed(14, "cannot write " + wins_path);
}

TEST_P(StoreConcurrency, FourProcessesClaimEachOfAThousandSlotsExactlyOnceAndFinishItOnce) {
  const Loop loop = add_loop("contended");
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kClaimers; ++index) {
    bodies.push_back([this, &loop, index](Store& store) {
      return claim_and_finish_every_slot(store, loop, index, file("wins-" + std::to_string(index)));
    });
  }
  ASSERT_NO_FATAL_FAILURE(race(bodies));

  std::map<int, std::string> run_of_slot;
  std::map<std::string, std::string> claimant_of_run;
  std::string wins_per_child;
  for (int index = 0; index < kClaimers; ++index) {
    const auto wins = lines_of(file("wins-" + std::to_string(index)));
    for (const std::string& line : wins) {
      std::istringstream fields(line);
      int slot = -1;
      std::string run_id;
      fields >> slot >> run_id;
      ASSERT_GE(slot, 0) << line;
      ASSERT_LT(slot, kSlots) << line;
      EXPECT_TRUE(run_of_slot.emplace(slot, run_id).second)
          << "slot " << slot << " was won twice (again by child " << index << ")";
      EXPECT_TRUE(claimant_of_run.emplace(run_id, "claimant-" + std::to_string(index)).second)
          << "run " << run_id << " was won twice";
    }
    wins_per_child += (index ? " " : "") + std::to_string(wins.size());
  }
  // How the slots split is recorded, not asserted: neither database's locks
  // are fair, and one process may win nearly every slot.
  RecordProperty("wins_per_child", wins_per_child);
  EXPECT_EQ(run_of_slot.size(), size_t(kSlots));
  EXPECT_EQ(claimant_of_run.size(), size_t(kSlots));

  EXPECT_EQ(*store_->count_runs(std::nullopt), kSlots);
  EXPECT_EQ(*store_->count_runs(RunStatus::kSucceeded), kSlots);
  auto stored = store_->list_runs(runs(loop.id, std::nullopt, 2 * kSlots));
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  ASSERT_EQ(stored->size(), size_t(kSlots));
  for (const orrery::Run& run : *stored) {
    const int slot = int((run.scheduled_for - (kNow - TimeMs(kSlots) * kMinute)) / kMinute);
    EXPECT_EQ(run_of_slot[slot], run.id) << "slot " << slot;
    EXPECT_EQ(claimant_of_run[run.id], run.claimed_by) << run.id;
    EXPECT_EQ(run.attempt, 1) << run.id;
    EXPECT_EQ(run.free_reattempts, 0) << run.id;
    EXPECT_EQ(run.status, RunStatus::kSucceeded) << run.id;
  }
}

// ---------------------------------------------------------------- pending runs

constexpr int kPendingLoops = 100;
constexpr int kPendingSlotsPerLoop = 10;
constexpr int kRunnerBatch = 7;

// In a child, runner `index`: claims pending runs in batches until none is
// left, finishes each; writes "run_id" per run it claimed.
int claim_pending_until_none(Store& store, int index, const std::string& wins_path) {
  const std::string claimant = "daemon@host:" + std::to_string(index);
  std::vector<std::string> wins;
  while (true) {
    auto claimed = store.claim_pending(claimant, "host=runner", kRunnerBatch, kNow);
    if (!claimed) return child_failed(31, "claim: " + claimed.error().message);
    if (claimed->empty()) break;
    if (claimed->size() > size_t(kRunnerBatch)) return child_failed(32, "more than the batch");
    for (const ClaimedRun& won : *claimed) {
      if (won.claim.claimed_by != claimant) return child_failed(33, "another's claim");
      RunOutcome outcome;
      outcome.status = RunStatus::kSucceeded;
      const Status finished = store.finish_claim(won.claim, outcome, kNow + 1);
      if (!finished) return child_failed(34, "finish: " + finished.error().message);
      wins.push_back(won.run.id);
    }
  }
  return write_lines(wins_path, wins) ? 0 : child_failed(35, "cannot write " + wins_path);
}

TEST_P(StoreConcurrency, FourRunnersClaimEachOfAThousandPendingRunsExactlyOnce) {
  std::set<std::string> planned;
  for (int l = 0; l < kPendingLoops; ++l) {
    const Loop loop = add_loop("pooled-" + std::to_string(l));
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = 1;
    plan.state = schedule_state(loop);
    for (int s = 0; s < kPendingSlotsPerLoop; ++s) plan.claim.push_back(kNow - s * kMinute);
    plan.to_runners = true;
    auto results = store_->commit_plans({plan}, "daemon@scheduler:1", kNow, {});
    ASSERT_TRUE(results.ok()) << results.error().message;
    for (const orrery::Run& run : (*results)[0].pending) planned.insert(run.id);
  }
  ASSERT_EQ(planned.size(), size_t(kPendingLoops * kPendingSlotsPerLoop));
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kClaimers; ++index) {
    bodies.push_back([this, index](Store& store) {
      return claim_pending_until_none(store, index, file("pending-" + std::to_string(index)));
    });
  }
  ASSERT_NO_FATAL_FAILURE(race(bodies));
  std::set<std::string> claimed;
  std::string wins_per_child;
  for (int index = 0; index < kClaimers; ++index) {
    const auto wins = lines_of(file("pending-" + std::to_string(index)));
    for (const std::string& id : wins) {
      EXPECT_TRUE(claimed.insert(id).second) << "run " << id << " was claimed twice";
    }
    wins_per_child += (index ? " " : "") + std::to_string(wins.size());
  }
  RecordProperty("wins_per_child", wins_per_child);
  EXPECT_EQ(claimed, planned);
  EXPECT_EQ(*store_->count_runs(RunStatus::kPending), 0);
  EXPECT_EQ(*store_->count_runs(RunStatus::kSucceeded), kPendingLoops * kPendingSlotsPerLoop);
}

// ---------------------------------------------------------------- the daemon lease

constexpr int kLeaseRounds = 100;
constexpr DurationMs kLeaseTtl = 30'000;
constexpr int kDaemonPid = 1000;

// In a child, daemon `index`: in each round, tries for the lease at the
// moment the previous round's lease ends; reports {got it, its generation}.
int race_for_the_lease(Store& store, int index, const Lockstep& rounds) {
  const ProcessIdentity me{kDaemonPid + index, 1};
  for (int round = 0; round < kLeaseRounds; ++round) {
    if (!rounds.enter_round(index)) return child_failed(21, "not let into the round");
    const TimeMs now = kNow + round * kLeaseTtl;
    auto lease = store.acquire_daemon_lease(me, kLeaseTtl, now);
    if (!lease) return child_failed(22, "acquire: " + lease.error().message);
    Lockstep::Report report;
    if (lease->has_value()) {
      if ((*lease)->holder.pid != me.pid) return child_failed(23, "got another's lease");
      const Status fenced = store.check_fence({(*lease)->lease_id}, now);
      if (!fenced) return child_failed(24, "own fence: " + fenced.error().message);
      report = {1, (*lease)->generation};
    }
    if (!rounds.report(index, report)) return child_failed(25, "cannot report");
  }
  return 0;
}

TEST_P(StoreConcurrency, TwoDaemonsRacingForTheLeaseLeaveExactlyOneHolderEveryRound) {
  // Each sees the other alive: only expiry hands the lease on.
  probe_->start({kDaemonPid, 1});
  probe_->start({kDaemonPid + 1, 1});
  const Lockstep rounds(2);
  int wins[2] = {0, 0};
  // The parent checks each round before it lets the daemons into the next.
  const auto referee = [&] {
    for (int round = 0; round < kLeaseRounds; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      ASSERT_TRUE(rounds.begin_round());
      Lockstep::Report reports[2];
      for (int index = 0; index < 2; ++index) {
        ASSERT_TRUE(rounds.read_report(index, reports[index])) << "daemon " << index;
      }
      ASSERT_EQ(reports[0].a + reports[1].a, 1) << "holders this round";
      const int winner = reports[0].a ? 0 : 1;
      ++wins[winner];
      EXPECT_EQ(reports[winner].b, round + 1) << "generation";
      auto lease = store_->get_daemon_lease();
      ASSERT_TRUE(lease.ok() && lease->has_value());
      EXPECT_EQ((*lease)->holder.pid, kDaemonPid + winner);
      EXPECT_EQ((*lease)->generation, round + 1);
    }
  };
  ASSERT_NO_FATAL_FAILURE(race({[&](Store& store) { return race_for_the_lease(store, 0, rounds); },
                                [&](Store& store) { return race_for_the_lease(store, 1, rounds); }},
                               referee));
  RecordProperty("wins_per_daemon", std::to_string(wins[0]) + " " + std::to_string(wins[1]));
}

// ---------------------------------------------------------------- a stale holder

constexpr int kFencedAttempts = 30;
constexpr ProcessIdentity kStaleDaemon{100, 1};
constexpr ProcessIdentity kLiveDaemon{200, 2};

// How the stale holder lost its lease.
enum class LeaseLoss { kExpiredAndTaken, kTakenFromADeadHolder };

// What the stale holder aims at, as it was before.
struct StaleTargets {
  Loop loop;         // planned, settled, renamed and skipped into
  orrery::Run done;  // finished, not yet settled
  ClaimedRun stuck;  // running with an expired lease: recovery's
  Loop expiring;     // past its expiry: expiry's
};

// A plan of `loop` that claims, queues and skips slots from `first` on.
LoopPlanCommit busy_plan(const Loop& loop, TimeMs first) {
  LoopPlanCommit plan;
  plan.loop_id = loop.id;
  plan.state_version = loop.state_version;
  plan.state = schedule_state(loop);
  plan.claim = {first};
  plan.queue = {first + kMinute};
  plan.skipped = {{first + 2 * kMinute, SkipReason::kMissed}};
  plan.state.next_run_at = first + 3 * kMinute;
  return plan;
}

// In a child: every fenced write of the stale holder, again and again; each
// must be refused as a lost lease.
int write_as_the_stale_holder(Store& store, const Fence& fence, const StaleTargets& targets,
                              TimeMs now) {
  Loop renamed = targets.loop;
  renamed.name = "renamed by the stale holder";
  const ScheduleState state = schedule_state(targets.loop);
  for (int attempt = 0; attempt < kFencedAttempts; ++attempt) {
    const TimeMs slot = kNow + TimeMs(10 + attempt) * kMinute;
    const std::vector<std::pair<const char*, bool>> refused = {
        {"commit_plans",
         lost_lease(store.commit_plans({busy_plan(targets.loop, slot)}, "stale", now, fence))},
        {"settle_run", lost_lease(store.settle_run(targets.done.id, targets.loop.state_version,
                                                   state, now, fence))},
        {"record_skipped",
         lost_lease(store.record_skipped(targets.loop, slot, "missed", now, fence))},
        {"recover_expired_runs", lost_lease(store.recover_expired_runs(now, recovery(10), fence))},
        {"expire_loops", lost_lease(store.expire_loops(now, fence))},
        {"update_loop_parts",
         lost_lease(store.update_loop_parts(renamed, {true, true}, fence, now))},
        {"claim_slot", lost_lease(store.claim_slot({targets.loop.id, slot}, "stale", now, fence))},
        {"claim_slots",
         lost_lease(store.claim_slots({{targets.loop.id, slot}}, "stale", now, fence))},
    };
    for (const auto& [write, lost] : refused) {
      if (!lost) return child_failed(31, std::string(write) + " was not refused as a lost lease");
    }
  }
  return 0;
}

// In a child: the live holder's fenced writes to its own loop, all passing.
int write_as_the_live_holder(Store& store, const Fence& fence, const std::string& loop_id,
                             TimeMs now) {
  for (int attempt = 0; attempt < kFencedAttempts; ++attempt) {
    auto read = store.get_loop(loop_id);
    if (!read || !read->has_value()) return child_failed(41, "loop gone");
    Loop loop = **read;
    loop.name = "live-" + std::to_string(attempt);
    const Status updated = store.update_loop_parts(loop, {.config = true}, fence, now);
    if (!updated) return child_failed(42, "update: " + updated.error().message);
    loop.config_version += 1;
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = loop.state_version;
    plan.state = schedule_state(loop);
    plan.claim = {kNow + TimeMs(attempt) * kMinute};
    auto committed = store.commit_plans({plan}, "live", now, fence);
    if (!committed) return child_failed(43, "commit: " + committed.error().message);
    if (!(*committed)[0].applied || (*committed)[0].claimed.size() != 1) {
      return child_failed(44, "the live holder's plan was not applied whole");
    }
    const Status beat = store.heartbeat_daemon_lease(fence.daemon_lease_id, 10 * kMinute, now);
    if (!beat) return child_failed(45, "heartbeat: " + beat.error().message);
  }
  return 0;
}

class StaleHolder : public StoreConcurrency {
 protected:
  // Sets up the stale holder's targets and both leases, races the stale
  // holder against the live one, and checks that nothing the stale holder
  // aimed at changed.
  void race_holders(LeaseLoss loss) {
    StaleTargets targets;
    targets.loop = add_loop("stale-target");
    {
      LoopPlanCommit plan = busy_plan(targets.loop, kNow - kMinute);
      plan.queue.clear();
      plan.skipped.clear();
      auto committed = store_->commit_plans({plan}, "daemon", kNow, {});
      ASSERT_TRUE(committed.ok() && (*committed)[0].claimed.size() == 1u);
      finish((*committed)[0].claimed[0].claim, RunStatus::kSucceeded, kNow + 1);
    }
    targets.done = run_at(targets.loop, kNow - kMinute);
    ASSERT_FALSE(targets.done.settled);
    targets.stuck = claim(targets.loop, kNow, "runner", kNow);
    targets.loop = **store_->get_loop(targets.loop.id);
    targets.expiring = make_loop("expiring");
    targets.expiring.expires_at = kNow + kMinute;
    ASSERT_TRUE(store_->create_loop(targets.expiring).ok());
    targets.expiring = **store_->get_loop(targets.expiring.id);
    const Loop live_loop = **store_->get_loop(add_loop("live-target").id);
    const auto rows_before = store_->count_matching_runs(runs(targets.loop.id));
    ASSERT_TRUE(rows_before.ok());

    // The stale holder's lease, then the live holder's.
    const bool expires = loss == LeaseLoss::kExpiredAndTaken;
    if (expires) probe_->start(kStaleDaemon);  // alive: only expiry frees its lease
    auto stale = store_->acquire_daemon_lease(kStaleDaemon, expires ? 30'000 : 10 * kMinute, kNow);
    ASSERT_TRUE(stale.ok() && stale->has_value());
    auto live = store_->acquire_daemon_lease(kLiveDaemon, 10 * kMinute,
                                             expires ? kNow + 30'000 : kNow + 1000);
    ASSERT_TRUE(live.ok() && live->has_value()) << "the live holder did not get the lease";
    const Fence stale_fence{(*stale)->lease_id};
    const Fence live_fence{(*live)->lease_id};
    // Past the stuck run's lease and the loop's expiry; for a dead holder,
    // still within the stale lease's own term.
    const TimeMs now = kNow + 2 * kMinute;
    ASSERT_LT(now, (*live)->expires_at);
    if (!expires) {
      ASSERT_LT(now, (*stale)->expires_at);
    }

    ASSERT_NO_FATAL_FAILURE(race(
        {[&](Store& store) { return write_as_the_stale_holder(store, stale_fence, targets, now); },
         [&](Store& store) {
           return write_as_the_live_holder(store, live_fence, live_loop.id, now);
         }}));

    expect_unchanged(targets.loop.id, targets.loop);
    EXPECT_EQ(*store_->count_matching_runs(runs(targets.loop.id)), *rows_before);
    const orrery::Run done = run_at(targets.loop, kNow - kMinute);
    EXPECT_FALSE(done.settled);
    EXPECT_EQ(done.status, RunStatus::kSucceeded);
    const orrery::Run stuck = run_at(targets.loop, kNow);
    EXPECT_EQ(stuck.status, RunStatus::kRunning);
    EXPECT_EQ(stuck.claim_token, targets.stuck.claim.token);
    expect_unchanged(targets.expiring.id, targets.expiring);
    EXPECT_EQ((*store_->get_loop(targets.expiring.id))->status, LoopStatus::kActive);
    auto lease = store_->get_daemon_lease();
    ASSERT_TRUE(lease.ok() && lease->has_value());
    EXPECT_EQ((*lease)->lease_id, live_fence.daemon_lease_id);
    // The live holder's writes all went through.
    auto live_after = store_->get_loop(live_loop.id);
    ASSERT_TRUE(live_after.ok() && live_after->has_value());
    EXPECT_EQ((*live_after)->name, "live-" + std::to_string(kFencedAttempts - 1));
    EXPECT_EQ((*live_after)->config_version, live_loop.config_version + kFencedAttempts);
    EXPECT_EQ(*store_->count_matching_runs(runs(live_loop.id)), kFencedAttempts);
  }
};

TEST_P(StaleHolder, AHolderWhoseLeaseExpiredAndWasTakenHasEveryFencedWriteRefused) {
  race_holders(LeaseLoss::kExpiredAndTaken);
}

TEST_P(StaleHolder, AHolderTakenOverAsDeadHasEveryFencedWriteRefusedWithinItsTerm) {
  race_holders(LeaseLoss::kTakenFromADeadHolder);
}

// ---------------------------------------------------------------- cooldowns

constexpr int kCooldownProcesses = 4;
constexpr int kCooldownCalls = 24;  // half on each account
const char* const kAccounts[] = {"claude", "codex:work"};
static_assert(kCooldownCalls % 2 == 0);

// In a child: limits hit on two accounts in turn; writes "account hits" per call.
int hit_limits(Store& store, const std::string& hits_path) {
  std::vector<std::string> hits;
  for (int call = 0; call < kCooldownCalls; ++call) {
    const std::string account = kAccounts[call % 2];
    // Half with a reset time the provider named, half with the default.
    const std::optional<TimeMs> reset_at =
        call % 4 < 2 ? std::optional<TimeMs>(kNow + (call + 1) * kMinute) : std::nullopt;
    auto cooldown = store.record_cooldown(account, reset_at, "usage limit", kNow);
    if (!cooldown) return child_failed(51, "record_cooldown: " + cooldown.error().message);
    hits.push_back(account + " " + std::to_string(cooldown->hits));
  }
  return write_lines(hits_path, hits) ? 0 : child_failed(52, "cannot write " + hits_path);
}

TEST_P(StoreConcurrency, CooldownsRecordedByManyProcessesAtOnceCountEveryHit) {
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kCooldownProcesses; ++index) {
    bodies.push_back([this, index](Store& store) {
      return hit_limits(store, file("hits-" + std::to_string(index)));
    });
  }
  ASSERT_NO_FATAL_FAILURE(race(bodies));

  std::map<std::string, std::multiset<int>> hits_seen;
  for (int index = 0; index < kCooldownProcesses; ++index) {
    for (const std::string& line : lines_of(file("hits-" + std::to_string(index)))) {
      std::istringstream fields(line);
      std::string account;
      int hits = 0;
      fields >> account >> hits;
      hits_seen[account].insert(hits);
    }
  }
  // Every call saw a count of its own: 1, 2, ... up to the number of calls.
  const int calls_per_account = kCooldownProcesses * kCooldownCalls / 2;
  std::multiset<int> expected;
  for (int hits = 1; hits <= calls_per_account; ++hits) expected.insert(hits);
  auto cooldowns = store_->active_cooldowns(kNow);
  ASSERT_TRUE(cooldowns.ok()) << cooldowns.error().message;
  ASSERT_EQ(cooldowns->size(), 2u);
  for (const char* account : kAccounts) {
    SCOPED_TRACE(account);
    EXPECT_EQ(hits_seen[account], expected);
    const auto stored = std::find_if(cooldowns->begin(), cooldowns->end(),
                                     [&](const Cooldown& c) { return c.account == account; });
    ASSERT_NE(stored, cooldowns->end());
    EXPECT_EQ(stored->hits, calls_per_account);
    EXPECT_LE(stored->until_at, kNow + kMaxCooldownMs);
  }
}

// ---------------------------------------------------------------- deleting while claiming

constexpr int kDeletedLoops = 40;
constexpr int kMaxClaimsPerLoop = 50;
enum { kClaimer, kDeleter };

// In a child: in round r, claims slot after slot of loop r, finishing each
// at once, until the loop is gone (or enough claims were made); reports
// {claims}. Writes "run_id" per claim.
int claim_while_loops_go(Store& store, const std::vector<Loop>& loops, const Lockstep& rounds,
                         const std::string& claims_path) {
  std::vector<std::string> claimed_runs;
  for (const Loop& loop : loops) {
    if (!rounds.enter_round(kClaimer)) return child_failed(61, "not let into the round");
    Lockstep::Report report;
    for (int slot = 0; slot < kMaxClaimsPerLoop; ++slot) {
      auto claimed =
          store.claim_slot({loop.id, kNow + TimeMs(slot) * kMinute}, "claimer", kNow, {});
      if (!claimed && claimed.error().code == ErrorCode::kNotFound) break;  // deleted
      if (!claimed) return child_failed(62, "claim: " + claimed.error().message);
      if (!claimed->has_value()) return child_failed(63, "a fresh slot was not claimed");
      RunOutcome outcome;
      outcome.status = RunStatus::kSucceeded;
      // A deletion that slipped past the claim would have taken the run with it.
      const Status finished = store.finish_claim((**claimed).claim, outcome, kNow + 1);
      if (!finished) return child_failed(64, "finish: " + finished.error().message);
      claimed_runs.push_back((**claimed).run.id);
      ++report.a;
    }
    if (!rounds.report(kClaimer, report)) return child_failed(65, "cannot report");
  }
  return write_lines(claims_path, claimed_runs) ? 0
                                                : child_failed(66, "cannot write " + claims_path);
}

// In a child: in round r, deletes loop r, retrying while a run of it is
// running; reports {refusals}. Writes the ids of the runs each deletion named.
int delete_while_claimed(Store& store, const std::vector<Loop>& loops, const Lockstep& rounds,
                         const std::string& deleted_path) {
  std::vector<std::string> deleted_runs;
  for (const Loop& loop : loops) {
    if (!rounds.enter_round(kDeleter)) return child_failed(71, "not let into the round");
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    Lockstep::Report report;
    while (true) {
      auto deleted = store.delete_loop(loop.id);
      if (deleted) {
        deleted_runs.insert(deleted_runs.end(), deleted->begin(), deleted->end());
        break;
      }
      if (deleted.error().code != ErrorCode::kConflict) {
        return child_failed(72, "delete: " + deleted.error().message);
      }
      ++report.a;
      if (std::chrono::steady_clock::now() > deadline) {
        return child_failed(73,
                            "loop " + loop.name + " still not deleted: " + deleted.error().message);
      }
    }
    if (!rounds.report(kDeleter, report)) return child_failed(74, "cannot report");
  }
  return write_lines(deleted_path, deleted_runs) ? 0
                                                 : child_failed(75, "cannot write " + deleted_path);
}

// In the parent: lets the claimer and the deleter through `loops` rounds,
// adding up the claims and the refused deletions they report.
void referee_claims_and_deletions(const Lockstep& rounds, int loops, std::int64_t& claims,
                                  std::int64_t& refusals) {
  for (int round = 0; round < loops; ++round) {
    ASSERT_TRUE(rounds.begin_round());
    Lockstep::Report report;
    ASSERT_TRUE(rounds.read_report(kClaimer, report)) << "round " << round;
    claims += report.a;
    ASSERT_TRUE(rounds.read_report(kDeleter, report)) << "round " << round;
    refusals += report.a;
  }
}

TEST_P(StoreConcurrency, AClaimRacingADeletionNeverLeavesARunningRunWithoutItsLoop) {
  std::vector<Loop> doomed;
  for (int i = 0; i < kDeletedLoops; ++i) doomed.push_back(add_loop("doomed-" + std::to_string(i)));
  const Lockstep rounds(2);
  std::int64_t claims = 0, refusals = 0;
  const auto referee = [&] {
    referee_claims_and_deletions(rounds, kDeletedLoops, claims, refusals);
  };
  ASSERT_NO_FATAL_FAILURE(race(
      {[&](Store& store) { return claim_while_loops_go(store, doomed, rounds, file("claims")); },
       [&](Store& store) { return delete_while_claimed(store, doomed, rounds, file("deleted")); }},
      referee));
  RecordProperty("claims_refusals", std::to_string(claims) + " " + std::to_string(refusals));

  // Every run claimed was finished while its loop lived, and was named by
  // its loop's deletion: none was made after, none removed unnamed.
  const auto claimed = lines_of(file("claims"));
  const auto deleted = lines_of(file("deleted"));
  EXPECT_EQ(std::multiset<std::string>(claimed.begin(), claimed.end()),
            std::multiset<std::string>(deleted.begin(), deleted.end()));
  EXPECT_EQ(*store_->count_runs(std::nullopt), 0);
  EXPECT_EQ(*store_->count_loops(loops(LoopFilter::Archived::kInclude)), 0);
}

// In a child: in round r, claims the pending runs of loop r one at a time
// (only that loop's selector matches its labels) and finishes each, until
// none is left; writes the ids of the runs it finished.
int claim_pending_while_loops_go(Store& store, const std::vector<Loop>& loops,
                                 const Lockstep& rounds, const std::string& claims_path) {
  std::vector<std::string> claimed_runs;
  for (size_t round = 0; round < loops.size(); ++round) {
    if (!rounds.enter_round(kClaimer)) return child_failed(81, "not let into the round");
    Lockstep::Report report;
    const std::string labels = "host=runner,k=" + std::to_string(round);
    while (true) {
      auto claimed = store.claim_pending("claimer", labels, 1, kNow);
      if (!claimed) return child_failed(82, "claim: " + claimed.error().message);
      if (claimed->empty()) break;  // all claimed, or the loop is gone
      RunOutcome outcome;
      outcome.status = RunStatus::kSucceeded;
      // A deletion that slipped past the claim would have taken the run with it.
      const Status finished = store.finish_claim(claimed->front().claim, outcome, kNow + 1);
      if (!finished) return child_failed(84, "finish: " + finished.error().message);
      claimed_runs.push_back(claimed->front().run.id);
      ++report.a;
    }
    if (!rounds.report(kClaimer, report)) return child_failed(85, "cannot report");
  }
  return write_lines(claims_path, claimed_runs) ? 0
                                                : child_failed(86, "cannot write " + claims_path);
}

// Fewer than above: on SQLite a deletion waits for each claim's write.
constexpr int kRunnerDeletedLoops = 12;
constexpr int kPendingPerDeletedLoop = 20;

TEST_P(StoreConcurrency, ARunnersClaimRacingADeletionNeverLeavesARunningRunWithoutItsLoop) {
  std::vector<Loop> doomed;
  for (int i = 0; i < kRunnerDeletedLoops; ++i) {
    Loop loop = make_loop("doomed-" + std::to_string(i));
    loop.machine = {{"k", std::to_string(i)}};
    ASSERT_TRUE(store_->create_loop(loop).ok());
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = 1;
    plan.state = schedule_state(loop);
    for (int slot = 0; slot < kPendingPerDeletedLoop; ++slot) {
      plan.claim.push_back(kNow + TimeMs(slot) * kMinute);
    }
    plan.to_runners = true;
    ASSERT_TRUE(store_->commit_plans({plan}, "daemon@scheduler:1", kNow, {}).ok());
    doomed.push_back(loop);
  }
  const Lockstep rounds(2);
  std::int64_t claims = 0, refusals = 0;
  const auto referee = [&] {
    referee_claims_and_deletions(rounds, kRunnerDeletedLoops, claims, refusals);
  };
  ASSERT_NO_FATAL_FAILURE(race(
      {[&](Store& store) {
         return claim_pending_while_loops_go(store, doomed, rounds, file("claims"));
       },
       [&](Store& store) { return delete_while_claimed(store, doomed, rounds, file("deleted")); }},
      referee));
  RecordProperty("claims_refusals", std::to_string(claims) + " " + std::to_string(refusals));

  // Every run claimed was finished while its loop lived, and was named by its
  // loop's deletion (which also named the runs still pending).
  const auto claimed = lines_of(file("claims"));
  const auto deleted = lines_of(file("deleted"));
  const std::set<std::string> named(deleted.begin(), deleted.end());
  for (const std::string& id : claimed) EXPECT_TRUE(named.count(id) == 1) << id;
  EXPECT_EQ(named.size(), size_t(kRunnerDeletedLoops * kPendingPerDeletedLoop));
  EXPECT_EQ(*store_->count_runs(std::nullopt), 0);
  EXPECT_EQ(*store_->count_loops(loops(LoopFilter::Archived::kInclude)), 0);
}

// In a child: in round r, pauses loop r while the claimer takes its pending
// runs, then counts the runs of it that are no longer pending — every run
// claimed before the pause committed; writes "<loop id> <count>" lines.
int pause_while_claimed(Store& store, const std::vector<Loop>& loops, const Lockstep& rounds,
                        const std::string& counts_path) {
  std::vector<std::string> counts;
  for (const Loop& loop : loops) {
    if (!rounds.enter_round(kDeleter)) return child_failed(91, "not let into the round");
    auto current = store.get_loop(loop.id);
    if (!current || !current->has_value()) return child_failed(92, "loop " + loop.name + " gone");
    Loop paused = **current;
    paused.status = LoopStatus::kPaused;
    const Status written = store.update_loop_parts(paused, {false, true}, {}, kNow);
    if (!written) return child_failed(93, "pause: " + written.error().message);
    auto stored = store.list_runs(runs(loop.id, std::nullopt, 1000));
    if (!stored) return child_failed(94, "list: " + stored.error().message);
    const auto claimed = std::count_if(stored->begin(), stored->end(), [](const orrery::Run& run) {
      return run.status != RunStatus::kPending;
    });
    counts.push_back(loop.id + " " + std::to_string(claimed));
    if (!rounds.report(kDeleter, {})) return child_failed(95, "cannot report");
  }
  return write_lines(counts_path, counts) ? 0 : child_failed(96, "cannot write " + counts_path);
}

// A runner's claim reads the pending row's copy of its loop's terms; a pause
// writes them under the rows' locks. So once the pause has committed, no
// claim takes another run of the loop — not even one whose snapshot is older.
TEST_P(StoreConcurrency, ARunnersClaimRacingAPauseTakesNoRunOnceThePauseCommitted) {
  std::vector<Loop> paused;
  for (int i = 0; i < kRunnerDeletedLoops; ++i) {
    Loop loop = make_loop("paused-" + std::to_string(i));
    loop.machine = {{"k", std::to_string(i)}};
    ASSERT_TRUE(store_->create_loop(loop).ok());
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = 1;
    plan.state = schedule_state(loop);
    for (int slot = 0; slot < kPendingPerDeletedLoop; ++slot) {
      plan.claim.push_back(kNow + TimeMs(slot) * kMinute);
    }
    plan.to_runners = true;
    ASSERT_TRUE(store_->commit_plans({plan}, "daemon@scheduler:1", kNow, {}).ok());
    paused.push_back(loop);
  }
  const Lockstep rounds(2);
  std::int64_t claims = 0, refusals = 0;
  const auto referee = [&] {
    referee_claims_and_deletions(rounds, kRunnerDeletedLoops, claims, refusals);
  };
  ASSERT_NO_FATAL_FAILURE(race(
      {[&](Store& store) {
         return claim_pending_while_loops_go(store, paused, rounds, file("claims"));
       },
       [&](Store& store) { return pause_while_claimed(store, paused, rounds, file("counts")); }},
      referee));
  RecordProperty("claims", std::to_string(claims));

  // The runs each loop had claimed when its pause committed are all it ever
  // had claimed; the rest wait, pending.
  std::map<std::string, std::int64_t> claimed_per_loop;
  for (const std::string& id : lines_of(file("claims"))) {
    auto run = store_->get_run(id);
    ASSERT_TRUE(run.ok() && run->has_value()) << id;
    ++claimed_per_loop[(*run)->loop_id];
  }
  const auto counts = lines_of(file("counts"));
  ASSERT_EQ(counts.size(), size_t(kRunnerDeletedLoops));
  for (const std::string& line : counts) {
    const std::string loop_id = line.substr(0, line.find(' '));
    const std::int64_t at_pause = std::stoll(line.substr(line.find(' ') + 1));
    EXPECT_EQ(claimed_per_loop[loop_id], at_pause) << "loop " << loop_id;
    auto pending = store_->list_runs(runs(loop_id, RunStatus::kPending, 1000));
    ASSERT_TRUE(pending.ok());
    EXPECT_EQ(std::int64_t(pending->size()), kPendingPerDeletedLoop - at_pause) << loop_id;
  }
}

// ---------------------------------------------------------------- claiming past expiry

constexpr int kExpiryRounds = 20;
constexpr int kExpiryClaimers = 3;

// In a child: in round r, claims a slot of loop r, which has passed its
// expiry; every claim must be refused as expired. Reports nothing.
int claim_past_expiry(Store& store, const std::vector<Loop>& loops, int index,
                      const Lockstep& rounds) {
  const TimeMs now = kNow + 2 * kMinute;
  for (const Loop& loop : loops) {
    if (!rounds.enter_round(index)) return child_failed(101, "not let into the round");
    auto claimed = store.claim_slot({loop.id, kNow + TimeMs(index) * kMinute},
                                    "claimer-" + std::to_string(index), now, {});
    if (claimed || claimed.error().code != ErrorCode::kConflict ||
        claimed.error().message.find("expired") == std::string::npos) {
      return child_failed(
          102, "claim of " + loop.name + ": " + (claimed ? "succeeded" : claimed.error().message));
    }
    if (!rounds.report(index, {})) return child_failed(103, "cannot report");
  }
  return 0;
}

TEST_P(StoreConcurrency, ClaimsRacingOnALoopPastItsExpiryAreAllRefusedAndExpireItOnce) {
  std::vector<Loop> loops_past;
  for (int i = 0; i < kExpiryRounds; ++i) {
    Loop loop = make_loop("ending-" + std::to_string(i));
    loop.expires_at = kNow + kMinute;
    ASSERT_TRUE(store_->create_loop(loop).ok());
    loops_past.push_back(**store_->get_loop(loop.id));
  }
  const Lockstep rounds(kExpiryClaimers);
  const auto referee = [&] {
    for (int round = 0; round < kExpiryRounds; ++round) {
      ASSERT_TRUE(rounds.begin_round());
      for (int index = 0; index < kExpiryClaimers; ++index) {
        Lockstep::Report report;
        ASSERT_TRUE(rounds.read_report(index, report)) << "round " << round << " claimer " << index;
      }
    }
  };
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kExpiryClaimers; ++index) {
    bodies.push_back(
        [&, index](Store& store) { return claim_past_expiry(store, loops_past, index, rounds); });
  }
  ASSERT_NO_FATAL_FAILURE(race(bodies, referee));

  EXPECT_EQ(*store_->count_runs(std::nullopt), 0);
  for (const Loop& before : loops_past) {
    auto after = store_->get_loop(before.id);
    ASSERT_TRUE(after.ok() && after->has_value());
    EXPECT_EQ((*after)->status, LoopStatus::kExpired) << before.name;
    EXPECT_EQ((*after)->state_version, before.state_version + 1) << before.name << " expired once";
  }
}

// ---------------------------------------------------------------- expiry while a queued slot
// starts

enum { kExpirer, kStarter };

// In a child: in round r, expires the loops past their expiry (loop r).
int expire_each_round(Store& store, int rounds_count, const Lockstep& rounds) {
  for (int round = 0; round < rounds_count; ++round) {
    if (!rounds.enter_round(kExpirer)) return child_failed(131, "not let into the round");
    auto expired = store.expire_loops(kNow + 2 * kMinute, {});
    if (!expired) return child_failed(132, "expire: " + expired.error().message);
    if (!rounds.report(kExpirer, {*expired, 0})) return child_failed(133, "report");
  }
  return 0;
}

// In a child: in round r, starts the queued slot of loop r, which has passed
// its expiry: refused as expired.
int start_queued_past_expiry(Store& store, const std::vector<Loop>& loops, const Lockstep& rounds) {
  for (const Loop& loop : loops) {
    if (!rounds.enter_round(kStarter)) return child_failed(141, "not let into the round");
    auto claimed = store.claim_slot({loop.id, kNow, true}, "trigger", kNow + 2 * kMinute, {});
    if (claimed || claimed.error().code != ErrorCode::kConflict ||
        claimed.error().message.find("expired") == std::string::npos) {
      return child_failed(
          142, "start of " + loop.name + ": " + (claimed ? "succeeded" : claimed.error().message));
    }
    if (!rounds.report(kStarter, {})) return child_failed(143, "report");
  }
  return 0;
}

TEST_P(StoreConcurrency, ExpiryRacingTheStartOfAQueuedSlotExpiresTheLoopOnce) {
  std::vector<Loop> ending;
  for (int i = 0; i < kExpiryRounds; ++i) {
    Loop loop = make_loop("queued-" + std::to_string(i));
    loop.expires_at = kNow + kMinute;
    ASSERT_TRUE(store_->create_loop(loop).ok());
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = loop.state_version;
    plan.state = schedule_state(loop);
    plan.queue = {kNow};
    auto committed = store_->commit_plans({plan}, "daemon", kNow, {});
    ASSERT_TRUE(committed.ok() && (*committed)[0].queued.size() == 1u);
    ending.push_back(**store_->get_loop(loop.id));
  }
  const Lockstep rounds(2);
  std::int64_t expired_by_the_daemon = 0;
  const auto referee = [&] {
    for (int round = 0; round < kExpiryRounds; ++round) {
      ASSERT_TRUE(rounds.begin_round());
      Lockstep::Report report;
      ASSERT_TRUE(rounds.read_report(kExpirer, report)) << "round " << round;
      expired_by_the_daemon += report.a;
      ASSERT_TRUE(rounds.read_report(kStarter, report)) << "round " << round;
    }
  };
  ASSERT_NO_FATAL_FAILURE(
      race({[&](Store& store) { return expire_each_round(store, kExpiryRounds, rounds); },
            [&](Store& store) { return start_queued_past_expiry(store, ending, rounds); }},
           referee));
  RecordProperty("expired_by_the_daemon", std::to_string(expired_by_the_daemon));
  for (const Loop& before : ending) {
    auto after = store_->get_loop(before.id);
    ASSERT_TRUE(after.ok() && after->has_value());
    EXPECT_EQ((*after)->status, LoopStatus::kExpired) << before.name;
    EXPECT_EQ((*after)->state_version, before.state_version + 1) << before.name << " expired once";
    const orrery::Run queued = run_at(before, kNow);
    EXPECT_EQ(queued.status, RunStatus::kSkipped) << before.name;
    EXPECT_EQ(queued.skip_reason, "expired") << before.name;
  }
}

// ---------------------------------------------------------------- settling while a retry starts

constexpr int kSettleRounds = 20;
enum { kSettler, kRetrier };

// In a child: in round r, settles the failed run of loop r; a conflict (the
// retry started first) is an answer, any other error is not. Reports {settled}.
int settle_failed_runs(Store& store, const std::vector<std::pair<Loop, orrery::Run>>& failed,
                       const Lockstep& rounds) {
  for (const auto& [loop, run] : failed) {
    if (!rounds.enter_round(kSettler)) return child_failed(111, "not let into the round");
    const Status settled =
        store.settle_run(run.id, loop.state_version, schedule_state(loop), kNow + 2, {});
    if (!settled && settled.error().code != ErrorCode::kConflict) {
      return child_failed(112, "settle " + loop.name + ": " + settled.error().message);
    }
    if (!rounds.report(kSettler, {settled.ok() ? 1 : 0, 0})) return child_failed(113, "report");
  }
  return 0;
}

// In a child: in round r, starts the retry of loop r's failed slot; it must
// be claimed, whether or not the failure was settled first.
int retry_failed_runs(Store& store, const std::vector<std::pair<Loop, orrery::Run>>& failed,
                      const Lockstep& rounds) {
  for (const auto& [loop, run] : failed) {
    if (!rounds.enter_round(kRetrier)) return child_failed(121, "not let into the round");
    auto claimed = store.claim_slot({loop.id, run.scheduled_for}, "retrier", kNow + 2, {});
    if (!claimed) return child_failed(122, "retry " + loop.name + ": " + claimed.error().message);
    if (!claimed->has_value() || (**claimed).run.attempt != 2) {
      return child_failed(123, "the retry of " + loop.name + " was not claimed as attempt 2");
    }
    if (!rounds.report(kRetrier, {})) return child_failed(124, "report");
  }
  return 0;
}

TEST_P(StoreConcurrency, SettlingAFailedRunWhileItsRetryStartsGivesEachAnAnswer) {
  std::vector<std::pair<Loop, orrery::Run>> failed;
  for (int i = 0; i < kSettleRounds; ++i) {
    const Loop loop = add_loop("retried-" + std::to_string(i));
    LoopPlanCommit plan;
    plan.loop_id = loop.id;
    plan.state_version = loop.state_version;
    plan.state = schedule_state(loop);
    plan.claim = {kNow};
    auto committed = store_->commit_plans({plan}, "daemon", kNow, {});
    ASSERT_TRUE(committed.ok() && (*committed)[0].claimed.size() == 1u);
    finish((*committed)[0].claimed[0].claim, RunStatus::kFailed, kNow + 1);
    const orrery::Run run = run_at(loop, kNow);
    ASSERT_FALSE(run.settled);
    failed.emplace_back(**store_->get_loop(loop.id), run);
  }
  const Lockstep rounds(2);
  std::int64_t settled = 0;
  const auto referee = [&] {
    for (int round = 0; round < kSettleRounds; ++round) {
      ASSERT_TRUE(rounds.begin_round());
      Lockstep::Report report;
      ASSERT_TRUE(rounds.read_report(kSettler, report)) << "round " << round;
      settled += report.a;
      ASSERT_TRUE(rounds.read_report(kRetrier, report)) << "round " << round;
    }
  };
  ASSERT_NO_FATAL_FAILURE(
      race({[&](Store& store) { return settle_failed_runs(store, failed, rounds); },
            [&](Store& store) { return retry_failed_runs(store, failed, rounds); }},
           referee));
  RecordProperty("settled", std::to_string(settled));
  for (const auto& [loop, run] : failed) {
    const orrery::Run after = run_at(loop, kNow);
    EXPECT_EQ(after.status, RunStatus::kRunning) << loop.name;
    EXPECT_EQ(after.attempt, 2) << loop.name;
  }
}

// ---------------------------------------------------------------- finishing an expired run

constexpr int kBatches = 20;
constexpr int kBatchRuns = 10;
enum { kFinisher, kRecoverer };

// Who finishes a run whose lease is ending while recovery abandons it.
enum class Finisher { kClaimantJustInTime, kRecoveryWithAKeptOutcome };

// Batch b's runs were claimed at kNow + b minutes: their leases end a minute later.
TimeMs lease_end_of(int batch) { return kNow + TimeMs(batch + 1) * kMinute; }

// In a child: in round b, finishes batch b's runs, in its own order;
// reports {runs finished}. Writes "run_id" per run it finished.
int finish_every_run(Store& store, const std::vector<std::vector<ClaimedRun>>& batches,
                     Finisher finisher, const Lockstep& rounds, const std::string& won_path) {
  std::mt19937 shuffle_random(4242);
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  std::vector<std::string> won;
  for (int batch = 0; batch < kBatches; ++batch) {
    if (!rounds.enter_round(kFinisher)) return child_failed(81, "not let into the round");
    std::vector<ClaimedRun> runs = batches[size_t(batch)];
    std::shuffle(runs.begin(), runs.end(), shuffle_random);
    const TimeMs lease_end = lease_end_of(batch);
    Lockstep::Report report;
    for (const ClaimedRun& run : runs) {
      const Status finished =
          finisher == Finisher::kClaimantJustInTime
              ? store.finish_claim(run.claim, outcome, lease_end - 1)
              : store.finish_expired_claim(run.claim, outcome, lease_end - 1, lease_end + 1);
      if (finished) {
        won.push_back(run.run.id);
        ++report.a;
      } else if (finished.error().code != ErrorCode::kConflict) {
        return child_failed(82, "finish: " + finished.error().message);
      }
    }
    if (!rounds.report(kFinisher, report)) return child_failed(83, "cannot report");
  }
  return write_lines(won_path, won) ? 0 : child_failed(84, "cannot write " + won_path);
}

// Whether any of `runs` is still running.
Result<bool> any_running(Store& store, const std::vector<ClaimedRun>& runs) {
  for (const ClaimedRun& claimed : runs) {
    auto run = store.get_run(claimed.run.id);
    if (!run) return run.error();
    if (run->has_value() && (*run)->status == RunStatus::kRunning) return true;
  }
  return false;
}

// In a child: in round b, recovers just after batch b's leases end, until
// none of its runs is left running; reports {runs abandoned}. Writes
// "run_id" per run it abandoned.
int recover_every_run(Store& store, const std::vector<std::vector<ClaimedRun>>& batches,
                      const Lockstep& rounds, const std::string& won_path) {
  std::vector<std::string> won;
  for (int batch = 0; batch < kBatches; ++batch) {
    if (!rounds.enter_round(kRecoverer)) return child_failed(91, "not let into the round");
    Lockstep::Report report;
    for (int call = 0;; ++call) {
      if (call == 10 * kBatchRuns) return child_failed(92, "runs still running after recovery");
      auto recovered = store.recover_expired_runs(lease_end_of(batch) + 1, recovery(3), {});
      if (!recovered) return child_failed(93, "recover: " + recovered.error().message);
      if (!recovered->deferred.empty()) return child_failed(94, "a run was deferred");
      for (const orrery::Run& run : recovered->abandoned) won.push_back(run.id);
      report.a += std::int64_t(recovered->abandoned.size());
      auto running = any_running(store, batches[size_t(batch)]);
      if (!running) return child_failed(95, "read: " + running.error().message);
      if (!*running) break;
    }
    if (!rounds.report(kRecoverer, report)) return child_failed(96, "cannot report");
  }
  return write_lines(won_path, won) ? 0 : child_failed(97, "cannot write " + won_path);
}

TEST_P(StoreConcurrency, FinishingAndRecoveringTheSameExpiredRunHaveExactlyOneWinner) {
  for (const Finisher finisher :
       {Finisher::kClaimantJustInTime, Finisher::kRecoveryWithAKeptOutcome}) {
    const bool in_time = finisher == Finisher::kClaimantJustInTime;
    SCOPED_TRACE(in_time ? "the claimant finalizes just in time" : "a kept outcome is recorded");
    const std::string tag = in_time ? "in-time" : "kept";
    const Loop loop = add_loop(tag);
    std::vector<std::vector<ClaimedRun>> batches;
    for (int batch = 0; batch < kBatches; ++batch) {
      std::vector<SlotRequest> slots;
      for (int i = 0; i < kBatchRuns; ++i) {
        slots.push_back({loop.id, kNow + TimeMs(batch * kBatchRuns + i) * kMinute});
      }
      auto claimed = store_->claim_slots(slots, "runner", lease_end_of(batch) - loop.lease_ms, {});
      ASSERT_TRUE(claimed.ok()) << claimed.error().message;
      ASSERT_EQ(claimed->size(), size_t(kBatchRuns));
      batches.push_back(*claimed);
    }
    const Lockstep rounds(2);
    std::int64_t finished_count = 0, recovered_count = 0;
    const auto referee = [&] {
      for (int batch = 0; batch < kBatches; ++batch) {
        ASSERT_TRUE(rounds.begin_round());
        Lockstep::Report report;
        ASSERT_TRUE(rounds.read_report(kFinisher, report)) << "batch " << batch;
        finished_count += report.a;
        ASSERT_TRUE(rounds.read_report(kRecoverer, report)) << "batch " << batch;
        recovered_count += report.a;
        EXPECT_EQ(finished_count + recovered_count, (batch + 1) * kBatchRuns) << "batch " << batch;
      }
    };
    ASSERT_NO_FATAL_FAILURE(
        race({[&](Store& store) {
                return finish_every_run(store, batches, finisher, rounds, file("finished-" + tag));
              },
              [&](Store& store) {
                return recover_every_run(store, batches, rounds, file("recovered-" + tag));
              }},
             referee));
    RecordProperty("finished_recovered_" + tag,
                   std::to_string(finished_count) + " " + std::to_string(recovered_count));

    const auto finished = lines_of(file("finished-" + tag));
    const auto recovered = lines_of(file("recovered-" + tag));
    std::map<std::string, int> wins;
    for (const auto& id : finished) ++wins[id];
    for (const auto& id : recovered) ++wins[id];
    EXPECT_EQ(finished.size() + recovered.size(), size_t(kBatches * kBatchRuns));
    const std::set<std::string> finished_ids(finished.begin(), finished.end());
    for (const auto& batch : batches) {
      for (const ClaimedRun& run : batch) {
        EXPECT_EQ(wins[run.run.id], 1) << "winners of run " << run.run.id;
        auto stored = store_->get_run(run.run.id);
        ASSERT_TRUE(stored.ok() && stored->has_value());
        EXPECT_EQ((*stored)->status,
                  finished_ids.count(run.run.id) ? RunStatus::kSucceeded : RunStatus::kAbandoned)
            << run.run.id;
      }
    }
  }
}

// ---------------------------------------------------------------- workflows

constexpr int kWorkflowRaces = 4;
constexpr int kVersionsPerCreator = 10;
constexpr int kDrivenRuns = 25;

std::string race_id(int index, int serial) {
  std::array<std::uint8_t, 10> bytes{};
  bytes[0] = std::uint8_t(index);
  bytes[1] = std::uint8_t(serial);
  bytes[2] = std::uint8_t(serial >> 8);
  bytes[9] = 0x5a;
  return make_id(kNow, bytes);
}

WorkflowSpec one_step_spec(const std::string& name) {
  WorkflowSpec spec;
  spec.name = name;
  WorkflowStep step;
  step.id = "only";
  step.target.argv = {"/bin/true"};
  spec.steps.push_back(step);
  return spec;
}

// Runs of a one-step workflow, published by the parent before a race.
std::vector<WorkflowRun> publish_one_step_runs(Store& store, int count) {
  auto workflow = store.create_workflow(one_step_spec("raced"), race_id(200, 0), kNow);
  EXPECT_TRUE(workflow.ok()) << (workflow ? "" : workflow.error().message);
  std::vector<WorkflowRun> runs;
  for (int i = 0; workflow.ok() && i < count; ++i) {
    NewWorkflowRun published;
    published.run.id = race_id(201, i);
    published.run.workflow_id = workflow->id;
    StepRun step;
    step.step_id = "only";
    step.sequence = 1;
    published.steps = {step};
    auto result = store.publish_workflow_run(published, {}, kNow);
    EXPECT_TRUE(result.ok()) << (result ? "" : result.error().message);
    if (result.ok()) runs.push_back(result->run);
  }
  return runs;
}

TEST_P(StoreConcurrency, CreatorsRacingOnOneNameGetDistinctVersions) {
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kWorkflowRaces; ++index) {
    bodies.push_back([this, index](Store& store) {
      std::vector<std::string> made;
      for (int i = 0; i < kVersionsPerCreator; ++i) {
        auto created = store.create_workflow(one_step_spec("shared"), race_id(index, i), kNow);
        if (!created) return child_failed(61, "create: " + created.error().message);
        made.push_back(created->id + " " + std::to_string(created->version));
      }
      return write_lines(file("versions-" + std::to_string(index)), made) ? 0 : 62;
    });
  }
  ASSERT_NO_FATAL_FAILURE(race(bodies));
  std::map<int, std::string> id_of_version;
  for (int index = 0; index < kWorkflowRaces; ++index) {
    for (const std::string& line : lines_of(file("versions-" + std::to_string(index)))) {
      std::istringstream fields(line);
      std::string id;
      int version = 0;
      fields >> id >> version;
      EXPECT_TRUE(id_of_version.emplace(version, id).second) << "version " << version << " twice";
    }
  }
  const int total = kWorkflowRaces * kVersionsPerCreator;
  ASSERT_EQ(id_of_version.size(), size_t(total));
  EXPECT_EQ(id_of_version.begin()->first, 1);
  EXPECT_EQ(id_of_version.rbegin()->first, total);
  auto stored = store_->list_workflows(true);
  ASSERT_TRUE(stored.ok()) << stored.error().message;
  ASSERT_EQ(stored->size(), size_t(total));
  for (const Workflow& workflow : *stored) {
    EXPECT_EQ(id_of_version[workflow.version], workflow.id) << workflow.version;
  }
}

TEST_P(StoreConcurrency, DriversRacingForARunsEngineLeaseHaveExactlyOneWinner) {
  const std::vector<WorkflowRun> runs = publish_one_step_runs(*store_, kDrivenRuns);
  ASSERT_EQ(runs.size(), size_t(kDrivenRuns));
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kWorkflowRaces; ++index) {
    bodies.push_back([this, index, &runs](Store& store) {
      const std::string driver = "drive@host:" + std::to_string(index);
      std::vector<std::string> wins;
      for (const WorkflowRun& run : runs) {
        auto fence = store.acquire_engine_lease(run.id, driver, kMinute, kNow + 1);
        if (!fence) return child_failed(71, "acquire: " + fence.error().message);
        if (fence->has_value()) wins.push_back(run.id + " " + (*fence)->token);
      }
      return write_lines(file("drivers-" + std::to_string(index)), wins) ? 0 : 72;
    });
  }
  ASSERT_NO_FATAL_FAILURE(race(bodies));
  std::map<std::string, std::pair<std::string, std::string>> winner_of_run;  // driver, token
  for (int index = 0; index < kWorkflowRaces; ++index) {
    for (const std::string& line : lines_of(file("drivers-" + std::to_string(index)))) {
      std::istringstream fields(line);
      std::string run_id;
      std::string token;
      fields >> run_id >> token;
      EXPECT_TRUE(
          winner_of_run.emplace(run_id, std::pair{"drive@host:" + std::to_string(index), token})
              .second)
          << "run " << run_id << " was driven twice";
    }
  }
  ASSERT_EQ(winner_of_run.size(), size_t(kDrivenRuns));
  for (const WorkflowRun& run : runs) {
    auto stored = store_->get_workflow_run(run.id);
    ASSERT_TRUE(stored.ok() && stored->has_value());
    EXPECT_EQ((*stored)->driver, winner_of_run[run.id].first) << run.id;
    EXPECT_EQ((*stored)->driver_token, winner_of_run[run.id].second) << run.id;
    EXPECT_EQ((*stored)->driver_token.substr(0, 3), "g1-") << run.id;
    EXPECT_EQ((*stored)->status, WorkflowRunStatus::kRunning);
  }
}

// Two processes of one driver (its fence shared) reserve the same steps at
// once: each step gets one attempt row and one step_started; the other
// process is answered with that attempt.
TEST_P(StoreConcurrency, ReservationsRacingForOneStepWriteExactlyOneAttempt) {
  const std::vector<WorkflowRun> runs = publish_one_step_runs(*store_, kDrivenRuns);
  ASSERT_EQ(runs.size(), size_t(kDrivenRuns));
  std::vector<EngineFence> fences;
  for (const WorkflowRun& run : runs) {
    auto fence = store_->acquire_engine_lease(run.id, "drive@host:1", kMinute, kNow);
    ASSERT_TRUE(fence.ok() && fence->has_value());
    fences.push_back(**fence);
  }
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kWorkflowRaces; ++index) {
    bodies.push_back([this, index, &fences](Store& store) {
      std::vector<std::string> answers;
      for (const EngineFence& fence : fences) {
        StepReserve request;
        request.step_id = "only";
        request.dispatch_id = dispatch_id(fence.run_id, "only", 1);
        request.claimant = fence.driver;
        request.host = "host";
        auto reservation = store.reserve_step_attempt(fence, request, kNow + 1);
        if (!reservation) return child_failed(81, "reserve: " + reservation.error().message);
        answers.push_back(fence.run_id + " " + reserve_answer_name(reservation->answer) + " " +
                          reservation->attempt.claim_token);
      }
      return write_lines(file("answers-" + std::to_string(index)), answers) ? 0 : 82;
    });
  }
  ASSERT_NO_FATAL_FAILURE(race(bodies));
  std::map<std::string, std::set<std::string>> tokens_of_run;
  std::map<std::string, int> reserved_of_run;
  for (int index = 0; index < kWorkflowRaces; ++index) {
    for (const std::string& line : lines_of(file("answers-" + std::to_string(index)))) {
      std::istringstream fields(line);
      std::string run_id;
      std::string answer;
      std::string token;
      fields >> run_id >> answer >> token;
      EXPECT_TRUE(answer == "reserved" || answer == "existing") << line;
      if (answer == "reserved") ++reserved_of_run[run_id];
      tokens_of_run[run_id].insert(token);
    }
  }
  for (const WorkflowRun& run : runs) {
    EXPECT_EQ(reserved_of_run[run.id], 1) << run.id;
    EXPECT_EQ(tokens_of_run[run.id].size(), 1u) << "one attempt's token, " << run.id;
    auto attempts = store_->list_step_attempts(run.id);
    ASSERT_TRUE(attempts.ok());
    EXPECT_EQ(attempts->size(), 1u) << run.id;
    auto journal = store_->list_workflow_events(run.id, 0, 100);
    ASSERT_TRUE(journal.ok());
    ASSERT_EQ(journal->size(), 2u) << run.id;
    EXPECT_EQ(journal->back().event_type, "step_started");
    EXPECT_EQ(journal->back().sequence, 2);
  }
}

// Publishers racing with one idempotency key: one run is written, and
// every publisher is given it.
TEST_P(StoreConcurrency, PublishersRacingWithOneIdempotencyKeyGetOneRun) {
  auto workflow = store_->create_workflow(one_step_spec("keyed"), race_id(210, 0), kNow);
  ASSERT_TRUE(workflow.ok()) << workflow.error().message;
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kWorkflowRaces; ++index) {
    bodies.push_back([this, index, &workflow](Store& store) {
      std::vector<std::string> answers;
      for (int key = 0; key < kDrivenRuns; ++key) {
        NewWorkflowRun published;
        published.run.id = race_id(index, key);
        published.run.workflow_id = workflow->id;
        published.run.idempotency_key = "key-" + std::to_string(key);
        StepRun step;
        step.step_id = "only";
        published.steps = {step};
        auto result = store.publish_workflow_run(published, {}, kNow);
        if (!result) return child_failed(91, "publish: " + result.error().message);
        answers.push_back(std::to_string(key) + " " + result->run.id + " " +
                          (result->existed ? "existed" : "new"));
      }
      return write_lines(file("published-" + std::to_string(index)), answers) ? 0 : 92;
    });
  }
  ASSERT_NO_FATAL_FAILURE(race(bodies));
  std::map<int, std::set<std::string>> runs_of_key;
  std::map<int, int> new_of_key;
  for (int index = 0; index < kWorkflowRaces; ++index) {
    for (const std::string& line : lines_of(file("published-" + std::to_string(index)))) {
      std::istringstream fields(line);
      int key = -1;
      std::string run_id;
      std::string answer;
      fields >> key >> run_id >> answer;
      runs_of_key[key].insert(run_id);
      if (answer == "new") ++new_of_key[key];
    }
  }
  ASSERT_EQ(runs_of_key.size(), size_t(kDrivenRuns));
  for (const auto& [key, run_ids] : runs_of_key) {
    EXPECT_EQ(run_ids.size(), 1u) << "key " << key;
    EXPECT_EQ(new_of_key[key], 1) << "key " << key;
  }
  auto count = store_->count_workflow_runs({});
  ASSERT_TRUE(count.ok());
  EXPECT_EQ(*count, kDrivenRuns);
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreConcurrency, backends(), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, StaleHolder, backends(), backend_name);

}  // namespace
}  // namespace orrery
