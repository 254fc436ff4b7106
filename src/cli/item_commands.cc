#include "cli/item_commands.h"

#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "cli/handles.h"
#include "cli/human.h"
#include "cli/page_note.h"
#include "cli/store_access.h"
#include "core/duration.h"
#include "core/exit_codes.h"
#include "core/feedback_prompt.h"
#include "core/item_lines.h"
#include "core/text.h"
#include "core/work_item_json.h"
#include "engine/admission_input.h"
#include "exec/wake.h"
#include "exec/worker_actions.h"
#include "ops/items.h"
#include "store/regular_file.h"
#include "views/admission_view.h"
#include "views/document_text.h"

namespace orrery::cli {
namespace {

// `enqueue --from-json`: at most this much text (file or standard input).
constexpr std::int64_t kMaxBatchBytes = 64LL << 20;  // 64 MiB
constexpr int kMaxListedItems = 10'000;

// What holds each waiting item of `items` (docs/admission.md, "Why it
// waits"), planned from the store as the daemon plans a tick. A daemon's
// --global-max-running is its own: an item that only the global cap holds
// shows "next tick" here.
Result<std::map<std::string, std::string>> waiting_reasons(Store& store,
                                                           const std::vector<WorkItem>& items,
                                                           TimeMs now) {
  std::map<std::string, std::string> reasons;
  bool any_waiting = false;
  for (const WorkItem& item : items) {
    any_waiting |= item_is_waiting(item.status) || item.status == ItemStatus::kFailed;
  }
  if (!any_waiting) return reasons;
  auto queue = store.admission_snapshot();
  if (!queue) return queue.error();
  auto holds = route_holds(store, store, store, store, now);
  if (!holds) return holds.error();
  AdmissionPlan plan = plan_admission(admission_input(std::move(*queue), *holds, 0, now));
  for (const std::string& id : plan.admit) reasons[id] = "next tick";
  for (auto& [id, reason] : plan.waiting_on) reasons[id] = std::move(reason);
  return reasons;
}

std::string reason_of(const std::map<std::string, std::string>& reasons, const WorkItem& item) {
  if (item.status == ItemStatus::kFailed && !item.next_attempt_at) return "";
  auto found = reasons.find(item.id);
  return found == reasons.end() ? "" : found->second;
}

std::string item_name(const WorkItem& item) {
  return terminal_text(item.route_name) + "/" + terminal_text(item.key);
}

// Whether any option of a single enqueue was given (they are refused with --from-json).
bool single_options_given(const ItemArgs& a) {
  return !a.key.empty() || a.priority || !a.project.empty() || !a.group.empty() || a.intent ||
         a.subject || a.subject_path || a.subject_url || a.source || a.dedupe || a.input ||
         a.scope || a.output_policy;
}

Result<WorkItem> item_from_options(const ItemArgs& a) {
  if (a.key.empty()) {
    return usage_error("enqueue " + visible(a.route) +
                       " needs --key K (or --from-json FILE|- for one item per line)");
  }
  WorkItem item;
  item.key = a.key;
  item.priority = a.priority.value_or(0);
  item.project = a.project;
  item.group = a.group;
  Invocation& call = item.invocation;
  if (a.intent) call.intent = *a.intent;
  if (a.subject) {
    auto subject = parse_kind_and_id(*a.subject, "--subject");
    if (!subject) return subject.error();
    call.subject.kind = subject->kind;
    call.subject.id = subject->id;
  }
  if (a.subject_path) call.subject.path = *a.subject_path;
  if (a.subject_url) call.subject.url = *a.subject_url;
  if (a.source) {
    auto source = parse_kind_and_id(*a.source, "--source");
    if (!source) return source.error();
    call.source.kind = source->kind;
    call.source.id = source->id;
  }
  if (a.dedupe) call.source.dedupe_key = *a.dedupe;
  const struct {
    const std::optional<std::string>& given;
    const char* option;
    std::string& to;
  } objects[] = {{a.input, "--input", item.input_json},
                 {a.scope, "--scope", call.scope_json},
                 {a.output_policy, "--output-policy", call.output_policy_json}};
  for (const auto& object : objects) {
    if (!object.given) continue;
    auto checked = check_json_object(*object.given, object.option);
    if (!checked) return checked.error();
    object.to = std::move(*checked);
  }
  if (auto valid = check_item_fields(item); !valid) return valid.error();
  return item;
}

Result<std::string> read_batch(const std::string& from) {
  if (from == "-") {
    std::string text;
    char buffer[65536];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
      text.append(buffer, size_t(std::cin.gcount()));
      if (std::int64_t(text.size()) > kMaxBatchBytes) {
        return usage_error("--from-json -: standard input holds more than " +
                           format_count(kMaxBatchBytes) + " bytes; split it (nothing was stored)");
      }
    }
    return text;
  }
  auto file = read_regular_file(from, kMaxBatchBytes);
  if (!file) return usage_error("--from-json " + file.error().message + " (nothing was stored)");
  if (!file->has_value()) return usage_error("--from-json " + visible(from) + " does not exist");
  return std::move(**file);
}

Result<int> print_enqueued(const Context& context, const Enqueued& enqueued) {
  const WorkItem& item = enqueued.item;
  if (context.globals.json) {
    *context.out << json_text(nlohmann::json{{"item", item_json(item, "", context.now)},
                                             {"outcome", enqueue_outcome_name(enqueued.outcome)}})
                 << '\n';
    return kExitOk;
  }
  switch (enqueued.outcome) {
    case EnqueueOutcome::kCreated:
      *context.out << "created item " << item_name(item) << " (" << item.id << "), "
                   << item_status_name(item.status) << '\n';
      break;
    case EnqueueOutcome::kRefreshed:
      *context.out << "refreshed item " << item_name(item) << " (" << item.id << "), "
                   << item_status_name(item.status) << '\n';
      break;
    case EnqueueOutcome::kDuplicate:
      *context.out << "item " << item_name(item) << " (" << item.id << ") is "
                   << item_status_name(item.status)
                   << " already; nothing changed (orrery item requeue reopens a finished one)\n";
      break;
  }
  return kExitOk;
}

void print_batch(const Context& context, const ops::BatchEnqueued& batch) {
  if (context.globals.json) {
    nlohmann::json invalid = nlohmann::json::array();
    for (const InvalidLine& line : batch.invalid) {
      invalid.push_back({{"line", line.line}, {"error", line.error}});
    }
    *context.out << json_text(nlohmann::json{{"created", batch.counts.created},
                                             {"refreshed", batch.counts.refreshed},
                                             {"duplicate", batch.counts.duplicate},
                                             {"invalid", invalid},
                                             {"items", batch.ids}})
                 << '\n';
    return;
  }
  *context.out << batch.counts.created << " created, " << batch.counts.refreshed << " refreshed, "
               << batch.counts.duplicate << " duplicate, " << batch.invalid.size() << " invalid\n";
  for (const InvalidLine& line : batch.invalid) {
    *context.out << "  line " << line.line << ": " << terminal_text(line.error) << '\n';
  }
}

// Every valid line stored in one transaction, or (a store error) none.
Result<int> enqueue_batch(const ops::QueuePlace& place, const std::string& route,
                          const std::string& text, const Context& context) {
  auto batch = ops::enqueue_batch(place, route, text);
  if (!batch) return batch.error();
  print_batch(context, *batch);
  if (batch->invalid.empty()) return kExitOk;
  std::cerr << "orrery: " << batch->invalid.size()
            << " line(s) of --from-json were invalid and not stored; the " << batch->ids.size()
            << " valid ones were\n";
  return kExitUsage;
}

void print_item(const Context& context, const WorkItem& item, const std::string& waiting_on) {
  if (context.globals.json) {
    *context.out << json_text(item_json(item, waiting_on, context.now)) << '\n';
    return;
  }
  const Invocation& call = item.invocation;
  std::vector<std::pair<std::string, std::string>> fields{
      {"id", item.id},
      {"item", item.route_name + "/" + item.key},
      {"status", item_status_name(item.status)}};
  if (!waiting_on.empty()) fields.push_back({"waiting on", waiting_on});
  const std::int64_t effective =
      effective_priority(item.priority, item.queued_at, context.now, item.priority_aging_ms);
  fields.push_back({"priority", item_is_waiting(item.status) && effective != item.priority
                                    ? std::to_string(item.priority) + " (effective " +
                                          std::to_string(effective) + ")"
                                    : std::to_string(item.priority)});
  if (!item.project.empty()) fields.push_back({"project", item.project});
  if (!item.group.empty()) fields.push_back({"group", item.group});
  fields.push_back(
      {"attempts", std::to_string(item.attempts) + " of " + std::to_string(item.max_attempts)});
  if (item.next_attempt_at) {
    fields.push_back({"next attempt", format_relative(*item.next_attempt_at, context.now)});
  }
  if (!item.workflow_run_id.empty()) fields.push_back({"workflow run", item.workflow_run_id});
  if (!item.last_reason.empty()) fields.push_back({"last reason", item.last_reason});
  if (!item.feedback_json.empty())
    fields.push_back({"feedback", feedback_summary(item.feedback_json)});
  if (!call.intent.empty()) fields.push_back({"intent", call.intent});
  if (!call.subject.kind.empty()) {
    std::string subject =
        call.subject.kind + (call.subject.id.empty() ? "" : ":" + call.subject.id);
    if (!call.subject.path.empty()) subject += " " + call.subject.path;
    if (!call.subject.url.empty()) subject += " " + call.subject.url;
    fields.push_back({"subject", subject});
  }
  if (!call.source.kind.empty()) {
    fields.push_back(
        {"source",
         call.source.kind + (call.source.id.empty() ? "" : ":" + call.source.id) +
             (call.source.dedupe_key.empty() ? "" : " (dedupe " + call.source.dedupe_key + ")")});
  }
  if (item.input_json != "{}") fields.push_back({"input", item.input_json});
  if (call.scope_json != "{}") fields.push_back({"scope", call.scope_json});
  if (call.output_policy_json != "{}") fields.push_back({"output policy", call.output_policy_json});
  fields.push_back({"queued", format_relative(item.queued_at, context.now)});
  fields.push_back({"created", format_relative(item.created_at, context.now)});
  fields.push_back({"updated", format_relative(item.updated_at, context.now)});
  print_fields(*context.out, fields);
}

// Stops the workflow run an item was running, as `workflow cancel` does; a
// run already finished is left as it is.
// The changes of a cancelled item's run still waiting (or in conflict) in
// the merge queue are dropped, so that they never land (docs/fleet.md); one
// being verified right now may still merge.
Status drop_queued_changes(Store& store, const WorkItem& item, TimeMs now) {
  WorkerFilter of_run;
  of_run.workflow_run_id = item.workflow_run_id;
  of_run.limit = 10000;
  auto workers = store.list_workers(of_run);
  if (!workers) return workers.error();
  for (const Worker& worker : *workers) {
    auto entry = entry_of(store, worker);
    if (!entry) return entry.error();
    if (!*entry ||
        ((*entry)->state != MergeState::kWaiting && (*entry)->state != MergeState::kConflict))
      continue;
    auto dropped = drop_entry(store, **entry, now, "its work item " + item.id + " was cancelled");
    if (!dropped) return dropped.error();
  }
  return Ok{};
}

void cancel_run_of(Store& store, const WorkItem& before, const Context& context) {
  if (before.workflow_run_id.empty() || !item_holds_capacity(before.status)) return;
  auto run = store.request_workflow_cancel(before.workflow_run_id, context.now);
  if (!run && run.error().code != ErrorCode::kConflict) {
    std::cerr << "orrery: workflow run " << before.workflow_run_id
              << " was not cancelled: " << terminal_text(run.error().message) << '\n';
  }
  if (auto dropped = drop_queued_changes(store, before, context.now); !dropped) {
    std::cerr << "orrery: the queued changes of workflow run " << before.workflow_run_id
              << " were not dropped: " << terminal_text(dropped.error().message) << '\n';
  }
}

}  // namespace

