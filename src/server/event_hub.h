// EventHub: the event journal as the event stream's clients read it
// (docs/server.md, "Live events"). One pump reads the journal every poll_ms
// through its own connection and keeps the events it delivered in a ring;
// each client waits on the hub for the events after the last one it has, and
// a client further behind than the ring reads them from the journal.
//
// Invariants: the pump delivers through an EventCursor (core/event_cursor.h),
// so every client gets the events in increasing id order, each once; the ring
// holds every event delivered after ring_after_ up to delivered(); no more
// than max_clients clients are joined at once; after stop() every wait
// returns at once, stopped.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/event_cursor.h"
#include "exec/clock.h"
#include "store/store.h"

namespace orrery::server {

struct EventHubOptions {
  DurationMs hold_ms = 0;    // how long a gap in the ids is waited for (core/event_cursor.h)
  DurationMs poll_ms = 250;  // how often the pump reads the journal
  size_t ring_capacity = 4096;
  int max_clients = 8;
  int read_batch = 500;  // events read at once
};

struct EventBatch {
  std::vector<JournalEvent> events;  // lowest id first
  bool stopped = false;              // the hub stops: the client should end
};

class EventHub {
 public:
  EventHub(std::unique_ptr<Store> store, const EventHubOptions& options, const Clock& clock);
  ~EventHub();
  EventHub(const EventHub&) = delete;
  EventHub& operator=(const EventHub&) = delete;

  // Starts delivering after the journal's last event, pumping on a thread of
  // its own when `pump_thread` (tests pump by hand).
  Status start(bool pump_thread = true);
  void stop();
  // Reads the journal once and wakes the clients if it delivered anything.
  Status pump_once();
  std::int64_t delivered() const;

  // A place among the clients, released when the last copy is destroyed;
  // null when max_clients are joined already.
  using Membership = std::shared_ptr<void>;
  Membership join();
  int max_clients() const { return options_.max_clients; }

  // The events delivered after `after`, waiting up to `wait` for one.
  Result<EventBatch> wait_after(std::int64_t after, std::chrono::milliseconds wait);
  // The journal's oldest and newest ids (0 when it is empty).
  Result<std::pair<std::int64_t, std::int64_t>> journal_bounds();

 private:
  void pump_loop();
  std::vector<JournalEvent> ring_after(std::int64_t after) const;  // with mutex_ held
  Result<std::vector<JournalEvent>> replay(std::int64_t after);

  const EventHubOptions options_;
  const Clock& clock_;
  std::mutex store_mutex_;  // the connection is one thread's at a time
  std::unique_ptr<Store> store_;

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<EventCursor> cursor_;
  std::deque<JournalEvent> ring_;
  std::int64_t ring_after_ = 0;
  int clients_ = 0;
  bool stopped_ = false;
  std::thread pump_;
};

}  // namespace orrery::server
