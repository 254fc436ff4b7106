#include "core/worker.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace orrery {
namespace {

using S = WorkerState;

constexpr S kAll[] = {S::kPlanned,  S::kLeased,    S::kStarting,   S::kRunning,
                      S::kReported, S::kVerifying, S::kMergeReady, S::kMerged,
                      S::kHold,     S::kFailed,    S::kCancelled};

TEST(WorkerStateTest, EveryStateHasANameThatParsesBack) {
  std::set<std::string> names;
  for (S state : kAll) {
    const std::string name = worker_state_name(state);
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(parse_worker_state(name).value(), state);
  }
  auto bad = parse_worker_state("Running");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("merge_ready"), std::string::npos) << bad.error().message;
}

TEST(WorkerStateTest, FinalStatesTakeNoTransitionAndTheOthersReachAFinalOne) {
  for (S from : kAll) {
    bool any = false;
    bool reaches_cancelled = false;
    for (S to : kAll) {
      any = any || legal_worker_transition(from, to);
      reaches_cancelled =
          reaches_cancelled || (to == S::kCancelled && legal_worker_transition(from, to));
    }
    EXPECT_EQ(any, !is_final(from)) << worker_state_name(from);
    // Every worker that is not final can be discarded.
    EXPECT_EQ(reaches_cancelled, !is_final(from)) << worker_state_name(from);
    EXPECT_FALSE(legal_worker_transition(from, from)) << worker_state_name(from);
  }
}

TEST(WorkerStateTest, TheHappyPathIsLegalStepByStep) {
  const S path[] = {S::kPlanned,  S::kLeased,    S::kStarting,   S::kRunning,
                    S::kReported, S::kVerifying, S::kMergeReady, S::kMerged};
  for (size_t i = 0; i + 1 < std::size(path); ++i) {
    EXPECT_TRUE(legal_worker_transition(path[i], path[i + 1])) << worker_state_name(path[i]);
  }
  // Skipping a step is not.
  EXPECT_FALSE(legal_worker_transition(S::kPlanned, S::kRunning));
  EXPECT_FALSE(legal_worker_transition(S::kReported, S::kMerged));
  EXPECT_FALSE(legal_worker_transition(S::kRunning, S::kMerged));
}

TEST(WorkerStateTest, AHeldWorkerResumesOrReportsAgainOrIsDiscarded) {
  EXPECT_TRUE(legal_worker_transition(S::kHold, S::kLeased));
  EXPECT_TRUE(legal_worker_transition(S::kHold, S::kReported));
  EXPECT_TRUE(legal_worker_transition(S::kHold, S::kCancelled));
  EXPECT_FALSE(legal_worker_transition(S::kHold, S::kMerged));
  EXPECT_FALSE(legal_worker_transition(S::kHold, S::kRunning));
}

TEST(WorkerStateTest, LeasedStatesAreThoseWithAHolder) {
  std::set<S> leased;
  for (S state : kAll) {
    if (is_leased(state)) leased.insert(state);
  }
  EXPECT_EQ(leased,
            (std::set<S>{S::kLeased, S::kStarting, S::kRunning, S::kVerifying, S::kMergeReady}));
}

TEST(WorkerStateTest, ARefusedTransitionSaysWhatTheStateMayBecome) {
  auto refused = check_worker_transition("w1", S::kRunning, S::kMerged);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, ErrorCode::kConflict);
  EXPECT_EQ(refused.error().message,
            "worker w1 is running and cannot become merged; from running it may become "
            "reported, hold, failed, cancelled");
  auto final_state = check_worker_transition("w1", S::kMerged, S::kHold);
  ASSERT_FALSE(final_state.ok());
  EXPECT_NE(final_state.error().message.find("final"), std::string::npos);
  EXPECT_TRUE(check_worker_transition("w1", S::kRunning, S::kReported).ok());
}

}  // namespace
}  // namespace orrery

namespace orrery {
namespace {

// Every state: discard is allowed exactly where nothing holds the worker and
// its change is not merged; a refusal names the state and what to do.
TEST(WorkerDiscard, EveryStateIsEitherDiscardableOrRefusedSayingWhatToDo) {
  for (const WorkerState state :
       {WorkerState::kPlanned, WorkerState::kLeased, WorkerState::kStarting, WorkerState::kRunning,
        WorkerState::kReported, WorkerState::kVerifying, WorkerState::kMergeReady,
        WorkerState::kMerged, WorkerState::kHold, WorkerState::kFailed, WorkerState::kCancelled}) {
    Worker worker;
    worker.id = "w-1";
    worker.state = state;
    worker.workflow_run_id = "run-1";
    worker.branch = "orrery/run-1/a";
    const std::string refusal = discard_refusal(worker);
    SCOPED_TRACE(worker_state_name(state));
    EXPECT_EQ(refusal.empty(), !is_leased(state) && state != WorkerState::kMerged);
    if (!refusal.empty()) {
      EXPECT_NE(refusal.find(std::string("is ") + worker_state_name(state)), std::string::npos);
      EXPECT_NE(refusal.find("orrery "), std::string::npos) << "says what to run instead";
    }
  }
}

TEST(WorkerDiscard, TheRecordedTipIsTheReportedRevisionElseTheBase) {
  Worker worker;
  worker.base_revision = "base";
  EXPECT_EQ(recorded_tip(worker), "base");
  worker.final_revision = "final";
  EXPECT_EQ(recorded_tip(worker), "final");
}

}  // namespace
}  // namespace orrery
