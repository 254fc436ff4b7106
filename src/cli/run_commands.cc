#include "cli/run_commands.h"

#include <unistd.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <thread>

#include "cli/goal_commands.h"
#include "cli/handles.h"
#include "cli/human.h"
#include "cli/page_note.h"
#include "cli/run_document.h"
#include "cli/store_access.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/limits.h"
#include "core/runner_labels.h"
#include "core/text.h"
#include "exec/claim_keeper.h"
#include "exec/clock.h"
#include "exec/kept_outcome.h"
#include "exec/launcher.h"
#include "exec/log_follower.h"
#include "exec/process_control.h"
#include "exec/process_identity.h"
#include "exec/recovery.h"
#include "exec/store_watch.h"
#include "exec/supervisor.h"
#include "exec/supervisor_start.h"
#include "exec/wake.h"
#include "ops/runs.h"
#include "ops/trigger.h"
#include "store/data_dir.h"
#include "store/home_layout.h"
#include "views/document_text.h"

namespace orrery::cli {
namespace {

// The error for a run left `running` by a supervisor that is gone.
Error supervisor_gone_error(const std::string& home, const Run& run, int pid) {
  const auto kept_outcome = read_kept_outcome(HomeLayout(home).run(run.id).path());
  const bool kept = kept_outcome.ok() && kept_outcome->has_value();
  return internal_error("the supervisor of run " + run.id + " (pid " + std::to_string(pid) +
                        ") is gone; run `orrery recover` to " +
                        (kept ? "record the outcome it kept" : "finish the run"));
}

// Prints the log as it grows (exec/log_follower.h) until the run is
// finished; an error when its supervisor is gone while the run is still
// `running`.
Result<int> follow_run_log(Store& store, const std::string& home, const std::string& run_id,
                           const std::string& path, std::ostream& out) {
  const SystemProcessProbe probe;
  std::optional<Error> gone;
  const FollowUntil finished = [&]() -> Result<bool> {
    auto run = store.get_run(run_id);
    if (!run) return run.error();
    if (!run->has_value() || is_terminal((*run)->status)) return true;
    if (!supervisor_gone(**run, probe, wall_clock_now())) return false;
    // It may have finished the run just before it exited: look once more.
    auto again = store.get_run(run_id);
    if (!again) return again.error();
    if (again->has_value() && !is_terminal((*again)->status)) {
      gone = supervisor_gone_error(home, **again,
                                   (*again)->supervisor ? (*again)->supervisor->pid : 0);
    }
    return true;
  };
  if (auto followed = follow_log(path, out, finished); !followed) return followed.error();
  if (gone) return *gone;
  return kExitOk;
}

Result<Run> find_run(Store& store, const std::string& id) {
  auto run = store.get_run(id);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("no run has the id '" + id + "'");
  return **run;
}

// A loop's newest run, or not_found naming the loop.
Result<std::string> newest_run_id(Store& store, const Loop& loop) {
  RunFilter filter;
  filter.loop_id = loop.id;
  filter.limit = 1;
  auto newest = store.list_runs(filter);
  if (!newest) return newest.error();
  if (newest->empty()) return not_found_error("loop " + loop.name + " has no runs yet");
  return newest->front().id;
}

// What `logs` was given: a run (id or prefix) or a loop (id, prefix or name,
// meaning its newest run). Text naming one of each is ambiguous unless it is
// one's full id.
Result<std::string> logs_run_id(Store& store, const std::string& text) {
  if (text.empty()) return usage_error("RUN_OR_LOOP cannot be empty: give a run id or a loop");
  auto run = store.resolve_run(text);
  if (!run && run.error().code != ErrorCode::kNotFound && run.error().code != ErrorCode::kUsage) {
    return run.error();
  }
  if (run && run->id == text) return run->id;
  auto loop = store.resolve_loop(text);
  if (!loop && loop.error().code != ErrorCode::kNotFound) return loop.error();
  if (run && loop) {
    return conflict_error("'" + text + "' matches run " + run->id + " and loop " + loop->name +
                          " (" + loop->id + "); give more of the id");
  }
  if (run) return run->id;
  if (loop) return newest_run_id(store, *loop);
  return not_found_error("no run or loop has the id or name '" + text + "'" +
                         (text.size() < 6 ? " (a run id prefix needs at least 6 characters)" : ""));
}

// The command that shows the page after `shown` runs.
std::string next_runs_page(const RunsArgs& args, const std::optional<std::string>& loop_id,
                           const ListedPage& page) {
  std::string command = "orrery runs";
  if (loop_id) command += " " + *loop_id;
  command += option_word("--status", args.status);
  return next_page_command(command, args.limit, RunsArgs{}.limit, page);
}

// A triggered run whose supervisor could not start (an unusable runs
// directory, no process left to fork): the launcher recorded it failed, so it
// is reported like any failed run, exit 1, with why on stderr; with --wait its
// document, else its id.
Result<int> unstarted_run(const Context& context, Store& store, const ops::Triggered& triggered,
                          bool wait) {
  std::cerr << "orrery: " << terminal_text(triggered.unstarted->message) << '\n';
  if (wait) {
    print_run_document(context, store, triggered.run);
  } else if (context.globals.json) {
    *context.out << json_text({{"run_id", triggered.run.id}}) << '\n';
  } else {
    *context.out << triggered.run.id << '\n';
  }
  return kExitWorkFailed;
}

// Why a pending run waits (docs/daemon.md, "Runners"): the labels its loop
// needs and how many registered runners have them.
std::string pending_reason(Store& store, const Run& run) {
  auto loop = store.get_loop(run.loop_id);
  auto runners = store.list_runners();
  if (!loop || !loop->has_value() || !runners) return "for a runner";
  const std::vector<EnvVar>& selector = (*loop)->machine;
  int able = 0;
  for (const RunnerRecord& runner : *runners) {
    auto labels = parse_labels_text(runner.labels);
    if (labels && runner_may_run(*labels, selector)) ++able;
  }
  std::string needs;
  for (const EnvVar& label : selector) {
    needs += (needs.empty() ? "" : ",") + label.first + "=" + label.second;
  }
  return "for a runner" + (needs.empty() ? "" : " with " + terminal_text(needs)) + "; " +
         (able == 0 ? std::string(needs.empty() ? "no runner is registered"
                                                : "no registered runner has them")
                    : std::to_string(able) + " registered " + (able == 1 ? "runner" : "runners") +
                          " may claim it");
}

// A manual run left pending for a runner with the loop's labels: its id
// (with --json, a document saying so) and why on stderr; with --wait, its
// document once a runner ran it, exit 1 unless it succeeded.
Result<int> left_to_runners(const Context& context, const OpenedStore& opened, const Run& run,
                            const std::string& host, bool wait) {
  Store& store = *opened.store;
  std::cerr << "orrery: this host (" << terminal_text(host)
            << ") lacks the loop's --machine labels: run " << run.id << " is left pending "
            << pending_reason(store, run) << " (--here runs it on this host)\n";
  if (!wait) {
    if (context.globals.json) {
      *context.out << json_text({{"run_id", run.id}, {"status", "pending"}}) << '\n';
    } else {
      *context.out << run.id << '\n';
    }
    return kExitOk;
  }
  StoreWatch watch(opened.database_path, store);
  while (true) {
    auto now = find_run(store, run.id);
    if (!now) return now.error();
    if (is_terminal(now->status)) {
      print_run_document(context, store, *now);
      return now->status == RunStatus::kSucceeded ? kExitOk : kExitWorkFailed;
    }
    watch.wait(std::chrono::seconds(1));
  }
}

// Waits for the daemon to start and finish the queued run; prints it. The
// wait ends with an error when no daemon holds the lease any more.
Result<int> wait_for_queued(const Context& context, Store& store, const std::string& run_id) {
  while (true) {
    auto run = store.get_run(run_id);
    if (!run) return run.error();
    if (!run->has_value()) return not_found_error("queued run " + run_id + " was deleted");
    if (is_terminal((*run)->status)) {
      print_run_document(context, store, **run);
      return (*run)->status == RunStatus::kSucceeded ? kExitOk : kExitWorkFailed;
    }
    auto daemon = ops::daemon_running(store, wall_clock_now());
    if (!daemon) return daemon.error();
    if (!*daemon && (*run)->status == RunStatus::kQueued) {
      return unavailable_error("no daemon is running to start queued run " + run_id +
                               "; it stays queued until one starts (orrery daemon)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

// A run queued behind the one in progress: with --wait, its document once
// the daemon ran it; else what was queued behind what.
Result<int> queued_run(const Context& context, Store& store, const ops::Triggered& triggered,
                       bool wait) {
  if (wait) return wait_for_queued(context, store, triggered.run.id);
  if (context.globals.json) {
    *context.out << json_text({{"run_id", triggered.run.id},
                               {"status", "queued"},
                               {"behind", triggered.behind}})
                 << '\n';
  } else {
    *context.out << "queued " << triggered.run.id << " behind " << triggered.behind
                 << " (the daemon starts it when that run ends)\n";
  }
  return kExitOk;
}

// A run started here: its id, or with --wait its document once its
// supervisor ended, exit 1 unless it succeeded.
Result<int> started_run(const Context& context, const OpenedStore& opened,
                        const ops::Triggered& triggered, bool wait) {
  if (!wait) {
    if (context.globals.json) {
      *context.out << json_text({{"run_id", triggered.run.id}}) << '\n';
    } else {
      *context.out << triggered.run.id << '\n';
    }
    return kExitOk;
  }
  const pid_t started = triggered.supervisor.pid;
  wait_for_supervisor(started);
  auto run = find_run(*opened.store, triggered.run.id);
  if (!run) return run.error();
  if (run->status == RunStatus::kRunning) return supervisor_gone_error(opened.home, *run, started);
  print_run_document(context, *opened.store, *run);
  return run->status == RunStatus::kSucceeded ? kExitOk : kExitWorkFailed;
}

}  // namespace

Result<int> trigger_loop(const TriggerArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  SupervisorLauncher launcher(store, {opened->home, context.globals.db});
  ProcessControl& processes = system_processes();
  const std::string host = processes.host_name();
  const ops::TriggerContext trigger{store,      opened->home, opened->database_path.empty(),
                                    launcher,   processes,    ops::trigger_claimant(host),
                                    context.now};
  auto triggered = ops::trigger_loop(trigger, {args.loop, args.force, args.wait, args.here});
  if (!triggered) return triggered.error();
  switch (triggered->outcome) {
    case ops::TriggerOutcome::kQueued:
      return queued_run(context, store, *triggered, args.wait);
    case ops::TriggerOutcome::kLeftToRunners:
      return left_to_runners(context, *opened, triggered->run, host, args.wait);
    case ops::TriggerOutcome::kUnstarted:
      return unstarted_run(context, store, *triggered, args.wait);
    case ops::TriggerOutcome::kStarted:
      break;
  }
  return started_run(context, *opened, *triggered, args.wait);
}

Result<int> list_runs(const RunsArgs& args, const Context& context) {
  if (args.limit < 1 || args.limit > ops::kMaxRunsPage) {
    return usage_error("--limit " + std::to_string(args.limit) + " out of range 1-" +
                       std::to_string(ops::kMaxRunsPage));
  }
  if (args.offset < 0) {
    return usage_error("--offset " + std::to_string(args.offset) + " cannot be negative");
  }
  ops::RunQuery query;
  query.loop = args.loop;
  query.page = {args.limit, args.offset, ""};
  if (!args.status.empty()) {
    auto status = parse_run_status(args.status);
    if (!status) return usage_error("--status: " + status.error().message);
    query.status = *status;
  }
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto listed = ops::list_runs(*opened->store, *opened->store, *opened->store, query);
  if (!listed) return listed.error();
  const std::vector<Run>& runs = listed->page.rows;
  const ListedPage& page = listed->page.place;
  std::optional<std::string> loop_id;
  if (listed->loop) loop_id = listed->loop->id;
  const std::string next_page = next_runs_page(args, loop_id, page);
  if (context.globals.json) {
    nlohmann::json array = nlohmann::json::array();
    for (const Run& run : runs) array.push_back(run_document(*opened->store, run, false));
    *context.out << json_text(array) << '\n';
    tell_rest(context, page, "runs", next_page);
    return kExitOk;
  }
  if (runs.empty()) {
    *context.out << (args.offset > 0 ? "no runs at offset " + std::to_string(args.offset)
                                     : std::string("no runs yet"))
                 << '\n';
    return kExitOk;
  }
  auto ids = column_handles(*opened->store, IdTable::kRuns, runs, &Run::id);
  if (!ids) return ids.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    rows.push_back({(*ids)[i], run.loop_name, format_relative(run.scheduled_for, context.now),
                    std::to_string(run.attempt), outcome_text(run)});
  }
  print_table(*context.out, {"ID", "LOOP", "SLOT", "ATTEMPT", "STATUS"}, rows);
  tell_rest(context, page, "runs", next_page);
  if (listed->goal) {  // the goal these runs are turns of (docs/goals.md)
    const Goal& goal = *listed->goal;
    auto handle = handle_of(*opened->store, IdTable::kGoals, goal.id);
    if (!handle) return handle.error();
    *context.out << "goal " << *handle << " " << goal_status_name(goal.status) << ", "
                 << budget_bar(goal.tokens_used, goal.token_budget) << ", " << goal.turns
                 << " turns (orrery goal turns " << *handle << ")\n";
  }
  return kExitOk;
}

Result<int> show_run(const RunArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto run = opened->store->resolve_run(args.run);
  if (!run) return run.error();
  if (context.globals.json) {
    *context.out << json_text(run_document(*opened->store, *run, true)) << '\n';
  } else {
    print_run(context, *opened->store, *run);
    if (run->status == RunStatus::kPending) {
      *context.out << "waiting  " << pending_reason(*opened->store, *run) << '\n';
    }
  }
  return kExitOk;
}

namespace {

// The data directory of the runner that claimed the run, while that runner
// is registered (docs/daemon.md, "Runners"): where the run's logs are.
std::optional<std::string> home_of_claimant(Store& store, const Run& run) {
  if (run.claimed_by.empty()) return std::nullopt;
  auto runners = store.list_runners();
  if (!runners) return std::nullopt;
  for (const RunnerRecord& runner : *runners) {
    if (runner.id == run.claimed_by && !runner.home.empty()) return runner.home;
  }
  return std::nullopt;
}

// A run of another host: its log files are on that host's disk; what the
// database keeps is the tail of each stream, once the run finished
// (docs/cli.md, "logs"). `runner_home`: that host's data directory, if known.
Result<int> show_stored_tail(const Run& run, const std::string& stream, bool follow,
                             const std::optional<std::string>& runner_home,
                             const Context& context) {
  const std::string file = HomeLayout::relative_run_log(run.id, stream);
  const std::string where = "run " + run.id + " ran on host " + terminal_text(run.host) +
                            "; its full " + stream + " log is there, in " +
                            (runner_home ? terminal_text(*runner_home + "/" + file)
                                         : file + " under that runner's data directory");
  if (follow) {
    return usage_error(where +
                       ": follow it on that host (here only the stored tail of a "
                       "finished run can be shown)");
  }
  const std::string& text = stream == "stderr" ? run.stderr_tail : run.stdout_tail;
  if (context.globals.json) {
    nlohmann::json document{{"run_id", run.id},
                            {"stream", stream},
                            {"text", text},
                            {"host", run.host},
                            {"stored_tail", true}};
    if (runner_home) document["path"] = *runner_home + "/" + file;
    *context.out << json_text(document) << '\n';
  } else {
    *context.out << text;
    std::cerr << "orrery: " << where << "; above is the tail stored when it finished\n";
  }
  return kExitOk;
}

}  // namespace

// The part of a log a byte range asks for, cut back to whole characters:
// {run_id, stream, text, offset, next_offset, size}.
Result<int> print_log_range(const std::string& run_id, const std::string& stream,
                            const std::string& text, const RunArgs& args, const Context& context) {
  const std::int64_t offset = args.log_offset.value_or(0);
  const std::int64_t length = args.log_length.value_or(kMaxLogRangeBytes);
  if (offset < 0) return usage_error("offset " + std::to_string(offset) + ": expected 0 or more");
  if (length < 0 || length > kMaxLogRangeBytes) {
    return usage_error("length " + std::to_string(length) + ": expected 0 to " +
                       std::to_string(kMaxLogRangeBytes) + " bytes");
  }
  const size_t size = text.size();
  const size_t begin = character_start_at(text, size_t(std::min<std::int64_t>(offset, size)));
  const size_t wanted =
      size_t(std::min<std::int64_t>(std::int64_t(size), std::int64_t(begin) + length));
  const size_t end = wanted == size ? size : character_start_at(text, wanted);
  const std::string part = text.substr(begin, end - begin);
  if (context.globals.json) {
    *context.out << json_text({{"run_id", run_id},
                               {"stream", stream},
                               {"text", part},
                               {"offset", begin},
                               {"next_offset", end},
                               {"size", size}})
                 << '\n';
  } else {
    *context.out << part;
  }
  return kExitOk;
}

Result<int> show_logs(const RunArgs& args, const Context& context) {
  if (args.follow && context.globals.json) {
    return usage_error(
        "logs --follow prints the log as it grows and cannot be combined with "
        "--json; use logs --json once the run has finished");
  }
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto found = logs_run_id(*opened->store, args.run);
  if (!found) return found.error();
  const std::string run_id = *found;
  const std::string stream = args.stderr_stream ? "stderr" : "stdout";
  auto run = opened->store->get_run(run_id);
  if (!run) return run.error();
  std::optional<std::string> runner_home;
  if (run->has_value()) runner_home = home_of_claimant(*opened->store, **run);
  if (run->has_value() && !runs_on_host(**run, SystemProcessProbe().host_name())) {
    return show_stored_tail(**run, stream, args.follow, runner_home, context);
  }
  // A run of another runner on this host has its logs in that runner's home.
  const std::string path = HomeLayout(runner_home.value_or(opened->home)).run(run_id).log(stream);
  if (!args.follow) {
    // The log is the program's output: printed as it is (docs/cli.md, "Escaping").
    const std::string text = read_log(path);  // nothing yet (or a skipped slot): no output
    if (args.log_offset || args.log_length)
      return print_log_range(run_id, stream, text, args, context);
    if (context.globals.json) {
      *context.out << json_text({{"run_id", run_id}, {"stream", stream}, {"text", text}}) << '\n';
    } else {
      *context.out << text;
    }
    return kExitOk;
  }
  return follow_run_log(*opened->store, opened->home, run_id, path, *context.out);
}

Result<int> supervise_run(const RunArgs& args, const Context& context) {
  auto supervised = supervise_exec(WorkKind::kLoopRun, args.run, args.token_fd,
                                   work_store_opener(context.globals));
  if (!supervised) return supervised.error();
  return kExitOk;
}

}  // namespace orrery::cli
