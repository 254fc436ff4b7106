// What `workflow run --wait` and `workflow cancel` show while a run goes on
// (docs/workflows.md, "Commands"): on a terminal, the run's steps as a tree
// in dependency order (each step indented below its deepest dependency),
// with status, duration and attempts, redrawn in place after each change;
// elsewhere (a pipe, a file) the journal, one line per event, so the output
// stays a log. Nothing is shown with --json.
#pragma once

#include <cstdint>
#include <map>
#include <ostream>
#include <string>

#include "core/result.h"
#include "core/workflow.h"
#include "store/store.h"

namespace orrery::cli {

class LiveRunView {
 public:
  LiveRunView(Store& store, std::string run_id, std::ostream& out, bool tty, bool quiet)
      : store_(store), run_id_(std::move(run_id)), out_(out), tty_(tty), quiet_(quiet) {}

  // Shows what changed since the last call.
  Status update(TimeMs now);

 private:
  Status print_events();
  Status draw_tree(TimeMs now);

  Store& store_;
  std::string run_id_;
  std::ostream& out_;
  bool tty_;
  bool quiet_;
  std::int64_t last_event_ = 0;
  int lines_drawn_ = 0;
  std::map<std::string, int> depth_;  // of each step, from the spec (read once)
};

// Prints one journal entry as a line: time, event, step, payload.
void print_event_line(std::ostream& out, const WorkflowEvent& event);

}  // namespace orrery::cli
