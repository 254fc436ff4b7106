// Slot planning (docs/scheduling.md): which of a due loop's slots run now and which
// are recorded skipped.
//
// A slot is missed when it fell due before `watching_since`, the instant from
// which a daemon has watched without a break (its start, the start of a
// `daemon --once`, or the end of a machine suspend). Missed slots follow the
// catch-up policy:
//   latest  only the newest missed slot runs;
//   all     missed slots run oldest first, at most `limit` (the newest ones);
//   none    no missed slot runs.
// Slots that fell due while watched are never missed: they all run, oldest
// first. Whatever the policy, a slot more than `window` late at `now` does
// not run. A pending retry slot, once due, runs before anything else —
// unless the series' next slot is due as well: then the retry is the oldest
// due slot and the policy decides, as for missed slots: `all` runs it first,
// `latest` and `none` record it skipped (`missed`) and plan the due slots
// without it. A retry more than `window` late is recorded skipped too.
//
// Invariants: every due slot the plan covers is either run, recorded skipped
// with its reason, or counted in `missed_unrecorded`; at most `limit` skipped
// rows and at most kMaxSlotsPerPlan runs per plan; slots the plan does not
// reach stay due from `next_slot`.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/result.h"
#include "core/schedule.h"
#include "core/time.h"

namespace orrery {

enum class CatchUpMode { kLatest, kAll, kNone };
// kBacklog: a slot of an `allow` loop that found no room and the loop's
// backlog of queued runs full (core/tick_plan.h, kMaxBacklog).
enum class SkipReason { kMissed, kOverlap, kBacklog };

inline constexpr int kDefaultCatchUpLimit = 50;
inline constexpr int kMaxCatchUpLimit = 1000;
inline constexpr int kMaxSlotsPerPlan = 1000;

const char* catch_up_mode_name(CatchUpMode mode);
Result<CatchUpMode> parse_catch_up_mode(std::string_view text);
const char* skip_reason_name(SkipReason reason);

struct CatchUpPolicy {
  CatchUpMode mode = CatchUpMode::kLatest;
  int limit = kDefaultCatchUpLimit;  // 1..kMaxCatchUpLimit
  std::optional<DurationMs> window;  // a slot later than this never runs
};

struct PlanInput {
  TimeMs next_run_at = 0;            // the loop's first unplanned slot (or retry due time)
  std::optional<TimeMs> retry_slot;  // a failed slot awaiting its retry at next_run_at
  // Where the series resumes after the retry (empty: the slot after it).
  std::optional<TimeMs> resume_at;
  TimeMs now = 0;
  TimeMs watching_since = 0;
  std::optional<TimeMs> expires_at;  // slots at or after it are not due
};

struct SkippedSlot {
  TimeMs slot = 0;
  SkipReason reason = SkipReason::kMissed;
  friend bool operator==(const SkippedSlot&, const SkippedSlot&) = default;
};

struct SlotPlan {
  std::vector<TimeMs> run;             // oldest first
  bool run_is_retry = false;           // run holds just the pending retry slot
  std::vector<SkippedSlot> skipped;    // oldest first, recorded as skipped runs
  std::int64_t missed_unrecorded = 0;  // skipped slots beyond the row limit
  std::optional<TimeMs> next_slot;     // where the series resumes; nullopt: no more

  // How much the loop's missed_count grows: every missed slot that did not run.
  std::int64_t missed_count_delta() const;
};

Status validate_catch_up(const CatchUpPolicy& policy);

Result<SlotPlan> plan_slots(const SlotSeries& series, const CatchUpPolicy& policy,
                            const PlanInput& input);

}  // namespace orrery
