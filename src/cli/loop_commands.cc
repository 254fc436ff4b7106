#include "cli/loop_commands.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <random>

#include "cli/caller_paths.h"
#include "cli/feed_route.h"
#include "cli/goal_commands.h"
#include "cli/handles.h"
#include "cli/human.h"
#include "cli/page_note.h"
#include "cli/store_access.h"
#include "cli/workflow_target.h"
#include "core/byte_size.h"
#include "core/cron_describe.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/ids.h"
#include "core/limits.h"
#include "core/loop_transitions.h"
#include "core/shell_quote.h"
#include "core/text.h"
#include "exec/fresh_id.h"
#include "exec/wake.h"
#include "store/home_layout.h"
#include "store/regular_file.h"
#include "store/secrets.h"
#include "views/document_text.h"
#include "views/loop_view.h"

namespace orrery::cli {
namespace {

// The largest page `ls --limit` takes.
constexpr int kMaxPage = 10'000;

std::string new_loop_id(TimeMs now) { return fresh_id(now); }

// An agent's prompt file must be a readable, non-empty regular file of at
// most 1 MiB now (read without blocking, so a FIFO cannot hang `add`); it is
// stored by its real path since runs start elsewhere.
Status check_prompt_file(Target& target) {
  if (!target.agent || target.agent->prompt_file.empty()) return Ok{};
  std::string& path = target.agent->prompt_file;
  auto file = read_regular_file(path, kMaxPromptFileBytes);
  if (!file) return usage_error("--prompt-file " + file.error().message);
  if (!file->has_value())
    return usage_error("--prompt-file " + path + ": " + std::strerror(ENOENT));
  if ((*file)->empty()) return usage_error("--prompt-file " + path + " is empty");
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) {
    return usage_error("--prompt-file " + path + ": " + std::strerror(errno));
  }
  path = resolved;
  return Ok{};
}

// An executable given as a path (with a '/') must exist and be executable at
// `add`; a bare name is looked up in the target's PATH when it runs. A
// relative path is resolved against --cwd (where the run starts) and, without
// --cwd, made absolute against the directory of `add`; `~/…` and `~user/…`
// are expanded, and every path but one left to --cwd is made normal
// (docs/paths.md).
Status check_executable(Target& target, const PathBase& paths) {
  if (target.shell || target.agent || target.argv.empty()) return Ok{};
  std::string& executable = target.argv.front();
  if (executable.find('/') == std::string::npos) return Ok{};
  const bool read_in_cwd = executable.front() != '/' && executable.front() != '~';
  if (!read_in_cwd || target.cwd.empty()) {
    auto resolved = resolve_user_path(executable, paths);
    if (!resolved) return usage_error("executable: " + resolved.error().message);
    executable = std::move(*resolved);
  }
  std::string path = executable;
  if (path.front() != '/') path = target.cwd + "/" + executable;  // --cwd is absolute
  const auto refuse = [&](const std::string& why) {
    return usage_error("executable " + executable + ": " + why);
  };
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return refuse(std::strerror(errno));
  if (S_ISDIR(info.st_mode)) return refuse("is a directory");
  if (!S_ISREG(info.st_mode)) return refuse("is not a regular file");
  if (access(path.c_str(), X_OK) != 0)
    return refuse("is not executable (" + std::string(std::strerror(errno)) + ")");
  return Ok{};
}

std::string describe_schedule(const Schedule& schedule) {
  switch (schedule.type) {
    case ScheduleType::kOnce:
      return "once at " + format_time(schedule.at);
    case ScheduleType::kInterval:
      return "every " + format_duration(schedule.every_ms) +
             (schedule.anchor == IntervalAnchor::kFixedDelay ? " after finish" : "");
    case ScheduleType::kCron:
      return "cron " + schedule.expression + " (" + schedule.timezone + ")";
    case ScheduleType::kDynamic:
      return "dynamic " + format_duration(schedule.min_ms) + "-" + format_duration(schedule.max_ms);
  }
  return "";
}

// `workflow` is how a workflow target's id is shown: whole in a document,
// its handle in a listing.
std::string describe_target(const Target& target, const std::string& workflow) {
  if (target.agent) {
    return std::string("agent ") + provider_name(target.agent->provider) +
           (target.agent->model.empty() ? "" : " (" + target.agent->model + ")");
  }
  if (target.type == TargetType::kWorkflow) {
    return "workflow " + workflow + (target.input_json == "{}" ? "" : " " + target.input_json);
  }
  if (target.shell) return shell_command({"sh", "-c", target.command_line});
  return shell_command(target.argv);
}

std::string when(const std::optional<TimeMs>& time, TimeMs now) {
  return time ? format_relative(*time, now) : "-";
}

// "next run 2026-11-30 09:00 +01:00  (in 4m)", or why there is none.
std::string next_run_line(const Loop& loop, TimeMs now) {
  if (loop.archived || loop.status != LoopStatus::kActive) {
    return std::string("no next run: the loop is ") +
           (loop.archived ? "archived" : loop_status_name(loop.status));
  }
  if (!loop.next_run_at) return "no next run: the schedule has no further slot";
  return "next run " + format_wall(*loop.next_run_at, TimeZone::local()) + "  (" +
         when(loop.next_run_at, now) + ")";
}

void print_loop_json(const Context& context, const Loop& loop) {
  *context.out << json_text(loop_json(loop)) << '\n';
}

// `feed` names the route the loop feeds (its id when it cannot be read).
void print_loop(const Context& context, const Loop& loop, const std::string& feed = "") {
  const TimeZone zone = TimeZone::local();
  std::vector<std::pair<std::string, std::string>> rows{
      {"id", loop.id},
      {"name", loop.name},
      {"status", std::string(loop_status_name(loop.status)) + (loop.archived ? " (archived)" : "")},
      {"schedule", describe_schedule(loop.schedule)},
      {"target", describe_target(loop.target, loop.target.workflow_id)}};
  if (!loop.description.empty()) rows.emplace_back("description", loop.description);
  if (loop.schedule.type == ScheduleType::kCron) {
    if (auto fields = parse_cron_fields(loop.schedule.expression)) {
      rows.emplace_back("meaning", describe_cron(*fields));
    }
  }
  rows.emplace_back("next run", loop.next_run_at ? format_wall(*loop.next_run_at, zone) + "  (" +
                                                       when(loop.next_run_at, context.now) + ")"
                                                 : "-");
  rows.emplace_back("catch-up", std::string(catch_up_mode_name(loop.catch_up.mode)) + ", limit " +
                                    std::to_string(loop.catch_up.limit));
  rows.emplace_back("overlap", overlap_name(loop.overlap));
  rows.emplace_back("attempts", std::to_string(loop.max_attempts) + ", retry after " +
                                    format_duration(loop.retry_delay_ms));
  rows.emplace_back("lease", format_duration(loop.lease_ms));
  if (loop.timeout_ms) rows.emplace_back("timeout", format_duration(*loop.timeout_ms));
  rows.emplace_back("log limit", format_byte_size(loop.log_limit_bytes) + " per stream");
  if (!loop.feed_route_id.empty()) {
    rows.emplace_back("feeds", "route " + (feed.empty() ? loop.feed_route_id : feed) +
                                   " (each line a succeeded run prints is an item)");
  }
  if (loop.expires_at) rows.emplace_back("expires", format_wall(*loop.expires_at, zone));
  if (loop.missed_count > 0) rows.emplace_back("missed", std::to_string(loop.missed_count));
  rows.emplace_back("created", format_wall(loop.created_at, zone));
  print_fields(*context.out, rows);
}

// Removes the directories of runs whose rows were deleted: a run's directory
// goes with its row (docs/storage.md). An id that is not a plain run id is
// never turned into a path.
Status remove_run_directories(const std::string& home, const std::vector<std::string>& run_ids) {
  std::string failures;
  int failed = 0;
  for (const std::string& id : run_ids) {
    if (id.empty() ||
        id.find_first_not_of("0123456789abcdefghijklmnopqrstuvwxyz") != std::string::npos) {
      continue;
    }
    const std::string dir = HomeLayout(home).run(id).path();
    std::error_code error;
    std::filesystem::remove_all(dir, error);
    if (error && failed++ == 0) failures = dir + ": " + error.message();
  }
  if (failed == 0) return Ok{};
  return internal_error("could not remove " + std::to_string(failed) + " run director" +
                        (failed == 1 ? "y" : "ies") + " (" + failures + ")");
}

// How often a transition is re-applied when the loop changed under it (a
// daemon tick advancing its schedule state, another command).
constexpr int kTransitionTries = 3;

// Resolves the loop, applies a transition and stores the part it changes,
// guarded by that part's version (docs/storage.md, "Loop versions"); when
// the loop changed meanwhile, re-reads it and applies the transition again.
// With `schedules` (the loop may have become due), wakes the daemon and says
// when the loop runs next.
Result<int> transition(const LoopArgs& args, const Context& context, const char* done,
                       LoopParts parts, const std::function<Result<Loop>(Loop)>& change,
                       bool schedules = false) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto loop = opened->store->resolve_loop(args.loop);
  if (!loop) return loop.error();
  Result<Loop> changed = change(*loop);
  for (int tries = 1;; ++tries) {
    if (!changed) return changed.error();
    auto stored = opened->store->update_loop_parts(*changed, parts, {}, context.now);
    if (stored) break;
    if (stored.error().code != ErrorCode::kConflict || tries == kTransitionTries) {
      return stored.error();
    }
    auto reread = opened->store->get_loop(loop->id);
    if (!reread) return reread.error();
    if (!reread->has_value()) return not_found_error("no loop has the id '" + loop->id + "'");
    changed = change(**reread);
  }
  changed->updated_at = context.now;
  if (parts.config) ++changed->config_version;
  if (parts.state) ++changed->state_version;
  if (schedules) notify_daemon(opened->home);
  if (context.globals.json) {
    print_loop_json(context, *changed);
  } else {
    *context.out << done << " loop " << terminal_text(changed->name) << " (" << changed->id
                 << ")\n";
    if (schedules) *context.out << next_run_line(*changed, context.now) << '\n';
  }
  return kExitOk;
}

}  // namespace

