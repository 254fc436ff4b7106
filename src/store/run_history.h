// RunHistory: reading the runs a store holds, and pruning old ones
// (docs/storage.md, "Runs", "Pruning"). Lists leave out the output tails
// (get_run reads them); ids resolve by prefix as loops do.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/page_cursor.h"
#include "core/result.h"
#include "core/run.h"

namespace orrery {

struct RunFilter {
  std::optional<std::string> loop_id;
  std::optional<RunStatus> status;
  int limit = 100;
  int offset = 0;  // rows skipped first, for paging (docs/cli.md)
  // Only the runs after this one in the newest-first order: a page that
  // starts where the last ended, whatever was created since (docs/server.md).
  std::optional<PageKey> after;
};

struct PruneOptions {
  std::optional<DurationMs> older_than;  // terminal runs created before now - this
  std::optional<int> keep;               // beyond the newest N per loop
  bool dry_run = false;
  TimeMs now = 0;
};

struct PruneSummary {
  std::int64_t runs = 0;
  std::vector<std::string> run_ids;  // the runs deleted (none on a dry run)
};

class RunHistory {
 public:
  virtual ~RunHistory() = default;

  virtual Result<std::optional<Run>> get_run(const std::string& id) = 0;
  virtual Result<std::optional<Run>> get_run_by_slot(const std::string& loop_id, TimeMs slot) = 0;
  // Newest first, without the output tails (stdout_tail and stderr_tail are
  // empty; get_run reads them).
  virtual Result<std::vector<Run>> list_runs(const RunFilter& filter) = 0;
  virtual Result<std::int64_t> count_runs(std::optional<RunStatus> status) = 0;
  // Runs matching the filter's loop, status and `after` (its limit and
  // offset ignored).
  virtual Result<std::int64_t> count_matching_runs(const RunFilter& filter) = 0;
  // A run id or an id prefix of at least 6 characters: ambiguity is a
  // conflict listing the candidates, a shorter prefix a usage error, nothing
  // not_found.
  virtual Result<Run> resolve_run(const std::string& text) = 0;
  // Running, queued and pending runs (without tails), oldest slot first.
  virtual Result<std::vector<Run>> active_runs(int limit) = 0;
  // Checks the database first (a damaged one is refused, unchanged).
  virtual Result<PruneSummary> prune_runs(const PruneOptions& options) = 0;
};

}  // namespace orrery
