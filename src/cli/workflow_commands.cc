#include "cli/workflow_commands.h"

#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/caller_paths.h"
#include "cli/env_settings.h"
#include "cli/handles.h"
#include "cli/human.h"
#include "cli/live_run_view.h"
#include "cli/page_note.h"
#include "cli/run_commands.h"
#include "cli/store_access.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/limits.h"
#include "core/prompt_template.h"
#include "core/text.h"
#include "core/workflow_spec.h"
#include "engine/workflow_driver.h"
#include "exec/claim_keeper.h"
#include "exec/clock.h"
#include "exec/fresh_id.h"
#include "exec/launcher.h"
#include "exec/log_follower.h"
#include "exec/process_identity.h"
#include "exec/step_supervisor.h"
#include "exec/store_watch.h"
#include "exec/supervisor_start.h"
#include "exec/workflow_publish.h"
#include "store/home_layout.h"
#include "store/regular_file.h"
#include "views/document_text.h"
#include "views/workflow_view.h"

namespace orrery::cli {
namespace {

// How often a follower (`events --follow`, a run driven elsewhere) reads
// the journal: the journal is written by other processes, which cannot wake
// this one.
// How long a follower waits for a change before it looks anyway: a
// server's notices do not tell of every step (exec/store_watch.h).
constexpr std::chrono::milliseconds kFollowSafetyWait{1000};
constexpr int kMaxRunsPage = 10'000;

std::string optional_time_text(const std::optional<TimeMs>& time, TimeMs now) {
  return time ? format_relative(*time, now) : "-";
}

std::string duration_text(const std::optional<TimeMs>& from, const std::optional<TimeMs>& to) {
  if (!from || !to) return "-";
  return format_duration(std::max<DurationMs>(0, *to - *from));
}

Result<std::string> read_spec_file(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (!error && std::filesystem::is_directory(status))
    return usage_error("the spec file " + path + " is a directory, not a regular file");
  auto file = read_regular_file(path, kMaxWorkflowSpecBytes);
  if (!file) return usage_error("the spec file " + file.error().message);
  if (!file->has_value()) return usage_error("the spec file " + path + " does not exist");
  return std::move(**file);
}

// Every prompt file of an agent step can be read now, as `add` checks a
// loop's (runs read it again when they start).
Status check_prompt_files(const WorkflowSpec& spec) {
  for (const WorkflowStep& step : spec.steps) {
    if (!step.target.agent || step.target.agent->prompt_file.empty()) continue;
    const std::string& path = step.target.agent->prompt_file;
    auto file = read_regular_file(path, kMaxPromptFileBytes);
    if (!file)
      return usage_error("step '" + step.id + "': the prompt file " + file.error().message);
    if (!file->has_value())
      return usage_error("step '" + step.id + "': the prompt file " + path + " does not exist");
  }
  return Ok{};
}

void print_workflow(const Context& context, const Workflow& workflow) {
  if (context.globals.json) {
    *context.out << json_text(workflow_json(workflow, workflow_steps_json(workflow.spec))) << '\n';
    return;
  }
  std::vector<std::pair<std::string, std::string>> fields{
      {"id", workflow.id},
      {"name", workflow.name},
      {"version", std::to_string(workflow.version)},
      {"status", workflow_status_name(workflow.status)},
      {"description", workflow.spec.description.empty() ? "-" : workflow.spec.description},
      {"created", format_relative(workflow.created_at, context.now)}};
  if (!workflow.spec.goal.empty()) fields.push_back({"goal", workflow.spec.goal});
  print_fields(*context.out, fields);
  *context.out << '\n';
  std::vector<std::vector<std::string>> rows;
  for (const WorkflowStep& step : workflow.spec.steps) {
    std::string depends;
    for (const std::string& dependency : step.depends_on)
      depends += (depends.empty() ? "" : ",") + dependency;
    std::string what = step.target.agent
                           ? std::string("agent ") + provider_name(step.target.agent->provider)
                       : step.target.shell        ? step.target.command_line
                       : step.target.argv.empty() ? ""
                                                  : step.target.argv[0];
    rows.push_back({step.id, what, depends.empty() ? "-" : depends,
                    step.timeout_ms ? format_duration(*step.timeout_ms) : "-",
                    std::to_string(step.retries), step.continue_on_failure ? "yes" : "no"});
  }
  print_table(*context.out, {"STEP", "TARGET", "DEPENDS ON", "TIMEOUT", "RETRIES", "MAY FAIL"},
              rows);
}

Result<int> print_run(Store& store, const Context& context, const WorkflowRun& run) {
  auto steps = store.list_step_runs(run.id);
  if (!steps) return steps.error();
  auto attempts = store.list_step_attempts(run.id);
  if (!attempts) return attempts.error();
  const std::vector<PhaseAccounting> phases = account_attempts(*attempts);
  if (context.globals.json) {
    *context.out << json_text(workflow_run_json(run, *steps, phases)) << '\n';
    return kExitOk;
  }
  std::vector<std::pair<std::string, std::string>> fields{
      {"id", run.id},
      {"workflow", run.workflow_name + " (version " + std::to_string(run.workflow_version) + ")"},
      {"status", workflow_run_status_name(run.status)},
      {"started", optional_time_text(run.started_at, context.now)},
      {"duration", duration_text(run.started_at, run.finished_at)}};
  if (!run.loop_id.empty()) fields.push_back({"loop run", run.loop_run_id});
  if (!run.item_id.empty()) {
    auto item = store.get_item(run.item_id);
    if (!item) return item.error();
    fields.push_back(
        {"work item", *item ? (*item)->route_name + "/" + (*item)->key + " (" + run.item_id + ")"
                            : run.item_id + " (deleted)"});
  }
  if (!run.idempotency_key.empty()) fields.push_back({"idempotency key", run.idempotency_key});
  if (!run.error.empty()) fields.push_back({"error", run.error});
  const Accounting total = total_of(phases);
  fields.push_back({"attempts", std::to_string(total.attempts)});
  if (total.input_tokens + total.output_tokens > 0) {
    fields.push_back({"tokens", format_count(total.input_tokens) + " in, " +
                                    format_count(total.output_tokens) + " out"});
  }
  print_fields(*context.out, fields);
  *context.out << '\n';
  std::vector<std::vector<std::string>> rows;
  for (const StepRun& step : *steps) {
    rows.push_back({step.step_id, step_status_name(step.status), std::to_string(step.attempts),
                    duration_text(step.started_at, step.finished_at),
                    step.exit_code ? std::to_string(*step.exit_code) : "-",
                    step.error.empty() ? "" : step.error});
  }
  print_table(*context.out, {"STEP", "STATUS", "ATTEMPTS", "DURATION", "EXIT", "ERROR"}, rows);
  return kExitOk;
}

// Waits for a run another process drives, showing it as it goes: woken
// when the database changes (exec/store_watch.h), not on a timer.
Result<WorkflowRun> follow_run(const OpenedStore& opened, const std::string& run_id,
                               LiveRunView& view) {
  Store& store = *opened.store;
  StoreWatch watch(opened.database_path, store);
  while (true) {
    if (auto shown = view.update(wall_clock_now()); !shown) return shown.error();
    auto run = store.get_workflow_run(run_id);
    if (!run) return run.error();
    if (!run->has_value()) return not_found_error("workflow run " + run_id + " is gone");
    if (is_finished((*run)->status)) {
      if (auto shown = view.update(wall_clock_now()); !shown) return shown.error();
      return **run;
    }
    watch.wait(kFollowSafetyWait);
  }
}

// The engine lease a driver takes: ORRERY_ENGINE_LEASE_MS, 1 s to 1 h,
// default 30 s (docs/workflows.md).
Result<DriverOptions> driver_options(const OpenedStore& opened, const Context& context) {
  DriverOptions options;
  options.location = {opened.home, context.globals.db};
  options.database_path = opened.database_path;
  auto lease =
      milliseconds_from_env("ORRERY_ENGINE_LEASE_MS", 1000, 3'600'000, kDefaultEngineLeaseMs);
  if (!lease) return lease.error();
  options.lease_ms = *lease;
  return options;
}

// A fork server for step supervisors (docs/workflows.md, "Running a
// step"), started before the database is opened: no connection may cross a
// fork. Null when it cannot start: supervisors are exec'd then.
std::optional<SupervisorForker> step_forker(const Globals& globals) {
  auto forker = SupervisorForker::start(
      [globals] { return prepare_forked_supervisor(work_store_opener(globals)); });
  if (!forker) return std::nullopt;
  return std::move(*forker);
}

// Drives the run here, or follows it when another driver holds it.
Result<WorkflowRun> drive_or_follow(const OpenedStore& opened, const Context& context,
                                    const std::string& run_id, SupervisorForker* forker = nullptr) {
  auto configured = driver_options(opened, context);
  if (!configured) return configured.error();
  DriverOptions& options = *configured;
  options.forker = forker;
  LiveRunView view(*opened.store, run_id, *context.out, context.out_is_tty, context.globals.json);
  options.on_progress = [&] { (void)view.update(wall_clock_now()); };
  auto driven = drive_workflow_run(*opened.store, run_id, options);
  if (driven) {
    (void)view.update(wall_clock_now());
    return driven;
  }
  if (driven.error().code != ErrorCode::kConflict) return driven.error();
  return follow_run(opened, run_id, view);
}

Result<Workflow> resolve(Store& store, const WorkflowArgs& args) {
  return store.resolve_workflow(args.workflow, args.version);
}

}  // namespace

Result<int> create_workflow_command(const WorkflowArgs& args, const Context& context) {
  auto text = args.text ? Result<std::string>(*args.text) : read_spec_file(args.file);
  if (!text) return text.error();
  // FILE is absolute (cli/app.cc, path options). A spec given as text has
  // its relative paths resolved against the current directory, as if it
  // were a file there.
  PathBase paths = caller_paths();
  if (!args.text) paths.dir = std::filesystem::path(args.file).parent_path().string();
  auto spec = parse_workflow_spec(*text, spec_format_of(args.text ? "" : args.file, *text), paths);
  if (!spec) return spec.error();
  if (auto readable = check_prompt_files(*spec); !readable) return readable.error();
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto workflow = opened->store->create_workflow(*spec, fresh_id(context.now), context.now);
  if (!workflow) return workflow.error();
  if (context.globals.json) {
    print_workflow(context, *workflow);
  } else {
    *context.out << "created workflow " << terminal_text(workflow->name) << " version "
                 << workflow->version << " (" << workflow->id << ")\n";
  }
  return kExitOk;
}

Result<int> list_workflows_command(const WorkflowArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto workflows = opened->store->list_workflows(args.all_versions);
  if (!workflows) return workflows.error();
  if (context.globals.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const Workflow& workflow : *workflows)
      list.push_back(workflow_json(workflow, workflow_steps_json(workflow.spec)));
    *context.out << json_text(list) << '\n';
    return kExitOk;
  }
  if (workflows->empty()) {
    *context.out << "no workflows; create one with: orrery workflow create FILE\n";
    return kExitOk;
  }
  auto handles = column_handles(*opened->store, IdTable::kWorkflows, *workflows, &Workflow::id);
  if (!handles) return handles.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < workflows->size(); ++i) {
    const Workflow& workflow = (*workflows)[i];
    rows.push_back({(*handles)[i], workflow.name, std::to_string(workflow.version),
                    std::to_string(workflow.spec.steps.size()),
                    format_relative(workflow.created_at, context.now), workflow.spec.description});
  }
  print_table(*context.out, {"ID", "NAME", "VERSION", "STEPS", "CREATED", "DESCRIPTION"}, rows);
  return kExitOk;
}

