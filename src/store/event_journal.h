// EventJournal: what changed in the store, in order (docs/server.md, "Live
// events"). The database writes each event itself, by a trigger of the row
// it tells of (store/sql/event_schema.h), so every change of a run, loop,
// item, workflow run, goal, worker, merge entry, cooldown or the daemon
// lease is journalled by whichever process made it, in its transaction.
//
// Invariants: ids only grow, but on a database server they may become
// visible out of order (a transaction that took a lower id commits later),
// so a reader that has seen id N may still find a lower one later; the
// journal keeps about the last kJournalKeep events.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

struct JournalEvent {
  std::int64_t id = 0;
  TimeMs at = 0;
  std::string kind;          // run.running, item.queued, lease.acquired, ...
  std::string subject;       // the id of what it is about
  std::string payload_json;  // an object
};

class EventJournal {
 public:
  virtual ~EventJournal() = default;

  // Up to `limit` events with an id above `after`, lowest id first.
  virtual Result<std::vector<JournalEvent>> events_after(std::int64_t after, int limit) = 0;
  // The highest id in the journal (0 when it is empty).
  virtual Result<std::int64_t> last_event_id() = 0;
};

}  // namespace orrery
