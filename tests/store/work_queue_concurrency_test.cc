// The admission queue across processes (docs/admission.md): several
// processes, each with its own store on the same place, enqueue one key at
// once — one item is created, every other enqueue refreshes it or reports a
// duplicate — and admit from one queue at once — no limit of a route, a
// project or the global cap is ever exceeded, and no item is admitted twice.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "store/work_queue_conformance.h"
#include "support/forked_children.h"

namespace orrery {
namespace {

using namespace conformance;  // NOLINT(google-build-using-namespace)
using testing::ForkedChildren;

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

// A write busy past its timeout (a loaded machine) is tried again, as the
// CLI's user and the daemon would; any other error is the child's failure.
template <typename Call>
auto with_retries(Call call) {
  auto result = call();
  for (int retry = 0; !result && result.error().code == ErrorCode::kUnavailable && retry < 10;
       ++retry) {
    result = call();
  }
  return result;
}

using ChildBody = std::function<int(Store&)>;

class WorkQueueConcurrency : public WorkQueueConformance {
 protected:
  std::string file(const std::string& name) const { return dir_.file(name); }

  void race(const std::vector<ChildBody>& bodies) {
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
    EXPECT_EQ(children.wait_all(), "");
    store_ = GetParam().open(place_, probe_);
    ASSERT_NE(store_, nullptr);
  }
};

constexpr int kEnqueuers = 6;
constexpr int kEnqueuesEach = 10;

TEST_P(WorkQueueConcurrency, ProcessesEnqueueingOneKeyAtOnceMakeOneItemCreatedOnce) {
  const Route route = add_route("triage");
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kEnqueuers; ++index) {
    bodies.push_back([&, index](Store& store) {
      std::vector<std::string> said;
      for (int i = 0; i < kEnqueuesEach; ++i) {
        WorkItem item = make_item(route, "web#1", index * 100 + i);
        item.invocation.source.dedupe_key = "delivery-1";
        auto enqueued = with_retries([&] { return store.enqueue_item(item, kNow + i); });
        if (!enqueued) return child_failed(11, "enqueue: " + enqueued.error().message);
        said.push_back(std::string(enqueue_outcome_name(enqueued->outcome)) + " " +
                       enqueued->item.id);
      }
      const std::string path = file("enqueued-" + std::to_string(index));
      return write_lines(path, said) ? 0 : child_failed(12, "cannot write " + path);
    });
  }
  race(bodies);
  std::map<std::string, int> outcomes;
  std::set<std::string> ids;
  for (int index = 0; index < kEnqueuers; ++index) {
    for (const std::string& line : lines_of(file("enqueued-" + std::to_string(index)))) {
      const size_t space = line.find(' ');
      ++outcomes[line.substr(0, space)];
      ids.insert(line.substr(space + 1));
    }
  }
  EXPECT_EQ(outcomes["created"], 1);
  EXPECT_EQ(outcomes["created"] + outcomes["refreshed"], kEnqueuers * kEnqueuesEach);
  EXPECT_EQ(ids.size(), 1u);
  EXPECT_EQ(ok_value(store_->list_items({})).size(), 1u);
}

// Processes enqueueing new keys of one dedupe key at once, after an item of
// that key was admitted: the admitted item keeps its invocation as it was,
// and every new item, all waiting, shares one current invocation.
TEST_P(WorkQueueConcurrency, NewKeysOfADedupeKeyAtOnceNeverRewriteAStartedItemsInvocation) {
  const Route route = add_route("triage", 5);
  WorkItem started = make_item(route, "started");
  started.invocation.source.dedupe_key = "delivery-7";
  started.invocation.intent = "the first word";
  const WorkItem first = ok_value(store_->enqueue_item(started, kNow)).item;
  ASSERT_EQ(admit({first.id}), std::vector<std::string>{first.id});
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kEnqueuers; ++index) {
    bodies.push_back([&, index](Store& store) {
      for (int i = 0; i < kEnqueuesEach; ++i) {
        WorkItem item = make_item(route, "k-" + std::to_string(index) + "-" + std::to_string(i));
        item.invocation.source.dedupe_key = "delivery-7";
        item.invocation.intent = "said by " + std::to_string(index);
        auto enqueued = with_retries([&] { return store.enqueue_item(item, kNow + 1 + i); });
        if (!enqueued) return child_failed(11, "enqueue: " + enqueued.error().message);
      }
      return 0;
    });
  }
  race(bodies);
  const Invocation kept = item_now(first.id).invocation;
  EXPECT_EQ(kept.id, first.invocation.id);
  EXPECT_EQ(kept.intent, "the first word");
  std::set<std::string> shared;
  for (const WorkItem& item : ok_value(store_->list_items({}))) {
    if (item.id != first.id) shared.insert(item.invocation.id);
  }
  EXPECT_EQ(shared.size(), 1u);
  EXPECT_EQ(shared.count(kept.id), 0u);
  EXPECT_EQ(invocation_rows(*store_), 2);
}

constexpr int kBatchers = 4;
constexpr int kBatchKeys = 250;  // three chunks of the store's reads