Result<int> enqueue_command(const ItemArgs& args, const Context& context) {
  std::optional<WorkItem> single;
  std::string batch;
  if (args.from_json) {
    if (single_options_given(args)) {
      return usage_error(
          "enqueue --from-json takes every field from its lines; give no --key, --priority, "
          "--project, --group, --intent, --subject*, --source, --dedupe, --input, --scope or "
          "--output-policy with it");
    }
    auto text = read_batch(*args.from_json);
    if (!text) return text.error();
    batch = std::move(*text);
  } else if (args.object) {
    auto item = parse_enqueue_object(*args.object);
    if (!item) return item.error();
    single = std::move(*item);
  } else {
    auto item = item_from_options(args);
    if (!item) return item.error();
    single = std::move(*item);
  }
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  const ops::QueuePlace place{store, store, opened->home, context.now};
  if (!single) return enqueue_batch(place, args.route, batch, context);
  auto enqueued = ops::enqueue(place, args.route, std::move(*single));
  if (!enqueued) return enqueued.error();
  return print_enqueued(context, *enqueued);
}

Result<int> list_items_command(const ItemArgs& args, const Context& context) {
  ItemFilter filter;
  if (!args.status.empty()) {
    auto status = parse_item_status(args.status);
    if (!status) return status.error();
    filter.status = *status;
  }
  if (args.limit < 1 || args.limit > kMaxListedItems) {
    return usage_error("--limit " + std::to_string(args.limit) + ": expected 1 to " +
                       std::to_string(kMaxListedItems));
  }
  if (args.offset < 0)
    return usage_error("--offset " + std::to_string(args.offset) + ": expected 0 or more");
  filter.project = args.project;
  filter.limit = args.limit;
  filter.offset = args.offset;
  filter.now = context.now;
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  if (!args.route.empty()) {
    auto route = store.resolve_route(args.route);
    if (!route) return route.error();
    filter.route_id = route->id;
  }
  auto items = store.list_items(filter);
  if (!items) return items.error();
  auto page = listed_page(args.offset, args.limit, items->size(),
                          [&] { return store.count_items(filter); });
  if (!page) return page.error();
  const std::string next_page =
      next_page_command(command_of("orrery items", {option_word("--route", args.route),
                                                    option_word("--status", args.status),
                                                    option_word("--project", args.project)}),
                        args.limit, ItemArgs{}.limit, *page);
  auto reasons = waiting_reasons(store, *items, context.now);
  if (!reasons) return reasons.error();
  if (context.globals.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const WorkItem& item : *items) {
      list.push_back(item_json(item, reason_of(*reasons, item), context.now));
    }
    *context.out << json_text(list) << '\n';
    tell_rest(context, *page, "items", next_page);
    return kExitOk;
  }
  if (items->empty() && args.offset > 0) {
    *context.out << "no items at offset " << args.offset << '\n';
    return kExitOk;
  }
  if (items->empty()) {
    *context.out << "no items"
                 << (filter.status || !filter.project.empty() || !args.route.empty()
                         ? " match"
                         : "; add one with: orrery enqueue ROUTE --key K")
                 << '\n';
    return kExitOk;
  }
  auto prefixes = column_handles(store, IdTable::kItems, *items, &WorkItem::id);
  if (!prefixes) return prefixes.error();
  std::vector<std::vector<std::string>> rows;
  for (size_t i = 0; i < items->size(); ++i) {
    const WorkItem& item = (*items)[i];
    const std::string why = reason_of(*reasons, item);
    rows.push_back({(*prefixes)[i], item.route_name + "/" + item.key, item_status_name(item.status),
                    std::to_string(item_is_waiting(item.status)
                                       ? effective_priority(item.priority, item.queued_at,
                                                            context.now, item.priority_aging_ms)
                                       : item.priority),
                    item.project.empty() ? "-" : item.project,
                    std::to_string(item.attempts) + "/" + std::to_string(item.max_attempts),
                    !why.empty() ? why : item.last_reason,
                    format_relative(item.updated_at, context.now)});
  }
  print_table(
      *context.out,
      {"ID", "ITEM", "STATUS", "PRIORITY", "PROJECT", "ATTEMPTS", "WAITING ON / REASON", "UPDATED"},
      rows);
  tell_rest(context, *page, "items", next_page);
  return kExitOk;
}

