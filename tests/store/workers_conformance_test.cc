// The Store conformance suite, workers and the merge queue
// (store/worker_book.h, store/merge_queue.h, docs/workers.md): one worker per
// step, every legal transition taken and every other refused without a
// change, lease guards, the append-only journal the database itself
// defends, and queue entries that change together with their workers.
// Every backend must pass it.
#include "core/json_text_list.h"
#include "core/text.h"
#include "store/postgres/pg_connection.h"
#include "store/sqlite/database.h"
#include "store/workflow_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using S = WorkerState;

constexpr S kAllStates[] = {S::kPlanned,  S::kLeased,    S::kStarting,   S::kRunning,
                            S::kReported, S::kVerifying, S::kMergeReady, S::kMerged,
                            S::kHold,     S::kFailed,    S::kCancelled};

// The legal path from planned to each state.
std::vector<S> path_to(S state) {
  switch (state) {
    case S::kPlanned:
      return {};
    case S::kLeased:
      return {S::kLeased};
    case S::kStarting:
      return {S::kLeased, S::kStarting};
    case S::kRunning:
      return {S::kLeased, S::kStarting, S::kRunning};
    case S::kReported:
      return {S::kLeased, S::kStarting, S::kRunning, S::kReported};
    case S::kVerifying:
      return {S::kLeased, S::kStarting, S::kRunning, S::kReported, S::kVerifying};
    case S::kMergeReady:
      return {S::kLeased, S::kStarting, S::kRunning, S::kReported, S::kVerifying, S::kMergeReady};
    case S::kMerged:
      return {S::kLeased,    S::kStarting,   S::kRunning, S::kReported,
              S::kVerifying, S::kMergeReady, S::kMerged};
    case S::kHold:
      return {S::kLeased, S::kHold};
    case S::kFailed:
      return {S::kFailed};
    case S::kCancelled:
      return {S::kCancelled};
  }
  return {};
}

MergeChange change_of(const std::string& id, MergeState from, MergeState to,
                      const std::string& driver = "") {
  MergeChange change;
  change.entry_id = id;
  change.from = from;
  change.to = to;
  change.driver = driver;
  return change;
}

class WorkersStore : public StoreConformance {
 protected:
  Worker add_worker(const std::string& run = "run1", const std::string& step = "edit") {
    Worker worker;
    worker.workflow_run_id = run;
    worker.step_id = step;
    worker.repo = "/srv/repo";
    worker.branch = "orrery/" + run + "/" + step;
    worker.worktree_path = "/home/o/worktrees/" + run + "/" + step;
    worker.host = "host-a";
    worker.base_revision = std::string(40, 'a');
    worker.base_branch = "main";
    worker.allowed_files = {"src/**"};
    return ok_value(store_->create_worker(worker, kNow));
  }

  // The driver takes the entry: it becomes ready, its worker verifying.
  void take(const MergeEntry& entry, const Worker& worker, const std::string& driver, TimeMs at) {
    MergeChange taken = change_of(entry.id, MergeState::kWaiting, MergeState::kReady, driver);
    WorkerChange verifying = change(worker, S::kReported, S::kVerifying);
    verifying.lease_owner = driver;
    taken.worker = verifying;
    ok_value(store_->change_merge_entry(taken, at));
  }

  static WorkerChange change(const Worker& worker, S from, S to) {
    WorkerChange made;
    made.worker_id = worker.id;
    made.from = from;
    made.to = to;
    made.lease_owner = "run1/edit/1";
    made.lease_ms = kMinute;
    made.reason = std::string("to ") + worker_state_name(to);
    return made;
  }

  Worker walk(Worker worker, S to) {
    S at = S::kPlanned;
    for (S next : path_to(to)) {
      worker = ok_value(store_->change_worker(change(worker, at, next), kNow + 10));
      at = next;
    }
    return worker;
  }

  Worker reported_worker(const std::string& run) {
    Worker worker = walk(add_worker(run), S::kReported);
    EXPECT_EQ(worker.state, S::kReported);
    return worker;
  }

