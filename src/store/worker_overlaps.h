// WorkerOverlaps: the warning that two workers of one repository changed
// the same files (docs/workers.md, "Overlaps"), written to the journals of
// both workers' workflow runs as a `worker_overlap` event.
//
// Invariants: both journals get their event in one transaction, each under
// its run's row lock and with the next sequence (as a driver's events); a
// finished run's journal is left alone (its terminal event stays last).
#pragma once

#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

struct WorkerOverlap {
  std::string repo;
  std::vector<std::string> files;  // changed by both, sorted
  // The two workers: their workflow run, step and id.
  std::string run_id;
  std::string step_id;
  std::string worker_id;
  std::string other_run_id;
  std::string other_step_id;
  std::string other_worker_id;
};

class WorkerOverlaps {
 public:
  virtual ~WorkerOverlaps() = default;
  virtual Status note_overlap(const WorkerOverlap& overlap, TimeMs now) = 0;
};

}  // namespace orrery
