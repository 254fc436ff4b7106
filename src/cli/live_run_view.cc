#include "cli/live_run_view.h"

#include <algorithm>
#include <vector>

#include "core/duration.h"
#include "core/text.h"
#include "core/workflow_graph.h"
#include "core/workflow_spec.h"

namespace orrery::cli {
namespace {

constexpr int kEventsPerRead = 1000;

// The length of each step's longest chain of dependencies.
std::map<std::string, int> step_depths(const WorkflowSpec& spec) {
  std::map<std::string, int> depth;
  std::map<std::string, const WorkflowStep*> by_id;
  for (const WorkflowStep& step : spec.steps) by_id[step.id] = &step;
  for (const std::string& id : topological_order(spec)) {
    int deepest = 0;
    for (const std::string& dependency : by_id[id]->depends_on)
      deepest = std::max(deepest, depth[dependency] + 1);
    depth[id] = deepest;
  }
  return depth;
}

const char* status_mark(StepStatus status) {
  switch (status) {
    case StepStatus::kPending:
      return "·";
    case StepStatus::kRunning:
      return "▶";
    case StepStatus::kSucceeded:
      return "✓";
    case StepStatus::kSkipped:
      return "-";
    default:
      return "✗";
  }
}

// Written piece by piece: g++ 12 at -O3 warns (-Wrestrict) on "x" + string.
void print_step_line(std::ostream& out, const StepRun& step, int depth, TimeMs now) {
  out << std::string(size_t(2 + 2 * std::min(depth, 20)), ' ') << status_mark(step.status) << ' '
      << terminal_text(step.step_id) << "  " << step_status_name(step.status);
  if (step.started_at) {
    const TimeMs end = step.finished_at.value_or(std::max(now, *step.started_at));
    out << "  " << format_duration(end - *step.started_at);
  }
  if (step.attempts > 1) out << "  (attempt " << step.attempts << ')';
  if (is_finished(step.status) && !step.error.empty()) out << "  " << terminal_text(step.error);
  out << '\n';
}

}  // namespace

void print_event_line(std::ostream& out, const WorkflowEvent& event) {
  out << format_time(event.created_at) << "  " << event.event_type;
  if (!event.step_id.empty()) out << "  " << terminal_text(event.step_id);
  if (event.payload_json != "{}") out << "  " << terminal_text(event.payload_json);
  out << '\n';
}

Status LiveRunView::update(TimeMs now) {
  if (quiet_) return Ok{};
  Status shown = tty_ ? draw_tree(now) : print_events();
  out_.flush();
  return shown;
}

Status LiveRunView::print_events() {
  while (true) {
    auto events = store_.list_workflow_events(run_id_, last_event_, kEventsPerRead);
    if (!events) return events.error();
    for (const WorkflowEvent& event : *events) {
      print_event_line(out_, event);
      last_event_ = event.sequence;
    }
    if (int(events->size()) < kEventsPerRead) return Ok{};
  }
}

Status LiveRunView::draw_tree(TimeMs now) {
  auto run = store_.get_workflow_run(run_id_);
  if (!run) return run.error();
  if (!run->has_value()) return not_found_error("workflow run " + run_id_ + " is gone");
  if (depth_.empty()) {
    auto workflow = store_.get_workflow((*run)->workflow_id);
    if (!workflow) return workflow.error();
    if (workflow->has_value()) depth_ = step_depths((*workflow)->spec);
  }
  auto steps = store_.list_step_runs(run_id_);
  if (!steps) return steps.error();
  std::stable_sort(steps->begin(), steps->end(), [&](const StepRun& a, const StepRun& b) {
    return depth_[a.step_id] < depth_[b.step_id];
  });
  if (lines_drawn_ > 0) out_ << "\x1b[" << lines_drawn_ << "A\x1b[J";  // back to the top
  const WorkflowRun& shown = **run;
  const TimeMs started = shown.started_at.value_or(now);
  out_ << terminal_text(shown.workflow_name) << "  " << workflow_run_status_name(shown.status)
       << "  " << format_duration(shown.finished_at.value_or(std::max(now, started)) - started)
       << '\n';
  for (const StepRun& step : *steps) print_step_line(out_, step, depth_[step.step_id], now);
  lines_drawn_ = 1 + int(steps->size());
  return Ok{};
}

}  // namespace orrery::cli