  MergeEntry entry_for(const Worker& worker, int priority = 0) {
    MergeEntry entry;
    entry.worker_id = worker.id;
    entry.repo = worker.repo;
    entry.target = "main";
    entry.priority = priority;
    entry.base_revision = worker.base_revision;
    entry.candidate_revision = std::string(40, 'c');
    entry.verify.command = "make test";
    return entry;
  }

  // A connection of the backend's own kind to the same database, for the
  // writes orrery never makes.
  std::unique_ptr<sql::Connection> raw_connection() {
    if (std::string(GetParam().name) == "sqlite") {
      auto db = sqlite::Database::open(dir_.file("orrery.db"), sqlite::Synchronous::kNormal, 5000);
      EXPECT_TRUE(db.ok());
      return db ? std::move(*db) : nullptr;
    }
    auto db = postgres::PgConnection::open(place_.database->url(), "test", 5000);
    EXPECT_TRUE(db.ok());
    return db ? std::move(*db) : nullptr;
  }
};

TEST_P(WorkersStore, AWorkerIsCreatedPlannedWithItsFirstEventAndOnePerStep) {
  const Worker worker = add_worker();
  EXPECT_EQ(worker.id.size(), 32u);
  EXPECT_EQ(worker.state, S::kPlanned);
  EXPECT_EQ(worker.created_at, kNow);
  const Worker read = ok_value(store_->get_worker(worker.id)).value_or(Worker{});
  EXPECT_EQ(read.branch, "orrery/run1/edit");
  EXPECT_EQ(read.allowed_files, std::vector<std::string>{"src/**"});
  EXPECT_FALSE(read.finished_at.has_value());
  const auto events = ok_value(store_->worker_events(worker.id));
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].from_state, "");
  EXPECT_EQ(events[0].to_state, "planned");
  // The same step again: the same worker, no second event.
  const Worker again = add_worker();
  EXPECT_EQ(again.id, worker.id);
  EXPECT_EQ(ok_value(store_->worker_events(worker.id)).size(), 1u);
  EXPECT_EQ(ok_value(store_->find_worker("run1", "edit")).value_or(Worker{}).id, worker.id);
  EXPECT_EQ(ok_value(store_->resolve_worker(worker.id.substr(0, 8))).id, worker.id);
  EXPECT_EQ(store_->resolve_worker("abc").error().code, ErrorCode::kUsage);
  EXPECT_EQ(store_->resolve_worker("ffffffffff").error().code, ErrorCode::kNotFound);
}

TEST_P(WorkersStore, EveryLegalTransitionIsTakenAndEveryOtherIsRefusedWithoutAChange) {
  int run = 0;
  for (S from : kAllStates) {
    for (S to : kAllStates) {
      const std::string run_id = "r" + std::to_string(++run);
      const Worker worker = walk(add_worker(run_id), from);
      const size_t events_before = ok_value(store_->worker_events(worker.id)).size();
      auto changed = store_->change_worker(change(worker, from, to), kNow + 20);
      const Worker after = ok_value(store_->get_worker(worker.id)).value_or(Worker{});
      const size_t events_after = ok_value(store_->worker_events(worker.id)).size();
      const std::string pair =
          std::string(worker_state_name(from)) + " -> " + worker_state_name(to);
      if (legal_worker_transition(from, to)) {
        ASSERT_TRUE(changed.ok()) << pair << ": " << changed.error().message;
        EXPECT_EQ(after.state, to) << pair;
        EXPECT_EQ(events_after, events_before + 1) << pair;
        EXPECT_EQ(after.finished_at.has_value(), is_final(to)) << pair;
        EXPECT_EQ(after.lease_owner.empty(), !is_leased(to)) << pair;
        EXPECT_EQ(after.lease_expires_at.has_value(), is_leased(to)) << pair;
      } else {
        ASSERT_FALSE(changed.ok()) << pair << " was taken";
        EXPECT_EQ(changed.error().code, ErrorCode::kConflict) << pair;
        EXPECT_NE(changed.error().message.find(worker_state_name(from)), std::string::npos)
            << changed.error().message;
        EXPECT_EQ(after.state, from) << pair;
        EXPECT_EQ(after.updated_at, worker.updated_at) << pair;
        EXPECT_EQ(events_after, events_before) << pair;
      }
    }
  }
}

