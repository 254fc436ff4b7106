#include "core/schedule.h"

#include <algorithm>
#include <cmath>

#include "core/duration.h"
#include "core/enum_names.h"
#include "core/limits.h"
#include "core/timezone.h"

namespace orrery {
namespace {

using MaybeTime = std::optional<TimeMs>;

Error too_long(const char* option, DurationMs value, DurationMs maximum) {
  return usage_error(std::string(option) + " " + format_duration(value) +
                     " is longer than the maximum of " + format_duration(maximum));
}

Status validate_durations(const Schedule& schedule) {
  switch (schedule.type) {
    case ScheduleType::kOnce:
      if (!in_time_range(schedule.at)) {
        return usage_error("--at " + format_time(schedule.at) + " is outside the years 1970-9999");
      }
      return Ok{};
    case ScheduleType::kInterval:
      if (schedule.every_ms < kMinimumIntervalMs) {
        return usage_error("--every " + format_duration(schedule.every_ms) +
                           " is shorter than the minimum of 1s");
      }
      if (schedule.every_ms > kMaxIntervalMs) {
        return too_long("--every", schedule.every_ms, kMaxIntervalMs);
      }
      return Ok{};
    case ScheduleType::kCron:
      return Ok{};
    case ScheduleType::kDynamic:
      if (schedule.min_ms <= 0) {
        return usage_error("--min " + format_duration(schedule.min_ms) +
                           " must be greater than zero");
      }
      if (schedule.max_ms > kMaxDynamicDelayMs) {
        return too_long("--max", schedule.max_ms, kMaxDynamicDelayMs);
      }
      if (schedule.max_ms < schedule.min_ms) {
        return usage_error("--max " + format_duration(schedule.max_ms) + " is less than --min " +
                           format_duration(schedule.min_ms));
      }
      return Ok{};
  }
  return internal_error("unknown schedule type");
}

Status validate(const Schedule& schedule) {
  if (auto durations = validate_durations(schedule); !durations) return durations;
  if (schedule.jitter_ms < 0) return usage_error("--jitter cannot be negative");
  if (schedule.jitter_ms > kMaxJitterMs)
    return too_long("--jitter", schedule.jitter_ms, kMaxJitterMs);
  if (schedule.jitter_ms > 0 && schedule.type == ScheduleType::kDynamic) {
    return usage_error("--jitter does not apply to --dynamic: its runs choose their own time");
  }
  return Ok{};
}

Result<TimeZone> zone_for(const Schedule& schedule) {
  if (schedule.timezone.empty()) return TimeZone::local();
  return TimeZone::named(schedule.timezone);
}

}  // namespace

namespace {

constexpr NameTable<ScheduleType, 4> kScheduleTypes{{
    {ScheduleType::kOnce, "once"},
    {ScheduleType::kInterval, "interval"},
    {ScheduleType::kCron, "cron"},
    {ScheduleType::kDynamic, "dynamic"},
}};

}  // namespace

const char* schedule_type_name(ScheduleType type) { return enum_name(type, kScheduleTypes); }

Result<ScheduleType> parse_schedule_type(std::string_view text) {
  return parse_enum_name(text, kScheduleTypes, "schedule type");
}

const char* anchor_name(IntervalAnchor anchor) {
  return anchor == IntervalAnchor::kFixedDelay ? "fixed_delay" : "fixed_rate";
}

DurationMs jitter_offset(std::string_view loop_id, DurationMs jitter_ms) {
  if (jitter_ms <= 0) return 0;
  std::uint64_t hash = 14695981039346656037ull;  // FNV-1a
  for (char c : loop_id) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 1099511628211ull;
  }
  return DurationMs(hash % std::uint64_t(jitter_ms));
}

Result<SlotSeries> SlotSeries::compile(const Schedule& schedule, std::string_view loop_id) {
  if (auto valid = validate(schedule); !valid) return valid.error();
  std::optional<CronSchedule> cron;
  if (schedule.type == ScheduleType::kCron) {
    auto zone = zone_for(schedule);
    if (!zone) return zone.error();
    auto parsed = CronSchedule::parse(schedule.expression, *zone);
    if (!parsed) return parsed.error();
    cron = std::move(*parsed);
  }
  const DurationMs offset =
      schedule.type == ScheduleType::kDynamic ? 0 : jitter_offset(loop_id, schedule.jitter_ms);
  return SlotSeries(schedule, std::move(cron), offset);
}

