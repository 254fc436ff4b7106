// The Store conformance suite, the admission queue (docs/admission.md):
// routes and their pause, enqueue's create/refresh/duplicate rules and
// shared invocations, finding and listing items, requeue and cancel, and
// admission within every limit, fenced by the daemon lease, through start,
// return and settlement to pruning. Every backend must pass it.
#include "store/work_queue_conformance.h"

#include <algorithm>
#include <set>

#include "store/sql/sql_store.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using WorkQueueStore = WorkQueueConformance;

// ---------------------------------------------------------------- routes

TEST_P(WorkQueueStore, ARouteIsStoredWholeAndFoundByIdNameAndIdPrefix) {
  Route given = make_route("triage", 3);
  given.max_per_project = 1;
  given.max_per_group = 2;
  given.max_attempts = 5;
  given.retry_delay_ms = 90'000;
  given.retry_backoff = RetryBackoff::kExponential;
  given.priority_aging_ms = 600'000;
  given.webhook_secret_env = "TRIAGE_HOOK_SECRET";
  const Route route = ok_value(store_->create_route(given, kNow));
  EXPECT_FALSE(route.id.empty());
  auto read = ok_value(store_->get_route(route.id));
  ASSERT_TRUE(read.has_value());
  given.id = route.id;
  given.created_at = given.updated_at = kNow;
  EXPECT_EQ(*read, given);
  EXPECT_EQ(ok_value(store_->resolve_route("triage")).id, route.id);
  EXPECT_EQ(ok_value(store_->resolve_route(route.id)).id, route.id);
  EXPECT_EQ(ok_value(store_->resolve_route(route.id.substr(0, 8))).id, route.id);
  EXPECT_TRUE(is_not_found(store_->resolve_route("nope")));
  EXPECT_FALSE(store_->resolve_route("").ok());
}

