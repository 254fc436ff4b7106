// SqlStore: ids and tokens, the clock, the daemon lease and fencing.
#include "store/sql/sql_store.h"

#include <time.h>

#include "core/ids.h"
#include "core/time.h"
#include "store/sql/column_table.h"

namespace orrery {
namespace {

using sql::read_field;

const sql::ColumnTable<DaemonLease> kLeaseColumns = {
    {"lease_id", read_field<&DaemonLease::lease_id>},
    {"generation", read_field<&DaemonLease::generation>},
    {"pid",
     [](const sql::Statement& r, int c, DaemonLease& lease) -> Status {
       lease.holder.pid = int(r.int64(c));
       return Ok{};
     }},
    {"process_started_at",
     [](const sql::Statement& r, int c, DaemonLease& lease) -> Status {
       lease.holder.started_at = r.optional_int64(c);
       return Ok{};
     }},
    {"host", read_field<&DaemonLease::host>},
    {"acquired_at", read_field<&DaemonLease::acquired_at>},
    {"heartbeat_at", read_field<&DaemonLease::heartbeat_at>},
    {"expires_at", read_field<&DaemonLease::expires_at>},
};

bool same_process(const ProcessIdentity& a, const ProcessIdentity& b) {
  return a.pid == b.pid && a.started_at == b.started_at;
}

}  // namespace

SqlStore::SqlStore(std::unique_ptr<sql::Connection> db, std::shared_ptr<const ProcessProbe> probe,
                   bool trust_caller_clock)
    : db_(std::move(db)),
      probe_(std::move(probe)),
      random_(std::random_device{}()),
      trust_caller_clock_(trust_caller_clock) {}

namespace {

// A server reading is carried forward this long; the error it adds is the
// drift of two clocks over it (parts per million), far below a lease.
constexpr std::int64_t kServerClockReuseMs = 1000;

std::int64_t boot_clock_ms() {
  timespec now{};
  clock_gettime(CLOCK_BOOTTIME, &now);
  return std::int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1'000'000;
}

}  // namespace

Result<TimeMs> SqlStore::clock(TimeMs now) {
  if (trust_caller_clock_) return now;
  const std::int64_t boot_now = boot_clock_ms();
  const std::int64_t since = boot_now - server_read_at_;
  if (server_reading_ && since >= 0 && since < kServerClockReuseMs) {
    return *server_reading_ + since;
  }
  auto server = db_->server_time_ms();
  if (!server) return server.error();
  if (!server->has_value()) return now;  // no server: the caller's clock
  server_reading_ = **server;
  server_read_at_ = boot_clock_ms();
  return **server;
}

std::string SqlStore::random_hex(int bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < bytes; ++i) {
    const auto byte = std::uint8_t(random_());
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
  }
  return out;
}

std::string SqlStore::new_id(TimeMs now) {
  std::array<std::uint8_t, 10> bytes{};
  for (auto& byte : bytes) byte = std::uint8_t(random_());
  return make_id(now, bytes);
}

Status SqlStore::check_fence(const Fence& fence, TimeMs now) {
  if (fence.daemon_lease_id.empty()) return Ok{};
  auto clocked = clock(now);
  if (!clocked) return clocked.error();
  return check_fence_at(fence, *clocked);
}

// Inside a write transaction the lease row stays locked (shared) until the
// commit, so no other daemon can take the lease between the check and the
// writes it fences (docs/storage.md, "Fencing").
Status SqlStore::check_fence_at(const Fence& fence, TimeMs now) {
  if (fence.daemon_lease_id.empty()) return Ok{};
  auto query = db_->prepare("SELECT 1 FROM daemon_lease WHERE lease_id = ?1 AND expires_at > ?2" +
                            std::string(db_->row_lock(sql::RowLock::kShare)));
  if (!query) return query.error();
  (*query)->bind(1, fence.daemon_lease_id).bind(2, now);
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return conflict_error("daemon lease lost");
  return Ok{};
}

Result<std::optional<DaemonLease>> SqlStore::get_daemon_lease() { return read_daemon_lease(""); }

Result<std::optional<DaemonLease>> SqlStore::locked_daemon_lease() {
  return read_daemon_lease(db_->row_lock(sql::RowLock::kUpdate));
}

