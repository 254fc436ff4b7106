#include "core/event_cursor.h"

namespace orrery {

EventCursor::EventCursor(std::int64_t after, DurationMs hold_ms)
    : after_(after), hold_ms_(hold_ms) {}

size_t EventCursor::deliverable(const std::vector<std::int64_t>& read, TimeMs now) {
  size_t count = 0;
  for (const std::int64_t id : read) {
    if (id <= after_) break;  // not read after the cursor: a caller's mistake, deliver nothing more
    if (id != after_ + 1) {
      if (!gap_seen_at_) gap_seen_at_ = now;
      if (now - *gap_seen_at_ < hold_ms_) break;
    }
    gap_seen_at_.reset();
    after_ = id;
    ++count;
  }
  return count;
}

}  // namespace orrery
