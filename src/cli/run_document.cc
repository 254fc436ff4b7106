#include "cli/run_document.h"

#include <ostream>
#include <utility>
#include <vector>

#include "cli/handles.h"
#include "cli/human.h"
#include "core/duration.h"
#include "core/text.h"
#include "core/timezone.h"
#include "exec/process_identity.h"
#include "ops/runs.h"
#include "store/home_layout.h"
#include "views/document_text.h"
#include "views/run_view.h"

namespace orrery::cli {
namespace {

// "route inbox: 5 created, 0 refreshed, 1 duplicate, 2 invalid", for `run show`.
std::string feed_text(const RunFeed& feed) {
  const std::string& name = feed.route_name.empty() ? feed.route_id : feed.route_name;
  std::string text = "route " + terminal_text(name) + ": ";
  switch (feed.status) {
    case FeedStatus::kPending:
      return text + "pending (a daemon on the run's host reads its output)";
    case FeedStatus::kFailed:
      return text + "failed, no item enqueued: " + terminal_text(feed.error);
    case FeedStatus::kFed:
      break;
  }
  return text + std::to_string(feed.created) + " created, " + std::to_string(feed.refreshed) +
         " refreshed, " + std::to_string(feed.duplicate) + " duplicate, " +
         std::to_string(feed.invalid) + " invalid";
}

void print_invalid_lines(std::ostream& out, const RunFeed& feed) {
  for (const InvalidLine& line : feed.invalid_lines) {
    out << "  line " << line.line << ": " << terminal_text(line.error) << '\n';
  }
  const std::int64_t kept = std::int64_t(feed.invalid_lines.size());
  if (feed.invalid > kept) out << "  (" << feed.invalid - kept << " more invalid lines)\n";
}

}  // namespace

std::string outcome_text(const Run& run) {
  std::string text = run_status_name(run.status);
  if (run.duration_ms) text += " in " + format_duration(*run.duration_ms);
  if (run.exit_code) text += ", exit " + std::to_string(*run.exit_code);
  if (!run.error.empty() && run.error.rfind("exit status", 0) != 0) text += ": " + run.error;
  if (!run.skip_reason.empty()) text += " (" + run.skip_reason + ")";
  return text;
}

nlohmann::json run_document(Store& store, const Run& run, bool with_output) {
  return run_document_json(run, ops::run_links(store, store, run.id), with_output);
}

void print_run(const Context& context, Store& store, const Run& run) {
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
  const RunLinks links = ops::run_links(store, store, run.id);
  if (const std::string& workflow_run = links.workflow_run_id; !workflow_run.empty()) {
    // The whole id when its handle cannot be read: a document is still shown.
    auto handle = handle_of(store, IdTable::kWorkflowRuns, workflow_run);
    rows.emplace_back("workflow run", workflow_run + " (orrery workflow show-run " +
                                          (handle ? *handle : workflow_run) + ")");
  }
  if (!run.host.empty()) {
    const bool here = runs_on_host(run, SystemProcessProbe().host_name());
    const std::string logs =
        here ? "" : " (logs: " + HomeLayout::relative_run(run.id) + "/ in its data directory)";
    rows.emplace_back("host", terminal_text(run.host) + logs);
  }
  if (links.feed) rows.emplace_back("feed", feed_text(*links.feed));
  print_fields(*context.out, rows);
  if (links.feed) print_invalid_lines(*context.out, *links.feed);
  // The tails are the program's output: kept as lines, other controls escaped.
  if (!run.stdout_tail.empty()) {
    *context.out << "--- stdout\n" << terminal_lines(run.stdout_tail) << '\n';
  }
  if (!run.stderr_tail.empty()) {
    *context.out << "--- stderr\n" << terminal_lines(run.stderr_tail) << '\n';
  }
}

void print_run_document(const Context& context, Store& store, const Run& run) {
  if (context.globals.json) {
    *context.out << json_text(run_document(store, run, true)) << '\n';
  } else {
    print_run(context, store, run);
  }
}

}  // namespace orrery::cli
