#include "server/event_hub.h"

#include <algorithm>

namespace orrery::server {

EventHub::EventHub(std::unique_ptr<Store> store, const EventHubOptions& options, const Clock& clock)
    : options_(options), clock_(clock), store_(std::move(store)) {}

EventHub::~EventHub() { stop(); }

Status EventHub::start(bool pump_thread) {
  std::int64_t last = 0;
  {
    std::lock_guard store_lock(store_mutex_);
    auto read = store_->last_event_id();
    if (!read) return read.error();
    last = *read;
  }
  {
    std::lock_guard lock(mutex_);
    cursor_.emplace(last, options_.hold_ms);
    ring_after_ = last;
  }
  if (pump_thread) pump_ = std::thread([this] { pump_loop(); });
  return Ok{};
}

void EventHub::stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
  }
  changed_.notify_all();
  if (pump_.joinable()) pump_.join();
}

std::int64_t EventHub::delivered() const {
  std::lock_guard lock(mutex_);
  return cursor_ ? cursor_->after() : 0;
}

void EventHub::pump_loop() {
  std::unique_lock lock(mutex_);
  while (!stopped_) {
    lock.unlock();
    (void)pump_once();  // a busy or unreachable store is read again at the next poll
    lock.lock();
    changed_.wait_for(lock, std::chrono::milliseconds(options_.poll_ms),
                      [this] { return stopped_; });
  }
}

Status EventHub::pump_once() {
  const std::int64_t after = delivered();
  std::vector<JournalEvent> read;
  {
    std::lock_guard store_lock(store_mutex_);
    auto events = store_->events_after(after, options_.read_batch);
    if (!events) return events.error();
    read = std::move(*events);
  }
  std::vector<std::int64_t> ids;
  ids.reserve(read.size());
  for (const JournalEvent& event : read) ids.push_back(event.id);
  {
    std::lock_guard lock(mutex_);
    if (!cursor_ || cursor_->after() != after) return Ok{};  // not started, or pumped meanwhile
    const size_t count = cursor_->deliverable(ids, clock_.wall_now());
    if (count == 0) return Ok{};
    for (size_t i = 0; i < count; ++i) ring_.push_back(std::move(read[i]));
    while (ring_.size() > options_.ring_capacity) {
      ring_after_ = ring_.front().id;
      ring_.pop_front();
    }
  }
  changed_.notify_all();
  return Ok{};
}

EventHub::Membership EventHub::join() {
  std::lock_guard lock(mutex_);
  if (clients_ >= options_.max_clients) return nullptr;
  ++clients_;
  return Membership(static_cast<void*>(this), [](void* hub) {
    auto* self = static_cast<EventHub*>(hub);
    std::lock_guard released(self->mutex_);
    --self->clients_;
  });
}

std::vector<JournalEvent> EventHub::ring_after(std::int64_t after) const {
  const auto first =
      std::upper_bound(ring_.begin(), ring_.end(), after,
                       [](std::int64_t id, const JournalEvent& event) { return id < event.id; });
  const size_t available = size_t(ring_.end() - first);
  const auto last = first + std::ptrdiff_t(std::min(available, size_t(options_.read_batch)));
  return {first, last};
}

Result<EventBatch> EventHub::wait_after(std::int64_t after, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  if (!stopped_ && cursor_ && after < ring_after_) {
    const std::int64_t delivered_up_to = cursor_->after();
    lock.unlock();
    auto older = replay(after);
    if (!older) return older.error();
    EventBatch batch;
    for (JournalEvent& event : *older)
      if (event.id <= delivered_up_to) batch.events.push_back(std::move(event));
    if (!batch.events.empty()) return batch;
    lock.lock();
    after = std::max(after, ring_after_);  // nothing older is left: go on from the ring
  }
  changed_.wait_for(lock, wait, [&] { return stopped_ || (cursor_ && cursor_->after() > after); });
  EventBatch batch;
  batch.stopped = stopped_;
  if (!stopped_) batch.events = ring_after(after);
  return batch;
}

Result<std::vector<JournalEvent>> EventHub::replay(std::int64_t after) {
  std::lock_guard store_lock(store_mutex_);
  return store_->events_after(after, options_.read_batch);
}

Result<std::pair<std::int64_t, std::int64_t>> EventHub::journal_bounds() {
  std::lock_guard store_lock(store_mutex_);
  auto oldest = store_->events_after(0, 1);
  if (!oldest) return oldest.error();
  auto newest = store_->last_event_id();
  if (!newest) return newest.error();
  return std::pair{oldest->empty() ? std::int64_t{0} : oldest->front().id, *newest};
}

}  // namespace orrery::server
