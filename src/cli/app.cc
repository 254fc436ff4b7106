#include "cli/app.h"

#include <cxxabi.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <typeinfo>

#include "cli/caller_paths.h"
#include "cli/command.h"
#include "cli/daemon_command.h"
#include "cli/edit_command.h"
#include "cli/goal_commands.h"
#include "cli/item_commands.h"
#include "cli/loop_commands.h"
#include "cli/next_in_command.h"
#include "cli/parse_errors.h"
#include "cli/recover_command.h"
#include "cli/route_commands.h"
#include "cli/run_commands.h"
#include "cli/schedule_commands.h"
#include "cli/service_command.h"
#include "cli/status_command.h"
#include "cli/worker_commands.h"
#include "cli/workflow_commands.h"
#include "core/exit_codes.h"
#include "core/text.h"
#include "exec/clock.h"
#include "views/document_text.h"
#include "views/error_view.h"

namespace orrery::cli {
namespace {

// The readable name of an exception's type, for the catch-all message.
std::string type_name(const std::exception& error) {
  int status = 0;
  char* demangled = abi::__cxa_demangle(typeid(error).name(), nullptr, nullptr, &status);
  const std::string name = status == 0 && demangled ? demangled : typeid(error).name();
  std::free(demangled);
  return name;
}

// Argument holders for every command; CLI11 writes into them while parsing.
struct Arguments {
  CronExplainArgs cron_explain;
  SchedulePreviewArgs schedule_preview;
  LoopSpec add;
  EditArgs edit;
  ListArgs list;
  LoopArgs loop;
  PruneArgs prune;
  TriggerArgs trigger;
  RunsArgs runs;
  RunArgs run;
  NextInArgs next_in;
  ServiceArgs service;
  DaemonArgs daemon;
  WorkflowArgs workflow;
  RouteArgs route;
  ItemArgs item;
  GoalArgs goal;
  WorkerArgs worker;
  std::string log_step;  // logs --step
};

// A repeatable option taking one value per occurrence: --env A=1 --env B=2.
void add_repeatable(CLI::App* app, const char* name, std::vector<std::string>& values,
                    const char* help) {
  app->add_option(name, values, help)
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
}

// A whole-number option, parsed by orrery so that a bad value is named in
// orrery's words (cli/parse_errors.h).
void add_number(CLI::App* app, const std::string& name, std::function<void(int)> set,
                const std::string& help) {
  app->add_option_function<std::string>(
         name, [name, set](const std::string& text) { set(parse_whole_number(name, text)); }, help)
      ->type_name("N");
}

// A path option or argument (docs/paths.md), made absolute against the
// caller's working directory, with `~` expanded, as it is parsed: the
// command never sees what the user typed relative. An empty value stays
// empty (the command refuses it in its own words); so does `-` where it
// means standard input.
std::string path_argument(const std::string& name, const std::string& text, bool dash_is_stdin) {
  if (text.empty() || (dash_is_stdin && text == "-")) return text;
  auto resolved = caller_path(name, text);
  if (!resolved) throw OptionValueError(resolved.error().message);
  return std::move(*resolved);
}

CLI::Option* add_path_option(CLI::App* app, const std::string& name, const std::string& help,
                             bool dash_is_stdin, std::function<void(std::string)> set) {
  return app->add_option_function<std::string>(
      name,
      [name, dash_is_stdin, set](const std::string& text) {
        set(path_argument(name, text, dash_is_stdin));
      },
      help);
}

CLI::Option* add_path(CLI::App* app, const std::string& name, std::string& value,
                      const std::string& help, bool dash_is_stdin = false) {
  return add_path_option(app, name, help, dash_is_stdin,
                         [&value](std::string path) { value = std::move(path); });
}

CLI::Option* add_path(CLI::App* app, const std::string& name, std::optional<std::string>& value,
                      const std::string& help, bool dash_is_stdin = false) {
  return add_path_option(app, name, help, dash_is_stdin,
                         [&value](std::string path) { value = std::move(path); });
}

// The options of `add`, which `edit` takes too (docs/cli.md): everything but
// the loop's NAME, with the target's COMMAND after -- last.
void add_loop_options(CLI::App* sub, LoopSpec& a) {
  sub->add_option("--cron", a.cron, "cron expression (5 fields or a macro)");
  sub->add_option("--every", a.every, "interval, e.g. 15m or 1h30m");
  sub->add_flag("--fixed-delay", a.fixed_delay, "count the interval from each finish");
  sub->add_option("--at", a.at, "run once at TIME (ISO 8601 or +10m)");
  sub->add_flag("--dynamic", a.dynamic, "each run chooses the next (orrery run next-in)");
  sub->add_option("--min", a.min, "dynamic: shortest delay (default 1m)");
  sub->add_option("--max", a.max, "dynamic: longest delay (default 1d)");
  sub->add_option("--tz", a.tz,
                  "zone of cron and of times without an offset (default: the machine's)");
  sub->add_option("--jitter", a.jitter, "spread slots by a per-loop offset below D");
  sub->add_option("--catch-up", a.catch_up, "latest|all|none (default latest)");
  add_number(
      sub, "--catch-up-limit", [&a](int n) { a.catch_up_limit = n; }, "1-1000 (default 50)");
  sub->add_option("--catch-up-window", a.catch_up_window, "never run a slot later than D");
  sub->add_option("--overlap", a.overlap, "skip|queue|allow|replace (default skip)");
  add_number(
      sub, "--max-attempts", [&a](int n) { a.max_attempts = n; }, "attempts per slot (default 1)");
  sub->add_option("--retry-delay", a.retry_delay, "delay before a retry (default 1m)");
  sub->add_option("--retry-backoff", a.retry_backoff, "fixed|exponential (default fixed)");
  sub->add_option("--lease", a.lease, "run lease (default 30m, at least 1s)");
  sub->add_option("--timeout", a.timeout, "total timeout of a run");
  sub->add_option("--idle-timeout", a.idle_timeout, "timeout without output");
  sub->add_option("--expires", a.expires, "the loop expires at TIME");
  sub->add_option("--log-limit", a.log_limit, "log size kept per stream (default 64MiB)");
  sub->add_option("--cwd", a.cwd, "working directory of the target");
  add_repeatable(sub, "--env", a.env, "K=V for the target (repeatable)");
  add_repeatable(sub, "--secret-env", a.secret_env, "K=V kept out of the database (repeatable)");
  add_repeatable(sub, "--machine", a.machine, "LABEL=VALUE a runner must have (repeatable)");
  sub->add_option("--description", a.description, "what the loop is for");
  sub->add_option("--shell", a.shell, "target: a command line run by /bin/sh");
  sub->add_option("--agent", a.agent, "target: a coding-agent provider");
  sub->add_option("--workflow", a.workflow, "target: a workflow, NAME_OR_ID[@VERSION]");
  sub->add_option("--prompt", a.prompt, "agent: the prompt");
  sub->add_option("--prompt-file", a.prompt_file, "agent: a file holding the prompt");
  sub->add_option("--model", a.model, "agent: the model");
  sub->add_option("--effort", a.effort, "agent: variant or reasoning effort");
  sub->add_option("--permission-mode", a.permission_mode, "agent: default|plan|auto|bypass");
  sub->add_option("--sandbox", a.sandbox, "agent: sandbox mode");
  sub->add_option("--agent-name", a.agent_name, "agent: a named agent of the provider");
  sub->add_option("--config-isolation", a.config_isolation, "agent: safe (default) or none");
  add_repeatable(sub, "--add-dir", a.add_dirs, "agent: another directory it may use");
  add_repeatable(sub, "--agent-arg", a.agent_args, "agent: an extra argument for its CLI");
  sub->add_option("--auth-profile", a.auth_profile, "agent: codewith auth profile");
  sub->add_option("--input", a.input, "workflow: input as a JSON object");
  sub->add_option("--feed", a.feed, "each line its runs print is an item for ROUTE");
  sub->add_option("COMMAND", a.command, "target after --: EXECUTABLE [ARGS...]");
}

void add_add_command(CLI::App& app, Arguments& args, Command& command) {
  CLI::App* add = app.add_subcommand("add", "Add a loop: a named schedule and target");
  LoopSpec& a = args.add;
  add->add_option("NAME", a.name, "loop name")->required();
  add_loop_options(add, a);
  add->callback([&] { command = [&a](const Context& c) { return add_loop(a, c); }; });
}

void add_edit_command(CLI::App& app, Arguments& args, Command& command) {
  CLI::App* edit =
      app.add_subcommand("edit", "Change a loop's options (any option of add but its name)");
  EditArgs& a = args.edit;
  edit->add_option("LOOP", a.loop, "loop id, id prefix (6+ characters) or name")->required();
  add_loop_options(edit, a.spec);
  edit->add_flag("--no-feed", a.spec.no_feed, "stop feeding a route");
  edit->callback([&] { command = [&a](const Context& c) { return edit_loop_command(a, c); }; });
}

// A command that takes one LOOP argument.
CLI::App* add_loop_command(CLI::App& app, const char* name, const char* help, LoopArgs& a,
                           Command& command, Result<int> (*run)(const LoopArgs&, const Context&)) {
  CLI::App* sub = app.add_subcommand(name, help);
  sub->add_option("LOOP", a.loop, "loop id, id prefix (6+ characters) or name")->required();
  sub->callback(
      [&a, &command, run] { command = [&a, run](const Context& c) { return run(a, c); }; });
  return sub;
}

void add_run_commands(CLI::App& app, Arguments& args, Command& command) {
  CLI::App* trigger = app.add_subcommand("trigger", "Run a loop now, as a manual slot");
  trigger->add_option("LOOP", args.trigger.loop, "loop id, id prefix or name")->required();
  trigger->add_flag("--wait", args.trigger.wait, "wait for the run; exit 1 unless it succeeds");
  trigger->add_flag("--force", args.trigger.force,
                    "run now even when the overlap policy would skip, queue or replace");
  trigger->add_flag("--here", args.trigger.here,
                    "run on this host even when it lacks the loop's --machine labels");
  trigger->callback(
      [&] { command = [&args](const Context& c) { return trigger_loop(args.trigger, c); }; });

  CLI::App* runs = app.add_subcommand("runs", "List runs, newest first");
  runs->add_option("LOOP", args.runs.loop, "only this loop's runs");
  runs->add_option("--status", args.runs.status, "running|pending|queued|succeeded|failed|...");
  add_number(
      runs, "--limit", [&args](int n) { args.runs.limit = n; }, "at most N runs (default 100)");
  add_number(
      runs, "--offset", [&args](int n) { args.runs.offset = n; }, "skip the newest N runs");
  runs->callback([&] { command = [&args](const Context& c) { return list_runs(args.runs, c); }; });

  CLI::App* run = app.add_subcommand("run", "Work with one run");
  CLI::App* show = run->add_subcommand("show", "Show a run with its stored output");
  show->add_option("RUN", args.run.run, "run id or id prefix (6+ characters)")->required();
  show->callback([&] { command = [&args](const Context& c) { return show_run(args.run, c); }; });
  CLI::App* cancel = run->add_subcommand(
      "cancel", "Cancel a run: a pending one at once, a running one through its runner");
  cancel->add_option("RUN", args.run.run, "run id or id prefix (6+ characters)")->required();
  cancel->add_option("--reason", args.run.reason, "why (the error of a run that had not started)");
  cancel->callback(
      [&] { command = [&args](const Context& c) { return cancel_run_command(args.run, c); }; });
  CLI::App* next_in = run->add_subcommand(
      "next-in", "Inside a run of a dynamic loop: its next slot DURATION after this run");
  next_in->add_option("DURATION", args.next_in.duration, "e.g. 20m (0 to 365d)")->required();
  next_in->callback([&] {
    command = [&args](const Context& c) { return run_next_in_command(args.next_in, c); };
  });

  CLI::App* logs = app.add_subcommand("logs", "Print a run's log (or a loop's newest run's)");
  logs->add_option("RUN_OR_LOOP", args.run.run, "run id or id prefix, or a loop")->required();
  logs->add_flag("--stderr", args.run.stderr_stream, "the stderr log instead of stdout");
  logs->add_flag("--follow,-f", args.run.follow, "keep printing until the run finishes");
  logs->add_option("--step", args.log_step, "a step's log of the workflow run RUN");
  logs->callback([&] {
    command = [&args](const Context& c) -> Result<int> {
      if (args.log_step.empty()) return show_logs(args.run, c);
      if (args.run.follow)
        return usage_error("logs --step cannot --follow yet; use workflow events --follow");
      return show_step_log(args.run.run, args.log_step, args.run.stderr_stream, c);
    };
  });

  CLI::App* supervise = app.add_subcommand("supervise", "");  // internal: hidden from help
  supervise->group("");
  supervise->add_option("RUN", args.run.run)->required();
  supervise->add_option("--token-fd", args.run.token_fd)->required();
  supervise->callback(
      [&] { command = [&args](const Context& c) { return supervise_run(args.run, c); }; });
}

// A workflow subcommand whose callback runs `run` with the workflow args.
CLI::App* add_workflow_command(CLI::App* group, const char* name, const char* help, WorkflowArgs& a,
                               Command& command,
                               Result<int> (*run)(const WorkflowArgs&, const Context&)) {
  CLI::App* sub = group->add_subcommand(name, help);
  sub->callback(
      [&a, &command, run] { command = [&a, run](const Context& c) { return run(a, c); }; });
  return sub;
}

void add_workflow_commands(CLI::App& app, Arguments& args, Command& command) {
  WorkflowArgs& a = args.workflow;
  CLI::App* workflow = app.add_subcommand("workflow", "Work with workflows: DAGs of steps");
  CLI::App* create = add_workflow_command(workflow, "create",
                                          "Store a spec file (JSON or YAML); a known name gets "
                                          "a new version",
                                          a, command, create_workflow_command);
  add_path(create, "FILE", a.file, "the spec file")->required();
  CLI::App* ls =
      add_workflow_command(workflow, "ls", "List workflows", a, command, list_workflows_command);
  ls->add_flag("--all", a.all_versions, "every version, not only the newest");
  CLI::App* show =
      add_workflow_command(workflow, "show", "Show a workflow", a, command, show_workflow_command);
  show->add_option("WORKFLOW", a.workflow, "workflow id, id prefix or name")->required();
  add_number(
      show, "--version", [&a](int n) { a.version = n; }, "this version of a name");
  CLI::App* run = add_workflow_command(workflow, "run", "Start a run of a workflow", a, command,
                                       run_workflow_command);
  run->add_option("WORKFLOW", a.workflow, "workflow id, id prefix or name")->required();
  add_number(
      run, "--version", [&a](int n) { a.version = n; }, "this version of a name");
  run->add_option("--input", a.input, "input as a JSON object (ORRERY_INPUT)");
  run->add_flag("--wait", a.wait, "run it here and wait; exit 1 unless it succeeds");
  run->add_option("--idempotency-key", a.idempotency_key,
                  "a run already started with this key is returned instead");
  add_number(
      run, "--max-parallel", [&a](int n) { a.max_parallel = n; },
      "steps at once, 1-256 (default 4)");
  run->add_option("--loop-run", a.loop_run)->group("");  // internal: a loop's workflow target
  CLI::App* runs = add_workflow_command(workflow, "runs", "List workflow runs, newest first", a,
                                        command, list_workflow_runs_command);
  runs->add_option("WORKFLOW", a.workflow, "only this workflow's runs");
  runs->add_option("--status", a.status, "pending|running|succeeded|failed|cancelled");
  add_number(
      runs, "--limit", [&a](int n) { a.limit = n; }, "at most N runs (default 100)");
  add_number(
      runs, "--offset", [&a](int n) { a.offset = n; }, "skip the newest N runs");
  CLI::App* show_run = add_workflow_command(workflow, "show-run", "Show a workflow run", a, command,
                                            show_workflow_run_command);
  show_run->add_option("RUN", a.run, "workflow run id or id prefix")->required();
  CLI::App* cancel = add_workflow_command(workflow, "cancel", "Cancel a workflow run", a, command,
                                          cancel_workflow_run_command);
  cancel->add_option("RUN", a.run, "workflow run id or id prefix")->required();
  CLI::App* events = add_workflow_command(workflow, "events", "A workflow run's event journal", a,
                                          command, workflow_events_command);
  events->add_option("RUN", a.run, "workflow run id or id prefix")->required();
  events->add_flag("--follow,-f", a.follow, "keep printing until the run finishes");

  CLI::App* drive = add_workflow_command(&app, "drive-workflow", "", a, command,
                                         drive_workflow_command);  // internal
  drive->group("");
  drive->add_option("RUN", a.run)->required();
  drive->add_option("--token-fd", a.token_fd)->required();
  CLI::App* step = add_workflow_command(&app, "supervise-step", "", a, command,
                                        supervise_step_command);  // internal
  step->group("");
  step->add_option("DISPATCH", a.run)->required();
  step->add_option("--token-fd", a.token_fd)->required();
}

// A command whose callback runs `run` with `a`.
template <typename Args>
CLI::App* add_args_command(CLI::App* group, const char* name, const char* help, Args& a,
                           Command& command, Result<int> (*run)(const Args&, const Context&)) {
  CLI::App* sub = group->add_subcommand(name, help);
  sub->callback(
      [&a, &command, run] { command = [&a, run](const Context& c) { return run(a, c); }; });
  return sub;
}

// The options of `route add`, which `route edit` takes too.
void add_route_options(CLI::App* sub, RouteArgs& a) {
  sub->add_option("--workflow", a.workflow, "the workflow each item runs, W[@VERSION]");
  add_number(
      sub, "--max-running", [&a](int n) { a.max_running = n; },
      "items admitted or running at once, 1-10000 (default 1)");
  add_number(
      sub, "--max-per-project", [&a](int n) { a.max_per_project = n; },
      "of one project at once, over every route (0: no limit, the default)");
  add_number(
      sub, "--max-per-group", [&a](int n) { a.max_per_group = n; },
      "of one group at once, over every route (0: no limit, the default)");
  add_number(
      sub, "--max-attempts", [&a](int n) { a.max_attempts = n; },
      "runs of an item before it is a dead letter, 1-100 (default 3)");
  sub->add_option("--retry-delay", a.retry_delay, "delay before a retry (default 1m)");
  sub->add_option("--retry-backoff", a.retry_backoff, "fixed|exponential (default fixed)");
  sub->add_option("--priority-aging", a.priority_aging,
                  "a waiting item's priority rises by one every D (default: off)");
  sub->add_option("--description", a.description, "what the route is for");
  add_path(sub, "--cwd", a.cwd, "working directory of its runs (default: the current one)");
  sub->add_option("--webhook-secret-env", a.webhook_secret_env,
                  "VAR of orrery serve's environment holding the secret items posted over HTTP "
                  "are signed with (X-Hub-Signature-256); 'none' for unsigned (the default)");
}

void add_route_commands(CLI::App& app, RouteArgs& a, Command& command) {
  CLI::App* route =
      app.add_subcommand("route", "Work with routes: entry points of the admission queue");
  CLI::App* add = add_args_command(route, "add", "Add a route", a, command, add_route_command);
  add->add_option("NAME", a.route, "the route's name")->required();
  add_route_options(add, a);
  add_args_command(route, "ls", "List routes and their queues", a, command, list_routes_command);
  CLI::App* show = add_args_command(route, "show", "Show a route", a, command, show_route_command);
  CLI::App* edit = add_args_command(route, "edit", "Change a route's workflow, limits or retries",
                                    a, command, edit_route_command);
  add_route_options(edit, a);
  CLI::App* pause = add_args_command(route, "pause", "Pause a route: its items wait, deferred", a,
                                     command, pause_route_command);
  CLI::App* resume =
      add_args_command(route, "resume", "Resume a paused route", a, command, resume_route_command);
  CLI::App* rm = add_args_command(route, "rm", "Delete a route and its items", a, command,
                                  remove_route_command);
  rm->add_flag("--force", a.force,
               "also when items are admitted or running (their runs are cancelled)");
  for (CLI::App* sub : {show, edit, pause, resume, rm}) {
    sub->add_option("ROUTE", a.route, "route name, id or id prefix")->required();
  }
}

void add_goal_commands(CLI::App& app, GoalArgs& a, Command& command) {
  CLI::App* goal = app.add_subcommand(
      "goal", "Work with goals: objectives with token budgets that runs pursue turn by turn");
  CLI::App* create = add_args_command(goal, "create", "Attach a goal to a loop, workflow or step",
                                      a, command, create_goal_command);
  create->add_option("--loop", a.loop, "the loop whose runs pursue it (name, id or prefix)");
  create->add_option("--workflow", a.workflow, "the workflow whose runs pursue it, W[@VERSION]");
  create->add_option("--step", a.step, "with --workflow: the step whose attempts pursue it");
  create->add_option("--objective", a.objective, "what is to be achieved (1-4000 characters)");
  add_path(create, "--objective-file", a.objective_file, "a file holding the objective");
  create->add_option("--budget", a.budget, "the token budget: 200000, 200k, 1.5M (default: none)");
  add_number(
      create, "--max-turns", [&a](int n) { a.max_turns = n; },
      "blocked after this many turns (default: no limit)");
  add_number(
      create, "--stall-turns", [&a](int n) { a.stall_turns = n; },
      "blocked after this many turns in a row without progress (default 3)");
  create->add_option("--drive", a.drive, "ready (the first ready node), agent (it chooses) or off");
  add_path(create, "--plan", a.plan_file, "an initial plan: a JSON or YAML list of nodes");
  CLI::App* ls = add_args_command(goal, "ls", "List goals", a, command, list_goals_command);
  ls->add_option("--status", a.status, "only goals of this status");
  ls->add_option("--loop", a.loop, "only the goals of this loop");
  add_number(
      ls, "--limit", [&a](int n) { a.limit = n; }, "at most N goals, newest first (default 100)");
  add_number(
      ls, "--offset", [&a](int n) { a.offset = n; }, "skip the newest N goals");
  CLI::App* show = add_args_command(goal, "show", "Show a goal, its plan and its budget", a,
                                    command, show_goal_command);
  CLI::App* turns =
      add_args_command(goal, "turns", "List a goal's last turns", a, command, goal_turns_command);
  add_number(
      turns, "--limit", [&a](int n) { a.limit = n; }, "the last N turns (default 20)");
  CLI::App* pause = add_args_command(goal, "pause", "Pause a goal and the loop it drives", a,
                                     command, pause_goal_command);
  CLI::App* resume = add_args_command(goal, "resume", "Resume a paused or blocked goal", a, command,
                                      resume_goal_command);
  CLI::App* cancel =
      add_args_command(goal, "cancel", "Cancel a goal for good", a, command, cancel_goal_command);
  CLI::App* budget = add_args_command(goal, "budget", "Raise or set a goal's token budget", a,
                                      command, goal_budget_command);
  budget->add_option("--add", a.add, "tokens added to the budget (200k, 1.5M)");
  budget->add_option("--set", a.set, "the new budget (200k, 1.5M)");
  CLI::App* plan = add_args_command(goal, "plan", "Replace a goal's plan, or set a node's status",
                                    a, command, goal_plan_command);
  add_path(plan, "--set", a.plan_file,
           "a JSON or YAML list of nodes: replaces every node not yet complete");
  plan->add_option("--node", a.node, "the key of the node to change");
  plan->add_option("--status", a.node_status,
                   "the node's new status: pending, active, blocked, complete or cancelled");
  for (CLI::App* sub : {show, turns, pause, resume, cancel, budget, plan}) {
    sub->add_option("G", a.goal, "goal id or id prefix")->required();
  }
}

void add_worker_commands(CLI::App& app, WorkerArgs& a, Command& command) {
  CLI::App* worker = app.add_subcommand(
      "worker", "Work with workers: workflow steps in their own git worktrees (docs/workers.md)");
  CLI::App* ls = add_args_command(worker, "ls", "List workers, newest first", a, command,
                                  list_workers_command);
  ls->add_option("--state", a.state, "only workers in this state (e.g. hold)");
  add_path(ls, "--repo", a.repo, "only the workers of this repository");
  add_number(
      ls, "--limit", [&a](int n) { a.limit = n; }, "at most N workers (default 1000)");
  add_number(
      ls, "--offset", [&a](int n) { a.offset = n; }, "skip the newest N workers");
  CLI::App* show = add_args_command(worker, "show", "Show a worker and its events", a, command,
                                    show_worker_command);
  CLI::App* resume = add_args_command(
      worker, "resume", "Resume a held worker: its step runs again, or it is reported again", a,
      command, resume_worker_command);
  CLI::App* discard =
      add_args_command(worker, "discard", "Cancel a worker and remove its worktree and branch", a,
                       command, discard_worker_command);
  CLI::App* enqueue =
      add_args_command(worker, "enqueue", "Put a reported worker in the merge queue", a, command,
                       enqueue_worker_command);
  for (CLI::App* sub : {show, resume, discard, enqueue}) {
    sub->add_option("W", a.id, "worker id or id prefix")->required();
  }

  CLI::App* queue =
      app.add_subcommand("queue", "Work with the merge queue: verified merges, one at a time");
  CLI::App* qls =
      add_args_command(queue, "ls", "List queue entries", a, command, list_queue_command);
  add_path(qls, "REPO", a.repo, "only the entries of this repository");
  qls->add_option("--state", a.state, "only entries in this state");
  add_number(
      qls, "--limit", [&a](int n) { a.limit = n; }, "at most N entries (default 1000)");
  add_number(
      qls, "--offset", [&a](int n) { a.offset = n; }, "skip the first N entries");
  CLI::App* qshow = add_args_command(queue, "show", "Show a queue entry and its verification", a,
                                     command, show_entry_command);
  CLI::App* config = add_args_command(
      queue, "config", "Show or set a repository's queue: target, verification, strategy", a,
      command, queue_config_command);
  add_path(config, "REPO", a.repo, "a directory in the repository")->required();
  config->add_option("--target", a.target,
                     "the target branch (default: each worker's base branch)");
  config->add_option("--verify", a.verify,
                     "the command that must exit 0 before a merge, or 'none' on purpose");
  config->add_option("--strategy", a.strategy, "rebase (default), merge or squash");
  CLI::App* retry = add_args_command(queue, "retry", "Put a conflict or rejected entry back", a,
                                     command, retry_entry_command);
  CLI::App* drop = add_args_command(queue, "drop", "Take a waiting or conflict entry out", a,
                                    command, drop_entry_command);
  for (CLI::App* sub : {qshow, retry, drop}) {
    sub->add_option("ENTRY", a.id, "queue entry id or id prefix")->required();
  }

  CLI::App* drive = add_args_command(&app, "drive-queue", "", a, command,
                                     drive_queue_command);  // internal
  drive->group("");
  add_path(drive, "REPO", a.repo, "")->required();
  drive->add_option("--target", a.target)->required();
  drive->add_option("--token-fd", a.token_fd)->required();
}

void add_item_commands(CLI::App& app, ItemArgs& a, Command& command) {
  CLI::App* enqueue = add_args_command(
      &app, "enqueue", "Add a work item to a route (or refresh it)", a, command, enqueue_command);
  enqueue->add_option("ROUTE", a.route, "route name, id or id prefix")->required();
  enqueue->add_option("--key", a.key, "the item's key, unique on its route");
  add_number(
      enqueue, "--priority", [&a](int n) { a.priority = n; },
      "higher first, -1000000 to 1000000 (default 0)");
  enqueue->add_option("--project", a.project, "the project (repository) it works on");
  enqueue->add_option("--group", a.group, "a group the route's --max-per-group counts");
  enqueue->add_option("--intent", a.intent, "what is asked");
  enqueue->add_option("--subject", a.subject, "what it is about, KIND[:ID]");
  enqueue->add_option("--subject-path", a.subject_path, "the subject's path");
  enqueue->add_option("--subject-url", a.subject_url, "the subject's URL");
  enqueue->add_option("--source", a.source, "where it came from, KIND[:ID]");
  enqueue->add_option("--dedupe", a.dedupe, "the source's dedupe key (one invocation per key)");
  enqueue->add_option("--input", a.input, "the workflow run's input, a JSON object");
  enqueue->add_option("--scope", a.scope, "a JSON object kept with the invocation");
  enqueue->add_option("--output-policy", a.output_policy, "a JSON object kept with the invocation");
  add_path(enqueue, "--from-json", a.from_json,
           "FILE or -: one JSON object per line, the same fields", /*dash_is_stdin=*/true);

  CLI::App* items =
      add_args_command(&app, "items", "List work items", a, command, list_items_command);
  items->add_option("--route", a.route, "only this route's items");
  items->add_option("--status", a.status,
                    "queued|deferred|admitted|running|succeeded|failed|dead_letter|cancelled");
  items->add_option("--project", a.project, "only this project's items");
  add_number(
      items, "--limit", [&a](int n) { a.limit = n; }, "at most N items (default 100)");
  add_number(
      items, "--offset", [&a](int n) { a.offset = n; }, "skip the first N items");

  CLI::App* item = app.add_subcommand("item", "Work with one work item");
  CLI::App* show = add_args_command(item, "show", "Show an item and what it waits on", a, command,
                                    show_item_command);
  CLI::App* requeue = add_args_command(item, "requeue", "Queue a finished item again", a, command,
                                       requeue_item_command);
  requeue->add_option("--reason", a.reason, "why (kept in its reasons)");
  CLI::App* cancel = add_args_command(item, "cancel", "Cancel an item (and its run)", a, command,
                                      cancel_item_command);
  cancel->add_option("--reason", a.reason, "why (kept in its reasons)");
  for (CLI::App* sub : {show, requeue, cancel}) {
    sub->add_option("ITEM", a.item, "item id, id prefix or ROUTE/KEY")->required();
  }
}

void add_daemon_tools(CLI::App& app, Arguments& args, Command& command) {
  CLI::App* status =
      app.add_subcommand("status", "The daemon, loops and runs by status, running runs, cooldowns");
  status->callback([&] { command = [](const Context& c) { return status_command(c); }; });

  CLI::App* service = app.add_subcommand(
      "install-service",
      "Write a systemd user unit that runs orrery daemon on this data directory");
  service->add_flag("--print", args.service.print, "print the unit, write nothing");
  service->add_flag("--force", args.service.force, "replace a different unit at its path");
  service->callback([&] {
    command = [&args](const Context& c) { return install_service_command(args.service, c); };
  });
}

void add_daemon_command(CLI::App& app, DaemonArgs& a, Command& command) {
  CLI::App* daemon = app.add_subcommand("daemon", "Run loops on their schedules (foreground)");
  daemon->add_flag("--once", a.once, "run what is due now, wait for it, print the runs");
  daemon->add_option("--lease-ttl", a.lease_ttl, "daemon lease ttl, 3s-1h (default 30s)");
  add_number(
      daemon, "--max-running", [&a](int n) { a.max_running = n; },
      "runs at once, 1-10000 (default 64)");
  add_number(
      daemon, "--global-max-running", [&a](int n) { a.global_max_running = n; },
      "work items admitted or running at once over every route (default 0: no cap)");
  add_path(daemon, "--log", a.log, "append the log to FILE (reopened on SIGHUP)");
  add_repeatable(daemon, "--label", a.labels, "LABEL=VALUE this runner has (repeatable)");
  daemon->callback([&] { command = [&a](const Context& c) { return daemon_command(a, c); }; });
}

void add_recover_command(CLI::App& app, Command& command) {
  CLI::App* recover = app.add_subcommand(
      "recover", "Finish runs whose supervisor is gone; kill what they left running");
  recover->callback([&] { command = [](const Context& c) { return recover_command(c); }; });
}

void add_loop_commands(CLI::App& app, Arguments& args, Command& command) {
  CLI::App* ls = app.add_subcommand("ls", "List loops");
  ls->add_flag("--all", args.list.all, "include archived loops");
  ls->add_flag("--archived", args.list.archived, "only archived loops");
  ls->add_option("--status", args.list.status, "active|paused|expired|completed");
  add_number(
      ls, "--limit", [&args](int n) { args.list.limit = n; }, "at most N loops (default 1000)");
  add_number(
      ls, "--offset", [&args](int n) { args.list.offset = n; }, "skip the first N loops");
  ls->callback([&] { command = [&args](const Context& c) { return list_loops(args.list, c); }; });

  CLI::App* prune = app.add_subcommand("prune", "Delete finished runs by age or count");
  prune->add_option("--older-than", args.prune.older_than, "runs created more than D ago");
  add_number(
      prune, "--keep", [&args](int n) { args.prune.keep = n; }, "keep the newest N runs per loop");
  prune->add_flag("--dry-run", args.prune.dry_run, "count, delete nothing");
  prune->callback(
      [&] { command = [&args](const Context& c) { return prune_runs(args.prune, c); }; });

  LoopArgs& a = args.loop;
  add_loop_command(app, "show", "Show a loop", a, command, show_loop);
  add_loop_command(app, "pause", "Pause a loop", a, command, pause_loop_command);
  add_loop_command(app, "resume", "Resume a paused loop from now on", a, command,
                   resume_loop_command);
  add_loop_command(app, "archive", "Archive a loop (pauses it)", a, command, archive_loop_command);
  add_loop_command(app, "unarchive", "Restore an archived loop", a, command,
                   unarchive_loop_command);
  add_loop_command(app, "rm", "Delete a loop and its runs", a, command, remove_loop);
  CLI::App* rename =
      add_loop_command(app, "rename", "Rename a loop", a, command, rename_loop_command);
  rename->add_option("NEW_NAME", a.new_name, "the new name")->required();
  CLI::App* next =
      add_loop_command(app, "next", "List a loop's next slots", a, command, next_slots);
  add_number(
      next, "-n", [&a](int n) { a.count = n; }, "how many slots (1-1000, default 5)");
  next->add_option("--from", a.from, "slots after TIME instead of the loop's next slot");
  next->add_option("--tz", a.tz, "zone of --from and of the times shown (default: the loop's)");
}

void add_global_options(CLI::App& app, Globals& globals) {
  app.add_option("--home", globals.home, "data directory (default $XDG_DATA_HOME/orrery)")
      ->envname("ORRERY_HOME");
  app.add_option("--db", globals.db, "database URL (default: SQLite in the data directory)")
      ->envname("ORRERY_DB")
      ->each([&globals](const std::string&) { globals.db_given = true; });
  app.add_flag("--json", globals.json, "print one JSON document");
}

void add_cron_commands(CLI::App& app, Arguments& args, Command& command) {
  CLI::App* cron = app.add_subcommand("cron", "Work with cron expressions");
  CLI::App* explain =
      cron->add_subcommand("explain", "Validate a cron expression, describe it, list fire times");
  auto& a = args.cron_explain;
  explain->add_option("EXPR", a.expression, "cron expression, e.g. '0 9 * * 1-5' or @daily")
      ->required();
  add_number(
      explain, "-n", [&a](int n) { a.count = n; }, "how many fire times (1-1000, default 5)");
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
  add_number(
      preview, "-n", [&a](int n) { a.count = n; }, "how many slots (1-1000, default 5)");
  preview->add_option("--from", a.from, "list slots after TIME (default now)");
  preview->add_option("--tz", a.tz, "IANA time zone (default: the machine's)");
  preview->callback([&] { command = [&a](const Context& c) { return schedule_preview(a, c); }; });
}

// Output that could not be written (stdout closed, a full disk, /dev/full)
// is a failure, not a success that printed nothing.
int checked_output(int status) {
  std::cout.flush();
  if (std::cout) return status;
  std::cerr << "orrery: cannot write the output: standard output is closed or full\n";
  return exit_code_for(ErrorCode::kInternal);
}

int report(const Error& error, bool json) {
  std::cerr << "orrery: " << terminal_text(error.message) << '\n';
  if (json) std::cout << json_text(error_json(error)) << '\n';
  return exit_code_for(error.code);
}

// Names what is missing when the arguments chose a group but no command.
Error missing_command(const CLI::App& app) {
  const CLI::App* group = &app;
  while (!group->get_subcommands().empty()) group = group->get_subcommands().front();
  const std::string path = command_path(app);
  return usage_error("'" + path + "' needs a command: " + command_names(*group) + " (see " + path +
                     " --help)");
}

// Whether --json is among the options (not among a target's arguments after --).
bool wants_json(const std::vector<std::string>& args) {
  for (const std::string& arg : args) {
    if (arg == "--") return false;
    if (arg == "--json") return true;
  }
  return false;
}

// --help and --version: text, or with --json one document holding it.
int print_call(const CLI::App& app, const CLI::Success& call, bool json) {
  if (dynamic_cast<const CLI::CallForVersion*>(&call) != nullptr) {
    if (json) {
      std::cout << json_text(nlohmann::json{{"version", ORRERY_VERSION}}) << '\n';
    } else {
      std::cout << call.what() << '\n';
    }
    return kExitOk;
  }
  const std::string help = app.help();
  if (json) {
    std::cout << json_text(nlohmann::json{{"help", help}}) << '\n';
  } else {
    std::cout << help;
  }
  return kExitOk;
}

// At most one command at every level: a word after a command's arguments is
// refused as unexpected, never parsed as a second command that would run
// instead (CLI11 otherwise accepts a sequence of subcommands).
void one_command_per_level(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) one_command_per_level(*sub);
  if (!app.get_subcommands({}).empty()) app.require_subcommand(0, 1);
}

}  // namespace