Status check_target_files(Target& target, const PathBase& paths) {
  if (!target.cwd.empty()) {
    // Checked here, at the edge: the core does no I/O.
    struct stat info {};
    if (stat(target.cwd.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      return usage_error("--cwd " + target.cwd + " is not an existing directory");
    }
  }
  if (auto prompt = check_prompt_file(target); !prompt) return prompt;
  return check_executable(target, paths);
}

// The name of the route the loop feeds, for people (its id when it cannot be read).
std::string feed_name(const Loop& loop, RouteCatalog& routes) {
  if (loop.feed_route_id.empty()) return "";
  auto route = routes.get_route(loop.feed_route_id);
  return route && route->has_value() ? terminal_text((*route)->name) : "";
}

void print_loop_document(const Context& context, const Loop& loop, RouteCatalog& routes) {
  if (context.globals.json) {
    print_loop_json(context, loop);
  } else {
    print_loop(context, loop, feed_name(loop, routes));
  }
}

Result<int> add_loop(const LoopSpec& given, const Context& context) {
  LoopSpec spec = given;
  spec.paths = caller_paths();
  auto built = build_loop(spec, new_loop_id(context.now), context.now, TimeZone::local());
  if (!built) return built.error();
  if (auto files = check_target_files(built->loop.target, spec.paths); !files) {
    return files.error();
  }
  auto opened = open_store(context);
  if (!opened) return opened.error();
  if (auto resolved = resolve_workflow_target(*opened->store, built->loop.target); !resolved)
    return resolved.error();
  if (auto feed = resolve_feed_route(*opened->store, built->loop); !feed) return feed.error();
  if (auto secrets = write_loop_secrets(opened->home, built->loop.id, built->secret_values);
      !secrets) {
    return secrets.error();
  }
  if (auto created = opened->store->create_loop(built->loop); !created) {
    (void)remove_loop_secrets(opened->home, built->loop.id);
    return created.error();
  }
  notify_daemon(opened->home);
  if (context.globals.json) {
    print_loop_json(context, built->loop);
  } else {
    *context.out << "added loop " << terminal_text(built->loop.name) << " (" << built->loop.id
                 << ")\n";
    if (built->loop.next_run_at) {
      *context.out << next_run_line(built->loop, context.now) << '\n';
    }
  }
  return kExitOk;
}

namespace {

// The command that shows the page after `shown` loops: "orrery ls --all --offset 1000".
std::string next_loops_page(const ListArgs& args, const ListedPage& page) {
  std::string command = "orrery ls";
  if (args.all) command += " --all";
  if (args.archived) command += " --archived";
  command += option_word("--status", args.status);
  return next_page_command(command, args.limit, ListArgs{}.limit, page);
}

}  // namespace

Result<int> list_loops(const ListArgs& args, const Context& context) {
  LoopFilter filter;
  if (args.all && args.archived) return usage_error("give --all or --archived, not both");
  if (args.limit < 1 || args.limit > kMaxPage) {
    return usage_error("--limit " + std::to_string(args.limit) + " out of range 1-" +
                       std::to_string(kMaxPage));
  }
  if (args.offset < 0) {
    return usage_error("--offset " + std::to_string(args.offset) + " cannot be negative");
  }
  filter.archived = args.all        ? LoopFilter::Archived::kInclude
                    : args.archived ? LoopFilter::Archived::kOnly
                                    : LoopFilter::Archived::kExclude;
  if (!args.status.empty()) {
    auto status = parse_loop_status(args.status);
    if (!status) return usage_error("--status: " + status.error().message);
    filter.status = *status;
  }
  filter.limit = args.limit;
  filter.offset = args.offset;
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto loops = opened->store->list_loops(filter);
  if (!loops) return loops.error();
  auto page = listed_page(args.offset, args.limit, loops->size(),
                          [&] { return opened->store->count_loops(filter); });
  if (!page) return page.error();
  const std::string next_page = next_loops_page(args, *page);
  if (context.globals.json) {
    nlohmann::json array = nlohmann::json::array();
    for (const Loop& loop : *loops) array.push_back(loop_json(loop));
    *context.out << json_text(array) << '\n';
    tell_rest(context, *page, "loops", next_page);
    return kExitOk;
  }
  if (loops->empty()) {
    if (args.offset > 0) {
      *context.out << "no loops at offset " << args.offset << "\n";
    } else if (filter.status || filter.archived != LoopFilter::Archived::kExclude) {
      *context.out << "no loops match\n";
    } else {
      *context.out << "no loops yet: add one with orrery add NAME --every 1h -- COMMAND\n";
    }
    return kExitOk;
  }
  auto ids = column_handles(*opened->store, IdTable::kLoops, *loops, &Loop::id);
  if (!ids) return ids.error();
  std::vector<std::string> workflow_ids;
  for (const Loop& loop : *loops) workflow_ids.push_back(loop.target.workflow_id);
  auto workflows = handles_of(*opened->store, IdTable::kWorkflows, workflow_ids);
  if (!workflows) return workflows.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < loops->size(); ++i) {
    const Loop& loop = (*loops)[i];
    rows.push_back({(*ids)[i], loop.name,
                    std::string(loop_status_name(loop.status)) + (loop.archived ? "*" : ""),
                    describe_schedule(loop.schedule), when(loop.next_run_at, context.now),
                    describe_target(loop.target, (*workflows)[i])});
  }
  print_table(*context.out, {"ID", "NAME", "STATUS", "SCHEDULE", "NEXT", "TARGET"}, rows);
  tell_rest(context, *page, "loops", next_page);
  return kExitOk;
}

