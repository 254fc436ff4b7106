// RunnerRegistry: the daemons that run runs, as `orrery status` lists them
// (docs/daemon.md, "Runners"). Every daemon registers itself and
// heartbeats its row; a runner not seen for kForgetRunnerMs is forgotten
// when another registers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/run.h"  // ProcessIdentity
#include "core/time.h"

namespace orrery {

inline constexpr DurationMs kForgetRunnerMs = 86'400'000;

struct RunnerRecord {
  std::string id;  // the daemon's claimant: daemon@HOST:PID
  std::string host;
  std::string labels;  // canonical k=v,k=v (core/runner_labels.h)
  ProcessIdentity process;
  std::string home;  // its data directory: where the logs of its runs are
  TimeMs started_at = 0;
  TimeMs last_seen_at = 0;
  std::int64_t running = 0;  // its running runs (filled by list_runners)
};

class RunnerRegistry {
 public:
  virtual ~RunnerRegistry() = default;

  // Writes the runner's row (replacing one of the same id) seen at `now`,
  // and removes rows not seen for kForgetRunnerMs.
  virtual Status register_runner(const RunnerRecord& runner, TimeMs now) = 0;
  // Moves last_seen_at; not_found when the row is gone (the runner registers again).
  virtual Status heartbeat_runner(const std::string& id, TimeMs now) = 0;
  virtual Status remove_runner(const std::string& id) = 0;
  // Every row, host then id.
  virtual Result<std::vector<RunnerRecord>> list_runners() = 0;
};

}  // namespace orrery