Result<int> show_item_command(const ItemArgs& args, const Context& context) {
  auto opened = open_store_to_read(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto item = store.resolve_item(args.item);
  if (!item) return item.error();
  auto reasons = waiting_reasons(store, {*item}, context.now);
  if (!reasons) return reasons.error();
  print_item(context, *item, reason_of(*reasons, *item));
  return kExitOk;
}

Result<int> requeue_item_command(const ItemArgs& args, const Context& context) {
  const std::string reason = args.reason.value_or("");
  if (auto valid = check_item_reason(reason); !valid) return valid.error();
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto item = store.resolve_item(args.item);
  if (!item) return item.error();
  auto requeued = store.requeue_item(item->id, reason, context.now);
  if (!requeued) return requeued.error();
  notify_daemon(opened->home);
  if (context.globals.json) {
    print_item(context, *requeued, "");
    return kExitOk;
  }
  *context.out << "requeued item " << item_name(*requeued) << " (was "
               << item_status_name(item->status) << "), " << item_status_name(requeued->status)
               << '\n';
  return kExitOk;
}

Result<int> cancel_item_command(const ItemArgs& args, const Context& context) {
  const std::string reason = args.reason.value_or("");
  if (auto valid = check_item_reason(reason); !valid) return valid.error();
  auto opened = open_store(context);
  if (!opened) return opened.error();
  Store& store = *opened->store;
  auto item = store.resolve_item(args.item);
  if (!item) return item.error();
  auto cancelled = store.cancel_item(item->id, reason, context.now);
  if (!cancelled) return cancelled.error();
  cancel_run_of(store, *item, context);
  notify_daemon(opened->home);
  if (context.globals.json) {
    print_item(context, *cancelled, "");
    return kExitOk;
  }
  *context.out << "cancelled item " << item_name(*cancelled)
               << (item->workflow_run_id.empty() || !item_holds_capacity(item->status)
                       ? ""
                       : "; cancelling its workflow run " + item->workflow_run_id)
               << '\n';
  return kExitOk;
}

}  // namespace orrery::cli
