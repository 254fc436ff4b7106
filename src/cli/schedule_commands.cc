#include "cli/schedule_commands.h"

#include <nlohmann/json.hpp>
#include <ostream>

#include "cli/human.h"
#include "core/cron_describe.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/limits.h"
#include "core/schedule.h"
#include "views/document_text.h"
#include "views/loop_view.h"

namespace orrery::cli {
namespace {

constexpr int kMaxPreview = 1000;

Status check_count(int count) {
  if (count < 1 || count > kMaxPreview) {
    return usage_error("-n " + std::to_string(count) + " out of range 1-" +
                       std::to_string(kMaxPreview));
  }
  return Ok{};
}

Result<TimeZone> zone_option(const std::string& tz) {
  if (tz.empty()) return TimeZone::local();
  auto named = TimeZone::named(tz);
  if (!named) return usage_error("--tz: " + named.error().message);
  return named;
}

// --from: a time without an offset is wall time in the command's zone.
Result<TimeMs> from_option(const std::string& from, const Context& context, const TimeZone& zone) {
  if (from.empty()) return context.now;
  auto parsed = parse_time(from, context.now, zone);
  if (!parsed) return usage_error("--from: " + parsed.error().message);
  return parsed;
}

void print_next(std::ostream& out, std::vector<std::pair<std::string, std::string>> rows,
                const std::vector<TimeMs>& next, const TimeZone& zone, TimeMs now) {
  for (size_t i = 0; i < next.size(); ++i) {
    rows.emplace_back(i == 0 ? "next" : "",
                      format_wall(next[i], zone) + "  (" + format_relative(next[i], now) + ")");
  }
  if (next.empty()) rows.emplace_back("next", "none after the start time");
  print_fields(out, rows);
}

// The schedule given by exactly one of --cron, --every, --at.
Result<Schedule> preview_schedule(const SchedulePreviewArgs& args, const Context& context,
                                  const TimeZone& zone) {
  const int given = !args.cron.empty() + !args.every.empty() + !args.at.empty();
  if (given != 1) {
    return usage_error("give exactly one schedule: --cron EXPR, --every DURATION or --at TIME");
  }
  Schedule schedule;
  if (!args.cron.empty()) {
    schedule.type = ScheduleType::kCron;
    schedule.expression = args.cron;
    schedule.timezone = zone.name();
  } else if (!args.every.empty()) {
    auto every = parse_duration_option(args.every, "--every", kMaxIntervalMs);
    if (!every) return every.error();
    schedule.type = ScheduleType::kInterval;
    schedule.every_ms = *every;
  } else {
    auto at = parse_time(args.at, context.now, zone);
    if (!at) return usage_error("--at: " + at.error().message);
    schedule.type = ScheduleType::kOnce;
    schedule.at = *at;
  }
  return schedule;
}

}  // namespace

Result<int> cron_explain(const CronExplainArgs& args, const Context& context) {
  if (auto count = check_count(args.count); !count) return count.error();
  auto zone = zone_option(args.tz);
  if (!zone) return zone.error();
  auto from = from_option(args.from, context, *zone);
  if (!from) return from.error();
  auto cron = CronSchedule::parse(args.expression, *zone);
  if (!cron) return cron.error();

  // Fire times stop at the end of 9999; each is later than the one before.
  std::vector<TimeMs> next;
  for (TimeMs after = *from; int(next.size()) < args.count && after < kLatestTime;) {
    auto fire = cron->next_after(after);
    if (!fire && after > kLatestTime - kCronSearchHorizon) break;
    if (!fire) return fire.error();
    if (*fire > kLatestTime) break;
    next.push_back(after = *fire);
  }
  const std::string description = describe_cron(cron->fields());
  if (context.globals.json) {
    *context.out << json_text({{"expression", cron->expression()},
                               {"timezone", zone->name()},
                               {"description", description},
                               {"next", times_json(next)}})
                 << '\n';
    return kExitOk;
  }
  print_next(*context.out,
             {{"expression", cron->expression()},
              {"timezone", zone->name()},
              {"description", description}},
             next, *zone, context.now);
  return 0;
}

Result<int> schedule_preview(const SchedulePreviewArgs& args, const Context& context) {
  if (auto count = check_count(args.count); !count) return count.error();
  auto zone = zone_option(args.tz);
  if (!zone) return zone.error();
  auto from = from_option(args.from, context, *zone);
  if (!from) return from.error();
  auto schedule = preview_schedule(args, context, *zone);
  if (!schedule) return schedule.error();
  auto series = SlotSeries::compile(*schedule, "");
  if (!series) return series.error();
  auto next = series->preview(*from, args.count);
  if (!next) return next.error();

  if (context.globals.json) {
    *context.out << json_text({{"schedule", schedule_json(series->schedule())},
                               {"next", times_json(*next)}})
                 << '\n';
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> rows{
      {"schedule", schedule_type_name(schedule->type)}};
  if (schedule->type == ScheduleType::kCron) {
    rows.emplace_back("expression", schedule->expression);
    rows.emplace_back("description", describe_cron(series->cron()->fields()));
  } else if (schedule->type == ScheduleType::kInterval) {
    rows.emplace_back("every", format_duration(schedule->every_ms));
  }
  rows.emplace_back("timezone", zone->name());
  print_next(*context.out, rows, *next, *zone, context.now);
  return 0;
}

}  // namespace orrery::cli