// Overlapping batches in different orders at once: each batch locks the
// items it finds in key order, so none waits on another in a circle (on
// PostgreSQL a deadlock would abort one: "a concurrent writer"), and every
// key is created once.
TEST_P(WorkQueueConcurrency, OverlappingBatchesInDifferentOrdersNeitherDeadlockNorCreateAKeyTwice) {
  const Route route = add_route("triage");
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kBatchers; ++index) {
    bodies.push_back([&, index](Store& store) {
      std::vector<WorkItem> batch;
      for (int k = 0; k < kBatchKeys; ++k) {
        // Each child its own order: rotated, and every other one reversed.
        const int n = (k * 7 + index * 61) % kBatchKeys;
        batch.push_back(make_item(route, "k" + std::to_string(index % 2 ? kBatchKeys - 1 - n : n)));
      }
      int created = 0;
      for (int round = 0; round < 3; ++round) {
        auto enqueued = store.enqueue_items(batch, kNow + round);
        for (int busy = 0;
             !enqueued && enqueued.error().code == ErrorCode::kUnavailable &&
             enqueued.error().message.find("concurrent writer") == std::string::npos && busy < 10;
             ++busy) {
          enqueued = store.enqueue_items(batch, kNow + round);
        }
        if (!enqueued) return child_failed(31, "enqueue_items: " + enqueued.error().message);
        for (const Enqueued& one : *enqueued) created += one.outcome == EnqueueOutcome::kCreated;
      }
      const std::string path = file("batched-" + std::to_string(index));
      return write_lines(path, {std::to_string(created)})
                 ? 0
                 : child_failed(32, "cannot write " + path);
    });
  }
  race(bodies);
  int created = 0;
  for (int index = 0; index < kBatchers; ++index) {
    const std::vector<std::string> said = lines_of(file("batched-" + std::to_string(index)));
    ASSERT_EQ(said.size(), 1u);
    created += std::stoi(said[0]);
  }
  EXPECT_EQ(created, kBatchKeys);
  ItemFilter all;
  all.limit = 1000;
  EXPECT_EQ(ok_value(store_->list_items(all)).size(), size_t(kBatchKeys));
}

constexpr int kAdmitters = 4;
constexpr int kItems = 60;
constexpr int kRouteLimit = 5;
constexpr int kProjectLimit = 2;
constexpr int kGlobalCap = 7;

// Each admitter asks for every queued item at once, over and over; between
// rounds it finishes (cancels) one item it holds, so that capacity frees
// and the limits are tested again and again.
int admit_and_release(Store& store, const std::vector<std::string>& ids, const std::string& path) {
  std::vector<std::string> admitted;
  for (int round = 0; round < 40; ++round) {
    auto won = with_retries([&] { return store.admit_items(ids, kGlobalCap, kNow, {}); });
    if (!won) return child_failed(21, "admit: " + won.error().message);
    for (const WorkItem& item : *won) admitted.push_back(item.id);
    if (!won->empty()) {
      auto done = with_retries([&] { return store.cancel_item(won->front().id, "", kNow); });
      if (!done) return child_failed(22, "cancel: " + done.error().message);
    }
    auto read = with_retries([&] { return store.read_admission_queue({kNow, 100, 0, {}}, {}); });
    if (!read) return child_failed(23, "read: " + read.error().message);
    std::map<std::string, int> route_holds;
    std::map<std::string, int> project_holds;
    for (const QueueEntry& entry : read->holding) {
      ++route_holds[entry.route_id];
      if (!entry.project.empty()) ++project_holds[entry.project];
    }
    if (int(read->holding.size()) > kGlobalCap) return child_failed(24, "global cap exceeded");
    for (const auto& [route, count] : route_holds) {
      if (count > kRouteLimit) return child_failed(25, "route limit exceeded");
    }
    for (const auto& [project, count] : project_holds) {
      if (count > kProjectLimit) return child_failed(26, "project limit exceeded on " + project);
    }
  }
  return write_lines(path, admitted) ? 0 : child_failed(27, "cannot write " + path);
}

TEST_P(WorkQueueConcurrency, AdmittersRacingOverOneQueueNeverExceedALimitNorAdmitTwice) {
  Route a = make_route("a", kRouteLimit);
  a.max_per_project = kProjectLimit;
  a = ok_value(store_->create_route(a, kNow));
  Route b = make_route("b", kRouteLimit);
  b.max_per_project = kProjectLimit;
  b = ok_value(store_->create_route(b, kNow));
  std::vector<std::string> ids;
  for (int i = 0; i < kItems; ++i) {
    const Route& route = i % 2 == 0 ? a : b;
    ids.push_back(enqueue(route, std::to_string(i), 0, "p" + std::to_string(i % 3)).item.id);
  }
  std::vector<ChildBody> bodies;
  for (int index = 0; index < kAdmitters; ++index) {
    bodies.push_back([&, index](Store& store) {
      return admit_and_release(store, ids, file("admitted-" + std::to_string(index)));
    });
  }
  race(bodies);
  std::multiset<std::string> admitted;
  for (int index = 0; index < kAdmitters; ++index) {
    for (const std::string& id : lines_of(file("admitted-" + std::to_string(index)))) {
      admitted.insert(id);
    }
  }
  EXPECT_GT(admitted.size(), size_t(kGlobalCap));  // capacity was freed and taken again
  for (const std::string& id : admitted) EXPECT_EQ(admitted.count(id), 1u) << id;
  int holding = 0;
  for (const std::string& id : ids) {
    const WorkItem item = item_now(id);
    if (item_holds_capacity(item.status)) ++holding;
    EXPECT_LE(item.attempts, 1) << id;
  }
  EXPECT_LE(holding, kGlobalCap);
}

INSTANTIATE_TEST_SUITE_P(Backends, WorkQueueConcurrency, backends(), backend_name);

}  // namespace
}  // namespace orrery