Result<std::optional<DaemonLease>> SqlStore::read_daemon_lease(std::string_view lock) {
  auto query = db_->prepare("SELECT " + sql::select_list(kLeaseColumns) + " FROM daemon_lease" +
                            std::string(lock));
  if (!query) return query.error();
  auto row = (*query)->step();
  if (!row) return row.error();
  if (!*row) return std::optional<DaemonLease>{};
  auto lease = sql::read_columns(kLeaseColumns, **query);
  if (!lease) return lease.error();
  return std::optional<DaemonLease>{std::move(*lease)};
}

// Read under a row lock, written with a guard on what was read (the row's
// absence, or its generation): of daemons racing for the lease exactly one
// writes it; the others find it live, or lose the guard and get nothing.
Result<std::optional<DaemonLease>> SqlStore::acquire_daemon_lease(const ProcessIdentity& holder,
                                                                  DurationMs ttl_ms,
                                                                  TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  auto transaction = sql::Transaction::begin(*db_);
  if (!transaction) return transaction.error();
  auto current = locked_daemon_lease();
  if (!current) return current.error();
  const std::string host = probe_->host_name();
  if (current->has_value()) {
    const DaemonLease& lease = **current;
    const bool live = lease.expires_at > now;
    const bool ours = same_process(lease.holder, holder) && lease.host == host;
    const bool holder_dead = lease.host == host && !probe_->is_alive(lease.holder);
    if (live && !ours && !holder_dead) return std::optional<DaemonLease>{};
  }
  const std::int64_t generation = current->has_value() ? (*current)->generation + 1 : 1;
  std::string lease_id = "L";
  lease_id += std::to_string(generation);
  lease_id += '-';
  lease_id += random_hex(10);
  auto write = db_->prepare(
      current->has_value()
          ? "UPDATE daemon_lease SET lease_id = ?1, generation = ?2, pid = ?3, "
            "process_started_at = ?4, host = ?5, acquired_at = ?6, heartbeat_at = ?6, "
            "expires_at = ?7 WHERE slot = 1 AND generation = ?2 - 1"
          : "INSERT INTO daemon_lease (slot, lease_id, generation, pid, process_started_at, "
            "host, acquired_at, heartbeat_at, expires_at) VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?6, "
            "?7) ON CONFLICT (slot) DO NOTHING");
  if (!write) return write.error();
  (*write)
      ->bind(1, lease_id)
      .bind(2, generation)
      .bind(3, holder.pid)
      .bind(4, holder.started_at)
      .bind(5, host)
      .bind(6, now)
      .bind(7, add_saturating(now, ttl_ms));
  if (auto status = (*write)->run(); !status) return status.error();
  if (db_->changes() != 1) return std::optional<DaemonLease>{};  // another daemon was first
  if (auto status = (*transaction)->commit(); !status) return status.error();
  return get_daemon_lease();
}

Status SqlStore::heartbeat_daemon_lease(const std::string& lease_id, DurationMs ttl_ms,
                                        TimeMs caller_now) {
  auto clocked = clock(caller_now);
  if (!clocked) return clocked.error();
  const TimeMs now = *clocked;
  auto write = db_->prepare(
      "UPDATE daemon_lease SET heartbeat_at = ?2, expires_at = ?3 "
      "WHERE lease_id = ?1 AND expires_at > ?2");
  if (!write) return write.error();
  (*write)->bind(1, lease_id).bind(2, now).bind(3, add_saturating(now, ttl_ms));
  if (auto status = (*write)->run(); !status) return status;
  if (db_->changes() != 1) return conflict_error("daemon lease lost");
  return Ok{};
}

Status SqlStore::release_daemon_lease(const std::string& lease_id, TimeMs now) {
  // The row stays, expired (expires_at 0, whatever the other hosts' clocks
  // say), so that the next generation follows this one; its last heartbeat
  // is the release (daemon_leases.h).
  auto write =
      db_->prepare("UPDATE daemon_lease SET expires_at = 0, heartbeat_at = ?2 WHERE lease_id = ?1");
  if (!write) return write.error();
  (*write)->bind(1, lease_id).bind(2, now);
  return (*write)->run();
}

}  // namespace orrery