Result<int> show_loop(const LoopArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto loop = opened->store->resolve_loop(args.loop);
  if (!loop) return loop.error();
  GoalFilter newest;
  newest.loop_id = loop->id;
  newest.limit = 1;
  auto goals = context.globals.json ? Result<std::vector<Goal>>(std::vector<Goal>{})
                                    : opened->store->list_goals(newest);
  if (!goals) return goals.error();
  std::optional<Goal> goal;
  if (!goals->empty()) goal = goals->front();
  // The document stays the loop document every loop command prints; its
  // goal is `goal ls --loop L` (docs/goals.md).
  print_loop_document(context, *loop, *opened->store);
  if (goal && !context.globals.json) {
    auto handle = handle_of(*opened->store, IdTable::kGoals, goal->id);
    if (!handle) return handle.error();
    std::string line = *handle + " " + goal_status_name(goal->status) + ", " +
                       budget_bar(goal->tokens_used, goal->token_budget) + ", " +
                       std::to_string(goal->turns) + " turns";
    if (loop->paused_by_goal == goal->id) line += " (it paused the loop)";
    print_fields(*context.out, {{"goal", line}});
  }
  return kExitOk;
}

Result<int> pause_loop_command(const LoopArgs& args, const Context& context) {
  return transition(args, context, "paused", {.state = true},
                    [&](Loop loop) { return pause_loop(std::move(loop), context.now); });
}

