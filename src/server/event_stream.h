// GET /v1/events: the event journal as server-sent events (docs/server.md,
// "Live events"). Each event is a frame of `id:` (its journal id),
// `event:` (its kind) and one `data:` line, a JSON object; a comment line is
// sent as a heartbeat whenever nothing happened for `heartbeat`.
//
// Invariants: a client resumes after the id it names in Last-Event-ID (or
// the `after` parameter) and misses nothing the journal still holds; when the
// journal no longer holds what it missed, or never held the id it names, the
// first frame is a `journal.reset` event, telling it to read the state
// afresh; a client over the hub's limit is refused with 429 before anything
// is streamed.
#pragma once

#include <chrono>
#include <string>

#include "server/event_hub.h"
#include "server/http_message.h"

namespace orrery::server {

struct EventStreamSettings {
  std::chrono::milliseconds heartbeat{15'000};
  int retry_ms = 2'000;  // the reconnection delay a client is told
};

HttpResponse event_stream(EventHub& hub, const HttpRequest& request,
                          const EventStreamSettings& settings);

// The frame of one journal event.
std::string sse_frame(const JournalEvent& event);

}  // namespace orrery::server