TEST_P(WorkersStore, AChangeFromAStaleStateOrByAnotherOwnerChangesNothing) {
  const Worker worker = walk(add_worker(), S::kRunning);
  auto stale = store_->change_worker(change(worker, S::kStarting, S::kRunning), kNow + 30);
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.error().code, ErrorCode::kConflict);
  WorkerChange other = change(worker, S::kRunning, S::kReported);
  other.expected_owner = "run1/edit/2";
  auto refused = store_->change_worker(other, kNow + 30);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("run1/edit/1"), std::string::npos)
      << refused.error().message;
  EXPECT_EQ(ok_value(store_->get_worker(worker.id)).value_or(Worker{}).state, S::kRunning);
  other.expected_owner = "run1/edit/1";
  other.final_revision = std::string(40, 'f');
  other.changed_files = std::vector<std::string>{"src/a.cc", "src/b.cc"};
  const Worker reported = ok_value(store_->change_worker(other, kNow + 31));
  EXPECT_EQ(reported.final_revision, std::string(40, 'f'));
  const Worker read = ok_value(store_->get_worker(worker.id)).value_or(Worker{});
  EXPECT_EQ(read.changed_files, (std::vector<std::string>{"src/a.cc", "src/b.cc"}));
  EXPECT_EQ(read.lease_owner, "");
}

TEST_P(WorkersStore, HoldAndFailureKeepTheirReasonsAndTheEventsTellTheWholeStory) {
  const Worker worker = walk(add_worker(), S::kRunning);
  WorkerChange hold = change(worker, S::kRunning, S::kHold);
  hold.reason = "lease expired \x01\xff";
  const Worker held = ok_value(store_->change_worker(hold, kNow + 40));
  EXPECT_EQ(held.hold_reason, storable_text("lease expired \x01\xff"));
  const Worker failed =
      ok_value(store_->change_worker(change(held, S::kHold, S::kFailed), kNow + 41));
  EXPECT_EQ(failed.failure_reason, "to failed");
  EXPECT_EQ(failed.finished_at, kNow + 41);
  const auto events = ok_value(store_->worker_events(worker.id));
  std::vector<std::string> story;
  for (const WorkerEvent& event : events) story.push_back(event.from_state + ">" + event.to_state);
  EXPECT_EQ(story, (std::vector<std::string>{">planned", "planned>leased", "leased>starting",
                                             "starting>running", "running>hold", "hold>failed"}));
  for (size_t i = 0; i < events.size(); ++i) EXPECT_EQ(events[i].sequence, std::int64_t(i + 1));
}

TEST_P(WorkersStore, OnlyTheOwnerOfALeasedWorkerExtendsItsLease) {
  const Worker worker = walk(add_worker(), S::kRunning);
  ASSERT_TRUE(store_->heartbeat_worker(worker.id, "run1/edit/1", 5 * kMinute, kNow + 50).ok());
  EXPECT_EQ(ok_value(store_->get_worker(worker.id)).value_or(Worker{}).lease_expires_at,
            kNow + 50 + 5 * kMinute);
  auto other = store_->heartbeat_worker(worker.id, "someone", kMinute, kNow + 51);
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.error().code, ErrorCode::kConflict);
  const Worker held =
      ok_value(store_->change_worker(change(worker, S::kRunning, S::kHold), kNow + 52));
  EXPECT_FALSE(store_->heartbeat_worker(held.id, "run1/edit/1", kMinute, kNow + 53).ok());
}

