#include "cli/app.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/exit_codes.h"
#include "cli/json_views.h"
#include "cli/schedule_commands.h"

namespace orrery::cli {
namespace {

// Argument holders for every command; CLI11 writes into them while parsing.
struct Arguments {
  CronExplainArgs cron_explain;
  SchedulePreviewArgs schedule_preview;
};

void add_global_options(CLI::App& app, Globals& globals) {
  app.add_option("--home", globals.home, "data directory (default $XDG_DATA_HOME/orrery)")
      ->envname("ORRERY_HOME");
  app.add_option("--db", globals.db, "database URL (default: SQLite in the data directory)")
      ->envname("ORRERY_DB");
  app.add_flag("--json", globals.json, "print one JSON document");
}

void add_cron_commands(CLI::App& app, Arguments& args, Command& command) {
  CLI::App* cron = app.add_subcommand("cron", "Work with cron expressions");
  CLI::App* explain =
      cron->add_subcommand("explain", "Validate a cron expression, describe it, list fire times");
  auto& a = args.cron_explain;
  explain->add_option("EXPR", a.expression, "cron expression, e.g. '0 9 * * 1-5' or @daily")
      ->required();
  explain->add_option("-n", a.count, "how many fire times (1-1000, default 5)");
  explain->add_option("--from", a.from, "list fire times after TIME (ISO 8601 or +10m)");
  explain->add_option("--tz", a.tz, "IANA time zone (default: the machine's)");
  explain->callback([&] { command = [&a](const Context& c) { return cron_explain(a, c); }; });
}

void add_schedule_commands(CLI::App& app, Arguments& args, Command& command) {
  CLI::App* schedule = app.add_subcommand("schedule", "Work with schedules");
  CLI::App* preview = schedule->add_subcommand("preview", "List the next slots of a schedule");
  auto& a = args.schedule_preview;
  preview->add_option("--cron", a.cron, "cron expression");
  preview->add_option("--every", a.every, "interval, e.g. 15m or 1h30m");
  preview->add_option("--at", a.at, "one time (ISO 8601 or +10m)");
  preview->add_option("-n", a.count, "how many slots (1-1000, default 5)");
  preview->add_option("--from", a.from, "list slots after TIME (default now)");
  preview->add_option("--tz", a.tz, "IANA time zone (default: the machine's)");
  preview->callback([&] { command = [&a](const Context& c) { return schedule_preview(a, c); }; });
}

int report(const Error& error, bool json) {
  std::cerr << "orrery: " << error.message << '\n';
  if (json) std::cout << error_json(error).dump(2) << '\n';
  return exit_code_for(error.code);
}

// Names what is missing when the arguments chose a group but no command.
Error missing_command(const CLI::App& app) {
  std::string path = "orrery";
  const CLI::App* group = &app;
  while (!group->get_subcommands().empty()) {
    group = group->get_subcommands().front();
    path += " " + group->get_name();
  }
  std::string names;
  for (const CLI::App* sub : group->get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
  }
  return usage_error("'" + path + "' needs a command: " + names + " (see " + path + " --help)");
}

bool wants_json(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    if (std::string_view(argv[i]) == "--json") return true;
  }
  return false;
}

TimeMs clock_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"orrery: a durable, local-first scheduler for commands and coding agents", "orrery"};
  app.set_version_flag("--version", std::string("orrery ") + ORRERY_VERSION);
  app.fallthrough();  // global options are accepted after the command too

  Context context;
  Arguments args;
  Command command;
  add_global_options(app, context.globals);
  add_cron_commands(app, args, command);
  add_schedule_commands(app, args, command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::ParseError& error) {
    return report(usage_error(error.what()), wants_json(argc, argv));
  }

  if (!command) return report(missing_command(app), context.globals.json);

  context.now = clock_now();
  context.out = &std::cout;
  context.out_is_tty = isatty(STDOUT_FILENO) == 1;
  try {
    auto result = command(context);
    if (!result) return report(result.error(), context.globals.json);
    return *result;
  } catch (const std::exception& error) {
    return report(internal_error(error.what()), context.globals.json);
  }
}

}  // namespace orrery::cli
