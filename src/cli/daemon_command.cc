#include "cli/daemon_command.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>

#include "cli/handles.h"
#include "cli/human.h"
#include "cli/run_commands.h"
#include "cli/store_access.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/route.h"
#include "core/runner_labels.h"
#include "core/timezone.h"
#include "engine/daemon.h"
#include "engine/daemon_lease.h"
#include "exec/clock.h"
#include "exec/process_identity.h"
#include "views/document_text.h"
#include "views/run_view.h"

namespace orrery::cli {
namespace {

// The daemon's connection gives up on a busy database well within a
// heartbeat interval, and retries itself (docs/daemon.md).
int busy_timeout_cap(DurationMs lease_ttl_ms) {
  return int(std::max<DurationMs>(100, lease_ttl_ms / 6));
}

std::string outcome(const Run& run) {
  std::string text = run_status_name(run.status);
  if (run.duration_ms) text += " in " + format_duration(*run.duration_ms);
  if (run.exit_code) text += ", exit " + std::to_string(*run.exit_code);
  if (!run.error.empty() && run.error.rfind("exit status", 0) != 0) text += ": " + run.error;
  return text;
}

Status print_runs(const Context& context, const std::vector<Run>& runs, IdHandles& store) {
  if (context.globals.json) {
    nlohmann::json array = nlohmann::json::array();
    for (const Run& run : runs) array.push_back(run_json(run, false));
    *context.out << json_text({{"runs", array}}) << '\n';
    return Ok{};
  }
  if (runs.empty()) {
    *context.out << "no runs were due\n";
    return Ok{};
  }
  auto shown = column_handles(store, IdTable::kRuns, runs, &Run::id);
  if (!shown) return shown.error();
  const std::vector<std::string>& ids = *shown;
  const TimeZone zone = TimeZone::local();
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    rows.push_back({ids[i], run.loop_name, format_wall(run.scheduled_for, zone),
                    std::to_string(run.attempt), outcome(run)});
  }
  print_table(*context.out, {"ID", "LOOP", "SLOT", "ATTEMPT", "STATUS"}, rows);
  return Ok{};
}

Result<DaemonOptions> daemon_options(const DaemonArgs& args, const Context& context) {
  DaemonOptions options;
  options.once = args.once;
  options.started_at = context.now;
  if (!args.lease_ttl.empty()) {
    auto ttl = parse_lease_ttl(args.lease_ttl);
    if (!ttl) return ttl.error();
    options.lease_ttl_ms = *ttl;
  }
  if (args.max_running < 1 || args.max_running > kMaxMaxRunning) {
    return usage_error("--max-running " + std::to_string(args.max_running) + " is out of range 1-" +
                       std::to_string(kMaxMaxRunning) + " (default " +
                       std::to_string(kDefaultMaxRunning) + ")");
  }
  options.max_running = args.max_running;
  if (args.global_max_running < 0 || args.global_max_running > kMaxRouteRunning) {
    return usage_error("--global-max-running " + std::to_string(args.global_max_running) +
                       " is out of range 0-" + std::to_string(kMaxRouteRunning) + " (0: no cap)");
  }
  options.global_max_running = args.global_max_running;
  auto labels = runner_labels_of(args.labels, SystemProcessProbe().host_name());
  if (!labels) return labels.error();
  options.labels = std::move(*labels);
  return options;
}

}  // namespace

Result<int> daemon_command(const DaemonArgs& args, const Context& context) {
  auto options = daemon_options(args, context);
  if (!options) return options.error();
  std::optional<DaemonLog> file_log;
  if (!args.log.empty()) {
    auto file = DaemonLog::open_file(args.log);
    if (!file) return file.error();
    file_log.emplace(std::move(*file));
  }
  DaemonLog stderr_log;
  DaemonLog& log = file_log ? *file_log : stderr_log;
  // Forked before the database is opened: no connection may cross a fork.
  const Globals globals = context.globals;
  auto forker = SupervisorForker::start(
      [globals] { return prepare_forked_supervisor(work_store_opener(globals)); });
  if (forker) {
    options->forker = &*forker;
  } else {
    log.write(wall_clock_now(), forker.error().message + "; supervisors are exec'd");
  }
  auto patience = busy_timeout_ms();
  if (!patience) return patience.error();
  options->start_patience_ms = *patience;
  auto opened = open_store_patiently(
      context, busy_timeout_cap(options->lease_ttl_ms), *patience,
      [&log](const Error& error, DurationMs delay) {
        log.write(wall_clock_now(), "the database could not be opened (" + error.message +
                                        "); retrying in " + format_duration(delay));
      });
  if (!opened) return opened.error();
  options->location = {opened->home, context.globals.db};
  options->database_path = opened->database_path;
  // A database server is shared by runners on several hosts (docs/daemon.md, "Runners").
  options->shared_database = opened->database_path.empty();
  auto result = run_daemon(*opened->store, *options, log);
  if (!result) return result.error();
  if (!args.once) return kExitOk;
  std::vector<Run> runs;
  bool all_succeeded = true;
  for (const std::string& id : result->started) {
    auto run = opened->store->get_run(id);
    if (!run) return run.error();
    if (!run->has_value()) continue;
    all_succeeded = all_succeeded && (*run)->status == RunStatus::kSucceeded;
    runs.push_back(**run);
  }
  if (auto printed = print_runs(context, runs, *opened->store); !printed) return printed.error();
  return all_succeeded ? kExitOk : kExitWorkFailed;
}

}  // namespace orrery::cli