TEST_P(WorkersStore, TheDatabaseRefusesToUpdateOrDeleteWorkerEvents) {
  const Worker worker = walk(add_worker(), S::kLeased);
  const auto before = ok_value(store_->worker_events(worker.id));
  auto raw = raw_connection();
  ASSERT_NE(raw, nullptr);
  const std::string id = "'" + worker.id + "'";
  EXPECT_FALSE(
      raw->exec("UPDATE worker_events SET reason = 'rewritten' WHERE worker_id = " + id).ok());
  EXPECT_FALSE(raw->exec("DELETE FROM worker_events WHERE worker_id = " + id).ok());
  EXPECT_FALSE(raw->exec("DELETE FROM worker_events").ok());
  const auto after = ok_value(store_->worker_events(worker.id));
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < after.size(); ++i) EXPECT_EQ(after[i].reason, before[i].reason);
}

TEST_P(WorkersStore, OnlyAReportedWorkerEntersTheQueueAndOnlyOnce) {
  const Worker running = walk(add_worker("r1"), S::kRunning);
  auto early = store_->enqueue_merge(entry_for(running), kNow + 60);
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.error().code, ErrorCode::kConflict);
  EXPECT_TRUE(ok_value(store_->list_merge_entries({})).empty());
  const Worker reported = reported_worker("r2");
  const MergeEntry entry = ok_value(store_->enqueue_merge(entry_for(reported), kNow + 61));
  EXPECT_EQ(entry.state, MergeState::kWaiting);
  EXPECT_EQ(entry.queued_at, kNow + 61);
  auto twice = store_->enqueue_merge(entry_for(reported), kNow + 62);
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().message.find(entry.id), std::string::npos) << twice.error().message;
  EXPECT_EQ(ok_value(store_->list_merge_entries({})).size(), 1u);
  EXPECT_EQ(ok_value(store_->resolve_merge_entry(entry.id.substr(0, 7))).id, entry.id);
}

TEST_P(WorkersStore, EntriesAreListedByPriorityThenArrivalAndARetryArrivesAgain) {
  const MergeEntry first = ok_value(store_->enqueue_merge(entry_for(reported_worker("r1")), kNow));
  const MergeEntry second =
      ok_value(store_->enqueue_merge(entry_for(reported_worker("r2")), kNow + 1));
  const MergeEntry urgent =
      ok_value(store_->enqueue_merge(entry_for(reported_worker("r3"), 5), kNow + 2));
  auto order = [&] {
    std::vector<std::string> ids;
    for (const MergeEntry& entry : ok_value(store_->list_merge_entries({})))
      ids.push_back(entry.id);
    return ids;
  };
  EXPECT_EQ(order(), (std::vector<std::string>{urgent.id, first.id, second.id}));
  // Pages of the same order, and counts that ignore the page.
  MergeFilter page;
  page.limit = 2;
  page.offset = 1;
  std::vector<std::string> paged;
  for (const MergeEntry& entry : ok_value(store_->list_merge_entries(page)))
    paged.push_back(entry.id);
  EXPECT_EQ(paged, (std::vector<std::string>{first.id, second.id}));
  EXPECT_EQ(ok_value(store_->count_merge_entries(page)), 3);
  MergeFilter of_worker;
  of_worker.worker_id = second.worker_id;
  ASSERT_EQ(ok_value(store_->list_merge_entries(of_worker)).size(), 1u);
  EXPECT_EQ(ok_value(store_->list_merge_entries(of_worker))[0].id, second.id);
  EXPECT_EQ(ok_value(store_->count_merge_entries(of_worker)), 1);
  WorkerFilter workers_page;
  workers_page.limit = 1;
  workers_page.offset = 2;
  EXPECT_EQ(ok_value(store_->list_workers(workers_page)).size(), 1u);
  EXPECT_EQ(ok_value(store_->count_workers(workers_page)), 3);
  MergeChange take = change_of(first.id, MergeState::kWaiting, MergeState::kReady, "queue-driver");
  ok_value(store_->change_merge_entry(take, kNow + 3));
  MergeChange conflict =
      change_of(first.id, MergeState::kReady, MergeState::kConflict, "queue-driver");
  conflict.reason = "both changed README";
  conflict.conflict_files_json = text_list_json({"README"});
  ok_value(store_->change_merge_entry(conflict, kNow + 4));
  MergeChange retry = change_of(first.id, MergeState::kConflict, MergeState::kWaiting);
  const MergeEntry retried = ok_value(store_->change_merge_entry(retry, kNow + 5));
  EXPECT_EQ(retried.queued_at, kNow + 5);
  EXPECT_EQ(retried.conflict_files_json, "[]");
  EXPECT_EQ(order(), (std::vector<std::string>{urgent.id, second.id, first.id}));
}