Result<int> show_workflow_command(const WorkflowArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto workflow = resolve(*opened->store, args);
  if (!workflow) return workflow.error();
  print_workflow(context, *workflow);
  return kExitOk;
}

Result<int> run_workflow_command(const WorkflowArgs& args, const Context& context) {
  if (args.max_parallel < 1 || args.max_parallel > kMaxParallelSteps) {
    return usage_error("--max-parallel " + std::to_string(args.max_parallel) + ": expected 1 to " +
                       std::to_string(kMaxParallelSteps));
  }
  if (args.idempotency_key.size() > 200 || !is_valid_utf8(args.idempotency_key))
    return usage_error("--idempotency-key: expected at most 200 bytes of UTF-8 text");
  std::string input = "{}";
  if (args.input) {
    auto checked = check_workflow_input(*args.input);
    if (!checked) return checked.error();
    input = std::move(*checked);
  }
  std::optional<SupervisorForker> forker = args.wait ? step_forker(context.globals) : std::nullopt;
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto workflow = resolve(store, args);
  if (!workflow) return workflow.error();
  WorkflowRunRequest request;
  request.workflow = *workflow;
  request.input_json = input;
  request.idempotency_key = args.idempotency_key;
  auto here = caller_path("the run's working directory (where workflow run runs)", ".");
  if (!here) return here.error();
  request.cwd = std::move(*here);
  request.max_parallel = args.max_parallel;
  if (!args.loop_run.empty()) {
    auto loop_run = store.get_run(args.loop_run);
    if (!loop_run) return loop_run.error();
    if (!loop_run->has_value()) return not_found_error("no run has the id '" + args.loop_run + "'");
    request.loop_id = (*loop_run)->loop_id;
    request.loop_run_id = args.loop_run;
  }
  auto published = publish_workflow_run(store, opened->home, request, context.now);
  if (!published) return published.error();
  const WorkflowRun& run = published->run;
  if (!args.wait) {
    if (!published->existed && !is_finished(run.status)) {
      const StoreLocation location{opened->home, context.globals.db};
      if (auto started = start_detached_driver(location, run.id); !started) {
        std::cerr << "orrery: the run waits for a daemon: " << started.error().message << '\n';
      }
    }
    if (context.globals.json) return print_run(store, context, run);
    *context.out << (published->existed ? "existing workflow run " : "started workflow run ")
                 << run.id << '\n';
    return kExitOk;
  }
  if (!context.globals.json && published->existed)
    *context.out << "existing workflow run " << run.id << '\n';
  auto finished = drive_or_follow(*opened, context, run.id, forker ? &*forker : nullptr);
  if (!finished) return finished.error();
  if (!context.globals.json) *context.out << '\n';
  auto printed = print_run(store, context, *finished);
  if (!printed) return printed.error();
  return finished->status == WorkflowRunStatus::kSucceeded ? kExitOk : kExitWorkFailed;
}

