#include "core/slot_plan.h"

#include <algorithm>

#include "core/duration.h"
#include "core/enum_names.h"

namespace orrery {
namespace {

using MaybeTime = std::optional<TimeMs>;

// The plan under construction; skipped slots are collected newest-first so
// the oldest are the ones that go unrecorded past the limit.
class PlanBuilder {
 public:
  PlanBuilder(const CatchUpPolicy& policy, TimeMs now) : policy_(policy), now_(now) {}

  bool too_late(TimeMs slot) const { return policy_.window && now_ - slot > *policy_.window; }

  void run(TimeMs slot) {
    if (too_late(slot)) {
      skip(slot);
    } else {
      plan_.run.push_back(slot);
    }
  }
  void skip(TimeMs slot) { skipped_.push_back(slot); }
  void skip_unlisted(std::int64_t count) { plan_.missed_unrecorded += count; }
  SlotPlan& plan() { return plan_; }

  SlotPlan finish(MaybeTime next_slot) {
    std::sort(skipped_.begin(), skipped_.end());
    const size_t limit = size_t(policy_.limit);
    const size_t unrecorded = skipped_.size() > limit ? skipped_.size() - limit : 0;
    plan_.missed_unrecorded += std::int64_t(unrecorded);
    for (size_t i = unrecorded; i < skipped_.size(); ++i) {
      plan_.skipped.push_back({skipped_[i], SkipReason::kMissed});
    }
    plan_.next_slot = next_slot;
    return std::move(plan_);
  }

 private:
  const CatchUpPolicy& policy_;
  TimeMs now_;
  SlotPlan plan_;
  std::vector<TimeMs> skipped_;
};

// The newest `count` slots in [first, last] (slots of the series), oldest first.
Result<std::vector<TimeMs>> newest_slots(const SlotSeries& series, TimeMs first, TimeMs last,
                                         std::int64_t count) {
  std::vector<TimeMs> slots;
  TimeMs slot = last;
  while (std::int64_t(slots.size()) < count) {
    slots.push_back(slot);
    if (slot <= first) break;
    auto previous = series.latest_at_or_before(first, slot - 1);
    if (!previous) return previous.error();
    slot = *previous;
  }
  std::reverse(slots.begin(), slots.end());
  return slots;
}

// Missed slots [first, last] under the policy; returns nothing but errors.
Status plan_missed(const SlotSeries& series, const CatchUpPolicy& policy, TimeMs first, TimeMs last,
                   PlanBuilder& builder) {
  auto total = series.count(first, last);
  if (!total) return total.error();
  std::int64_t to_run = 0;
  switch (policy.mode) {
    case CatchUpMode::kLatest:
      to_run = 1;
      break;
    case CatchUpMode::kAll:
      to_run = std::min<std::int64_t>(*total, policy.limit);
      break;
    case CatchUpMode::kNone:
      to_run = 0;
      break;
  }
  // Only the newest run + limit slots are ever listed; older ones are counted.
  const std::int64_t listed = std::min<std::int64_t>(*total, to_run + policy.limit);
  auto slots = newest_slots(series, first, last, listed);
  if (!slots) return slots.error();
  builder.skip_unlisted(*total - std::int64_t(slots->size()));
  const size_t first_run = slots->size() - size_t(to_run);
  for (size_t i = 0; i < slots->size(); ++i) {
    if (i >= first_run) {
      builder.run((*slots)[i]);
    } else {
      builder.skip((*slots)[i]);
    }
  }
  return Ok{};
}

// Slots due while watched, from `slot` through `last`: all run, up to the cap.
Result<MaybeTime> plan_watched(const SlotSeries& series, MaybeTime slot, TimeMs last,
                               PlanBuilder& builder) {
  while (slot && *slot <= last) {
    if (builder.plan().run.size() >= size_t(kMaxSlotsPerPlan)) return slot;
    builder.run(*slot);
    auto next = series.following(*slot);
    if (!next) return next.error();
    slot = *next;
  }
  return slot;
}

}  // namespace

namespace {

constexpr NameTable<CatchUpMode, 3> kCatchUpModes{{
    {CatchUpMode::kLatest, "latest"},
    {CatchUpMode::kAll, "all"},
    {CatchUpMode::kNone, "none"},
}};

}  // namespace

const char* catch_up_mode_name(CatchUpMode mode) { return enum_name(mode, kCatchUpModes); }

Result<CatchUpMode> parse_catch_up_mode(std::string_view text) {
  return parse_enum_name(text, kCatchUpModes, "catch-up policy");
}

const char* skip_reason_name(SkipReason reason) {
  switch (reason) {
    case SkipReason::kOverlap:
      return "overlap";
    case SkipReason::kBacklog:
      return "backlog";
    case SkipReason::kMissed:
      break;
  }
  return "missed";
}

std::int64_t SlotPlan::missed_count_delta() const {
  std::int64_t delta = missed_unrecorded;
  for (const SkippedSlot& slot : skipped) delta += slot.reason == SkipReason::kMissed ? 1 : 0;
  return delta;
}

Status validate_catch_up(const CatchUpPolicy& policy) {
  if (policy.limit < 1 || policy.limit > kMaxCatchUpLimit) {
    return usage_error("catch-up limit " + std::to_string(policy.limit) + " out of range 1-" +
                       std::to_string(kMaxCatchUpLimit));
  }
  if (policy.window && *policy.window <= 0) {
    return usage_error("catch-up window " + format_duration(*policy.window) +
                       " must be greater than zero");
  }
  return Ok{};
}

Result<SlotPlan> plan_slots(const SlotSeries& series, const CatchUpPolicy& policy,
                            const PlanInput& input) {
  if (auto valid = validate_catch_up(policy); !valid) return valid.error();
  PlanBuilder builder(policy, input.now);
  if (input.next_run_at > input.now) return builder.finish(input.next_run_at);

  MaybeTime first = input.next_run_at;
  if (input.retry_slot) {
    Result<MaybeTime> after_retry =
        input.resume_at ? Result<MaybeTime>(input.resume_at) : series.following(*input.retry_slot);
    if (!after_retry) return after_retry.error();
    // The series' next slot is due too: the retry is the oldest of the due
    // slots, and only `all` runs an older slot before the newer ones.
    const bool superseded = policy.mode != CatchUpMode::kAll && *after_retry &&
                            **after_retry <= input.now &&
                            (!input.expires_at || **after_retry < *input.expires_at);
    if (!superseded && !builder.too_late(input.next_run_at)) {
      builder.plan().run.push_back(*input.retry_slot);
      builder.plan().run_is_retry = true;
      return builder.finish(*after_retry);
    }
    builder.skip(*input.retry_slot);
    first = *after_retry;
  }

  // Due means at or before now and before the loop expires.
  TimeMs last_due = input.now;
  if (input.expires_at) last_due = std::min(last_due, *input.expires_at - 1);
  if (!first || *first > last_due) return builder.finish(first);

  if (*first < input.watching_since) {
    const TimeMs last_missed = std::min(last_due, input.watching_since - 1);
    auto newest = series.latest_at_or_before(*first, last_missed);
    if (!newest) return newest.error();
    if (auto planned = plan_missed(series, policy, *first, *newest, builder); !planned) {
      return planned.error();
    }
    auto after = series.following(*newest);
    if (!after) return after.error();
    first = *after;
  }
  auto resume = plan_watched(series, first, last_due, builder);
  if (!resume) return resume.error();
  return builder.finish(*resume);
}

}  // namespace orrery
