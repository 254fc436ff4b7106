#include "cli/worker_commands.h"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli/handles.h"
#include "cli/human.h"
#include "cli/page_note.h"
#include "cli/store_access.h"
#include "core/exit_codes.h"
#include "core/git_names.h"
#include "core/text.h"
#include "engine/merge_driver.h"
#include "exec/git.h"
#include "exec/process_identity.h"
#include "exec/supervisor_start.h"
#include "exec/wake.h"
#include "exec/worker_actions.h"
#include "views/document_text.h"
#include "views/worker_view.h"

namespace orrery::cli {
namespace {

using nlohmann::json;

std::string who() {
  std::string name("cli@");
  name += SystemProcessProbe().host_name();
  name += ':';
  name += std::to_string(getpid());
  return name;
}

Git system_git() { return Git(system_commands(), process_environment()); }

void print_json(const Context& context, const nlohmann::json& document) {
  *context.out << json_text(document) << '\n';
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

// A commit as git abbreviates it in messages.
std::string short_commit(const std::string& commit) { return commit.substr(0, 12); }

void print_worker(const Context& context, const Worker& worker,
                  const std::vector<WorkerEvent>& events) {
  std::vector<std::pair<std::string, std::string>> fields = {
      {"id", worker.id},
      {"state", worker_state_name(worker.state)},
      {"workflow run", worker.workflow_run_id},
      {"step", worker.step_id},
      {"repo", worker.repo},
      {"branch", worker.branch},
      {"worktree", worker.worktree_path},
      {"base",
       worker.base_revision + (worker.base_branch.empty() ? "" : " (" + worker.base_branch + ")")},
      {"final revision", or_dash(worker.final_revision)},
      {"lease", worker.lease_owner.empty() ? "-"
                                           : worker.lease_owner + " until " +
                                                 format_time(worker.lease_expires_at.value_or(0))},
      {"changed files", std::to_string(worker.changed_files.size())},
  };
  if (!worker.hold_reason.empty() && worker.state == WorkerState::kHold)
    fields.push_back({"on hold", worker.hold_reason});
  if (!worker.failure_reason.empty()) fields.push_back({"failed", worker.failure_reason});
  print_fields(*context.out, fields);
  std::vector<std::vector<std::string>> rows;
  for (const WorkerEvent& event : events) {
    rows.push_back(
        {format_time(event.created_at), or_dash(event.from_state), event.to_state, event.reason});
  }
  *context.out << '\n';
  print_table(*context.out, {"AT", "FROM", "TO", "REASON"}, rows);
}

Result<QueueConfig> changed_config(Store& store, const std::string& repo, const WorkerArgs& args) {
  auto existing = store.queue_config(repo);
  if (!existing) return existing.error();
  QueueConfig config = existing->value_or(QueueConfig{});
  config.repo = repo;
  if (!args.target.empty()) {
    if (auto valid = check_branch_name(args.target, "--target"); !valid) return valid.error();
    config.target = args.target;
  }
  if (args.verify) {
    if (auto valid = check_verify_command(*args.verify, "--verify"); !valid) return valid.error();
    config.verify = *args.verify;
  }
  if (args.strategy) {
    auto strategy = parse_merge_strategy(*args.strategy);
    if (!strategy) return usage_error("--strategy: " + strategy.error().message);
    config.strategy = *strategy;
  }
  return config;
}

// REPO as the top of its git repository (how queues are keyed).
Result<std::string> repository_of(const std::string& given) {
  if (given.empty()) return usage_error("give the repository: a directory inside it");
  Git git = system_git();
  auto top = git.toplevel(given);
  if (!top) return top.error();
  if (!top->has_value()) {
    std::string message("'");
    message += visible(given);
    message += "' is not a directory in a git repository";
    return usage_error(message);
  }
  return **top;
}

}  // namespace

Result<int> list_workers_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  if (auto checked = check_page_options(args.limit, 10000, args.offset); !checked) {
    return checked.error();
  }
  WorkerFilter filter;
  filter.limit = args.limit;
  filter.offset = args.offset;
  if (!args.state.empty()) {
    auto state = parse_worker_state(args.state);
    if (!state) return usage_error("--state: " + state.error().message);
    filter.state = *state;
  }
  if (!args.repo.empty()) {
    auto repo = repository_of(args.repo);
    if (!repo) return repo.error();
    filter.repo = *repo;
  }
  auto workers = opened->store->list_workers(filter);
  if (!workers) return workers.error();
  auto page = listed_page(args.offset, args.limit, workers->size(),
                          [&] { return opened->store->count_workers(filter); });
  if (!page) return page.error();
  const std::string next_page = next_page_command(
      command_of("orrery worker ls",
                 {option_word("--state", args.state), option_word("--repo", filter.repo)}),
      args.limit, WorkerArgs{}.limit, *page);
  if (context.globals.json) {
    json list = json::array();
    for (const Worker& worker : *workers) list.push_back(worker_json(worker));
    *context.out << json_text(list) << '\n';
    tell_rest(context, *page, "workers", next_page);
    return kExitOk;
  }
  if (workers->empty() && args.offset > 0) {
    *context.out << "no workers at offset " << args.offset << '\n';
    return kExitOk;
  }
  if (workers->empty()) {
    *context.out << "no workers; a workflow step with worktree: auto or required makes one\n";
    return kExitOk;
  }
  auto id_handles = column_handles(*opened->store, IdTable::kWorkers, *workers, &Worker::id);
  if (!id_handles) return id_handles.error();
  auto run_handles =
      column_handles(*opened->store, IdTable::kWorkflowRuns, *workers, &Worker::workflow_run_id);
  if (!run_handles) return run_handles.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < workers->size(); ++i) {
    const Worker& worker = (*workers)[i];
    const std::string why = worker.state == WorkerState::kHold     ? worker.hold_reason
                            : worker.state == WorkerState::kFailed ? worker.failure_reason
                                                                   : "";
    rows.push_back({(*id_handles)[i], worker_state_name(worker.state), (*run_handles)[i],
                    worker.step_id, worker.branch, or_dash(shortened(why, 70))});
  }
  print_table(*context.out, {"ID", "STATE", "RUN", "STEP", "BRANCH", "REASON"}, rows);
  tell_rest(context, *page, "workers", next_page);
  return kExitOk;
}

