// EventCursor: how far a reader of the event journal has delivered, and
// which of the events it has just read it may deliver now (docs/server.md,
// "Live events").
//
// On a database server ids are taken when a transaction writes an event and
// become visible when it commits, so a reader may see id 12 before id 11:
// the cursor delivers events only while their ids follow each other, holds
// back at a gap, and skips the gap once it has stood for `hold_ms` (the
// transaction rolled back, or the journal was pruned there). With a
// hold of 0 a gap is skipped at once, as on SQLite, where a reader sees the
// journal whole up to its last commit.
//
// Invariants: delivered ids strictly increase; after() is the last id
// delivered; nothing at or below after() is delivered again.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/time.h"

namespace orrery {

class EventCursor {
 public:
  EventCursor(std::int64_t after, DurationMs hold_ms);

  // Of `read` — the ids of the events read after after(), lowest first —
  // how many to deliver now, in order; after() moves to the last of them.
  size_t deliverable(const std::vector<std::int64_t>& read, TimeMs now);

  std::int64_t after() const { return after_; }

 private:
  std::int64_t after_;
  DurationMs hold_ms_;
  std::optional<TimeMs> gap_seen_at_;  // when the gap above after_ was first seen
};

}  // namespace orrery