Result<int> resume_loop_command(const LoopArgs& args, const Context& context) {
  return transition(
      args, context, "resumed", {.state = true},
      [&](Loop loop) { return resume_loop(std::move(loop), context.now); }, true);
}

Result<int> archive_loop_command(const LoopArgs& args, const Context& context) {
  return transition(args, context, "archived", {.state = true},
                    [&](Loop loop) { return archive_loop(std::move(loop), context.now); });
}

Result<int> unarchive_loop_command(const LoopArgs& args, const Context& context) {
  return transition(
      args, context, "unarchived", {.state = true},
      [&](Loop loop) { return unarchive_loop(std::move(loop), context.now); }, true);
}

Result<int> rename_loop_command(const LoopArgs& args, const Context& context) {
  return transition(args, context, "renamed", {.config = true}, [&](Loop loop) {
    return rename_loop(std::move(loop), args.new_name, context.now);
  });
}

Result<int> remove_loop(const LoopArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto loop = opened->store->resolve_loop(args.loop);
  if (!loop) return loop.error();
  auto removed = opened->store->delete_loop(loop->id);
  if (!removed) return removed.error();
  notify_daemon(opened->home);
  if (auto secrets = remove_loop_secrets(opened->home, loop->id); !secrets) return secrets.error();
  if (auto dirs = remove_run_directories(opened->home, *removed); !dirs) {
    return Error{dirs.error().code,
                 "deleted loop " + loop->name + " (" + loop->id + "), but " + dirs.error().message};
  }
  if (context.globals.json) {
    *context.out << json_text({{"deleted", loop->id}, {"name", loop->name}}) << '\n';
  } else {
    *context.out << "deleted loop " << terminal_text(loop->name) << " (" << loop->id << ")\n";
  }
  return kExitOk;
}