TEST_P(WorkersStore, AnEntryAndItsWorkerChangeTogetherOrNotAtAll) {
  const Worker worker = reported_worker("r1");
  const MergeEntry entry = ok_value(store_->enqueue_merge(entry_for(worker), kNow));
  take(entry, worker, "driver-a", kNow + 1);
  EXPECT_EQ(ok_value(store_->get_worker(worker.id)).value_or(Worker{}).state, S::kVerifying);
  // A worker change that does not hold undoes the entry's too.
  MergeChange merged = change_of(entry.id, MergeState::kReady, MergeState::kMerged, "driver-a");
  merged.merge_commit = std::string(40, 'd');
  merged.worker = change(worker, S::kMergeReady, S::kMerged);  // it is verifying, not merge_ready
  auto refused = store_->change_merge_entry(merged, kNow + 2);
  ASSERT_FALSE(refused.ok());
  const MergeEntry read = ok_value(store_->resolve_merge_entry(entry.id));
  EXPECT_EQ(read.state, MergeState::kReady);
  EXPECT_EQ(read.merge_commit, "");
  // Another driver cannot finish an entry driver-a holds.
  MergeChange stolen = change_of(entry.id, MergeState::kReady, MergeState::kRejected, "driver-b");
  EXPECT_FALSE(store_->change_merge_entry(stolen, kNow + 3).ok());
  // Illegal: merged from waiting.
  EXPECT_FALSE(legal_merge_transition(MergeState::kWaiting, MergeState::kMerged));
}

TEST_P(WorkersStore, AQueueHasOneLiveDriverAndQueuesWithWorkAreTheOnesWithoutOne) {
  ok_value(store_->enqueue_merge(entry_for(reported_worker("r1")), kNow));
  const QueueKey queue{"/srv/repo", "main"};
  EXPECT_EQ(ok_value(store_->queues_with_work(kNow)), std::vector<QueueKey>{queue});
  EXPECT_TRUE(ok_value(store_->lease_queue(queue, QueueHolder{"driver-a", {}}, kMinute, kNow)));
  EXPECT_FALSE(
      ok_value(store_->lease_queue(queue, QueueHolder{"driver-b", {}}, kMinute, kNow + 1)));
  EXPECT_TRUE(ok_value(store_->queues_with_work(kNow + 1)).empty());
  EXPECT_TRUE(ok_value(
      store_->lease_queue(queue, QueueHolder{"driver-a", {}}, kMinute, kNow + 2)));  // extends
  EXPECT_EQ(ok_value(store_->queues_with_work(kNow + 2 + kMinute)), std::vector<QueueKey>{queue});
  EXPECT_TRUE(ok_value(
      store_->lease_queue(queue, QueueHolder{"driver-b", {}}, kMinute, kNow + 2 + kMinute)));
  EXPECT_TRUE(ok_value(
      store_->lease_queue(queue, QueueHolder{"driver-b", {}}, 0, kNow + 3 + kMinute)));  // gives up
  EXPECT_TRUE(ok_value(
      store_->lease_queue(queue, QueueHolder{"driver-c", {}}, kMinute, kNow + 4 + kMinute)));
}

