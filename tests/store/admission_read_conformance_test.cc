// The Store conformance suite, the daemon's admission read (store/
// admission.h AdmissionRead, docs/admission.md "Admission"): it brings only
// the candidates no limit holds, ranked as core/admission_plan.h ranks them,
// at most its limit. Generated queues check the class: planning the daemon's
// read admits exactly what planning the whole queue admits first. Every
// backend must pass it.
#include <algorithm>
#include <random>
#include <set>
#include <tuple>

#include "core/admission_plan.h"
#include "engine/admission_input.h"
#include "store/work_queue_conformance.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)

using AdmissionReadStore = WorkQueueConformance;

constexpr TimeMs kReadAt = kNow + 100'000;

std::vector<std::string> keys_of(const std::vector<QueueEntry>& entries) {
  std::vector<std::string> keys;
  for (const QueueEntry& entry : entries) keys.push_back(entry.key);
  return keys;
}

TEST_P(AdmissionReadStore, OnlyCandidatesNoLimitHoldsAreRead) {
  Route full = add_route("full", 1);
  Route open = add_route("open", 3);
  open.max_per_project = 1;
  open.max_per_group = 1;
  ok_value(store_->update_route(open, kNow));
  Route paused = add_route("paused", 5);
  start(enqueue(full, "full-running").item);
  enqueue(full, "full-waiting");
  start(enqueue(open, "web-running", 0, "web").item);
  enqueue(open, "web-waiting", 0, "web");
  WorkItem grouped = make_item(open, "ops-running", 0, "ops");
  grouped.group = "pager";
  start(ok_value(store_->enqueue_item(grouped, kNow)).item);
  WorkItem same_group = make_item(open, "api-grouped", 0, "api");
  same_group.group = "pager";
  ok_value(store_->enqueue_item(same_group, kNow));
  enqueue(open, "api-free", 0, "api");
  enqueue(paused, "deferred");
  paused.status = RouteStatus::kPaused;
  ok_value(store_->update_route(paused, kNow));
  const AdmissionQueue queue = read_queue(kReadAt);
  EXPECT_EQ(keys_of(queue.candidates), std::vector<std::string>{"api-free"});
  EXPECT_EQ(queue.holding.size(), 3u);
  EXPECT_EQ(queue.routes.size(), 3u);
  EXPECT_FALSE(queue.more);
  EXPECT_EQ(ok_value(store_->admission_snapshot()).candidates.size(), 5u);
}

TEST_P(AdmissionReadStore, HeldRoutesAndAReachedGlobalCapBringNoCandidates) {
  const Route first = add_route("first", 5);
  const Route second = add_route("second", 5);
  start(enqueue(first, "running").item);
  enqueue(first, "a");
  enqueue(second, "b");
  EXPECT_EQ(keys_of(read_queue(kReadAt, 100, 0, {first.id}).candidates),
            std::vector<std::string>{"b"});
  EXPECT_TRUE(read_queue(kReadAt, 100, 0, {first.id, second.id}).candidates.empty());
  EXPECT_TRUE(read_queue(kReadAt, 100, 1).candidates.empty());
  EXPECT_EQ(read_queue(kReadAt, 100, 2).candidates.size(), 2u);
}