int run(int argc, char** argv, const std::vector<CommandGroup>& more_commands) {
  CLI::App app{"orrery: a durable, local-first scheduler for commands and coding agents", "orrery"};
  app.set_version_flag("--version", std::string("orrery ") + ORRERY_VERSION);
  app.fallthrough();  // global options are accepted after the command too

  Context context;
  Arguments args;
  Command command;
  add_global_options(app, context.globals);
  add_add_command(app, args, command);
  add_loop_commands(app, args, command);
  add_edit_command(app, args, command);
  add_run_commands(app, args, command);
  add_recover_command(app, command);
  add_daemon_command(app, args.daemon, command);
  add_daemon_tools(app, args, command);
  add_cron_commands(app, args, command);
  add_schedule_commands(app, args, command);
  add_workflow_commands(app, args, command);
  add_route_commands(app, args.route, command);
  add_item_commands(app, args.item, command);
  add_goal_commands(app, args.goal, command);
  add_worker_commands(app, args.worker, command);
  for (const CommandGroup& group : more_commands) group(app, command);
  one_command_per_level(app);

  const std::vector<std::string> arguments(argv + std::min(argc, 1), argv + argc);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& call) {
    return checked_output(print_call(app, call, wants_json(arguments)));
  } catch (const CLI::ParseError& error) {
    return report(translate_parse_error(app, error, arguments), wants_json(arguments));
  }

  if (auto stray = command_before_dashes(app, arguments))
    return report(*stray, context.globals.json);
  if (auto empty = empty_option_value(app)) return report(*empty, context.globals.json);
  if (!command) return report(missing_command(app), context.globals.json);

  context.now = wall_clock_now();
  context.out = &std::cout;
  context.out_is_tty = isatty(STDOUT_FILENO) == 1;
  try {
    auto result = command(context);
    if (!result) return report(result.error(), context.globals.json);
    return checked_output(*result);
  } catch (const std::exception& error) {
    return report(internal_error(std::string("the command stopped on an unexpected exception (") +
                                 type_name(error) + ")"),
                  context.globals.json);
  }
}

}  // namespace orrery::cli