Result<int> show_worker_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto worker = opened->store->resolve_worker(args.id);
  if (!worker) return worker.error();
  auto events = opened->store->worker_events(worker->id);
  if (!events) return events.error();
  if (context.globals.json) {
    print_json(context, worker_json(*worker, *events));
    return kExitOk;
  }
  print_worker(context, *worker, *events);
  return kExitOk;
}

Result<int> resume_worker_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto worker = opened->store->resolve_worker(args.id);
  if (!worker) return worker.error();
  Git git = system_git();
  auto resumed = resume_worker(*opened->store, git, *worker, who(), context.now);
  if (!resumed) return resumed.error();
  notify_daemon(opened->home);
  auto after = opened->store->get_worker(worker->id);
  if (!after) return after.error();
  if (context.globals.json) {
    print_json(context, worker_json(after->value_or(*worker)));
    return kExitOk;
  }
  switch (*resumed) {
    case Resumed::kRunsAgain:
      *context.out << "worker " << worker->id << " resumed: step " << worker->step_id
                   << " runs again in " << worker->worktree_path
                   << " (its workflow run's driver starts it)\n";
      break;
    case Resumed::kReported:
      *context.out << "worker " << worker->id << " reported again; orrery worker enqueue "
                   << worker->id << " puts it in the merge queue\n";
      break;
    case Resumed::kQueued:
      *context.out << "worker " << worker->id << " reported again and back in the merge queue\n";
      break;
  }
  return kExitOk;
}

