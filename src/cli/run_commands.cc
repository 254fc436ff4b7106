#include "cli/run_commands.h"

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "cli/exit_codes.h"
#include "cli/human.h"
#include "cli/json_views.h"
#include "cli/store_access.h"
#include "core/duration.h"
#include "exec/kept_outcome.h"
#include "exec/process_identity.h"
#include "exec/recovery.h"
#include "exec/supervisor.h"
#include "exec/supervisor_start.h"
#include "store/data_dir.h"

namespace orrery::cli {
namespace {

TimeMs wall_clock_now() {
  using namespace std::chrono;
  return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

SupervisorLaunch supervisor_launch(const OpenedStore& opened, const Context& context,
                                   const ClaimedRun& claimed, bool wait) {
  SupervisorLaunch launch;
  launch.executable = self_executable();
  launch.global_args = {"--home", opened.home};
  if (!context.globals.db.empty()) {
    launch.global_args.insert(launch.global_args.end(), {"--db", context.globals.db});
  }
  launch.run_id = claimed.run.id;
  launch.token = claimed.claim.token;
  launch.log_path = run_directory(opened.home, claimed.run.id) + "/supervisor.log";
  launch.detach = !wait;
  return launch;
}

// A claimed run whose supervisor could not start fails at once, with the
// reason (docs/execution.md): nothing is left `running`.
Error fail_unstarted(Store& store, const ClaimedRun& claimed, const Error& why) {
  RunOutcome outcome;
  outcome.status = RunStatus::kFailed;
  outcome.error = "the supervisor could not start: " + why.message;
  std::string message = "run " + claimed.run.id + " failed: " + outcome.error;
  if (auto failed = store.finalize_run(claimed.claim, outcome, wall_clock_now()); !failed) {
    message += " (and the run could not be marked failed: " + failed.error().message + ")";
  }
  return Error{why.code, message};
}

// The error for a run left `running` by a supervisor that is gone.
Error supervisor_gone_error(const std::string& home, const Run& run, int pid) {
  const auto kept_outcome = read_kept_outcome(run_directory(home, run.id));
  const bool kept = kept_outcome.ok() && kept_outcome->has_value();
  return internal_error("the supervisor of run " + run.id + " (pid " + std::to_string(pid) +
                        ") is gone; run `orrery recover` to " +
                        (kept ? "record the outcome it kept" : "finish the run"));
}

std::string short_id(const std::string& id) { return id.substr(0, 12); }

std::string outcome_text(const Run& run) {
  std::string text = run_status_name(run.status);
  if (run.duration_ms) text += " in " + format_duration(*run.duration_ms);
  if (run.exit_code) text += ", exit " + std::to_string(*run.exit_code);
  if (!run.error.empty() && run.error.rfind("exit status", 0) != 0) text += ": " + run.error;
  if (!run.skip_reason.empty()) text += " (" + run.skip_reason + ")";
  return text;
}

void print_run(const Context& context, const Run& run) {
  const TimeZone zone = TimeZone::local();
  std::vector<std::pair<std::string, std::string>> rows{
      {"id", run.id},
      {"loop", run.loop_name + " (" + run.loop_id + ")"},
      {"slot", format_wall(run.scheduled_for, zone)},
      {"attempt", std::to_string(run.attempt)},
      {"status", outcome_text(run)}};
  if (run.started_at) rows.emplace_back("started", format_wall(*run.started_at, zone));
  if (run.finished_at) rows.emplace_back("finished", format_wall(*run.finished_at, zone));
  if (run.target) rows.emplace_back("pid", std::to_string(run.target->pid));
  print_fields(*context.out, rows);
  if (!run.stdout_tail.empty()) *context.out << "--- stdout\n" << run.stdout_tail << '\n';
  if (!run.stderr_tail.empty()) *context.out << "--- stderr\n" << run.stderr_tail << '\n';
}

// Copies what is new in the file to `out`; the file may not exist yet.
void copy_new(const std::string& path, std::streamoff* offset, std::ostream& out) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) return;
  if (file.tellg() < *offset) *offset = 0;  // rotated (docs/execution.md, "Logs"): a new file
  file.seekg(*offset);
  char buffer[64 * 1024];
  while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
    out.write(buffer, file.gcount());
    *offset += file.gcount();
  }
  out.flush();
}

// Prints the log as it grows, woken by inotify, until the run is finished;
// an error when its supervisor is gone while the run is still `running`.
Result<int> follow_log(Store& store, const std::string& home, const std::string& run_id,
                       const std::string& path, std::ostream& out) {
  const int watch = inotify_init1(IN_CLOEXEC);
  const std::string dir = path.substr(0, path.rfind('/'));
  if (watch >= 0) inotify_add_watch(watch, dir.c_str(), IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE);
  const SystemProcessProbe probe;
  std::streamoff offset = 0;
  std::optional<Error> gone;
  while (true) {
    copy_new(path, &offset, out);
    auto run = store.get_run(run_id);
    if (!run) return run.error();
    if (!run->has_value() || is_terminal((*run)->status)) break;
    if (supervisor_gone(**run, probe, wall_clock_now())) {
      // It may have finished the run just before it exited: look once more.
      auto again = store.get_run(run_id);
      if (!again) return again.error();
      if (again->has_value() && !is_terminal((*again)->status)) {
        gone = supervisor_gone_error(home, **again,
                                     (*again)->supervisor ? (*again)->supervisor->pid : 0);
      }
      break;
    }
    // Woken by a write; a second at most, to notice a run that ends silently.
    pollfd fd{watch, POLLIN, 0};
    if (watch >= 0 && poll(&fd, 1, 1000) > 0) {
      char events[4096];
      (void)!read(watch, events, sizeof events);
    } else if (watch < 0) {
      poll(nullptr, 0, 1000);
    }
  }
  copy_new(path, &offset, out);
  if (watch >= 0) close(watch);
  if (gone) return *gone;
  return kExitOk;
}