// The first cron slot after `after`; none when it would fall after 9999.
Result<MaybeTime> SlotSeries::cron_after(TimeMs after) const {
  if (after >= kLatestTime) return MaybeTime{};
  auto next = cron_->next_after(after - offset_);
  if (!next) {
    // A search that ran past the end of 9999 found no slot within the range.
    if (after > kLatestTime - kCronSearchHorizon) return MaybeTime{};
    return next.error();
  }
  return add_checked(*next, offset_);
}

Result<MaybeTime> SlotSeries::initial(TimeMs from) const {
  switch (schedule_.type) {
    case ScheduleType::kOnce:
      return add_checked(schedule_.at, offset_);
    case ScheduleType::kInterval: {
      const MaybeTime first = add_checked(from, schedule_.every_ms);
      return first ? add_checked(*first, offset_) : first;
    }
    case ScheduleType::kCron:
      return cron_after(from);
    case ScheduleType::kDynamic:
      return add_checked(from, schedule_.min_ms);
  }
  return internal_error("unknown schedule type");
}

Result<MaybeTime> SlotSeries::following(TimeMs slot) const {
  switch (schedule_.type) {
    case ScheduleType::kInterval:
      return add_checked(slot, schedule_.every_ms);
    case ScheduleType::kCron:
      return cron_after(slot);
    case ScheduleType::kOnce:
    case ScheduleType::kDynamic:
      return MaybeTime{};
  }
  return internal_error("unknown schedule type");
}

Result<MaybeTime> SlotSeries::after_finish(TimeMs scheduled_for, TimeMs finished_at,
                                           std::optional<DurationMs> requested_delay) const {
  switch (schedule_.type) {
    case ScheduleType::kOnce:
      return MaybeTime{};
    case ScheduleType::kInterval: {
      const DurationMs every = schedule_.every_ms;
      if (schedule_.anchor == IntervalAnchor::kFixedDelay) return add_checked(finished_at, every);
      if (finished_at < scheduled_for) return add_checked(scheduled_for, every);
      // Both times lie in 1970-9999, so the product stays far below overflow.
      return add_checked(scheduled_for, ((finished_at - scheduled_for) / every + 1) * every);
    }
    case ScheduleType::kCron:
      return cron_after(std::max(scheduled_for, finished_at));
    case ScheduleType::kDynamic: {
      const DurationMs delay = requested_delay.value_or(schedule_.min_ms);
      return add_checked(finished_at, std::clamp(delay, schedule_.min_ms, schedule_.max_ms));
    }
  }
  return internal_error("unknown schedule type");
}

Result<TimeMs> SlotSeries::latest_at_or_before(TimeMs first, TimeMs at) const {
  if (at <= first) return first;
  switch (schedule_.type) {
    case ScheduleType::kInterval:
      return first + (at - first) / schedule_.every_ms * schedule_.every_ms;
    case ScheduleType::kCron: {
      auto latest = cron_->latest_before(at - offset_ + 1);
      if (!latest) return latest.error();
      return std::max(first, *latest + offset_);
    }
    case ScheduleType::kOnce:
    case ScheduleType::kDynamic:
      return first;
  }
  return internal_error("unknown schedule type");
}

Result<std::int64_t> SlotSeries::count(TimeMs first, TimeMs last) const {
  if (last < first) return std::int64_t{0};
  if (schedule_.type == ScheduleType::kInterval) return (last - first) / schedule_.every_ms + 1;
  if (schedule_.type != ScheduleType::kCron) return std::int64_t{1};
  std::int64_t slots = 1;
  for (TimeMs slot = first;;) {
    if (slots == kMaxSlotsCounted) {
      // The rest at the rate of those counted (slot > first here).
      const double per_ms = double(slots - 1) / double(slot - first);
      return slots + std::llround(double(last - slot) * per_ms);
    }
    auto next = cron_after(slot);
    if (!next) return next.error();
    if (!next->has_value() || **next > last) return slots;
    slot = **next;
    ++slots;
  }
}

Result<std::vector<TimeMs>> SlotSeries::preview(TimeMs from, int n) const {
  std::vector<TimeMs> slots;
  auto slot = initial(from);
  // Each slot is later than the one before (following() is strictly
  // increasing and ends at 9999), so this takes at most n + 1 steps past from.
  while (slot && slot->has_value() && int(slots.size()) < n) {
    if (**slot > from) slots.push_back(**slot);
    auto next = following(**slot);
    if (next && next->has_value() && **next <= **slot) {
      return internal_error("schedule went backwards at " + format_time(**slot));
    }
    slot = std::move(next);
  }
  if (!slot) return slot.error();
  return slots;
}

}  // namespace orrery