namespace {

// The zone of `next`: --tz, else a cron loop's own zone, else the machine's.
Result<TimeZone> next_zone(const LoopArgs& args, const Loop& loop) {
  if (!args.tz.empty()) {
    auto named = TimeZone::named(args.tz);
    if (!named) return usage_error("--tz: " + named.error().message);
    return named;
  }
  if (loop.schedule.type == ScheduleType::kCron && !loop.schedule.timezone.empty()) {
    return TimeZone::named(loop.schedule.timezone);
  }
  return TimeZone::local();
}

}  // namespace

Result<int> next_slots(const LoopArgs& args, const Context& context) {
  if (args.count < 1 || args.count > 1000) {
    return usage_error("-n " + std::to_string(args.count) + " out of range 1-1000");
  }
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto loop = opened->store->resolve_loop(args.loop);
  if (!loop) return loop.error();
  auto zone = next_zone(args, *loop);
  if (!zone) return zone.error();
  auto series = SlotSeries::compile(loop->schedule, loop->id);
  if (!series) return series.error();
  std::vector<TimeMs> next;
  if (!args.from.empty()) {
    auto from = parse_time(args.from, context.now, *zone);
    if (!from) return usage_error("--from: " + from.error().message);
    auto preview = series->preview(*from, args.count);
    if (!preview) return preview.error();
    next = *preview;
  } else if (loop->next_run_at && !loop->archived && loop->status == LoopStatus::kActive) {
    // Each following slot is later (or none past 9999): at most count steps.
    for (std::optional<TimeMs> slot = loop->next_run_at; slot && int(next.size()) < args.count;) {
      next.push_back(*slot);
      auto following = series->following(*slot);
      if (!following) return following.error();
      slot = *following;
    }
  }
  if (context.globals.json) {
    *context.out << json_text({{"loop_id", loop->id}, {"next", times_json(next)}}) << '\n';
    return kExitOk;
  }
  if (next.empty())
    *context.out << "loop " << terminal_text(loop->name) << " has no upcoming slots\n";
  for (TimeMs slot : next) {
    *context.out << format_wall(slot, *zone) << "  (" << format_relative(slot, context.now)
                 << ")\n";
  }
  return kExitOk;
}

Result<int> prune_runs(const PruneArgs& args, const Context& context) {
  PruneOptions options;
  options.now = context.now;
  options.keep = args.keep;
  options.dry_run = args.dry_run;
  if (!args.older_than.empty()) {
    auto age = parse_duration_option(args.older_than, "--older-than", kMaxAgeMs);
    if (!age) return age.error();
    options.older_than = *age;
  }
  if (!options.older_than && !options.keep) {
    return usage_error("prune needs --older-than DURATION and/or --keep N");
  }
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto summary = opened->store->prune_runs(options);
  if (!summary) return summary.error();
  if (auto dirs = remove_run_directories(opened->home, summary->run_ids); !dirs) {
    return Error{dirs.error().code, "deleted " + std::to_string(summary->runs) +
                                        " finished runs, but " + dirs.error().message};
  }
  // Finished work items go by age only (docs/admission.md, "Pruning").
  std::int64_t items = 0;
  if (options.older_than) {
    auto pruned = opened->store->prune_items(context.now - *options.older_than, args.dry_run);
    if (!pruned) {
      return Error{pruned.error().code,
                   "deleted " + std::to_string(summary->runs) +
                       " finished runs, but no work item: " + pruned.error().message};
    }
    items = *pruned;
  }
  if (context.globals.json) {
    *context.out << json_text(
                        {{"dry_run", args.dry_run}, {"runs", summary->runs}, {"items", items}})
                 << '\n';
  } else {
    *context.out << (args.dry_run ? "would delete " : "deleted ") << summary->runs
                 << " finished runs and " << items << " finished work items\n";
  }
  return kExitOk;
}

}  // namespace orrery::cli
