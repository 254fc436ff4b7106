#include "core/attempt_feedback.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace orrery {
namespace {

using Json = nlohmann::json;
using M = MergeState;
using R = WorkflowRunStatus;
using W = WorkerState;

constexpr R kRunStatuses[] = {R::kPending, R::kRunning, R::kSucceeded, R::kFailed, R::kCancelled};
constexpr W kWorkerStates[] = {W::kPlanned,  W::kLeased,    W::kStarting,   W::kRunning,
                               W::kReported, W::kVerifying, W::kMergeReady, W::kMerged,
                               W::kHold,     W::kFailed,    W::kCancelled};
constexpr M kEntryStates[] = {M::kWaiting, M::kReady, M::kMerged, M::kConflict, M::kRejected};

AttemptChange change_of(W worker_state, std::optional<M> entry_state) {
  AttemptChange change;
  change.worker.id = "w-1";
  change.worker.step_id = "fix";
  change.worker.branch = "orrery/run-1/fix";
  change.worker.state = worker_state;
  change.worker.hold_reason = worker_state == W::kHold ? "the agent left no commit" : "";
  change.worker.failure_reason = worker_state == W::kFailed ? "the agent exited 3" : "";
  change.worker.changed_files = {"src/a.cc"};
  if (entry_state) {
    MergeEntry entry;
    entry.id = "e-1";
    entry.target = "main";
    entry.state = *entry_state;
    if (*entry_state == M::kConflict) {
      entry.reason = "the candidate conflicts with main";
      entry.conflict_files_json = R"(["src/a.cc"])";
    }
    if (*entry_state == M::kRejected) {
      entry.reason = "verification failed";
      entry.verify.command = "make test";
      entry.verify.exit_code = 2;
      entry.verify.output_tail = "FAILED: a_test\n";
    }
    change.entry = entry;
  }
  return change;
}

AttemptRecord record_of(R status, std::vector<AttemptChange> changes) {
  AttemptRecord record;
  record.workflow_run_id = "run-1";
  record.attempt = 2;
  record.run_status = status;
  record.run_error = status == R::kFailed ? "step fix failed" : "";
  record.changes = std::move(changes);
  return record;
}

// The rule of docs/fleet.md, "Outcomes and feedback", said once more.
AttemptVerdict expected_verdict(R status, W worker, std::optional<M> entry) {
  if (entry == M::kWaiting || entry == M::kReady) return AttemptVerdict::kUndecided;
  if (status == R::kCancelled) return AttemptVerdict::kCancelled;
  const bool change_failed = worker == W::kHold || worker == W::kFailed ||
                             worker == W::kCancelled || entry == M::kConflict ||
                             entry == M::kRejected;
  if (status == R::kSucceeded && !change_failed) return AttemptVerdict::kSucceeded;
  return AttemptVerdict::kFailed;
}

std::string expected_kind(R status, W worker, std::optional<M> entry) {
  if (status != R::kSucceeded) return "failed";
  if (entry == M::kConflict) return "conflict";
  if (entry == M::kRejected) return "rejected";
  return worker == W::kHold ? "held" : "failed";
}

TEST(AttemptFeedbackTest, EveryRunStatusWorkerStateAndEntryStateHasTheVerdictOfTheRule) {
  std::vector<std::optional<M>> entries = {std::nullopt};
  for (M state : kEntryStates) entries.emplace_back(state);
  int cases = 0;
  for (R status : kRunStatuses) {
    for (W worker : kWorkerStates) {
      for (const std::optional<M>& entry : entries) {
        ++cases;
        const AttemptOutcome outcome =
            attempt_outcome(record_of(status, {change_of(worker, entry)}));
        const std::string label = std::string(workflow_run_status_name(status)) + " / " +
                                  worker_state_name(worker) + " / " +
                                  (entry ? merge_state_name(*entry) : "no entry");
        const AttemptVerdict verdict = expected_verdict(status, worker, entry);
        ASSERT_EQ(outcome.verdict, verdict) << label << ": " << outcome.reason;
        EXPECT_NE(outcome.reason.find("run-1"), std::string::npos) << label;
        if (verdict != AttemptVerdict::kFailed) {
          EXPECT_EQ(outcome.feedback_json, "") << label;
          continue;
        }
        const Json record = Json::parse(outcome.feedback_json);
        EXPECT_EQ(record["outcome"], expected_kind(status, worker, entry)) << label;
        EXPECT_EQ(record["attempt"], 2) << label;
        EXPECT_EQ(record["reason"], outcome.reason) << label;
        ASSERT_EQ(record["changes"].size(), 1u) << label;
        EXPECT_EQ(record["changes"][0]["step"], "fix") << label;
        // The reason carries the queue's or the hold's own words.
        if (entry == M::kConflict || entry == M::kRejected) {
          EXPECT_NE(outcome.reason.find("merge entry e-1 (step fix) " +
                                        std::string(merge_state_name(*entry))),
                    std::string::npos)
              << label << ": " << outcome.reason;
        } else if (worker == W::kHold) {
          EXPECT_NE(outcome.reason.find("the agent left no commit"), std::string::npos) << label;
        }
      }
    }
  }
  EXPECT_EQ(cases, 5 * 11 * 6);
}

TEST(AttemptFeedbackTest, ASucceededAttemptNamesEveryMergeAndOnePendingEntryKeepsItUndecided) {
  AttemptOutcome merged = attempt_outcome(record_of(
      R::kSucceeded, {change_of(W::kMerged, M::kMerged), change_of(W::kMerged, M::kMerged)}));
  EXPECT_EQ(merged.verdict, AttemptVerdict::kSucceeded);
  EXPECT_NE(merged.reason.find("merge entry e-1 merged onto main"), std::string::npos)
      << merged.reason;
  // A rejected change and a pending one: the attempt waits for the pending.
  AttemptOutcome waiting = attempt_outcome(record_of(
      R::kSucceeded, {change_of(W::kHold, M::kRejected), change_of(W::kReported, M::kWaiting)}));
  EXPECT_EQ(waiting.verdict, AttemptVerdict::kUndecided);
  // No worktree at all: the run's own status.
  EXPECT_EQ(attempt_outcome(record_of(R::kSucceeded, {})).verdict, AttemptVerdict::kSucceeded);
  EXPECT_EQ(attempt_outcome(record_of(R::kFailed, {})).verdict, AttemptVerdict::kFailed);
}

TEST(AttemptFeedbackTest, TheRecordCarriesTheConflictAndTheVerificationOfEachChange) {
  AttemptOutcome outcome = attempt_outcome(record_of(
      R::kSucceeded, {change_of(W::kHold, M::kConflict), change_of(W::kHold, M::kRejected)}));
  ASSERT_EQ(outcome.verdict, AttemptVerdict::kFailed);
  const Json record = Json::parse(outcome.feedback_json);
  EXPECT_EQ(record["outcome"], "conflict");
  EXPECT_EQ(record["changes"][0]["merge"]["conflict_files"], Json::array({"src/a.cc"}));
  EXPECT_EQ(record["changes"][0]["merge"]["verify"], nullptr);
  const Json& verify = record["changes"][1]["merge"]["verify"];
  EXPECT_EQ(verify["command"], "make test");
  EXPECT_EQ(verify["exit_code"], 2);
  EXPECT_EQ(verify["output_tail"], "FAILED: a_test\n");
  EXPECT_EQ(record["changes_omitted"], 0);
}

// Huge, many and non-UTF-8 values of every text the record carries: the
// record stays valid JSON of at most kMaxFeedbackBytes and keeps the end
// of the output, where a failure says what failed.
TEST(AttemptFeedbackTest, AnyTextsAndAnyNumberOfChangesGiveABoundedValidRecord) {
  const std::string invalid = "bad \xff\xfe utf-8 \xc3";
  const std::string multibyte = "é";
  for (const std::size_t size : {0ul, 10ul, 3000ul, 70000ul, 300000ul}) {
    for (const std::size_t count : {1ul, 3ul, 60ul}) {
      for (const std::string& filler :
           {std::string("x"), multibyte, invalid, std::string("\x01\"", 2)}) {
        std::string text;
        while (text.size() < size) text += filler;
        std::vector<AttemptChange> changes;
        for (std::size_t i = 0; i < count; ++i) {
          AttemptChange change = change_of(W::kHold, M::kRejected);
          change.worker.hold_reason = text;
          change.worker.step_id = text.substr(0, 100);
          change.worker.changed_files.assign(count, text.substr(0, 300));
          change.worker.allowed_files = {"docs/**"};
          change.entry->reason = text;
          change.entry->verify.output_tail = text + "\nTHE END";
          changes.push_back(change);
        }
        AttemptRecord record = record_of(R::kSucceeded, changes);
        record.run_error = text;
        const AttemptOutcome outcome = attempt_outcome(record);
        const std::string label = std::to_string(size) + " x " + std::to_string(count);
        ASSERT_EQ(outcome.verdict, AttemptVerdict::kFailed) << label;
        ASSERT_LE(outcome.feedback_json.size(), kMaxFeedbackBytes) << label;
        const Json parsed = Json::parse(outcome.feedback_json, nullptr, false);
        ASSERT_FALSE(parsed.is_discarded()) << label;
        const std::size_t kept = parsed["changes"].size();
        EXPECT_EQ(kept + parsed["changes_omitted"].get<std::size_t>(), count) << label;
        // Text that JSON escapes six-fold may leave no room for a change;
        // any other keeps at least the first, with the end of its output.
        if (filler[0] == '\x01' && kept == 0) continue;
        ASSERT_GE(kept, 1u) << label;
        const std::string tail = parsed["changes"][0]["merge"]["verify"]["output_tail"];
        EXPECT_EQ(tail.substr(tail.size() - 7), "THE END") << label;
        EXPECT_LE(tail.size(), kMaxFeedbackOutputBytes + 8) << label;
        EXPECT_LE(parsed["changes"][0]["changed_files"].size(), 51u) << label;
      }
    }
  }
}

}  // namespace
}  // namespace orrery