// A driver that died on this host no longer holds its queue, whatever its
// lease's expiry; one alive, or on another host, does.
TEST_P(WorkersStore, AQueueHeldByADeadProcessOfThisHostIsTakenAtOnce) {
  ok_value(store_->enqueue_merge(entry_for(reported_worker("r1")), kNow));
  const QueueKey queue{"/srv/repo", "main"};
  const ProcessIdentity first{4101, 7000};
  probe_->start(first);
  EXPECT_TRUE(ok_value(store_->lease_queue(queue, {"driver-a", first}, kMinute, kNow)));
  EXPECT_FALSE(ok_value(store_->lease_queue(queue, {"driver-b", {4102, 7001}}, kMinute, kNow + 1)));
  EXPECT_TRUE(ok_value(store_->queues_with_work(kNow + 1)).empty());
  probe_->stop(first.pid);
  EXPECT_EQ(ok_value(store_->queues_with_work(kNow + 2)), std::vector<QueueKey>{queue});
  const ProcessIdentity second{4102, 7001};
  probe_->start(second);
  EXPECT_TRUE(ok_value(store_->lease_queue(queue, {"driver-b", second}, kMinute, kNow + 2)));
  // Its pid reused by another process is not it either.
  probe_->start({4102, 9999});
  EXPECT_TRUE(ok_value(store_->lease_queue(queue, {"driver-c", {4104, 5}}, kMinute, kNow + 3)));
  // A process recorded on another host is not probed here: its lease runs
  // (4104 is not alive, which a probe of that host would say).
  probe_->set_host("elsewhere");
  EXPECT_FALSE(ok_value(store_->lease_queue(queue, {"driver-d", {4103, 1}}, kMinute, kNow + 4)));
}

// A ready entry records the commit its driver is about to move the target to
// (merge_commit), the worker becoming merge_ready with it; an entry that
// ends without a merge keeps no commit.
TEST_P(WorkersStore, AReadyEntryRecordsTheCommitItIsAboutToBecome) {
  const Worker worker = reported_worker("r1");
  const MergeEntry entry = ok_value(store_->enqueue_merge(entry_for(worker), kNow));
  take(entry, worker, "driver-a", kNow + 1);
  MergeChange intent = change_of(entry.id, MergeState::kReady, MergeState::kReady, "driver-a");
  intent.merge_commit = std::string(40, 'e');
  intent.parent_revision = std::string(40, 'f');
  intent.worker = change(worker, S::kVerifying, S::kMergeReady);
  // Only the driver holding it records one.
  MergeChange stolen = intent;
  stolen.driver = "driver-b";
  EXPECT_FALSE(store_->change_merge_entry(stolen, kNow + 2).ok());
  EXPECT_EQ(ok_value(store_->resolve_merge_entry(entry.id)).merge_commit, "");
  const MergeEntry recorded = ok_value(store_->change_merge_entry(intent, kNow + 2));
  EXPECT_EQ(recorded.state, MergeState::kReady);
  EXPECT_EQ(recorded.merge_commit, std::string(40, 'e'));
  EXPECT_EQ(recorded.driver, "driver-a");
  EXPECT_EQ(ok_value(store_->get_worker(worker.id)).value_or(Worker{}).state, S::kMergeReady);
  MergeChange rejected = change_of(entry.id, MergeState::kReady, MergeState::kRejected, "driver-a");
  rejected.worker = change(worker, S::kMergeReady, S::kHold);
  EXPECT_EQ(ok_value(store_->change_merge_entry(rejected, kNow + 3)).merge_commit, "");
}

TEST_P(WorkersStore, QueueSettingsAreStoredPerRepositoryAndReplaced) {
  EXPECT_FALSE(ok_value(store_->queue_config("/srv/repo")).has_value());
  QueueConfig config;
  config.repo = "/srv/repo";
  config.target = "main";
  config.verify = "make test";
  config.strategy = MergeStrategy::kSquash;
  ASSERT_TRUE(store_->configure_queue(config, kNow).ok());
  config.verify = std::string(kVerifyNone);
  ASSERT_TRUE(store_->configure_queue(config, kNow + 1).ok());
  const QueueConfig read = ok_value(store_->queue_config("/srv/repo")).value_or(QueueConfig{});
  EXPECT_EQ(read.verify, "none");
  EXPECT_EQ(read.strategy, MergeStrategy::kSquash);
  EXPECT_EQ(read.updated_at, kNow + 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkersStore, backends(), backend_name);

}  // namespace
}  // namespace orrery