Result<int> list_workflow_runs_command(const WorkflowArgs& args, const Context& context) {
  if (auto checked = check_page_options(args.limit, kMaxRunsPage, args.offset); !checked) {
    return checked.error();
  }
  WorkflowRunFilter filter;
  filter.limit = args.limit;
  filter.offset = args.offset;
  if (!args.status.empty()) {
    auto status = parse_workflow_run_status(args.status);
    if (!status) return status.error();
    filter.status = *status;
  }
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  if (!args.workflow.empty()) {
    auto workflow = store.resolve_workflow(args.workflow, std::nullopt);
    if (!workflow) return workflow.error();
    filter.workflow_name = workflow->name;
  }
  auto runs = store.list_workflow_runs(filter);
  if (!runs) return runs.error();
  auto page = listed_page(args.offset, args.limit, runs->size(),
                          [&] { return store.count_workflow_runs(filter); });
  if (!page) return page.error();
  const std::string next_page = next_page_command(
      command_of("orrery workflow runs",
                 {operand_word(filter.workflow_name), option_word("--status", args.status)}),
      args.limit, WorkflowArgs{}.limit, *page);
  if (context.globals.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const WorkflowRun& run : *runs) {
      auto steps = store.list_step_runs(run.id);
      if (!steps) return steps.error();
      auto attempts = store.list_step_attempts(run.id);
      if (!attempts) return attempts.error();
      list.push_back(workflow_run_json(run, *steps, account_attempts(*attempts)));
    }
    *context.out << json_text(list) << '\n';
    tell_rest(context, *page, "workflow runs", next_page);
    return kExitOk;
  }
  auto handles = column_handles(store, IdTable::kWorkflowRuns, *runs, &WorkflowRun::id);
  if (!handles) return handles.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < runs->size(); ++i) {
    const WorkflowRun& run = (*runs)[i];
    rows.push_back({(*handles)[i], run.workflow_name, std::to_string(run.workflow_version),
                    workflow_run_status_name(run.status),
                    optional_time_text(run.started_at, context.now),
                    duration_text(run.started_at, run.finished_at), run.error});
  }
  print_table(*context.out, {"ID", "WORKFLOW", "VERSION", "STATUS", "STARTED", "DURATION", "ERROR"},
              rows);
  tell_rest(context, *page, "workflow runs", next_page);
  return kExitOk;
}

