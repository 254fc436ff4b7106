#include "cli/run_commands.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <unistd.h>

#include <climits>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>

#include "cli/exit_codes.h"
#include "cli/human.h"
#include "cli/json_views.h"
#include "cli/store_access.h"
#include "core/duration.h"
#include "exec/process_identity.h"
#include "exec/supervisor.h"
#include "store/data_dir.h"

namespace orrery::cli {
namespace {

std::string self_executable() {
  char path[PATH_MAX] = {};
  const ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
  return length > 0 ? std::string(path, size_t(length)) : std::string("orrery");
}

// Replaces this (forked) process with `orrery supervise`, output to a log.
[[noreturn]] void exec_supervisor(const std::vector<std::string>& argv, const std::string& log) {
  setsid();
  const int null = open("/dev/null", O_RDONLY);
  const int out = open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
  dup2(null, STDIN_FILENO);
  if (out >= 0) {
    dup2(out, STDOUT_FILENO);
    dup2(out, STDERR_FILENO);
  }
  std::vector<char*> args;
  for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  execv(args[0], args.data());
  _exit(127);
}

// Starts the supervisor; with `wait`, waits for it and returns its status.
Result<int> start_supervisor(const std::vector<std::string>& argv, const std::string& log,
                             bool wait) {
  const pid_t child = fork();
  if (child < 0) return internal_error("cannot start the supervisor: fork failed");
  if (child == 0) {
    if (wait) exec_supervisor(argv, log);
    // Detach: the grandchild is adopted by init and outlives this command.
    if (fork() == 0) exec_supervisor(argv, log);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

std::vector<std::string> supervisor_argv(const OpenedStore& opened, const Context& context,
                                         const ClaimedRun& claimed) {
  std::vector<std::string> argv{self_executable(), "--home", opened.home};
  if (!context.globals.db.empty()) argv.insert(argv.end(), {"--db", context.globals.db});
  argv.insert(argv.end(), {"supervise", claimed.run.id, "--token", claimed.claim.token});
  return argv;
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
  std::ifstream file(path, std::ios::binary);
  if (!file) return;
  file.seekg(*offset);
  char buffer[64 * 1024];
  while (file.read(buffer, sizeof buffer) || file.gcount() > 0) {
    out.write(buffer, file.gcount());
    *offset += file.gcount();
  }
  out.flush();
}

// Prints the log as it grows, woken by inotify, until the run is finished.
Result<int> follow_log(Store& store, const std::string& run_id, const std::string& path,
                       std::ostream& out) {
  const int watch = inotify_init1(IN_CLOEXEC);
  const std::string dir = path.substr(0, path.rfind('/'));
  if (watch >= 0) inotify_add_watch(watch, dir.c_str(), IN_MODIFY | IN_CLOSE_WRITE | IN_CREATE);
  std::streamoff offset = 0;
  while (true) {
    copy_new(path, &offset, out);
    auto run = store.get_run(run_id);
    if (!run) return run.error();
    if (!run->has_value() || is_terminal((*run)->status)) break;
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
  const std::string dir = run_directory(opened->home, claimed->run.id);
  if (auto made = prepare_data_dir(dir); !made) return made.error();
  auto started = start_supervisor(supervisor_argv(*opened, context, *claimed),
                                  dir + "/supervisor.log", args.wait);
  if (!started) return started.error();
  if (!args.wait) {
    if (context.globals.json) {
      *context.out << nlohmann::json{{"run_id", claimed->run.id}}.dump(2) << '\n';
    } else {
      *context.out << claimed->run.id << '\n';
    }
    return kExitOk;
  }
  auto run = find_run(*opened->store, claimed->run.id);
  if (!run) return run.error();
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
  return follow_log(*opened->store, run_id, path, *context.out);
}

Result<int> supervise_run(const RunArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto supervised = supervise(*opened->store, {opened->home, args.run, args.token});
  if (!supervised) return supervised.error();
  return kExitOk;
}

}  // namespace orrery::cli
