// LoopCatalog: the loops a store holds (docs/storage.md, "Loops"): their
// definitions, schedule state and status, found by id, id prefix or name.
//
// Invariants: a loop's config and schedule state each carry a version; a
// write replaces a part only when its version still equals the one read,
// so no change is lost to a concurrent writer; bad input changes nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/loop.h"
#include "core/result.h"
#include "store/fence.h"

namespace orrery {

struct LoopFilter {
  std::optional<LoopStatus> status;
  enum class Archived { kExclude, kInclude, kOnly } archived = Archived::kExclude;
  int limit = 1000;
  int offset = 0;  // rows skipped first, for paging (docs/cli.md)
};

struct DueLoop {
  std::string id;
  TimeMs next_run_at = 0;
  friend bool operator==(const DueLoop&, const DueLoop&) = default;
};

// Which parts of a loop a write replaces (docs/storage.md, "Loop versions").
struct LoopParts {
  bool config = false;  // name, description, schedule, target, policies
  bool state = false;   // ScheduleState
};

class LoopCatalog {
 public:
  virtual ~LoopCatalog() = default;

  virtual Status create_loop(const Loop& loop) = 0;
  virtual Result<std::optional<Loop>> get_loop(const std::string& id) = 0;
  // An id, a name, or an id prefix of at least 6 characters, in that order: a
  // name given exactly wins over the ids it is a prefix of. Ambiguity (two
  // loops of the name, or a prefix of two ids) is a conflict listing the
  // candidates; nothing is not_found.
  virtual Result<Loop> resolve_loop(const std::string& text) = 0;
  virtual Result<std::vector<Loop>> list_loops(const LoopFilter& filter) = 0;
  virtual Result<std::int64_t> count_loops(const LoopFilter& filter) = 0;
  // Active, unarchived loops with next_run_at <= now, soonest first: only
  // what planning needs first (a covering-index read); load a loop with
  // get_loop when its slots are planned.
  virtual Result<std::vector<DueLoop>> due_loops(TimeMs now, int limit) = 0;
  // Replaces the given parts of the loop when each part's version still
  // equals the loop's (as read), bumping each version written; updated_at
  // becomes `now`. A moved version is a conflict ("changed while it was being
  // updated"), a missing loop not_found; nothing is written then.
  virtual Status update_loop_parts(const Loop& loop, LoopParts parts, const Fence& fence,
                                   TimeMs now) = 0;
  // Deletes the loop and its runs; returns the ids of the runs deleted (their
  // directories are the caller's to remove). Checks the database first. While
  // a run of the loop is running nothing is deleted: a conflict names the run
  // and its supervisor's pid (docs/storage.md, "Deleting a loop").
  virtual Result<std::vector<std::string>> delete_loop(const std::string& id) = 0;
  // Active loops whose expires_at has passed become expired. A claim of such
  // a loop expires it as well and is refused (docs/storage.md, "Expiry").
  virtual Result<int> expire_loops(TimeMs now, const Fence& fence) = 0;
};

}  // namespace orrery