// The prompt each agent step's latest attempt was given, rendered and
// scrubbed (docs/workflows.md, "Prompt templates"), by step id; steps that
// kept none (commands, attempts on another host) are left out.
Result<std::vector<std::pair<std::string, std::string>>> kept_prompts(
    const std::string& home, const WorkflowRun& run, const std::vector<StepRun>& steps) {
  std::vector<std::pair<std::string, std::string>> prompts;
  for (const StepRun& step : steps) {
    if (step.attempts < 1) continue;
    const std::string path = HomeLayout(home).step(run.id, step.step_id).prompt(step.attempts);
    auto text = read_regular_file(path, kMaxRenderedPromptBytes);
    if (!text) return text.error();
    if (*text) prompts.emplace_back(step.step_id, std::move(**text));
  }
  return prompts;
}

Result<int> show_workflow_run_command(const WorkflowArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto run = opened->store->resolve_workflow_run(args.run);
  if (!run) return run.error();
  auto steps = opened->store->list_step_runs(run->id);
  if (!steps) return steps.error();
  auto prompts = kept_prompts(opened->home, *run, *steps);
  if (!prompts) return prompts.error();
  if (context.globals.json) {
    auto attempts = opened->store->list_step_attempts(run->id);
    if (!attempts) return attempts.error();
    nlohmann::json document = workflow_run_json(*run, *steps, account_attempts(*attempts));
    nlohmann::json by_step = nlohmann::json::object();
    for (const auto& [step, text] : *prompts) by_step[step] = text;
    document["prompts"] = by_step;
    *context.out << json_text(document) << '\n';
    return kExitOk;
  }
  auto printed = print_run(*opened->store, context, *run);
  if (!printed) return printed.error();
  for (const auto& [step, text] : *prompts) {
    *context.out << "\nprompt of " << terminal_text(step) << ":\n";
    std::istringstream lines(terminal_lines(text));
    for (std::string line; std::getline(lines, line);) *context.out << "  " << line << '\n';
  }
  return kExitOk;
}