TEST_P(AdmissionReadStore, CandidatesComeRankedAndStopAtTheLimitSayingMore) {
  Route aging = make_route("aging", 10);
  aging.priority_aging_ms = 10'000;
  aging = ok_value(store_->create_route(aging, kNow));
  const Route plain = add_route("plain", 10);
  enqueue(plain, "high", 5, "", kNow + 90'000);
  enqueue(aging, "old-low", 0, "", kNow);         // raised by 10 at kReadAt
  enqueue(plain, "old-plain", 0, "", kNow);       // not raised
  enqueue(aging, "young", 1, "", kNow + 90'000);  // raised by 1: 2
  enqueue(plain, "b-tie", 2, "", kNow + 95'000);  // ties with young's 2, younger: after
  EXPECT_EQ(keys_of(read_queue(kReadAt).candidates),
            (std::vector<std::string>{"old-low", "high", "young", "b-tie", "old-plain"}));
  const AdmissionQueue page = read_queue(kReadAt, 2);
  EXPECT_EQ(keys_of(page.candidates), (std::vector<std::string>{"old-low", "high"}));
  EXPECT_TRUE(page.more);
  EXPECT_TRUE(read_queue(kReadAt, 5).more);
  EXPECT_FALSE(read_queue(kReadAt, 6).more);
}

// The full names reach the database as JSON: every printable name, quotes,
// backslashes, slashes and code points of every width included, matches
// itself and nothing else.
TEST_P(AdmissionReadStore, AFullProjectOrGroupIsMatchedByItsExactNameWhateverItHolds) {
  const std::vector<std::string> names{"a\"b",      "back\\slash",  "with/slash", "u\\u0041",
                                       "caf\u00e9", "\u65e5\u672c", "\U0001F600", "e\u0301",
                                       "in side",   "[]",           "%_*",        "name'"};
  Route route = make_route("names", 100);
  route.max_per_project = 1;
  route.max_per_group = 1;
  route = ok_value(store_->create_route(route, kNow));
  std::set<std::string> open;
  int n = 0;
  for (const std::string& name : names) {
    const std::string tag = std::to_string(n++);
    start(enqueue(route, "held-p" + tag, 0, name).item);
    enqueue(route, "waits-p" + tag, 0, name);
    open.insert(enqueue(route, "open-p" + tag, 0, name + "x").item.key);
    WorkItem grouped = make_item(route, "held-g" + tag, 0, "");
    grouped.group = name;
    start(ok_value(store_->enqueue_item(grouped, kNow)).item);
    WorkItem waiting = make_item(route, "waits-g" + tag, 0, "");
    waiting.group = name;
    ok_value(store_->enqueue_item(waiting, kNow));
    WorkItem other = make_item(route, "open-g" + tag, 0, "");
    other.group = "x" + name;
    open.insert(ok_value(store_->enqueue_item(other, kNow)).item.key);
  }
  const std::vector<std::string> read = keys_of(read_queue(kReadAt).candidates);
  EXPECT_EQ(std::set<std::string>(read.begin(), read.end()), open);
}

// ------------------------------------------------------- generated queues

// Whether `entry` of a whole snapshot is a candidate of the daemon's read:
// queued, its retry due, on an active route no cooldown holds, whose
// route, project and group limits are each below their value counting the
// items holding capacity, the global cap too.
bool admissible(const QueueEntry& entry, const AdmissionQueue& whole, const RouteHolds& holds,
                int global_max) {
  const Route* route = nullptr;
  for (const Route& r : whole.routes) route = r.id == entry.route_id ? &r : route;
  if (route == nullptr || route->status != RouteStatus::kActive) return false;
  if (entry.status != ItemStatus::kQueued || holds.count(route->id) > 0) return false;
  if (entry.next_attempt_at && *entry.next_attempt_at > kReadAt) return false;
  int on_route = 0, in_project = 0, in_group = 0;
  for (const QueueEntry& held : whole.holding) {
    on_route += held.route_id == route->id;
    in_project += !entry.project.empty() && held.project == entry.project;
    in_group += !entry.group.empty() && held.group == entry.group;
  }
  if (on_route >= route->max_running) return false;
  if (route->max_per_project > 0 && in_project >= route->max_per_project) return false;
  if (route->max_per_group > 0 && in_group >= route->max_per_group) return false;
  return global_max == 0 || int(whole.holding.size()) < global_max;
}

bool ranked_in_order(const std::vector<QueueEntry>& entries, const AdmissionQueue& whole) {
  auto rank = [&](const QueueEntry& e) {
    DurationMs aging = 0;
    for (const Route& r : whole.routes) aging = r.id == e.route_id ? r.priority_aging_ms : aging;
    return std::make_tuple(-effective_priority(e.priority, e.queued_at, kReadAt, aging),
                           e.queued_at, e.key, e.route_id);
  };
  for (std::size_t i = 1; i < entries.size(); ++i) {
    if (rank(entries[i]) < rank(entries[i - 1])) return false;
  }
  return true;
}

std::vector<std::string> planned(AdmissionQueue queue, const RouteHolds& holds, int global_max,
                                 int max_admissions) {
  AdmissionInput input = admission_input(std::move(queue), holds, global_max, kReadAt);
  input.max_admissions = max_admissions;
  input.explain = false;
  return plan_admission(input).admit;
}

class GeneratedAdmissionRead : public WorkQueueConformance {
 protected:
  int pick(int low, int high) { return std::uniform_int_distribution<int>(low, high)(random_); }

  // Routes with random limits (some paused, some aging, some held by a
  // cooldown) and items over a few projects and groups at random
  // priorities and ages: some admitted or running (as their limits let
  // them), some failed with a retry due at the read or not.
  void add_random_queue(int seed) {
    random_.seed(std::uint32_t(seed));
    std::vector<Route> routes;
    for (int r = 0, count = pick(1, 4); r < count; ++r) {
      Route route =
          make_route(std::string("s") + std::to_string(seed) + "-" + std::to_string(r), pick(1, 4));
      route.max_per_project = pick(0, 2);
      route.max_per_group = pick(0, 2);
      route.priority_aging_ms = pick(0, 1) == 0 ? 0 : pick(1, 30) * 1'000;
      routes.push_back(ok_value(store_->create_route(route, kNow)));
    }
    for (int n = 0, count = pick(0, 25); n < count; ++n) {
      add_random_item(routes[std::size_t(pick(0, int(routes.size()) - 1))],
                      std::string("s") + std::to_string(seed) + "-" + std::to_string(n));
    }
    for (Route& route : routes) {
      if (pick(0, 4) == 0) holds_[route.id] = "claude cooldown until later";
      if (pick(0, 4) != 0) continue;
      route.status = RouteStatus::kPaused;
      ok_value(store_->update_route(route, kNow + 95'000));
    }
  }

  void add_random_item(const Route& route, const std::string& key) {
    static const char* const kProjects[] = {"", "web", "api", "ops"};
    static const char* const kGroups[] = {"", "pager", "docs"};
    WorkItem item = make_item(route, key, pick(-3, 3), kProjects[pick(0, 3)]);
    item.group = kGroups[pick(0, 2)];
    const TimeMs at = kNow + pick(0, 90) * 1'000;
    const WorkItem stored = ok_value(store_->enqueue_item(item, at)).item;
    const int fate = pick(0, 5);
    if (fate > 2 || admit({stored.id}, 0, at).empty()) return;  // queued (or held back)
    if (fate == 0) return;                                      // admitted
    NewWorkflowRun published = new_run(workflow_, "item:" + stored.id);
    published.run.id = next_id(at);
    published.run.item_id = stored.id;
    const WorkflowRun run = ok_value(store_->publish_workflow_run(published, {}, at)).run;
    ASSERT_TRUE(store_->start_item(stored.id, run.id, at, {}).ok());
    if (fate == 1) return;  // running
    end_run(run, WorkflowRunStatus::kFailed);
    const TimeMs retry_at = kReadAt + (pick(0, 1) == 0 ? -5'000 : 5'000);
    ASSERT_TRUE(
        store_->settle_item({stored.id, run.id, ItemStatus::kFailed, retry_at, "x", {}}, at, {})
            .ok());
  }

  std::mt19937 random_;
  RouteHolds holds_;
};

TEST_P(GeneratedAdmissionRead, TheDaemonsReadPlansAsTheWholeQueueDoes) {
  for (int seed = 0; seed < 24; ++seed) {
    add_random_queue(seed);
    const int global_max = pick(0, 1) == 0 ? 0 : pick(1, 8);
    const AdmissionQueue read = read_queue(kReadAt, 10'000, global_max, held_route_ids(holds_));
    const AdmissionQueue whole = ok_value(store_->admission_snapshot());
    std::set<std::string> expected;
    for (const QueueEntry& entry : whole.candidates) {
      if (admissible(entry, whole, holds_, global_max)) expected.insert(entry.id);
    }
    std::set<std::string> got;
    for (const QueueEntry& entry : read.candidates) got.insert(entry.id);
    EXPECT_EQ(got, expected) << "seed " << seed;
    EXPECT_TRUE(ranked_in_order(read.candidates, whole)) << "seed " << seed;
    EXPECT_EQ(read.holding.size(), whole.holding.size()) << "seed " << seed;
    const std::vector<std::string> all = planned(whole, holds_, global_max, 10'000);
    EXPECT_EQ(planned(read, holds_, global_max, 10'000), all) << "seed " << seed;
    for (int limit : {1, 2, 3, 5}) {
      const AdmissionQueue page = read_queue(kReadAt, limit, global_max, held_route_ids(holds_));
      EXPECT_EQ(page.more, expected.size() >= std::size_t(limit)) << "seed " << seed;
      const std::vector<std::string> first = planned(page, holds_, global_max, limit);
      ASSERT_LE(first.size(), all.size()) << "seed " << seed;
      EXPECT_TRUE(std::equal(first.begin(), first.end(), all.begin()))
          << "seed " << seed << ", limit " << limit << ": not the first admissions of the queue";
      EXPECT_EQ(first.empty(), expected.empty()) << "seed " << seed << ": a page admits one";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, AdmissionReadStore, backends(), backend_name);
INSTANTIATE_TEST_SUITE_P(Backends, GeneratedAdmissionRead, backends(), backend_name);

}  // namespace
}  // namespace orrery
