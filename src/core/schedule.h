// Schedule: when a loop's slots fall due (docs/scheduling.md).
//   once      at a time
//   interval  every D, anchored fixed_rate (slot + D) or fixed_delay (finish + D)
//   cron      an expression in a time zone (empty zone: the machine's)
//   dynamic   chosen per run within [min, max]; min after a finish by default
// An optional jitter D adds a deterministic per-loop offset in [0, D),
// derived from the loop id, to cron and once slots and to the first interval
// slot (later interval slots keep it by construction).
//
// SlotSeries is a validated schedule bound to one loop, ready to compute
// slots. Invariants: every duration is within its maximum (core/limits.h);
// every slot it returns is strictly after the instant it was asked from and
// within the years 1970-9999 (a slot that would fall later is "no slot");
// a cron that never fires is an error, not a hang.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/cron.h"
#include "core/result.h"
#include "core/time.h"

namespace orrery {

enum class ScheduleType { kOnce, kInterval, kCron, kDynamic };
enum class IntervalAnchor { kFixedRate, kFixedDelay };

inline constexpr DurationMs kDefaultDynamicMinMs = 60'000;
// Intervals below a second would only burn the machine; cron's own grain is a minute.
inline constexpr DurationMs kMinimumIntervalMs = 1000;
inline constexpr DurationMs kDefaultDynamicMaxMs = 86'400'000;

struct Schedule {
  ScheduleType type = ScheduleType::kInterval;
  TimeMs at = 0;            // once
  DurationMs every_ms = 0;  // interval
  IntervalAnchor anchor = IntervalAnchor::kFixedRate;
  std::string expression;                    // cron
  std::string timezone;                      // cron; empty = the machine's zone
  DurationMs min_ms = kDefaultDynamicMinMs;  // dynamic
  DurationMs max_ms = kDefaultDynamicMaxMs;
  DurationMs jitter_ms = 0;
};

const char* schedule_type_name(ScheduleType type);
Result<ScheduleType> parse_schedule_type(std::string_view text);
const char* anchor_name(IntervalAnchor anchor);

// The per-loop jitter offset in [0, jitter_ms), stable for a loop id.
DurationMs jitter_offset(std::string_view loop_id, DurationMs jitter_ms);

inline constexpr std::int64_t kMaxSlotsCounted = 100'000;

class SlotSeries {
 public:
  // Validates the schedule (durations, cron, zone) and binds it to a loop id.
  static Result<SlotSeries> compile(const Schedule& schedule, std::string_view loop_id);

  // The first slot of a loop created, resumed or previewed at `from`.
  Result<std::optional<TimeMs>> initial(TimeMs from) const;
  // The slot after `slot` in the series (once and dynamic have none).
  Result<std::optional<TimeMs>> following(TimeMs slot) const;
  // The next slot of a loop whose run for `scheduled_for` finished at
  // `finished_at`: slots already past at finish are skipped (fixed_rate,
  // cron); fixed_delay and dynamic count from the finish. `requested_delay`
  // is a dynamic run's own choice, clamped to [min, max].
  Result<std::optional<TimeMs>> after_finish(TimeMs scheduled_for, TimeMs finished_at,
                                             std::optional<DurationMs> requested_delay = {}) const;
  // The newest slot at or before `at`, given the series' slot `first` <= at.
  Result<TimeMs> latest_at_or_before(TimeMs first, TimeMs at) const;
  // How many slots lie in [first, last], both slots of the series. A cron
  // series counts its first kMaxSlotsCounted slots one by one and estimates
  // the rest at their rate, so the work is bounded (a loop whose next slot
  // is decades old costs a tick milliseconds, not seconds).
  Result<std::int64_t> count(TimeMs first, TimeMs last) const;
  // Up to n slots strictly after `from`, as a preview.
  Result<std::vector<TimeMs>> preview(TimeMs from, int n) const;

  const Schedule& schedule() const { return schedule_; }
  // The resolved zone name of a cron schedule ("" for the other types).
  std::string timezone_name() const { return cron_ ? cron_->zone().name() : ""; }
  DurationMs offset() const { return offset_; }
  const CronSchedule* cron() const { return cron_ ? &*cron_ : nullptr; }

 private:
  SlotSeries(Schedule schedule, std::optional<CronSchedule> cron, DurationMs offset)
      : schedule_(std::move(schedule)), cron_(std::move(cron)), offset_(offset) {}

  Result<std::optional<TimeMs>> cron_after(TimeMs after) const;

  Schedule schedule_;
  std::optional<CronSchedule> cron_;
  DurationMs offset_;
};

}  // namespace orrery