Result<int> cancel_workflow_run_command(const WorkflowArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto run = store.resolve_workflow_run(args.run);
  if (!run) return run.error();
  auto requested = store.request_workflow_cancel(run->id, context.now);
  if (!requested) return requested.error();
  if (is_finished(requested->status)) {
    if (!context.globals.json)
      *context.out << "workflow run " << run->id << " had already "
                   << workflow_run_status_name(requested->status) << "\n";
    return print_run(store, context, *requested);
  }
  // Its driver stops it; with none alive this command is the driver.
  auto finished = drive_or_follow(*opened, context, run->id);
  if (!finished) return finished.error();
  if (!context.globals.json) *context.out << '\n';
  return print_run(store, context, *finished);
}

Result<int> workflow_events_command(const WorkflowArgs& args, const Context& context) {
  if (args.follow && context.globals.json) {
    return usage_error(
        "workflow events --follow prints events as they come and cannot be combined with "
        "--json; use workflow events --json once the run has finished");
  }
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto run = store.resolve_workflow_run(args.run);
  if (!run) return run.error();
  if (args.follow) {  // the journal as lines, on a terminal too
    LiveRunView view(store, run->id, *context.out, /*tty=*/false, /*quiet=*/false);
    auto followed = follow_run(*opened, run->id, view);
    if (!followed) return followed.error();
    return kExitOk;
  }
  std::vector<WorkflowEvent> all;
  std::int64_t last = 0;
  while (true) {
    auto events = store.list_workflow_events(run->id, last, 1000);
    if (!events) return events.error();
    all.insert(all.end(), events->begin(), events->end());
    if (events->size() < 1000) break;
    last = events->back().sequence;
  }
  if (context.globals.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const WorkflowEvent& event : all) list.push_back(workflow_event_json(event));
    *context.out << json_text(list) << '\n';
    return kExitOk;
  }
  std::vector<std::vector<std::string>> rows;
  for (const WorkflowEvent& event : all) {
    rows.push_back({std::to_string(event.sequence), format_time(event.created_at), event.event_type,
                    event.step_id.empty() ? "-" : event.step_id,
                    event.payload_json == "{}" ? "" : event.payload_json});
  }
  print_table(*context.out, {"SEQ", "TIME", "EVENT", "STEP", "DETAILS"}, rows);
  return kExitOk;
}

