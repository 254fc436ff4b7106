#include "core/goal_plan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace orrery {
namespace {

// prefix + number, appended (GCC 12 -O3 misreads "literal" + std::to_string as
// an overlapping copy, -Wrestrict).
std::string keyed(const char* prefix, long long number) {
  std::string key(prefix);
  key += std::to_string(number);
  return key;
}

PlanNode node(const std::string& key, std::vector<std::string> depends_on = {},
              NodeStatus status = NodeStatus::kPending) {
  PlanNode node;
  node.key = key;
  node.objective = "do " + key;
  node.depends_on = std::move(depends_on);
  node.status = status;
  return node;
}

// Nodes numbered in the order given, as a plan holds them.
std::vector<PlanNode> plan(std::vector<PlanNode> nodes) {
  for (size_t index = 0; index < nodes.size(); ++index) nodes[index].sequence = index;
  return nodes;
}

std::vector<std::string> keys(const std::vector<PlanNode>& nodes) {
  std::vector<std::string> out;
  for (const PlanNode& node : nodes) out.push_back(node.key);
  return out;
}

// The key an error about a cycle names ("... through node KEY").
std::string cycle_node(const std::string& message) {
  const std::string marker = "through node ";
  const size_t at = message.find(marker);
  return at == std::string::npos ? "" : message.substr(at + marker.size());
}

// n0 <- n1 <- ... <- n(count-1): each node depends on the one before.
std::vector<PlanNode> chain(size_t count) {
  std::vector<PlanNode> nodes;
  for (size_t index = 0; index < count; ++index) {
    nodes.push_back(index == 0 ? node("n0") : node(keyed("n", index), {keyed("n", index - 1)}));
  }
  return plan(nodes);
}

TEST(PlanValidation, AValidDagIsAccepted) {
  EXPECT_TRUE(validate_plan({}));
  EXPECT_TRUE(validate_plan(plan({node("a")})));
  EXPECT_TRUE(
      validate_plan(plan({node("d", {"b", "c"}), node("b", {"a"}), node("c", {"a"}), node("a")})));
}

TEST(PlanValidation, KeysAreUnique) {
  auto valid = validate_plan(plan({node("a"), node("b"), node("a", {"b"})}));
  ASSERT_FALSE(valid);
  EXPECT_EQ(valid.error().code, ErrorCode::kUsage);
  EXPECT_NE(valid.error().message.find("two nodes with the key a"), std::string::npos)
      << valid.error().message;
}

TEST(PlanValidation, AMissingDependencyNamesTheNodeAndTheMissingKey) {
  auto valid = validate_plan(plan({node("a"), node("build", {"a", "fetch"})}));
  ASSERT_FALSE(valid);
  EXPECT_NE(valid.error().message.find("node build depends on the missing node fetch"),
            std::string::npos)
      << valid.error().message;
  // The missing key is shown escaped.
  auto hostile = validate_plan(plan({node("a", {"x\x1b[2J"})}));
  ASSERT_FALSE(hostile);
  EXPECT_EQ(hostile.error().message.find('\x1b'), std::string::npos) << hostile.error().message;
}

TEST(PlanValidation, ADependencyNamedTwiceIsRefused) {
  auto valid = validate_plan(plan({node("a"), node("b", {"a", "a"})}));
  ASSERT_FALSE(valid);
  EXPECT_NE(valid.error().message.find("twice"), std::string::npos) << valid.error().message;
}

TEST(PlanValidation, ASelfDependencyIsACycle) {
  auto valid = validate_plan(plan({node("a"), node("self", {"self"})}));
  ASSERT_FALSE(valid);
  EXPECT_EQ(cycle_node(valid.error().message), "self") << valid.error().message;
}

TEST(PlanValidation, ATwoNodeCycleNamesOneOfThem) {
  auto valid = validate_plan(plan({node("a", {"b"}), node("b", {"a"})}));
  ASSERT_FALSE(valid);
  const std::string named = cycle_node(valid.error().message);
  EXPECT_TRUE(named == "a" || named == "b") << valid.error().message;
}

// Cycles of every length, reached through a tail of nodes that are not on
// them, with the nodes in several orders: the node named is on the cycle.
TEST(PlanValidation, LongCyclesNameANodeOnTheCycle) {
  std::mt19937 random(22);
  for (size_t length : {1, 2, 3, 5, 17, 100, 400}) {
    for (int round = 0; round < 4; ++round) {
      std::vector<PlanNode> nodes;
      std::vector<std::string> on_cycle;
      for (size_t index = 0; index < length; ++index) {
        on_cycle.push_back(keyed("c", index));
        nodes.push_back(node(on_cycle.back(), {keyed("c", (index + 1) % length)}));
      }
      // A tail into the cycle, and nodes beside it.
      nodes.push_back(node("tail0", {"c0"}));
      nodes.push_back(node("tail1", {"tail0"}));
      nodes.push_back(node("free"));
      nodes.push_back(node("after_free", {"free"}));
      std::shuffle(nodes.begin(), nodes.end(), random);
      auto valid = validate_plan(plan(nodes));
      ASSERT_FALSE(valid) << length;
      const std::string named = cycle_node(valid.error().message);
      EXPECT_NE(std::find(on_cycle.begin(), on_cycle.end(), named), on_cycle.end())
          << length << ": " << valid.error().message;
    }
  }
}

TEST(PlanValidation, AChainOf500NodesIsAcceptedWithoutRecursion) {
  std::vector<PlanNode> nodes = chain(kMaxPlanNodes);
  EXPECT_TRUE(validate_plan(nodes));
  std::reverse(nodes.begin(), nodes.end());
  EXPECT_TRUE(validate_plan(plan(nodes)));
  // Closed into one cycle of 500.
  nodes = chain(kMaxPlanNodes);
  nodes.front().depends_on = {nodes.back().key};
  auto valid = validate_plan(nodes);
  ASSERT_FALSE(valid);
  EXPECT_NE(cycle_node(valid.error().message), "");
}

TEST(PlanValidation, AtMost500Nodes) {
  std::vector<PlanNode> nodes;
  for (size_t index = 0; index <= kMaxPlanNodes; ++index) {
    nodes.push_back(node(keyed("k", index)));
  }
  auto valid = validate_plan(plan(nodes));
  ASSERT_FALSE(valid);
  EXPECT_NE(valid.error().message.find("501 nodes; at most 500"), std::string::npos)
      << valid.error().message;
  nodes.pop_back();
  EXPECT_TRUE(validate_plan(plan(nodes)));
}

TEST(PlanValidation, BadKeysAreRefused) {
  for (const std::string& key :
       {std::string(), std::string("a\nb"), std::string("a\tb"), std::string("\x1b[31m"),
        std::string("del\x7f"), std::string("nul\0x", 5), std::string("c1\xc2\x85"),
        std::string("zero\xe2\x80\x8bwidth"), std::string("bidi\xe2\x80\xae"), std::string(" lead"),
        std::string("trail "), std::string("bad\xff"),
        std::string(kMaxNodeKeyCharacters + 1, 'k')}) {
    auto valid = validate_plan(plan({node(key)}));
    ASSERT_FALSE(valid) << key;
    EXPECT_NE(valid.error().message.find("node key"), std::string::npos) << valid.error().message;
  }
}

TEST(PlanValidation, KeysOfEveryUtf8LengthAreAccepted) {
  for (const std::string& key :
       {std::string(kMaxNodeKeyCharacters, 'k'), std::string("with space"),
        std::string("caf\xc3\xa9"), std::string("\xe2\x82\xac-\xe4\xb8\xad"),
        std::string("\xf0\x9f\x98\x80"), std::string("a/b:c.d_e-f")}) {
    EXPECT_TRUE(validate_plan(plan({node(key)}))) << key;
  }
  std::string wide;
  for (size_t index = 0; index < kMaxNodeKeyCharacters; ++index) wide += "\xf0\x9f\x98\x80";
  EXPECT_TRUE(validate_plan(plan({node(wide)})));
  EXPECT_FALSE(validate_plan(plan({node(wide + "\xf0\x9f\x98\x80")})));
}

TEST(PlanValidation, ObjectivesAre1To4000CodePoints) {
  for (const std::string piece : {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80"}) {
    std::string longest;
    for (size_t index = 0; index < kMaxObjectiveCharacters; ++index) longest += piece;
    PlanNode accepted = node("k");
    accepted.objective = longest;
    EXPECT_TRUE(validate_plan({accepted})) << piece.size();
    PlanNode refused = node("k");
    refused.objective = longest + piece;
    auto valid = validate_plan({refused});
    ASSERT_FALSE(valid) << piece.size();
    EXPECT_NE(valid.error().message.find("node k:"), std::string::npos) << valid.error().message;
    EXPECT_NE(valid.error().message.find("4001"), std::string::npos) << valid.error().message;
  }
  for (const char* objective : {"", "   ", "\n"}) {
    PlanNode empty = node("k");
    empty.objective = objective;
    auto valid = validate_plan({empty});
    ASSERT_FALSE(valid);
    EXPECT_NE(valid.error().message.find("node k:"), std::string::npos) << valid.error().message;
  }
}

TEST(PlanValidation, BudgetsArePositive) {
  for (std::int64_t budget : {std::int64_t(0), std::int64_t(-1), INT64_MIN}) {
    PlanNode refused = node("k");
    refused.token_budget = budget;
    auto valid = validate_plan({refused});
    ASSERT_FALSE(valid) << budget;
    EXPECT_NE(valid.error().message.find("node k: a token budget must be positive"),
              std::string::npos)
        << valid.error().message;
  }
  PlanNode accepted = node("k");
  accepted.token_budget = 1;
  EXPECT_TRUE(validate_plan({accepted}));
}

TEST(PlanReady, PendingNodesWhoseDependenciesAreComplete) {
  const std::vector<PlanNode> nodes =
      plan({node("done", {}, NodeStatus::kComplete), node("next", {"done"}),
            node("later", {"next"}), node("blocked_dep", {"stuck"}),
            node("stuck", {}, NodeStatus::kBlocked), node("running", {}, NodeStatus::kActive),
            node("gone", {}, NodeStatus::kCancelled), node("root")});
  EXPECT_EQ(ready_keys(nodes), (std::vector<std::string>{"next", "root"}));
}

TEST(PlanReady, EveryDependencyMustBeComplete) {
  for (NodeStatus other :
       {NodeStatus::kPending, NodeStatus::kActive, NodeStatus::kBlocked, NodeStatus::kCancelled}) {
    const std::vector<PlanNode> nodes =
        plan({node("a", {}, NodeStatus::kComplete), node("b", {}, other), node("c", {"a", "b"})});
    const std::vector<std::string> ready = ready_keys(nodes);
    EXPECT_EQ(std::find(ready.begin(), ready.end(), "c"), ready.end()) << node_status_name(other);
  }
  // A dependency that is not in the plan never completes.
  EXPECT_TRUE(ready_keys(plan({node("c", {"missing"})})).empty());
}

TEST(PlanReady, ANodeOverItsBudgetIsNotReady) {
  PlanNode spent = node("spent");
  spent.token_budget = 100;
  for (std::int64_t used : {0, 99, 100, 5000}) {
    spent.tokens_used = used;
    EXPECT_EQ(node_within_budget(spent), used < 100) << used;
    EXPECT_EQ(ready_keys(plan({spent})).size(), used < 100 ? 1u : 0u) << used;
  }
  PlanNode unlimited = node("free");
  unlimited.tokens_used = INT64_MAX;
  EXPECT_TRUE(node_within_budget(unlimited));
}

TEST(PlanReady, OrderedByPriorityThenSequenceThenKey) {
  std::vector<PlanNode> nodes = plan({node("low"), node("high"), node("mid_b"), node("mid_a")});
  nodes[0].priority = -5;
  nodes[1].priority = 10;
  nodes[2].priority = 3;
  nodes[3].priority = 3;
  EXPECT_EQ(ready_keys(nodes), (std::vector<std::string>{"high", "mid_b", "mid_a", "low"}));
  // Equal sequences fall back to the key.
  nodes[2].sequence = 7;
  nodes[3].sequence = 7;
  EXPECT_EQ(ready_keys(nodes), (std::vector<std::string>{"high", "mid_a", "mid_b", "low"}));
}

// Random plans: the ready nodes are exactly those the rule admits, in the
// order it gives.
TEST(PlanReady, GeneratedPlansFollowTheRule) {
  std::mt19937 random(7);
  const NodeStatus statuses[] = {
      NodeStatus::kPending,  NodeStatus::kPending,  NodeStatus::kActive,   NodeStatus::kBlocked,
      NodeStatus::kComplete, NodeStatus::kComplete, NodeStatus::kCancelled};
  for (int round = 0; round < 300; ++round) {
    const size_t count = 1 + random() % 30;
    std::vector<PlanNode> nodes;
    for (size_t index = 0; index < count; ++index) {
      PlanNode next = node(keyed("k", random() % 1000) + keyed("_", index));
      next.status = statuses[random() % std::size(statuses)];
      next.priority = std::int64_t(random() % 5) - 2;
      next.sequence = std::int64_t(random() % 4);
      if (random() % 3 == 0) {
        next.token_budget = 100;
        next.tokens_used = random() % 2 ? 50 : 100;
      }
      for (size_t before = 0; before < index; ++before) {
        if (random() % 4 == 0) next.depends_on.push_back(nodes[before].key);
      }
      nodes.push_back(next);
    }
    std::vector<const PlanNode*> expected;
    for (const PlanNode& candidate : nodes) {
      if (candidate.status != NodeStatus::kPending) continue;
      if (candidate.token_budget && candidate.tokens_used >= *candidate.token_budget) continue;
      bool unblocked = true;
      for (const std::string& dependency : candidate.depends_on) {
        unblocked = unblocked && find_node(nodes, dependency)->status == NodeStatus::kComplete;
      }
      if (unblocked) expected.push_back(&candidate);
    }
    std::sort(expected.begin(), expected.end(), [](const PlanNode* a, const PlanNode* b) {
      return std::tuple(-a->priority, a->sequence, a->key) <
             std::tuple(-b->priority, b->sequence, b->key);
    });
    std::vector<std::string> expected_keys;
    for (const PlanNode* ready : expected) expected_keys.push_back(ready->key);
    EXPECT_EQ(ready_keys(nodes), expected_keys) << round;
  }
}

TEST(PlanRollup, CountsEveryStatus) {
  const PlanRollup rollup = plan_rollup(
      plan({node("a", {}, NodeStatus::kComplete), node("b", {}, NodeStatus::kComplete), node("c"),
            node("d", {}, NodeStatus::kActive), node("e", {}, NodeStatus::kBlocked),
            node("f", {}, NodeStatus::kCancelled)}));
  EXPECT_EQ(rollup.total, 6);
  EXPECT_EQ(rollup.complete, 2);
  EXPECT_EQ(rollup.pending, 1);
  EXPECT_EQ(rollup.active, 1);
  EXPECT_EQ(rollup.blocked, 1);
  EXPECT_EQ(rollup.cancelled, 1);
  EXPECT_EQ(plan_rollup({}).total, 0);
}

TEST(PlanFind, ByKey) {
  std::vector<PlanNode> nodes = plan({node("a"), node("b")});
  ASSERT_NE(find_node(nodes, "b"), nullptr);
  EXPECT_EQ(find_node(nodes, "b")->sequence, 1);
  EXPECT_EQ(find_node(nodes, "c"), nullptr);
  find_node(nodes, "a")->status = NodeStatus::kComplete;
  EXPECT_EQ(nodes[0].status, NodeStatus::kComplete);
  const std::vector<PlanNode>& view = nodes;
  EXPECT_EQ(find_node(view, ""), nullptr);
}

TEST(PlanMerge, CompleteNodesStayAsTheyAre) {
  PlanNode done = node("setup", {}, NodeStatus::kComplete);
  done.tokens_used = 300;
  done.objective = "set it up";
  const std::vector<PlanNode> current = plan({node("old"), done});
  PlanNode rewrite = node("setup");
  rewrite.objective = "rewritten";
  auto merged = merge_proposed_plan(current, plan({rewrite, node("build", {"setup"})}));
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(keys(*merged), (std::vector<std::string>{"setup", "build"}));
  EXPECT_EQ((*merged)[0].objective, "set it up");
  EXPECT_EQ((*merged)[0].status, NodeStatus::kComplete);
  EXPECT_EQ((*merged)[0].tokens_used, 300);
}

TEST(PlanMerge, StatusAndTokensAreCarriedByKey) {
  PlanNode running = node("run", {}, NodeStatus::kActive);
  running.tokens_used = 40;
  PlanNode stuck = node("stuck", {}, NodeStatus::kBlocked);
  stuck.tokens_used = 7;
  const std::vector<PlanNode> current = plan({running, stuck, node("dropped")});
  // A proposal's own status and tokens are ignored.
  PlanNode proposed_run = node("run", {}, NodeStatus::kComplete);
  proposed_run.tokens_used = 999;
  proposed_run.objective = "run it better";
  PlanNode fresh = node("fresh", {"run"}, NodeStatus::kComplete);
  fresh.tokens_used = 5;
  auto merged = merge_proposed_plan(current, plan({node("stuck"), fresh, proposed_run}));
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(keys(*merged), (std::vector<std::string>{"stuck", "fresh", "run"}));
  EXPECT_EQ((*merged)[0].status, NodeStatus::kBlocked);
  EXPECT_EQ((*merged)[0].tokens_used, 7);
  EXPECT_EQ((*merged)[1].status, NodeStatus::kPending);
  EXPECT_EQ((*merged)[1].tokens_used, 0);
  EXPECT_EQ((*merged)[2].status, NodeStatus::kActive);
  EXPECT_EQ((*merged)[2].tokens_used, 40);
  EXPECT_EQ((*merged)[2].objective, "run it better");
}

TEST(PlanMerge, SequencesAreRenumberedCompleteFirst) {
  const std::vector<PlanNode> current = plan({node("p"), node("c1", {}, NodeStatus::kComplete),
                                              node("q"), node("c2", {}, NodeStatus::kComplete)});
  std::vector<PlanNode> proposed = {node("z"), node("y", {"c2"}), node("x")};
  for (PlanNode& next : proposed) next.sequence = 40;
  auto merged = merge_proposed_plan(current, proposed);
  ASSERT_TRUE(merged) << merged.error().message;
  EXPECT_EQ(keys(*merged), (std::vector<std::string>{"c1", "c2", "z", "y", "x"}));
  for (size_t index = 0; index < merged->size(); ++index) {
    EXPECT_EQ((*merged)[index].sequence, std::int64_t(index));
  }
}

TEST(PlanMerge, AnEmptyProposalLeavesTheCompleteNodes) {
  auto merged =
      merge_proposed_plan(plan({node("a", {}, NodeStatus::kComplete), node("b", {"a"})}), {});
  ASSERT_TRUE(merged);
  EXPECT_EQ(keys(*merged), (std::vector<std::string>{"a"}));
}

TEST(PlanMerge, InvalidProposalsAreRefused) {
  const std::vector<PlanNode> current = plan({node("a", {}, NodeStatus::kComplete), node("b")});
  auto cycle = merge_proposed_plan(current, plan({node("x", {"y"}), node("y", {"x"})}));
  ASSERT_FALSE(cycle);
  EXPECT_NE(cycle.error().message.find("cycle"), std::string::npos);
  auto missing = merge_proposed_plan(current, plan({node("x", {"nope"})}));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("node x depends on the missing node nope"),
            std::string::npos)
      << missing.error().message;
  auto twice = merge_proposed_plan(current, plan({node("x"), node("x")}));
  EXPECT_FALSE(twice);
  auto bad_key = merge_proposed_plan(current, plan({node("")}));
  EXPECT_FALSE(bad_key);
  // 500 proposed beside a complete node are more than a plan holds.
  std::vector<PlanNode> many;
  for (size_t index = 0; index < kMaxPlanNodes; ++index) {
    many.push_back(node(keyed("m", index)));
  }
  EXPECT_TRUE(merge_proposed_plan({}, many));
  EXPECT_FALSE(merge_proposed_plan(current, many));
}

}  // namespace
}  // namespace orrery
