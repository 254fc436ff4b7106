#include "core/admission_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>

namespace orrery {
namespace {

RouteLimits route(std::string id, int max_running, int per_project = 0, int per_group = 0) {
  RouteLimits limits;
  limits.id = id;
  limits.name = id;
  limits.max_running = max_running;
  limits.max_per_project = per_project;
  limits.max_per_group = per_group;
  return limits;
}

QueueEntry entry(std::string key, std::string route_id, std::int64_t priority = 0,
                 TimeMs queued_at = 0, std::string project = "", std::string group = "") {
  QueueEntry item;
  item.id = "id-" + key;
  item.key = key;
  item.route_id = route_id;
  item.priority = priority;
  item.queued_at = queued_at;
  item.project = project;
  item.group = group;
  return item;
}

QueueEntry holding(std::string key, std::string route_id, std::string project = "",
                   std::string group = "") {
  QueueEntry item = entry(key, route_id, 0, 0, project, group);
  item.status = ItemStatus::kRunning;
  return item;
}

std::vector<std::string> ids(std::initializer_list<const char*> keys) {
  std::vector<std::string> out;
  for (const char* key : keys) out.push_back(std::string("id-") + key);
  return out;
}

TEST(AdmissionPlan, AdmitsByPriorityThenAgeThenKeyUpToTheRoutesLimit) {
  AdmissionInput input;
  input.routes = {route("r", 3)};
  input.candidates = {entry("low", "r", 1, 100), entry("old", "r", 5, 100),
                      entry("new", "r", 5, 200), entry("b", "r", 5, 200),
                      entry("top", "r", 9, 900)};
  const AdmissionPlan plan = plan_admission(input);
  EXPECT_EQ(plan.admit, ids({"top", "old", "b"}));
  EXPECT_EQ(plan.waiting_on.at("id-new"), "route max_running 3 reached (items top, old, b)");
  EXPECT_EQ(plan.waiting_on.at("id-low"), "route max_running 3 reached (items top, old, b)");
}

TEST(AdmissionPlan, ItemsAlreadyHoldingCapacityCountAgainstTheLimits) {
  AdmissionInput input;
  input.routes = {route("r", 2, 1)};
  input.holding = {holding("A", "r", "web")};
  input.candidates = {entry("C", "r", 0, 1, "web"), entry("D", "r", 0, 2, "api"),
                      entry("E", "r", 0, 3, "cli")};
  const AdmissionPlan plan = plan_admission(input);
  EXPECT_EQ(plan.admit, ids({"D"}));
  EXPECT_EQ(plan.waiting_on.at("id-C"), "project web at max_per_project 1 (item A)");
  EXPECT_EQ(plan.waiting_on.at("id-E"), "route max_running 2 reached (items A, D)");
}

TEST(AdmissionPlan, AProjectCountsTheItemsOfEveryRoute) {
  AdmissionInput input;
  input.routes = {route("issues", 5, 1), route("ci", 5)};
  input.holding = {holding("ci-1", "ci", "web")};
  input.candidates = {entry("issue-1", "issues", 0, 0, "web")};
  const AdmissionPlan plan = plan_admission(input);
  EXPECT_TRUE(plan.admit.empty());
  EXPECT_EQ(plan.waiting_on.at("id-issue-1"), "project web at max_per_project 1 (item ci-1)");
}

TEST(AdmissionPlan, GroupsAndTheGlobalCapHoldItemsToo) {
  AdmissionInput input;
  input.routes = {route("a", 10, 0, 1), route("b", 10)};
  input.global_max_running = 2;
  input.candidates = {entry("a1", "a", 3, 0, "", "g"), entry("a2", "a", 2, 0, "", "g"),
                      entry("b1", "b", 1, 0), entry("b2", "b", 0, 0)};
  const AdmissionPlan plan = plan_admission(input);
  EXPECT_EQ(plan.admit, ids({"a1", "b1"}));
  EXPECT_EQ(plan.waiting_on.at("id-a2"), "group g at max_per_group 1 (item a1)");
  EXPECT_EQ(plan.waiting_on.at("id-b2"), "global max_running 2 reached (items a1, b1)");
}

TEST(AdmissionPlan, APausedOrHeldRouteAndAnUndueRetryAdmitNothingAndSaySo) {
  AdmissionInput input;
  input.now = 5000;
  RouteLimits paused = route("p", 5);
  paused.paused = true;
  RouteLimits held = route("h", 5);
  held.held_by = "claude cooldown until 2026-12-02T10:00:00Z";
  input.routes = {paused, held, route("r", 5)};
  QueueEntry retry = entry("retry", "r");
  retry.next_attempt_at = 6000;
  QueueEntry due = entry("due", "r");
  due.next_attempt_at = 5000;
  input.candidates = {entry("p1", "p"), entry("h1", "h"), retry, due, entry("orphan", "gone")};
  const AdmissionPlan plan = plan_admission(input);
  EXPECT_EQ(plan.admit, ids({"due"}));
  EXPECT_EQ(plan.waiting_on.at("id-p1"), "route paused");
  EXPECT_EQ(plan.waiting_on.at("id-h1"), "claude cooldown until 2026-12-02T10:00:00Z");
  EXPECT_EQ(plan.waiting_on.at("id-retry"), "retry at " + format_time(6000));
  EXPECT_EQ(plan.waiting_on.at("id-orphan"), "its route is gone");
}

TEST(AdmissionPlan, AgingLiftsAnOldLowPriorityItemAboveNewerHighOnes) {
  AdmissionInput input;
  RouteLimits aging = route("r", 1);
  aging.priority_aging_ms = 1000;
  input.routes = {aging};
  input.now = 100'000;
  input.candidates = {entry("old-low", "r", 0, 0), entry("new-high", "r", 50, 99'000)};
  EXPECT_EQ(plan_admission(input).admit, ids({"old-low"})) << "0 + 100 beats 50 + 1";
  input.routes[0].priority_aging_ms = 0;
  EXPECT_EQ(plan_admission(input).admit, ids({"new-high"}));
}

TEST(AdmissionPlan, ATickAdmitsAtMostItsShareAndTheRestWaitForTheNextTick) {
  AdmissionInput input;
  input.routes = {route("r", 100)};
  input.max_admissions = 2;
  input.candidates = {entry("a", "r", 3), entry("b", "r", 2), entry("c", "r", 1)};
  const AdmissionPlan plan = plan_admission(input);
  EXPECT_EQ(plan.admit, ids({"a", "b"}));
  EXPECT_EQ(plan.waiting_on.at("id-c"), "next tick");
}

TEST(AdmissionPlan, AListOfHoldersNamesFiveAndCountsTheRest) {
  AdmissionInput input;
  input.routes = {route("r", 7)};
  for (const char* key : {"h1", "h2", "h3", "h4", "h5", "h6", "h7"}) {
    input.holding.push_back(holding(key, "r"));
  }
  input.candidates = {entry("w", "r")};
  EXPECT_EQ(plan_admission(input).waiting_on.at("id-w"),
            "route max_running 7 reached (items h1, h2, h3, h4, h5, and 2 more)");
}

// Generated queues: whatever the mix, no limit is exceeded, every candidate
// is either admitted or told why, the order of admission follows the ranks,
// and nothing admissible is left waiting while capacity remains.
TEST(AdmissionPlan, GeneratedQueuesNeverExceedALimitAndExplainEveryWait) {
  std::mt19937 random(20261202);
  for (int round = 0; round < 500; ++round) {
    AdmissionInput input;
    input.now = 10'000;
    input.global_max_running = int(random() % 4) == 0 ? int(random() % 8) + 1 : 0;
    const int route_count = int(random() % 3) + 1;
    for (int r = 0; r < route_count; ++r) {
      RouteLimits limits = route("r" + std::to_string(r), int(random() % 4) + 1, int(random() % 3),
                                 int(random() % 3));
      limits.paused = random() % 6 == 0;
      limits.priority_aging_ms = random() % 2 ? 1000 : 0;
      input.routes.push_back(limits);
    }
    const char* projects[] = {"", "web", "api", "cli"};
    const char* groups[] = {"", "g1", "g2"};
    const int held = int(random() % 5);
    const int waiting = int(random() % 15);
    for (int i = 0; i < held + waiting; ++i) {
      QueueEntry item = entry("k" + std::to_string(i), "r" + std::to_string(random() % route_count),
                              int(random() % 5) - 2, TimeMs(random() % 10'000),
                              projects[random() % 4], groups[random() % 3]);
      if (i < held) {
        item.status = ItemStatus::kAdmitted;
        input.holding.push_back(item);
      } else {
        if (random() % 5 == 0) item.next_attempt_at = TimeMs(5'000 + random() % 10'000);
        input.candidates.push_back(item);
      }
    }
    if (random() % 3 == 0) input.max_admissions = int(random() % 4) + 1;
    const AdmissionPlan plan = plan_admission(input);
    // The daemon's plan, which explains nothing, admits the same items.
    AdmissionInput unexplained = input;
    unexplained.explain = false;
    const AdmissionPlan quiet = plan_admission(unexplained);
    EXPECT_EQ(quiet.admit, plan.admit) << "round " << round;
    EXPECT_TRUE(quiet.waiting_on.empty());
    bool next_tick = false;
    for (const auto& [id, reason] : plan.waiting_on) next_tick = next_tick || reason == "next tick";
    EXPECT_EQ(quiet.more, next_tick) << "round " << round;
    EXPECT_EQ(plan.more, next_tick) << "round " << round;

    std::map<std::string, const RouteLimits*> routes;
    for (const RouteLimits& limits : input.routes) routes[limits.id] = &limits;
    std::map<std::string, int> on_route, on_project, on_group;
    int total = 0;
    auto count = [&](const QueueEntry& item) {
      ++on_route[item.route_id];
      if (!item.project.empty()) ++on_project[item.project];
      if (!item.group.empty()) ++on_group[item.group];
      ++total;
    };
    for (const QueueEntry& item : input.holding) count(item);
    std::map<std::string, const QueueEntry*> by_id;
    for (const QueueEntry& item : input.candidates) by_id[item.id] = &item;
    std::set<std::string> admitted(plan.admit.begin(), plan.admit.end());
    ASSERT_EQ(admitted.size(), plan.admit.size()) << "no item admitted twice";
    for (const std::string& id : plan.admit) {
      const QueueEntry& item = *by_id.at(id);
      const RouteLimits& limits = *routes.at(item.route_id);
      EXPECT_FALSE(limits.paused);
      EXPECT_FALSE(item.next_attempt_at && *item.next_attempt_at > input.now);
      EXPECT_LT(on_route[item.route_id], limits.max_running) << "round " << round;
      if (!item.project.empty() && limits.max_per_project > 0) {
        EXPECT_LT(on_project[item.project], limits.max_per_project) << "round " << round;
      }
      if (!item.group.empty() && limits.max_per_group > 0) {
        EXPECT_LT(on_group[item.group], limits.max_per_group) << "round " << round;
      }
      if (input.global_max_running > 0) {
        EXPECT_LT(total, input.global_max_running);
      }
      count(item);
    }
    for (const QueueEntry& item : input.candidates) {
      EXPECT_NE(admitted.count(item.id) == 1, plan.waiting_on.count(item.id) == 1)
          << "each candidate is admitted or told why, round " << round;
    }
    for (const QueueEntry& item : input.candidates) {
      if (admitted.count(item.id) == 1) continue;
      const RouteLimits& limits = *routes.at(item.route_id);
      const bool standing =
          limits.paused || (item.next_attempt_at && *item.next_attempt_at > input.now);
      const bool full = on_route[item.route_id] >= limits.max_running ||
                        (!item.project.empty() && limits.max_per_project > 0 &&
                         on_project[item.project] >= limits.max_per_project) ||
                        (!item.group.empty() && limits.max_per_group > 0 &&
                         on_group[item.group] >= limits.max_per_group) ||
                        (input.global_max_running > 0 && total >= input.global_max_running);
      const bool next_tick_wait = plan.waiting_on.at(item.id) == "next tick";
      EXPECT_TRUE(standing || full || next_tick_wait)
          << item.key << " waits on '" << plan.waiting_on.at(item.id) << "' with room left, round "
          << round;
    }
    for (std::size_t i = 1; i < plan.admit.size(); ++i) {
      const QueueEntry& before = *by_id.at(plan.admit[i - 1]);
      const QueueEntry& after = *by_id.at(plan.admit[i]);
      const auto rank = [&](const QueueEntry& item) {
        return effective_priority(item.priority, item.queued_at, input.now,
                                  routes.at(item.route_id)->priority_aging_ms);
      };
      EXPECT_TRUE(rank(before) > rank(after) ||
                  (rank(before) == rank(after) && before.queued_at <= after.queued_at))
          << "round " << round;
    }
  }
}

using Names = std::vector<std::string>;

TEST(FullLimits, RoutesThatAdmitNothingAreNamedAndTheirProjectsAreNot) {
  RouteLimits paused = route("paused", 5, 1);
  paused.paused = true;
  RouteLimits held = route("held", 5, 1);
  held.held_by = "claude cooldown until later";
  const std::vector<RouteLimits> routes{paused, held, route("full", 1, 1), route("open", 3, 1)};
  const FullLimits full = full_limits(routes, {holding("a", "full", "web")}, 0);
  EXPECT_EQ(full.routes, (Names{"paused", "held", "full"}));
  EXPECT_EQ(full.projects, Names{"web"});  // at the limit of the one open route
  EXPECT_TRUE(full.route_projects.empty());
}

TEST(FullLimits, AReachedGlobalCapClosesEveryRoute) {
  const std::vector<RouteLimits> routes{route("a", 5), route("b", 5)};
  const std::vector<QueueEntry> held{holding("x", "a"), holding("y", "b")};
  EXPECT_EQ(full_limits(routes, held, 2).routes, (Names{"a", "b"}));
  EXPECT_TRUE(full_limits(routes, held, 3).routes.empty());
  EXPECT_TRUE(full_limits(routes, held, 0).routes.empty());
}

TEST(FullLimits, AProjectFullForSomeRoutesOnlyIsNamedWithEachOfThem) {
  // web holds 2 (over both routes): full for a limit of 1 or 2, not for 3
  // or none.
  const std::vector<RouteLimits> routes{route("one", 9, 1), route("two", 9, 2),
                                        route("three", 9, 3), route("none", 9, 0)};
  const std::vector<QueueEntry> held{holding("x", "one", "web", "pager"),
                                     holding("y", "two", "web"), holding("z", "one", "", "")};
  const FullLimits full = full_limits(routes, held, 0);
  EXPECT_TRUE(full.routes.empty());
  EXPECT_TRUE(full.projects.empty());
  EXPECT_EQ(full.route_projects, (Names{"one/web", "two/web"}));
  EXPECT_TRUE(full.groups.empty());
  EXPECT_TRUE(full.route_groups.empty());  // no route limits groups
  const std::vector<RouteLimits> grouped{route("g1", 9, 0, 1), route("g2", 9, 0, 1)};
  const FullLimits by_group = full_limits(grouped, held, 0);
  EXPECT_EQ(by_group.groups, Names{"pager"});  // an empty group is never full
  EXPECT_TRUE(by_group.route_groups.empty());
}

WorkflowStep agent_step(const std::string& id, AgentProvider provider,
                        const std::string& account = "") {
  WorkflowStep step;
  step.id = id;
  step.target.type = TargetType::kAgent;
  step.target.agent = AgentTarget{};
  step.target.agent->provider = provider;
  step.account = account;
  return step;
}

TEST(CooldownHold, TheFirstAgentStepWhoseAccountCoolsDownHoldsTheRoute) {
  WorkflowSpec spec;
  WorkflowStep shell;
  shell.id = "prepare";
  shell.target.argv = {"/bin/true"};
  spec.steps = {shell, agent_step("plan", AgentProvider::kClaude, "work"),
                agent_step("fix", AgentProvider::kCodex)};
  EXPECT_EQ(cooldown_hold(spec, {}, 1000), "");
  EXPECT_EQ(cooldown_hold(spec, {{"claude", 5000}}, 1000), "");  // another account of claude
  EXPECT_EQ(cooldown_hold(spec, {{"codex", 5000}}, 1000),
            "codex cooldown until " + format_time(5000));
  EXPECT_EQ(cooldown_hold(spec, {{"codex", 5000}, {"claude:work", 9000}}, 1000),
            "claude:work cooldown until " + format_time(9000));
  EXPECT_EQ(cooldown_hold(spec, {{"codex", 1000}}, 1000), "");  // it has ended
}

}  // namespace
}  // namespace orrery