Result<int> drive_workflow_command(const WorkflowArgs& args, const Context& context) {
  (void)read_token_fd(args.token_fd);  // the launcher's pipe; a driver has no claim token
  std::optional<SupervisorForker> forker = step_forker(context.globals);
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto options = driver_options(*opened, context);
  if (!options) return options.error();
  options->forker = forker ? &*forker : nullptr;
  auto driven = drive_workflow_run(*opened->store, args.run, *options);
  if (!driven) {
    // Another driver holds it: nothing to do here.
    if (driven.error().code == ErrorCode::kConflict) return kExitOk;
    return driven.error();
  }
  return kExitOk;
}

Result<int> supervise_step_command(const WorkflowArgs& args, const Context& context) {
  auto supervised = supervise_exec(WorkKind::kStepAttempt, args.run, args.token_fd,
                                   work_store_opener(context.globals));
  if (!supervised) return supervised.error();
  return kExitOk;
}

Result<int> show_step_log(const std::string& run_text, const std::string& step, bool stderr_stream,
                          const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto run = opened->store->resolve_workflow_run(run_text);
  if (!run) return run.error();
  auto steps = opened->store->list_step_runs(run->id);
  if (!steps) return steps.error();
  const bool known = std::any_of(steps->begin(), steps->end(), [&](const StepRun& candidate) {
    return candidate.step_id == step;
  });
  if (!known) {
    std::string names;
    for (const StepRun& candidate : *steps)
      names += (names.empty() ? "" : ", ") + candidate.step_id;
    return not_found_error("workflow run " + run->id + " has no step '" + terminal_text(step) +
                           "'; its steps: " + names);
  }
  const std::string stream = stderr_stream ? "stderr" : "stdout";
  const std::string text = read_log(HomeLayout(opened->home).step(run->id, step).log(stream));
  if (context.globals.json) {
    *context.out
        << json_text({{"run_id", run->id}, {"step_id", step}, {"stream", stream}, {"text", text}})
        << '\n';
  } else {
    *context.out << text;
  }
  return kExitOk;
}

}  // namespace orrery::cli