Result<int> discard_worker_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto worker = opened->store->resolve_worker(args.id);
  if (!worker) return worker.error();
  Git git = system_git();
  auto discarded = discard_worker(*opened->store, git, *worker, context.now);
  if (!discarded) return discarded.error();
  auto after = opened->store->get_worker(worker->id);
  if (!after) return after.error();
  if (context.globals.json) {
    print_json(context, worker_json(after->value_or(*worker)));
    return kExitOk;
  }
  *context.out << "worker " << worker->id << " discarded\n";
  print_fields(*context.out,
               {{"worktree", worker->worktree_path + " " + discarded->worktree},
                {"branch", worker->branch + (discarded->branch_kept.empty()
                                                 ? std::string(" removed")
                                                 : " kept: " + discarded->branch_kept)}});
  return kExitOk;
}

Result<int> enqueue_worker_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto worker = opened->store->resolve_worker(args.id);
  if (!worker) return worker.error();
  auto entry = enqueue_worker(*opened->store, *worker, context.now);
  if (!entry) return entry.error();
  notify_daemon(opened->home);
  if (context.globals.json) {
    print_json(context, merge_entry_json(*entry));
    return kExitOk;
  }
  *context.out << "worker " << worker->id << " is in the merge queue of " << entry->repo << " ("
               << entry->target << ") as " << entry->id << "\n";
  return kExitOk;
}

Result<int> list_queue_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  if (auto checked = check_page_options(args.limit, 10000, args.offset); !checked) {
    return checked.error();
  }
  MergeFilter filter;
  filter.limit = args.limit;
  filter.offset = args.offset;
  if (!args.repo.empty()) {
    auto repo = repository_of(args.repo);
    if (!repo) return repo.error();
    filter.repo = *repo;
  }
  if (!args.state.empty()) {
    auto state = parse_merge_state(args.state);
    if (!state) return usage_error("--state: " + state.error().message);
    filter.state = *state;
  }
  auto entries = opened->store->list_merge_entries(filter);
  if (!entries) return entries.error();
  auto page = listed_page(args.offset, args.limit, entries->size(),
                          [&] { return opened->store->count_merge_entries(filter); });
  if (!page) return page.error();
  const std::string next_page =
      next_page_command(command_of("orrery queue ls",
                                   {operand_word(filter.repo), option_word("--state", args.state)}),
                        args.limit, WorkerArgs{}.limit, *page);
  if (context.globals.json) {
    json list = json::array();
    for (const MergeEntry& entry : *entries) list.push_back(merge_entry_json(entry));
    *context.out << json_text(list) << '\n';
    tell_rest(context, *page, "queue entries", next_page);
    return kExitOk;
  }
  if (entries->empty() && args.offset > 0) {
    *context.out << "no queue entries at offset " << args.offset << '\n';
    return kExitOk;
  }
  if (entries->empty()) {
    *context.out << "the merge queue is empty\n";
    return kExitOk;
  }
  auto id_handles =
      column_handles(*opened->store, IdTable::kMergeEntries, *entries, &MergeEntry::id);
  if (!id_handles) return id_handles.error();
  auto worker_handles =
      column_handles(*opened->store, IdTable::kWorkers, *entries, &MergeEntry::worker_id);
  if (!worker_handles) return worker_handles.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < entries->size(); ++i) {
    const MergeEntry& entry = (*entries)[i];
    rows.push_back({(*id_handles)[i], merge_state_name(entry.state), entry.repo, entry.target,
                    (*worker_handles)[i], short_commit(entry.candidate_revision),
                    or_dash(shortened(entry.reason, 70))});
  }
  print_table(*context.out, {"ID", "STATE", "REPO", "TARGET", "WORKER", "CANDIDATE", "REASON"},
              rows);
  tell_rest(context, *page, "queue entries", next_page);
  return kExitOk;
}