TEST_P(WorkQueueStore, RoutesAreListedByNameAndANameTakenIsAConflictThatStoresNothing) {
  add_route("zeta");
  add_route("alpha");
  EXPECT_TRUE(is_conflict(store_->create_route(make_route("alpha"), kNow)));
  Route bad = make_route("bad");
  bad.max_running = 0;
  EXPECT_FALSE(store_->create_route(bad, kNow).ok());
  Route orphan = make_route("orphan");
  orphan.workflow_id = "no-such-workflow";
  EXPECT_TRUE(is_not_found(store_->create_route(orphan, kNow)));
  std::vector<std::string> names;
  for (const Route& route : ok_value(store_->list_routes())) names.push_back(route.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alpha", "zeta"}));
}

TEST_P(WorkQueueStore, AnEditReplacesTheSettingsAndARenameOntoAnotherRouteIsAConflict) {
  const Route alpha = add_route("alpha");
  add_route("beta");
  Route edited = alpha;
  edited.max_running = 7;
  edited.description = "edited";
  edited.webhook_secret_env = "ALPHA_SECRET";
  const Route after = ok_value(store_->update_route(edited, kNow + 5));
  EXPECT_EQ(after.max_running, 7);
  EXPECT_EQ(after.created_at, kNow);
  EXPECT_EQ(after.updated_at, kNow + 5);
  EXPECT_EQ(ok_value(store_->get_route(alpha.id))->description, "edited");
  EXPECT_EQ(ok_value(store_->get_route(alpha.id))->webhook_secret_env, "ALPHA_SECRET");
  edited.name = "beta";
  EXPECT_TRUE(is_conflict(store_->update_route(edited, kNow + 6)));
  EXPECT_EQ(ok_value(store_->get_route(alpha.id))->name, "alpha");
}

TEST_P(WorkQueueStore, PausingDefersWaitingItemsAndNewOnesAndResumingQueuesThemAgain) {
  Route route = add_route("triage");
  const Enqueued before = enqueue(route, "1");
  route.status = RouteStatus::kPaused;
  ok_value(store_->update_route(route, kNow + 1));
  EXPECT_EQ(item_now(before.item.id).status, ItemStatus::kDeferred);
  const Enqueued during = enqueue(route, "2");
  EXPECT_EQ(during.item.status, ItemStatus::kDeferred);
  EXPECT_TRUE(admit({before.item.id, during.item.id}).empty());
  route.status = RouteStatus::kActive;
  ok_value(store_->update_route(route, kNow + 2));
  EXPECT_EQ(item_now(before.item.id).status, ItemStatus::kQueued);
  EXPECT_EQ(item_now(during.item.id).status, ItemStatus::kQueued);
}

TEST_P(WorkQueueStore, ARouteWithItemsHoldingCapacityIsDeletedOnlyByForceWhichNamesTheirRuns) {
  const Route route = add_route("triage", 2);
  const Enqueued running = enqueue(route, "1");
  enqueue(route, "2");
  const WorkflowRun run = start(running.item);
  EXPECT_TRUE(is_conflict(store_->delete_route(route.id, false)));
  EXPECT_TRUE(ok_value(store_->get_route(route.id)).has_value());
  EXPECT_EQ(ok_value(store_->route_of_workflow(workflow_.id)),
            std::optional<std::string>("triage"));
  EXPECT_EQ(ok_value(store_->delete_route(route.id, true)), std::vector<std::string>{run.id});
  EXPECT_FALSE(ok_value(store_->get_route(route.id)).has_value());
  EXPECT_FALSE(ok_value(store_->get_item(running.item.id)).has_value());
  EXPECT_EQ(invocation_rows(*store_), 0);
  EXPECT_FALSE(ok_value(store_->route_of_workflow(workflow_.id)).has_value());
}

// ---------------------------------------------------------------- enqueue

TEST_P(WorkQueueStore, AnEnqueueStoresTheItemAndItsInvocationWhole) {
  const Route route = add_route("triage");
  WorkItem given = make_item(route, "web#12", 40, "web");
  given.group = "bugs";
  given.input_json = R"({"branch":"main"})";
  given.invocation.source.dedupe_key = "delivery-1";
  given.invocation.subject.path = "src/a.cc";
  given.invocation.scope_json = R"({"paths":["src"]})";
  given.invocation.output_policy_json = R"({"pr":true})";
  const Enqueued enqueued = ok_value(store_->enqueue_item(given, kNow + 3));
  EXPECT_EQ(enqueued.outcome, EnqueueOutcome::kCreated);
  const WorkItem item = item_now(enqueued.item.id);
  EXPECT_EQ(item.route_id, route.id);
  EXPECT_EQ(item.route_name, "triage");
  EXPECT_EQ(item.key, "web#12");
  EXPECT_EQ(item.status, ItemStatus::kQueued);
  EXPECT_EQ(item.priority, 40);
  EXPECT_EQ(item.project, "web");
  EXPECT_EQ(item.group, "bugs");
  EXPECT_EQ(item.attempts, 0);
  EXPECT_EQ(item.max_attempts, route.max_attempts);
  EXPECT_EQ(item.queued_at, kNow + 3);
  EXPECT_EQ(item.created_at, kNow + 3);
  EXPECT_EQ(item.input_json, R"({"branch":"main"})");
  EXPECT_FALSE(item.next_attempt_at.has_value());
  EXPECT_TRUE(item.workflow_run_id.empty());
  EXPECT_EQ(item.invocation.source, given.invocation.source);
  EXPECT_EQ(item.invocation.subject, given.invocation.subject);
  EXPECT_EQ(item.invocation.intent, "fix web#12");
  EXPECT_EQ(item.invocation.scope_json, R"({"paths":["src"]})");
  EXPECT_EQ(item.invocation.output_policy_json, R"({"pr":true})");
}

TEST_P(WorkQueueStore, AWaitingItemIsRefreshedAndAnAdmittedOrFinishedOneIsADuplicateUnchanged) {
  const Route route = add_route("triage");
  const Enqueued first = enqueue(route, "7", 1, "web");
  const Enqueued again = enqueue(route, "7", 9, "api", kNow + 1);
  EXPECT_EQ(again.outcome, EnqueueOutcome::kRefreshed);
  EXPECT_EQ(again.item.id, first.item.id);
  EXPECT_EQ(again.item.priority, 9);
  EXPECT_EQ(again.item.project, "api");
  EXPECT_EQ(again.item.queued_at, kNow);  // its age is kept
  const WorkflowRun run = start(again.item);
  for (const ItemStatus status : {ItemStatus::kRunning, ItemStatus::kSucceeded}) {
    if (status == ItemStatus::kSucceeded) {
      end_run(run, WorkflowRunStatus::kSucceeded);
      ASSERT_TRUE(store_
                      ->settle_item({first.item.id, run.id, ItemStatus::kSucceeded, {}, "done", {}},
                                    kNow + 20, {})
                      .ok());
    }
    const Enqueued duplicate = enqueue(route, "7", 100, "other", kNow + 30);
    EXPECT_EQ(duplicate.outcome, EnqueueOutcome::kDuplicate);
    EXPECT_EQ(duplicate.item.status, status);
    EXPECT_EQ(duplicate.item.priority, 9);
    EXPECT_EQ(duplicate.item.project, "api");
  }
  EXPECT_EQ(ok_value(store_->list_items({})).size(), 1u);
}

TEST_P(WorkQueueStore, ADedupeKeyNamesOneInvocationPerSourceKindSharedByItsItems) {
  const Route a = add_route("a");
  const Route b = add_route("b");
  WorkItem first = make_item(a, "1");
  first.invocation.source.dedupe_key = "delivery-9";
  WorkItem second = make_item(b, "2");
  second.invocation.source.dedupe_key = "delivery-9";
  second.invocation.intent = "said again";
  WorkItem other_kind = make_item(b, "3");
  other_kind.invocation.source.kind = "gitlab";
  other_kind.invocation.source.dedupe_key = "delivery-9";
  const WorkItem one = ok_value(store_->enqueue_item(first, kNow)).item;
  const WorkItem two = ok_value(store_->enqueue_item(second, kNow + 1)).item;
  const WorkItem three = ok_value(store_->enqueue_item(other_kind, kNow + 2)).item;
  EXPECT_EQ(one.invocation.id, two.invocation.id);
  EXPECT_NE(two.invocation.id, three.invocation.id);
  EXPECT_EQ(item_now(one.id).invocation.intent, "said again");  // the latest word
  EXPECT_EQ(invocation_rows(*store_), 2);
}

// docs/admission.md, "Invocations and work items": an item that has started
// keeps its invocation as it was. Generated over the state of the item that
// came first: while it waits, a second enqueue of the dedupe key rewrites the
// invocation they share; once it has been admitted, the second item gets a
// new invocation and the first one's is left as it was — and items still
// waiting follow the newest word.
TEST_P(WorkQueueStore, AnInvocationAnItemStartedFromIsNeverRewritten) {
  const Route route = add_route("triage", 10);
  const auto with_word = [&](const std::string& key, const std::string& dedupe,
                             const std::string& word) {
    WorkItem item = make_item(route, key);
    item.invocation.source.dedupe_key = dedupe;
    item.invocation.intent = word;
    item.invocation.scope_json = "{\"word\":\"" + word + "\"}";
    return item;
  };
  const ItemStatus states[] = {
      ItemStatus::kQueued, ItemStatus::kAdmitted,   ItemStatus::kRunning,  ItemStatus::kSucceeded,
      ItemStatus::kFailed, ItemStatus::kDeadLetter, ItemStatus::kCancelled};
  for (const ItemStatus state : states) {
    const std::string name = item_status_name(state);
    SCOPED_TRACE(name);
    const std::string dedupe = "delivery-" + name;
    const WorkItem first =
        ok_value(store_->enqueue_item(with_word("first-" + name, dedupe, "one"), kNow)).item;
    if (state == ItemStatus::kAdmitted) admit({first.id});
    if (state == ItemStatus::kCancelled) ok_value(store_->cancel_item(first.id, "", kNow + 1));
    if (state == ItemStatus::kRunning || state == ItemStatus::kSucceeded ||
        state == ItemStatus::kFailed || state == ItemStatus::kDeadLetter) {
      const WorkflowRun run = start(first);
      if (state != ItemStatus::kRunning) {
        const bool succeeded = state == ItemStatus::kSucceeded;
        end_run(run, succeeded ? WorkflowRunStatus::kSucceeded : WorkflowRunStatus::kFailed);
        std::optional<TimeMs> retry;
        if (state == ItemStatus::kFailed) retry = kNow + 1000;
        ASSERT_TRUE(
            store_->settle_item({first.id, run.id, state, retry, "x", {}}, kNow + 20, {}).ok());
      }
    }
    ASSERT_EQ(item_now(first.id).status, state);
    const WorkItem second =
        ok_value(store_->enqueue_item(with_word("second-" + name, dedupe, "two"), kNow + 30)).item;
    const WorkItem third =
        ok_value(store_->enqueue_item(with_word("third-" + name, dedupe, "three"), kNow + 40)).item;
    const Invocation first_now = item_now(first.id).invocation;
    EXPECT_EQ(item_now(second.id).invocation.intent, "three");  // the waiting follow the word
    EXPECT_EQ(item_now(second.id).invocation.id, third.invocation.id);
    EXPECT_EQ(item_now(third.id).invocation.scope_json, "{\"word\":\"three\"}");
    if (state == ItemStatus::kQueued) {
      EXPECT_EQ(first_now.id, third.invocation.id);
      EXPECT_EQ(first_now.intent, "three");
    } else {
      EXPECT_EQ(first_now.id, first.invocation.id);
      EXPECT_NE(first_now.id, third.invocation.id);
      EXPECT_EQ(first_now.intent, "one");
      EXPECT_EQ(first_now.scope_json, "{\"word\":\"one\"}");
    }
  }
  // One current invocation per key, plus one kept for each item that started.
  EXPECT_EQ(invocation_rows(*store_), 7 + 6);
}

TEST_P(WorkQueueStore, ARefreshThatChangesTheInvocationLeavesNoOrphanBehind) {
  const Route route = add_route("triage");
  enqueue(route, "1");
  enqueue(route, "1");
  enqueue(route, "1");
  EXPECT_EQ(invocation_rows(*store_), 1);
}

TEST_P(WorkQueueStore, BadEnqueuesAreRefusedWithTheFieldNamedAndStoreNothing) {
  const Route route = add_route("triage");
  std::vector<WorkItem> bad;
  bad.push_back(make_item(route, ""));
  bad.push_back(make_item(route, std::string(201, 'k')));
  bad.push_back(make_item(route, "k\xff"));
  bad.push_back(make_item(route, "k", kMaxItemPriority + 1));
  bad.push_back(make_item(route, "k", 0, " web"));
  bad.push_back(make_item(route, "k", 0, "web\x01"));
  WorkItem huge = make_item(route, "k");
  huge.input_json = "{\"x\":\"" + std::string(kMaxItemJsonBytes, 'x') + "\"}";
  bad.push_back(huge);
  WorkItem dedupe_alone = make_item(route, "k");
  dedupe_alone.invocation.source.kind = "";
  dedupe_alone.invocation.source.dedupe_key = "d";
  bad.push_back(dedupe_alone);
  for (const WorkItem& item : bad) {
    auto result = store_->enqueue_item(item, kNow);
    EXPECT_FALSE(result.ok()) << item.key.substr(0, 20);
    if (!result) {
      EXPECT_EQ(result.error().code, ErrorCode::kUsage) << result.error().message;
    }
  }
  WorkItem unknown_route = make_item(route, "k");
  unknown_route.route_id = "gone";
  EXPECT_TRUE(is_not_found(store_->enqueue_item(unknown_route, kNow)));
  EXPECT_TRUE(ok_value(store_->list_items({})).empty());
  EXPECT_EQ(invocation_rows(*store_), 0);
}

// ---------------------------------------------------------------- finding and listing

TEST_P(WorkQueueStore, AnItemIsFoundByIdIdPrefixAndRouteSlashKey) {
  const Route route = add_route("triage");
  const WorkItem item = enqueue(route, "web/12").item;
  EXPECT_EQ(ok_value(store_->resolve_item(item.id)).id, item.id);
  EXPECT_EQ(ok_value(store_->resolve_item(item.id.substr(0, 10))).id, item.id);
  EXPECT_EQ(ok_value(store_->resolve_item("triage/web/12")).id, item.id);
  EXPECT_TRUE(is_not_found(store_->resolve_item("triage/13")));
  EXPECT_TRUE(is_not_found(store_->resolve_item("zzzzzz")));
  EXPECT_FALSE(store_->resolve_item("").ok());
}

TEST_P(WorkQueueStore, QueuedItemsAreListedByEffectivePriorityThenAgeThenKey) {
  Route route = make_route("triage");
  route.priority_aging_ms = 60'000;
  route = ok_value(store_->create_route(route, kNow));
  enqueue(route, "old-low", 0, "", kNow - 10 * 60'000);  // aged to 10
  enqueue(route, "high", 8, "", kNow);
  enqueue(route, "b-tie", 5, "", kNow - 60'000);
  enqueue(route, "a-tie", 5, "", kNow - 60'000);
  enqueue(route, "young-5", 6, "", kNow);
  ItemFilter filter;
  filter.status = ItemStatus::kQueued;
  filter.now = kNow;
  std::vector<std::string> keys;
  for (const WorkItem& item : ok_value(store_->list_items(filter))) keys.push_back(item.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"old-low", "high", "a-tie", "b-tie", "young-5"}));
  filter.limit = 2;
  filter.offset = 1;
  keys.clear();
  for (const WorkItem& item : ok_value(store_->list_items(filter))) keys.push_back(item.key);
  EXPECT_EQ(keys, (std::vector<std::string>{"high", "a-tie"}));
}

TEST_P(WorkQueueStore, OtherListsAreNewestFirstAndFilterByRouteStatusAndProject) {
  const Route a = add_route("a", 5);
  const Route b = add_route("b");
  enqueue(a, "1", 0, "web", kNow);
  enqueue(a, "2", 0, "api", kNow + 1);
  enqueue(b, "3", 0, "web", kNow + 2);
  auto keys_of = [&](ItemFilter filter) {
    std::vector<std::string> keys;
    for (const WorkItem& item : ok_value(store_->list_items(filter))) keys.push_back(item.key);
    return keys;
  };
  EXPECT_EQ(keys_of({}), (std::vector<std::string>{"3", "2", "1"}));
  ItemFilter by_route;
  by_route.route_id = a.id;
  EXPECT_EQ(keys_of(by_route), (std::vector<std::string>{"2", "1"}));
  ItemFilter by_project;
  by_project.project = "web";
  EXPECT_EQ(keys_of(by_project), (std::vector<std::string>{"3", "1"}));
  ItemFilter cancelled;
  cancelled.status = ItemStatus::kCancelled;
  EXPECT_TRUE(keys_of(cancelled).empty());
  // A filter's count is its rows, whatever page was asked for.
  for (ItemFilter filter : {ItemFilter{}, by_route, by_project, cancelled}) {
    const std::int64_t rows = std::int64_t(keys_of(filter).size());
    for (int limit : {1, 2, 100}) {
      for (int offset : {0, 1, 5}) {
        filter.limit = limit;
        filter.offset = offset;
        EXPECT_EQ(ok_value(store_->count_items(filter)), rows);
      }
    }
  }
  const auto counts = ok_value(store_->count_items_by_route());
  EXPECT_EQ(counts.at(a.id).of(ItemStatus::kQueued), 2);
  EXPECT_EQ(counts.at(b.id).of(ItemStatus::kQueued), 1);
  EXPECT_EQ(counts.at(b.id).of(ItemStatus::kRunning), 0);
}

// ---------------------------------------------------------------- requeue and cancel

TEST_P(WorkQueueStore, OnlyARestingItemIsRequeuedWithItsAttemptsResetAndTheReasonAppended) {
  const Route route = add_route("triage");
  const WorkItem item = enqueue(route, "1").item;
  EXPECT_TRUE(is_conflict(store_->requeue_item(item.id, "again", kNow)));
  const WorkflowRun run = start(item);
  EXPECT_TRUE(is_conflict(store_->requeue_item(item.id, "again", kNow)));
  end_run(run, WorkflowRunStatus::kFailed, "step a failed");
  ASSERT_TRUE(store_
                  ->settle_item({item.id, run.id, ItemStatus::kDeadLetter, {}, "step a failed", {}},
                                kNow + 20, {})
                  .ok());
  const WorkItem requeued = ok_value(store_->requeue_item(item.id, "fixed the token", kNow + 60));
  EXPECT_EQ(requeued.status, ItemStatus::kQueued);
  EXPECT_EQ(requeued.attempts, 0);
  EXPECT_EQ(requeued.queued_at, kNow + 60);
  EXPECT_EQ(requeued.last_reason, "step a failed; fixed the token");
  EXPECT_EQ(admit({item.id}, 0, kNow + 61), std::vector<std::string>{item.id});
  const WorkItem again = item_now(item.id);
  EXPECT_EQ(again.attempts, 1);
  EXPECT_EQ(again.admissions, 2);  // never reset: each admission's run is its own
}

TEST_P(WorkQueueStore, AnOpenItemIsCancelledAndAFinishedOneIsAConflict) {
  const Route route = add_route("triage", 3);
  for (const ItemStatus status :
       {ItemStatus::kQueued, ItemStatus::kAdmitted, ItemStatus::kRunning}) {
    const WorkItem item = enqueue(route, item_status_name(status)).item;
    if (status == ItemStatus::kAdmitted) admit({item.id});
    if (status == ItemStatus::kRunning) start(item);
    EXPECT_EQ(item_now(item.id).status, status);
    const WorkItem cancelled = ok_value(store_->cancel_item(item.id, "", kNow + 1));
    EXPECT_EQ(cancelled.status, ItemStatus::kCancelled);
    EXPECT_EQ(cancelled.last_reason, "cancelled");
    EXPECT_TRUE(is_conflict(store_->cancel_item(item.id, "", kNow + 2)));
  }
}

// ---------------------------------------------------------------- admission

TEST_P(WorkQueueStore, AdmissionStopsAtTheRouteLimit) {
  const Route route = add_route("triage", 2);
  std::vector<std::string> ids;
  for (const char* key : {"1", "2", "3"}) ids.push_back(enqueue(route, key).item.id);
  EXPECT_EQ(admit(ids), (std::vector<std::string>{ids[0], ids[1]}));
  const WorkItem admitted = item_now(ids[0]);
  EXPECT_EQ(admitted.status, ItemStatus::kAdmitted);
  EXPECT_EQ(admitted.attempts, 1);
  EXPECT_EQ(item_now(ids[2]).status, ItemStatus::kQueued);
  EXPECT_TRUE(admit({ids[2]}).empty());
}

TEST_P(WorkQueueStore, ManyAdmissionsComeBackWholeInTheOrderGivenUpToTheLimit) {
  const Route route = add_route("triage", 130);
  std::vector<WorkItem> batch;
  for (int n = 0; n < 150; ++n)
    batch.push_back(make_item(route, std::string("k") + std::to_string(n)));
  std::vector<std::string> ids;
  for (const Enqueued& e : ok_value(store_->enqueue_items(batch, kNow))) ids.push_back(e.item.id);
  std::reverse(ids.begin(), ids.end());
  const std::vector<WorkItem> admitted = ok_value(store_->admit_items(ids, 0, kNow + 1, {}));
  ASSERT_EQ(admitted.size(), 130u);
  for (std::size_t i = 0; i < admitted.size(); ++i) {
    EXPECT_EQ(admitted[i].id, ids[i]);
    EXPECT_EQ(admitted[i].status, ItemStatus::kAdmitted);
    EXPECT_EQ(admitted[i].attempts, 1);
    EXPECT_EQ(admitted[i].route_name, "triage");
    EXPECT_EQ(admitted[i].invocation.intent, "fix " + admitted[i].key);
  }
  EXPECT_EQ(item_now(ids[130]).status, ItemStatus::kQueued);
}

TEST_P(WorkQueueStore, AProjectLimitCountsTheProjectsItemsOnEveryRoute) {
  Route a = make_route("a", 10);
  a.max_per_project = 1;
  a = ok_value(store_->create_route(a, kNow));
  const Route b = add_route("b", 10);
  const WorkItem on_b = enqueue(b, "1", 0, "web").item;
  EXPECT_EQ(admit({on_b.id}), std::vector<std::string>{on_b.id});  // b has no project limit
  const WorkItem web = enqueue(a, "2", 0, "web").item;
  const WorkItem api = enqueue(a, "3", 0, "api").item;
  const WorkItem none = enqueue(a, "4").item;
  EXPECT_EQ(admit({web.id, api.id, none.id}), (std::vector<std::string>{api.id, none.id}));
}

TEST_P(WorkQueueStore, AGroupLimitAndTheGlobalCapHoldToo) {
  Route a = make_route("a", 10);
  a.max_per_group = 1;
  a = ok_value(store_->create_route(a, kNow));
  WorkItem first = make_item(a, "1");
  first.group = "deps";
  WorkItem second = make_item(a, "2");
  second.group = "deps";
  const WorkItem one = ok_value(store_->enqueue_item(first, kNow)).item;
  const WorkItem two = ok_value(store_->enqueue_item(second, kNow)).item;
  EXPECT_EQ(admit({one.id, two.id}), std::vector<std::string>{one.id});
  const Route b = add_route("b", 10);
  std::vector<std::string> ids;
  for (const char* key : {"1", "2", "3"}) ids.push_back(enqueue(b, key).item.id);
  EXPECT_EQ(admit(ids, 3), (std::vector<std::string>{ids[0], ids[1]}));  // 1 of a holds
}

TEST_P(WorkQueueStore, AdmissionSkipsWhatIsNotQueued) {
  Route route = add_route("triage", 5);
  const WorkItem item = enqueue(route, "1").item;
  ASSERT_EQ(admit({item.id}).size(), 1u);
  EXPECT_TRUE(admit({item.id}).empty());  // admitted already: its attempt not spent twice
  EXPECT_EQ(item_now(item.id).attempts, 1);
  EXPECT_TRUE(admit({"no-such-item"}).empty());
}

TEST_P(WorkQueueStore, TheAdmissionQueueHoldsCandidatesAndHoldersAndQueuesDueRetries) {
  const Route route = add_route("triage", 5);
  const WorkItem waiting = enqueue(route, "waiting").item;
  const WorkItem retried = enqueue(route, "retried").item;
  const WorkItem later = enqueue(route, "later").item;
  const WorkflowRun first = start(retried);
  const WorkflowRun second = start(later);
  end_run(first, WorkflowRunStatus::kFailed);
  end_run(second, WorkflowRunStatus::kFailed);
  ASSERT_TRUE(store_
                  ->settle_item({retried.id, first.id, ItemStatus::kFailed, kNow + 100, "x", {}},
                                kNow + 20, {})
                  .ok());
  ASSERT_TRUE(store_
                  ->settle_item({later.id, second.id, ItemStatus::kFailed, kNow + 900, "y", {}},
                                kNow + 20, {})
                  .ok());
  const AdmissionQueue queue = read_queue(kNow + 100);
  std::map<std::string, ItemStatus> statuses;
  for (const QueueEntry& entry : queue.candidates) statuses[entry.key] = entry.status;
  // The retry not due yet is no candidate of the daemon's read.
  EXPECT_EQ(statuses, (std::map<std::string, ItemStatus>{{"retried", ItemStatus::kQueued},
                                                         {"waiting", ItemStatus::kQueued}}));
  EXPECT_EQ(item_now(later.id).status, ItemStatus::kFailed);
  EXPECT_TRUE(queue.holding.empty());
  EXPECT_EQ(item_now(retried.id).status, ItemStatus::kQueued);
  EXPECT_EQ(item_now(waiting.id).status, ItemStatus::kQueued);
  ASSERT_EQ(queue.routes.size(), 1u);
  EXPECT_EQ(admit({retried.id}, 0, kNow + 101), std::vector<std::string>{retried.id});
  EXPECT_EQ(item_now(retried.id).attempts, 2);
  const AdmissionQueue next = read_queue(kNow + 102);
  ASSERT_EQ(next.holding.size(), 1u);
  EXPECT_EQ(next.holding[0].id, retried.id);
}

TEST_P(WorkQueueStore, ADueRetryOnAPausedRouteIsDeferredAndTheSnapshotMovesNothing) {
  Route route = add_route("triage");
  const WorkItem item = enqueue(route, "1").item;
  const WorkflowRun run = start(item);
  end_run(run, WorkflowRunStatus::kFailed);
  ASSERT_TRUE(
      store_->settle_item({item.id, run.id, ItemStatus::kFailed, kNow + 50, "x", {}}, kNow + 20, {})
          .ok());
  route.status = RouteStatus::kPaused;
  ok_value(store_->update_route(route, kNow + 30));
  EXPECT_EQ(item_now(item.id).status, ItemStatus::kFailed);  // its retry still waits
  const AdmissionQueue seen = ok_value(store_->admission_snapshot());
  ASSERT_EQ(seen.candidates.size(), 1u);
  EXPECT_EQ(seen.candidates[0].status, ItemStatus::kFailed);
  EXPECT_EQ(item_now(item.id).status, ItemStatus::kFailed);
  read_queue(kNow + 60);
  EXPECT_EQ(item_now(item.id).status, ItemStatus::kDeferred);
  route.status = RouteStatus::kActive;
  ok_value(store_->update_route(route, kNow + 70));
  EXPECT_EQ(item_now(item.id).status, ItemStatus::kQueued);
}

TEST_P(WorkQueueStore, ALostDaemonLeaseRefusesEveryAdmissionWriteAndChangesNothing) {
  probe_->start({100, 1});
  const Route route = add_route("triage", 5);
  const WorkItem queued = enqueue(route, "queued").item;
  const WorkItem admitted = enqueue(route, "admitted").item;
  const WorkItem running = enqueue(route, "running").item;
  ASSERT_EQ(admit({admitted.id}).size(), 1u);
  const WorkflowRun run = start(running);
  auto lease = store_->acquire_daemon_lease({100, 1}, 30'000, kNow);
  ASSERT_TRUE(lease.ok() && lease->has_value());
  const Fence fence{(*lease)->lease_id};
  ASSERT_TRUE(store_->acquire_daemon_lease({200, 2}, 30'000, kNow + 31'000).ok());
  const TimeMs later = kNow + 31'001;
  EXPECT_TRUE(lost_lease(store_->read_admission_queue({later, 100, 0, {}}, fence)));
  EXPECT_TRUE(lost_lease(store_->admit_items({queued.id}, 0, later, fence)));
  EXPECT_TRUE(lost_lease(store_->start_item(admitted.id, run.id, later, fence)));
  EXPECT_TRUE(lost_lease(store_->return_item(admitted.id, "x", later, fence)));
  EXPECT_TRUE(lost_lease(
      store_->settle_item({running.id, run.id, ItemStatus::kSucceeded, {}, "", {}}, later, fence)));
  EXPECT_EQ(item_now(queued.id).status, ItemStatus::kQueued);
  EXPECT_EQ(item_now(admitted.id).status, ItemStatus::kAdmitted);
  EXPECT_EQ(item_now(running.id).status, ItemStatus::kRunning);
}

TEST_P(WorkQueueStore, AStartedItemRunsItsRunAndSettlesOnlyFromThatRun) {
  const Route route = add_route("triage");
  const WorkItem item = enqueue(route, "1").item;
  const WorkflowRun run = start(item);
  const WorkItem running = item_now(item.id);
  EXPECT_EQ(running.status, ItemStatus::kRunning);
  EXPECT_EQ(running.workflow_run_id, run.id);
  EXPECT_EQ(run_now(run.id).item_id, item.id);
  EXPECT_TRUE(ok_value(store_->finished_item_runs(10)).empty());
  EXPECT_TRUE(is_conflict(store_->start_item(item.id, run.id, kNow, {})));  // not admitted
  end_run(run, WorkflowRunStatus::kFailed, "step a failed: exit 3");
  const auto finished = ok_value(store_->finished_item_runs(10));
  ASSERT_EQ(finished.size(), 1u);
  EXPECT_EQ(finished[0].item.id, item.id);
  EXPECT_EQ(finished[0].route.id, route.id);
  EXPECT_EQ(finished[0].run_status, WorkflowRunStatus::kFailed);
  EXPECT_EQ(finished[0].run_error, "step a failed: exit 3");
  EXPECT_TRUE(is_conflict(
      store_->settle_item({item.id, "another-run", ItemStatus::kSucceeded, {}, "", {}}, kNow, {})));
  ASSERT_TRUE(
      store_
          ->settle_item({item.id, run.id, ItemStatus::kDeadLetter, {}, "exit 3", {}}, kNow + 30, {})
          .ok());
  const WorkItem settled = item_now(item.id);
  EXPECT_EQ(settled.status, ItemStatus::kDeadLetter);
  EXPECT_EQ(settled.last_reason, "exit 3");
  EXPECT_TRUE(ok_value(store_->finished_item_runs(10)).empty());
  EXPECT_TRUE(is_conflict(
      store_->settle_item({item.id, run.id, ItemStatus::kSucceeded, {}, "", {}}, kNow + 31, {})));
}

// A worker of `run` walked to reported, with a merge entry waiting.
MergeEntry queued_change(Store& store, const WorkflowRun& run) {
  Worker worker;
  worker.workflow_run_id = run.id;
  worker.step_id = "fix";
  worker.repo = "/srv/repo";
  worker.branch = "orrery/" + run.id + "/fix";
  worker.worktree_path = "/home/o/worktrees/" + run.id + "/fix";
  worker.host = "host-a";
  worker.base_revision = std::string(40, 'a');
  worker.base_branch = "main";
  worker = ok_value(store.create_worker(worker, kNow));
  WorkerState at = WorkerState::kPlanned;
  for (WorkerState next : {WorkerState::kLeased, WorkerState::kStarting, WorkerState::kRunning,
                           WorkerState::kReported}) {
    WorkerChange change;
    change.worker_id = worker.id;
    change.from = at;
    change.to = next;
    change.lease_owner = run.id + "/fix/1";
    change.lease_ms = 60'000;
    worker = ok_value(store.change_worker(change, kNow + 1));
    at = next;
  }
  MergeEntry entry;
  entry.worker_id = worker.id;
  entry.repo = worker.repo;
  entry.target = "main";
  entry.base_revision = worker.base_revision;
  entry.candidate_revision = std::string(40, 'c');
  entry.verify.command = "make test";
  return ok_value(store.enqueue_merge(entry, kNow + 2));
}

TEST_P(WorkQueueStore, AFinishedRunSettlesOnlyOnceItsChangesLeftTheMergeQueueWithThem) {
  const Route route = add_route("triage");
  const WorkItem item = enqueue(route, "1").item;
  const WorkflowRun run = start(item);
  const MergeEntry entry = queued_change(*store_, run);
  end_run(run, WorkflowRunStatus::kSucceeded);
  // The run has ended but its change waits in the queue: nothing to settle,
  // and a settlement read before the entry entered is refused.
  EXPECT_TRUE(ok_value(store_->finished_item_runs(10)).empty());
  EXPECT_TRUE(is_conflict(store_->settle_item(
      {item.id, run.id, ItemStatus::kSucceeded, {}, "done", {}}, kNow + 20, {})));
  MergeChange take;
  take.entry_id = entry.id;
  take.from = MergeState::kWaiting;
  take.to = MergeState::kReady;
  take.driver = "driver-a";
  ok_value(store_->change_merge_entry(take, kNow + 21));
  EXPECT_TRUE(ok_value(store_->finished_item_runs(10)).empty());
  MergeChange reject = take;
  reject.from = MergeState::kReady;
  reject.to = MergeState::kRejected;
  reject.reason = "verification failed";
  reject.verify = VerifyRecord{"make test", 2, 40, "FAILED: a_test\n", std::string(40, 't')};
  ok_value(store_->change_merge_entry(reject, kNow + 22));
  EXPECT_EQ(item_now(item.id).status, ItemStatus::kRunning);

  const auto finished = ok_value(store_->finished_item_runs(10));
  ASSERT_EQ(finished.size(), 1u);
  ASSERT_EQ(finished[0].changes.size(), 1u);
  const AttemptChange& change = finished[0].changes[0];
  EXPECT_EQ(change.worker.id, entry.worker_id);
  EXPECT_EQ(change.worker.step_id, "fix");
  ASSERT_TRUE(change.entry.has_value());
  EXPECT_EQ(change.entry->id, entry.id);
  EXPECT_EQ(change.entry->state, MergeState::kRejected);
  EXPECT_EQ(change.entry->verify.exit_code, 2);
  EXPECT_EQ(change.entry->verify.output_tail, "FAILED: a_test\n");

  // The settlement stores the record for the next attempt.
  ItemSettlement settlement{item.id, run.id, ItemStatus::kFailed, kNow + 500, "rejected", {}};
  settlement.feedback_json = R"({"attempt":1})";
  ASSERT_TRUE(store_->settle_item(settlement, kNow + 30, {}).ok());
  EXPECT_EQ(item_now(item.id).feedback_json, R"({"attempt":1})");
  EXPECT_EQ(item_now(item.id).status, ItemStatus::kFailed);
}

TEST_P(WorkQueueStore, ASettlementWithoutFeedbackLeavesTheItemsAndAnEmptyOneClearsIt) {
  const Route route = add_route("triage");
  const WorkItem item = enqueue(route, "1").item;
  for (const std::optional<std::string>& feedback :
       {std::optional<std::string>(R"({"attempt":1})"), std::optional<std::string>(),
        std::optional<std::string>("")}) {
    const WorkItem before = item_now(item.id);
    if (before.status != ItemStatus::kQueued)
      ok_value(store_->requeue_item(item.id, "again", kNow));
    const WorkflowRun run = start(item_now(item.id));
    end_run(run, WorkflowRunStatus::kFailed, "x");
    ItemSettlement settlement{item.id, run.id, ItemStatus::kDeadLetter, {}, "x", {}};
    settlement.feedback_json = feedback;
    ASSERT_TRUE(store_->settle_item(settlement, kNow + 30, {}).ok());
    EXPECT_EQ(item_now(item.id).feedback_json, feedback.value_or(before.feedback_json));
  }
}

TEST_P(WorkQueueStore, AnItemReturnedUnstartedKeepsItsAttemptUntilItsFreeReturnsAreSpent) {
  const Route route = add_route("triage");
  const WorkItem item = enqueue(route, "1").item;
  for (int returned = 1; returned <= kMaxFreeReturns; ++returned) {
    ASSERT_EQ(admit({item.id}).size(), 1u);
    EXPECT_EQ(ok_value(store_->admitted_items(10)).size(), 1u);
    const WorkItem back = ok_value(store_->return_item(item.id, "no run", kNow, {}));
    EXPECT_EQ(back.status, ItemStatus::kQueued);
    EXPECT_EQ(back.attempts, 0);
    EXPECT_EQ(back.free_returns, returned);
  }
  ASSERT_EQ(admit({item.id}).size(), 1u);
  const WorkItem dead = ok_value(store_->return_item(item.id, "no run", kNow, {}));
  EXPECT_EQ(dead.status, ItemStatus::kDeadLetter);
  EXPECT_EQ(dead.attempts, 1);
  EXPECT_TRUE(is_conflict(store_->return_item(item.id, "again", kNow, {})));
}

// ---------------------------------------------------------------- pruning

TEST_P(WorkQueueStore, PruningRemovesOnlyOldFinishedItemsAndTheInvocationsNoneUses) {
  const Route route = add_route("triage", 5);
  const WorkItem old_done = enqueue(route, "old-done").item;
  const WorkItem old_queued = enqueue(route, "old-queued").item;
  const WorkItem old_running = enqueue(route, "old-running").item;
  const WorkItem new_done = enqueue(route, "new-done").item;
  ok_value(store_->cancel_item(old_done.id, "", kNow + 1));
  start(old_running);
  ok_value(store_->cancel_item(new_done.id, "", kNow + 500));
  EXPECT_EQ(ok_value(store_->prune_items(kNow + 100, true)), 1);
  EXPECT_TRUE(ok_value(store_->get_item(old_done.id)).has_value());  // a dry run deletes nothing
  EXPECT_EQ(ok_value(store_->prune_items(kNow + 100, false)), 1);
  EXPECT_FALSE(ok_value(store_->get_item(old_done.id)).has_value());
  for (const WorkItem& kept : {old_queued, old_running, new_done}) {
    EXPECT_TRUE(ok_value(store_->get_item(kept.id)).has_value()) << kept.key;
  }
  EXPECT_EQ(invocation_rows(*store_), 3);
  EXPECT_EQ(ok_value(store_->prune_items(kNow + 100, false)), 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkQueueStore, backends(), backend_name);

}  // namespace
}  // namespace orrery