Result<Run> find_run(Store& store, const std::string& id) {
  auto run = store.get_run(id);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("no run has the id '" + id + "'");
  return **run;
}

}  // namespace

Result<int> trigger_loop(const TriggerArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto loop = opened->store->resolve_loop(args.loop);
  if (!loop) return loop.error();
  if (loop->archived)
    return conflict_error("cannot trigger loop " + loop->name + ": it is archived");
  const std::string claimant =
      "trigger@" + SystemProcessProbe().host_name() + ":" + std::to_string(getpid());
  std::optional<ClaimedRun> claimed;
  for (TimeMs slot = context.now; !claimed && slot < context.now + 100; ++slot) {
    auto attempt = opened->store->claim_slot({loop->id, slot, true}, claimant, context.now, {});
    if (!attempt) return attempt.error();
    claimed = *attempt;
  }
  if (!claimed) return conflict_error("could not claim a manual slot for loop " + loop->name);
  Store& store = *opened->store;
  const std::string dir = run_directory(opened->home, claimed->run.id);
  if (auto made = prepare_data_dir(dir); !made)
    return fail_unstarted(store, *claimed, made.error());
  auto started = start_supervisor(supervisor_launch(*opened, context, *claimed, args.wait));
  if (!started) return fail_unstarted(store, *claimed, started.error());
  if (!args.wait) {
    if (context.globals.json) {
      *context.out << nlohmann::json{{"run_id", claimed->run.id}}.dump(2) << '\n';
    } else {
      *context.out << claimed->run.id << '\n';
    }
    return kExitOk;
  }
  wait_for_supervisor(*started);
  auto run = find_run(store, claimed->run.id);
  if (!run) return run.error();
  if (run->status == RunStatus::kRunning)
    return supervisor_gone_error(opened->home, *run, *started);
  if (context.globals.json) {
    *context.out << run_json(*run, true).dump(2) << '\n';
  } else {
    print_run(context, *run);
  }
  return run->status == RunStatus::kSucceeded ? kExitOk : kExitWorkFailed;
}

Result<int> list_runs(const RunsArgs& args, const Context& context) {
  if (args.limit < 1 || args.limit > 10'000) {
    return usage_error("--limit " + std::to_string(args.limit) + " out of range 1-10000");
  }
  RunFilter filter;
  filter.limit = args.limit;
  if (!args.status.empty()) {
    auto status = parse_run_status(args.status);
    if (!status) return usage_error("--status: " + status.error().message);
    filter.status = *status;
  }
  auto opened = open_store(context);
  if (!opened) return opened.error();
  if (!args.loop.empty()) {
    auto loop = opened->store->resolve_loop(args.loop);
    if (!loop) return loop.error();
    filter.loop_id = loop->id;
  }
  auto runs = opened->store->list_runs(filter);
  if (!runs) return runs.error();
  if (context.globals.json) {
    nlohmann::json array = nlohmann::json::array();
    for (const Run& run : *runs) array.push_back(run_json(run, false));
    *context.out << array.dump(2) << '\n';
    return kExitOk;
  }
  if (runs->empty()) {
    *context.out << "no runs yet\n";
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const Run& run : *runs) {
    rows.push_back({short_id(run.id), run.loop_name,
                    format_relative(run.scheduled_for, context.now), std::to_string(run.attempt),
                    outcome_text(run)});
  }
  print_table(*context.out, {"ID", "LOOP", "SLOT", "ATTEMPT", "STATUS"}, rows);
  return kExitOk;
}

Result<int> show_run(const RunArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto run = find_run(*opened->store, args.run);
  if (!run) return run.error();
  if (context.globals.json) {
    *context.out << run_json(*run, true).dump(2) << '\n';
  } else {
    print_run(context, *run);
  }
  return kExitOk;
}

Result<int> show_logs(const RunArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto run = opened->store->get_run(args.run);
  if (!run) return run.error();
  std::string run_id = run->has_value() ? (*run)->id : "";
  if (run_id.empty()) {  // a loop: its newest run
    auto loop = opened->store->resolve_loop(args.run);
    if (!loop) return not_found_error("no run or loop has the id or name '" + args.run + "'");
    RunFilter filter;
    filter.loop_id = loop->id;
    filter.limit = 1;
    auto newest = opened->store->list_runs(filter);
    if (!newest) return newest.error();
    if (newest->empty()) return not_found_error("loop " + loop->name + " has no runs yet");
    run_id = newest->front().id;
  }
  const std::string path =
      run_directory(opened->home, run_id) + (args.stderr_stream ? "/stderr.log" : "/stdout.log");
  if (!args.follow) {
    std::ifstream file(path, std::ios::binary);
    if (file) *context.out << file.rdbuf();  // nothing yet (or a skipped slot): no output
    return kExitOk;
  }
  return follow_log(*opened->store, opened->home, run_id, path, *context.out);
}

Result<int> supervise_run(const RunArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto token = read_token_fd(args.token_fd);
  if (!token) return token.error();
  auto supervised = supervise(*opened->store, {opened->home, args.run, *token});
  if (!supervised) return supervised.error();
  return kExitOk;
}

}  // namespace orrery::cli