Result<int> show_entry_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  auto entry = opened->store->resolve_merge_entry(args.id);
  if (!entry) return entry.error();
  if (context.globals.json) {
    print_json(context, merge_entry_json(*entry));
    return kExitOk;
  }
  const VerifyRecord& verify = entry->verify;
  std::vector<std::pair<std::string, std::string>> fields = {
      {"id", entry->id},
      {"state", merge_state_name(entry->state)},
      {"repo", entry->repo},
      {"target", entry->target},
      {"worker", entry->worker_id},
      {"candidate", entry->candidate_revision},
      {"put on", or_dash(entry->parent_revision)},
      {"merge commit", or_dash(entry->merge_commit)},
      {"verify", or_dash(verify.command)},
      {"exit status", verify.exit_code ? std::to_string(*verify.exit_code) : "-"},
      {"duration", verify.duration_ms ? std::to_string(*verify.duration_ms) + " ms" : "-"},
      {"verified tree", or_dash(verify.tree)},
      {"reason", or_dash(entry->reason)},
  };
  print_fields(*context.out, fields);
  if (!verify.output_tail.empty()) {
    *context.out << "\nverification output (its end):\n" << terminal_lines(verify.output_tail);
    if (verify.output_tail.back() != '\n') *context.out << '\n';
  }
  return kExitOk;
}

Result<int> queue_config_command(const WorkerArgs& args, const Context& context) {
  auto repo = repository_of(args.repo);
  if (!repo) return repo.error();
  const bool changing = !args.target.empty() || args.verify || args.strategy;
  auto opened = changing ? open_store(context) : open_store_to_read(context);
  if (!opened) return opened.error();
  if (changing) {
    auto config = changed_config(*opened->store, *repo, args);
    if (!config) return config.error();
    if (auto stored = opened->store->configure_queue(*config, context.now); !stored)
      return stored.error();
  }
  auto config = opened->store->queue_config(*repo);
  if (!config) return config.error();
  QueueConfig shown = config->value_or(QueueConfig{});
  shown.repo = *repo;
  if (context.globals.json) {
    print_json(context, queue_config_json(shown));
    return kExitOk;
  }
  print_fields(
      *context.out,
      {{"repo", shown.repo},
       {"target", shown.target.empty() ? "the branch each worker's base came from" : shown.target},
       {"verify", shown.verify.empty() ? "(none set: entries without a step verify: are "
                                         "rejected)"
                                       : shown.verify},
       {"strategy", merge_strategy_name(shown.strategy)}});
  return kExitOk;
}

Result<int> retry_entry_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto entry = opened->store->resolve_merge_entry(args.id);
  if (!entry) return entry.error();
  Git git = system_git();
  auto retried = retry_entry(*opened->store, git, *entry, context.now);
  if (!retried) return retried.error();
  notify_daemon(opened->home);
  if (context.globals.json) {
    print_json(context, merge_entry_json(*retried));
    return kExitOk;
  }
  *context.out << "queue entry " << retried->id << " is waiting again, at the end of the queue of "
               << retried->target << "\n";
  return kExitOk;
}

Result<int> drop_entry_command(const WorkerArgs& args, const Context& context) {
  auto opened = open_store(context);
  if (!opened) return opened.error();
  auto entry = opened->store->resolve_merge_entry(args.id);
  if (!entry) return entry.error();
  auto dropped = drop_entry(*opened->store, *entry, context.now);
  if (!dropped) return dropped.error();
  if (context.globals.json) {
    print_json(context, merge_entry_json(*dropped));
    return kExitOk;
  }
  *context.out << "queue entry " << dropped->id << " dropped; its worker is on hold\n";
  return kExitOk;
}

Result<int> drive_queue_command(const WorkerArgs& args, const Context& context) {
  (void)read_token_fd(args.token_fd);  // the launcher's pipe; a driver has no claim token
  auto opened = open_store(context);
  if (!opened) return opened.error();
  MergeDriverOptions options;
  options.home = opened->home;
  options.driver = "queue@" + SystemProcessProbe().host_name() + ":" + std::to_string(getpid());
  options.process = current_process();
  options.env = process_environment();
  auto driven = drive_merge_queue(*opened->store, {args.repo, args.target}, options);
  if (!driven) return driven.error();
  return kExitOk;
}

}  // namespace orrery::cli
