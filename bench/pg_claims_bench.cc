// pg_claims_bench: claims on PostgreSQL, orrery's store beside a raw-SQL floor
// measured by the same program on the same server in the same run
// (docs/benchmarks.md, "Claims on PostgreSQL"). Run it through
// bench/pg_claims_bench.sh, which starts a throwaway durable cluster.
//
// Scenarios (each with 1, 4 and 8 clients; a client is a thread with its own
// connection; every client repeats its step until nothing is left):
//   1a  floor: BEGIN; SELECT 1 job FOR UPDATE SKIP LOCKED; UPDATE it done; COMMIT
//   1b  floor: claim 1 job (one UPDATE ... SKIP LOCKED, autocommit); then
//       complete it (one UPDATE guarded by the claimant, autocommit)
//   1c  floor: as 1a with 100 jobs per claim
//   1d  floor: as 1b with 100 jobs per claim
//   2   orrery: Store::claim_pending(claimant, labels, 100, now)
//   3   orrery: Store::claim_pending(claimant, labels, 1, now), then
//       Store::finalize_run of the run claimed
// Every measurement gets a fresh copy (CREATE DATABASE ... TEMPLATE) of a
// database made once, holding exactly --jobs jobs (floor: rows of a plain
// `jobs` table; orrery: pending runs planned by the scheduler's plan
// commit), vacuumed and analysed; the server is checkpointed before the
// clients start. The rate is items drained per wall-clock second, from the
// moment every client is connected to the moment the last one finds nothing
// left. Afterwards the bench checks that every item was processed once, and
// counts the transactions the server committed per item (pg_stat_database).
//
// Measurements are interleaved (run 1 of every scenario at every client
// count, then run 2, ...) so that noise on the shared machine spreads over
// all of them; the tables give medians, and each orrery figure's ratio to its
// floor is the median of the per-run ratios.
//
// Options: --jobs N (20,000), --clients 1,4,8, --runs N (3), --slots-per-loop
// N (100: 200 loops of 100 pending slots), --only KEYS; --statements prints
// each measurement's statements from pg_stat_statements (the driver loads
// it); --setup-only makes the template databases pg_claims_bench_jobs and
// pg_claims_bench_pending, keeps them and stops (for EXPLAIN by hand).
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <latch>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <pqxx/pqxx>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/ids.h"
#include "core/loop.h"
#include "core/runner_labels.h"
#include "exec/clock.h"
#include "exec/process_identity.h"
#include "store/postgres/postgres_store.h"

namespace orrery {
namespace {

constexpr DurationMs kMinute = 60'000;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "pg_claims_bench: %s\n", message.c_str());
  std::exit(1);
}

template <typename T>
T must(Result<T> result, const std::string& what) {
  if (!result) die(what + ": " + result.error().message);
  return std::move(*result);
}

void must(const Status& status, const std::string& what) {
  if (!status) die(what + ": " + status.error().message);
}

// ------------------------------------------------------------------ options

struct Options {
  std::string url;  // the cluster's maintenance database
  int jobs = 20'000;
  std::vector<int> clients = {1, 4, 8};
  int runs = 3;
  int slots_per_loop = 100;
  std::vector<std::string> only;  // scenario keys; empty: all
  bool statements = false;        // print pg_stat_statements per measurement
  bool setup_only = false;        // make the template databases, keep them, stop
};

std::vector<int> parse_int_list(const std::string& text) {
  std::vector<int> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) values.push_back(std::stoi(item));
  return values;
}

std::vector<std::string> parse_word_list(const std::string& text) {
  std::vector<std::string> words;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) words.push_back(item);
  return words;
}

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: pg_claims_bench --url URL [--jobs N] [--clients 1,4,8] [--runs N]\n"
               "                       [--slots-per-loop N] [--only 1a,1b,1c,1d,2,3] "
               "[--statements]\n"
               "                       [--setup-only]\n");
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options options;
  if (const char* url = std::getenv("ORRERY_TEST_PG")) options.url = url;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    try {
      if (arg == "--url") {
        options.url = value();
      } else if (arg == "--jobs") {
        options.jobs = std::stoi(value());
      } else if (arg == "--clients") {
        options.clients = parse_int_list(value());
      } else if (arg == "--runs") {
        options.runs = std::stoi(value());
      } else if (arg == "--slots-per-loop") {
        options.slots_per_loop = std::stoi(value());
      } else if (arg == "--only") {
        options.only = parse_word_list(value());
      } else if (arg == "--statements") {
        options.statements = true;
      } else if (arg == "--setup-only") {
        options.setup_only = true;
      } else {
        usage();
      }
    } catch (const std::exception&) {
      usage();
    }
  }
  if (options.url.empty() || options.jobs < 1 || options.runs < 1 || options.clients.empty() ||
      options.slots_per_loop < 1) {
    usage();
  }
  return options;
}

// The same server's URL with `database` in place of the URL's database.
std::string with_database(const std::string& url, const std::string& database) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) die("not a postgres:// URL: " + url);
  const auto path = url.find('/', scheme + 3);
  if (path == std::string::npos) return url + "/" + database;
  const auto query = url.find('?', path);
  return url.substr(0, path + 1) + database + (query == std::string::npos ? "" : url.substr(query));
}

// ---------------------------------------------------------------- scenarios

enum class Kind { kFloor, kBatched, kCycle };

struct Scenario {
  const char* key;
  const char* title;
  Kind kind;
  int transactions;  // per claim, for the floor
  int batch;         // items per claim
};

const Scenario kScenarios[] = {
    {"1a", "floor: 1 transaction per job, 1 job per claim", Kind::kFloor, 1, 1},
    {"1b", "floor: 2 transactions per job, 1 job per claim", Kind::kFloor, 2, 1},
    {"1c", "floor: 1 transaction per claim of 100 jobs", Kind::kFloor, 1, 100},
    {"1d", "floor: 2 transactions per claim of 100 jobs", Kind::kFloor, 2, 100},
    {"2", "orrery: claim_pending of 100 (slots/s)", Kind::kBatched, 1, 100},
    {"3", "orrery: claim_pending of 1 + finalize_run (runs/s)", Kind::kCycle, 2, 1},
};

const Scenario& scenario(const std::string& key) {
  for (const Scenario& s : kScenarios) {
    if (key == s.key) return s;
  }
  die("no scenario " + key);
}

// ------------------------------------------------------------------ clients

// One client: its own connection; step() claims (and completes) one batch
// and gives how many items it processed, 0 when nothing is left.
class Client {
 public:
  virtual ~Client() = default;
  virtual int step() = 0;
};

// The floor: a plain table of jobs, claimed with FOR UPDATE SKIP LOCKED.
class FloorClient final : public Client {
 public:
  FloorClient(const std::string& url, std::string name, const Scenario& s)
      : connection_(url), name_(std::move(name)), scenario_(s) {
    connection_.prepare("lock",
                        "SELECT id, payload FROM jobs WHERE status = 'pending' ORDER BY id "
                        "LIMIT $1 FOR UPDATE SKIP LOCKED");
    connection_.prepare("finish_locked",
                        "UPDATE jobs SET status = 'done', locked_by = $2, finished_at = now() "
                        "WHERE id = ANY($1::bigint[])");
    connection_.prepare("claim",
                        "UPDATE jobs SET status = 'running', locked_by = $1, locked_at = now() "
                        "WHERE id IN (SELECT id FROM jobs WHERE status = 'pending' ORDER BY id "
                        "LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING id, payload");
    connection_.prepare("finish",
                        "UPDATE jobs SET status = 'done', finished_at = now() "
                        "WHERE id = ANY($1::bigint[]) AND status = 'running' AND locked_by = $2");
  }

  int step() override {
    return scenario_.transactions == 1 ? step_in_one_transaction() : step_in_two_transactions();
  }

 private:
  static std::string id_array(const pqxx::result& rows) {
    std::string ids = "{";
    for (const auto& row : rows) {
      if (ids.size() > 1) ids += ',';
      ids += row[0].c_str();
    }
    return ids + "}";
  }

  int step_in_one_transaction() {
    pqxx::work work(connection_);
    const pqxx::result rows = work.exec_prepared("lock", scenario_.batch);
    if (rows.empty()) {
      work.commit();
      return 0;
    }
    const pqxx::result done = work.exec_prepared("finish_locked", id_array(rows), name_);
    if (done.affected_rows() != rows.size()) die("the floor completed fewer jobs than it locked");
    work.commit();
    return int(rows.size());
  }

  int step_in_two_transactions() {
    pqxx::result rows;
    {
      pqxx::nontransaction claim(connection_);
      rows = claim.exec_prepared("claim", name_, scenario_.batch);
    }
    if (rows.empty()) return 0;
    pqxx::nontransaction finish(connection_);
    const pqxx::result done = finish.exec_prepared("finish", id_array(rows), name_);
    if (done.affected_rows() != rows.size()) die("the floor completed fewer jobs than it claimed");
    return int(rows.size());
  }

  pqxx::connection connection_;
  std::string name_;
  Scenario scenario_;
};

std::unique_ptr<PostgresStore> open_store(const std::string& url) {
  PostgresOptions options;
  options.url = url;
  options.shown_url = url;
  options.probe = std::make_shared<SystemProcessProbe>();
  options.now = wall_clock_now();
  options.trust_caller_clock = false;
  return must(PostgresStore::open(options), "cannot open the store");
}

// The selector of every bench loop, and the labels of every bench runner.
const std::vector<EnvVar> kMachine = {{"pool", "bench"}};

std::string runner_labels() {
  const RunnerLabels labels =
      must(runner_labels_of({"pool=bench"}, SystemProcessProbe().host_name()), "runner labels");
  return labels_text(labels);
}

// orrery: a runner claiming pending runs, and with kCycle finalizing each.
class OrreryClient final : public Client {
 public:
  OrreryClient(const std::string& url, std::string claimant, const Scenario& s)
      : store_(open_store(url)),
        claimant_(std::move(claimant)),
        labels_(runner_labels()),
        scenario_(s) {}

  int step() override {
    const auto claimed =
        must(store_->claim_pending(claimant_, labels_, scenario_.batch, wall_clock_now()), "claim");
    if (scenario_.kind == Kind::kCycle) {
      RunOutcome outcome;
      outcome.status = RunStatus::kSucceeded;
      outcome.exit_code = 0;
      outcome.stdout_tail = "ok\n";
      for (const ClaimedRun& run : claimed) {
        must(store_->finish_claim(run.claim, outcome, wall_clock_now()), "finalize");
      }
    }
    return int(claimed.size());
  }

 private:
  std::unique_ptr<PostgresStore> store_;
  std::string claimant_;
  std::string labels_;
  Scenario scenario_;
};

// ------------------------------------------------------------------- set-up

void make_jobs(const std::string& url, int jobs) {
  pqxx::connection connection(url);
  pqxx::nontransaction sql(connection);
  sql.exec(
      "CREATE TABLE jobs (id bigserial PRIMARY KEY, payload text NOT NULL, "
      "status text NOT NULL DEFAULT 'pending', locked_by text, locked_at timestamptz, "
      "finished_at timestamptz)");
  sql.exec("CREATE INDEX jobs_pending ON jobs (id) WHERE status = 'pending'");
  sql.exec("INSERT INTO jobs (payload) SELECT 'job ' || i FROM generate_series(1, " +
           std::to_string(jobs) + ") AS i");
}

Loop bench_loop(int index, TimeMs now, int slots) {
  static std::mt19937_64 random(std::random_device{}());
  std::array<std::uint8_t, 10> bytes{};
  for (auto& byte : bytes) byte = std::uint8_t(random());
  Loop loop;
  loop.id = make_id(now, bytes);
  loop.name = "bench-" + std::to_string(index);
  loop.schedule.type = ScheduleType::kInterval;
  loop.schedule.every_ms = kMinute;
  loop.target.argv = {"true"};
  loop.machine = kMachine;
  loop.next_run_at = now - TimeMs(slots) * kMinute;
  loop.max_attempts = 1;
  loop.lease_ms = 10 * kMinute;
  loop.created_at = loop.updated_at = now;
  return loop;
}

// `jobs` pending runs: loops of `slots_per_loop` past slots each, created
// and planned for runners by the scheduler's plan commit, 100 loops a commit.
void make_pending_runs(const std::string& url, int jobs, int slots_per_loop) {
  auto store = open_store(url);
  const TimeMs now = wall_clock_now();
  const auto lease =
      must(store->acquire_daemon_lease(current_process(), 10 * kMinute, now), "lease");
  if (!lease) die("the bench database's daemon lease is taken");
  const Fence fence{lease->lease_id};
  int left = jobs;
  int index = 0;
  while (left > 0) {
    std::vector<LoopPlanCommit> plans;
    int planned = 0;
    while (left > 0 && plans.size() < 100) {
      const int slots = std::min(left, slots_per_loop);
      const Loop loop = bench_loop(index++, now, slots);
      must(store->create_loop(loop), "create_loop");
      LoopPlanCommit plan;
      plan.loop_id = loop.id;
      plan.state_version = loop.state_version;
      for (int i = 0; i < slots; ++i) plan.claim.push_back(*loop.next_run_at + i * kMinute);
      plan.state = schedule_state(loop);
      plan.state.next_run_at = *loop.next_run_at + TimeMs(slots) * kMinute;
      plan.to_runners = true;
      plans.push_back(std::move(plan));
      left -= slots;
      planned += slots;
    }
    const auto results = must(store->commit_plans(plans, "scheduler", now, fence), "commit_plans");
    size_t pending = 0;
    for (const LoopPlanResult& result : results) {
      if (!result.applied) die("a plan of the set-up was not applied");
      pending += result.pending.size();
    }
    if (int(pending) != planned) {
      die("the set-up planned " + std::to_string(planned) + " pending runs, the store made " +
          std::to_string(pending));
    }
  }
  must(store->release_daemon_lease(lease->lease_id, wall_clock_now()), "release lease");
}

// ------------------------------------------------------------- measurement

struct ServerCounts {
  std::int64_t commits = 0;
  std::int64_t rollbacks = 0;
  std::int64_t wal_syncs = 0;  // the whole server's: only the bench uses it
  std::int64_t wal_bytes = 0;
};

// The commits and rollbacks of `database` once no backend is connected to it
// (a backend's statistics reach pg_stat_database at the latest when it exits).
ServerCounts settled_counts(pqxx::connection& admin, const std::string& database) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (true) {
    pqxx::nontransaction sql(admin);
    const auto busy =
        sql.exec_params("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", database)[0][0]
            .as<long>();
    if (busy == 0 || std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pqxx::nontransaction sql(admin);
  sql.exec("SELECT pg_stat_clear_snapshot()");
  const auto row = sql.exec_params(
      "SELECT xact_commit, xact_rollback FROM pg_stat_database WHERE datname = $1", database)[0];
  const auto wal = sql.exec("SELECT wal_sync, wal_bytes FROM pg_stat_wal")[0];
  return {row[0].as<std::int64_t>(), row[1].as<std::int64_t>(), wal[0].as<std::int64_t>(),
          wal[1].as<std::int64_t>()};
}

struct Measurement {
  double seconds = 0;
  std::int64_t items = 0;
  double rate = 0;                   // items per second
  double transactions_per_item = 0;  // commits (and rollbacks) per item
  double wal_syncs_per_item = 0;     // WAL flushes to disk per item
  double wal_bytes_per_item = 0;
  double client_cpu_us_per_item = 0;  // the bench process's CPU: the clients' side
};

// User and system CPU time of this process (every thread) so far.
double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto seconds = [](const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// Runs every client until each finds nothing left; the time runs from the
// moment all are connected and released at once to the last one's end.
std::pair<double, std::int64_t> drain(std::vector<std::unique_ptr<Client>>& clients) {
  std::latch start(1);
  std::atomic<std::int64_t> items{0};
  std::mutex failure_mutex;
  std::string failure;
  std::vector<std::thread> threads;
  for (auto& client : clients) {
    threads.emplace_back([&, c = client.get()] {
      start.wait();
      try {
        std::int64_t mine = 0;
        while (const int n = c->step()) mine += n;
        items += mine;
      } catch (const std::exception& error) {
        std::lock_guard lock(failure_mutex);
        failure = error.what();
      }
    });
  }
  const auto begin = std::chrono::steady_clock::now();
  start.count_down();
  for (auto& thread : threads) thread.join();
  const auto end = std::chrono::steady_clock::now();
  if (!failure.empty()) die("a client failed: " + failure);
  return {std::chrono::duration<double>(end - begin).count(), items.load()};
}

void check_floor_done(const std::string& url, int jobs) {
  pqxx::connection connection(url);
  pqxx::nontransaction sql(connection);
  const auto done = sql.exec("SELECT count(*) FROM jobs WHERE status = 'done'")[0][0].as<long>();
  if (done != jobs) die("the floor left " + std::to_string(jobs - done) + " jobs not done");
}

void check_orrery_done(const std::string& url, const Scenario& s, int jobs) {
  auto store = open_store(url);
  const RunStatus status = s.kind == Kind::kCycle ? RunStatus::kSucceeded : RunStatus::kRunning;
  const auto count = must(store->count_runs(status), "count_runs");
  if (count != jobs) {
    die(std::string(s.key) + " ended with " + std::to_string(count) + " runs " +
        run_status_name(status) + ", not " + std::to_string(jobs));
  }
}

void print_statements(pqxx::connection& admin, const std::string& database, std::int64_t items) {
  pqxx::nontransaction sql(admin);
  const auto rows = sql.exec_params(
      "SELECT s.calls, s.total_exec_time, s.rows, regexp_replace(s.query, '\\s+', ' ', 'g') "
      "FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid "
      "WHERE d.datname = $1 ORDER BY s.total_exec_time DESC LIMIT 12",
      database);
  std::printf("    %10s %10s %10s  %s\n", "calls/item", "ms total", "us/call", "statement");
  for (const auto& row : rows) {
    const double calls = row[0].as<double>();
    const double total = row[1].as<double>();
    std::string query = row[3].c_str();
    if (query.size() > 150) query = query.substr(0, 147) + "...";
    std::printf("    %10.3f %10.1f %10.1f  %s\n", calls / double(items), total,
                calls > 0 ? 1000 * total / calls : 0.0, query.c_str());
  }
}

// The database every measurement of `kind` starts from a copy of.
std::string template_name(Kind kind) {
  return kind == Kind::kFloor ? "pg_claims_bench_jobs" : "pg_claims_bench_pending";
}

// Makes the template of `kind` once: --jobs jobs, or --jobs pending runs,
// vacuumed and analysed, so that each measurement's copy starts with the
// same rows, visibility map and planner statistics.
void make_template(const Options& options, Kind kind) {
  pqxx::connection admin(options.url);
  const std::string database = template_name(kind);
  pqxx::nontransaction(admin).exec("DROP DATABASE IF EXISTS " + database);
  pqxx::nontransaction(admin).exec("CREATE DATABASE " + database);
  const std::string url = with_database(options.url, database);
  const auto begin = std::chrono::steady_clock::now();
  if (kind == Kind::kFloor) {
    make_jobs(url, options.jobs);
  } else {
    make_pending_runs(url, options.jobs, options.slots_per_loop);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::fprintf(stderr, "set-up: %d %s in %.2f s (%.0f/s)\n", options.jobs,
               kind == Kind::kFloor ? "jobs inserted" : "pending runs planned by commit_plans",
               seconds, options.jobs / seconds);
  pqxx::connection connection(url);
  pqxx::nontransaction(connection).exec("VACUUM ANALYZE");
}

void drop_template(const Options& options, Kind kind) {
  pqxx::connection admin(options.url);
  pqxx::nontransaction(admin).exec("DROP DATABASE IF EXISTS " + template_name(kind) +
                                   " WITH (FORCE)");
}

Measurement measure(const Options& options, const Scenario& s, int clients, int serial) {
  pqxx::connection admin(options.url);
  const std::string database = "pg_claims_bench_" + std::to_string(serial);
  {
    pqxx::nontransaction sql(admin);
    sql.exec("DROP DATABASE IF EXISTS " + database);
    sql.exec("CREATE DATABASE " + database + " TEMPLATE " + template_name(s.kind));
    sql.exec("CHECKPOINT");
  }
  const std::string url = with_database(options.url, database);

  // Counted from here: the clients' connections (and the store's checks
  // when it opens) add a few transactions, far below one per 1,000 items.
  const ServerCounts before = settled_counts(admin, database);
  std::vector<std::unique_ptr<Client>> workers;
  for (int i = 0; i < clients; ++i) {
    const std::string name = "bench-client-" + std::to_string(i);
    if (s.kind == Kind::kFloor) {
      workers.push_back(std::make_unique<FloorClient>(url, name, s));
    } else {
      workers.push_back(std::make_unique<OrreryClient>(url, "daemon@" + name, s));
    }
  }
  if (options.statements) pqxx::nontransaction(admin).exec("SELECT pg_stat_statements_reset()");
  const double cpu_before = process_cpu_seconds();
  const auto [seconds, items] = drain(workers);
  const double client_cpu = process_cpu_seconds() - cpu_before;
  workers.clear();
  const ServerCounts after = settled_counts(admin, database);

  if (items != options.jobs) {
    die(std::string(s.key) + " processed " + std::to_string(items) + " items, not " +
        std::to_string(options.jobs));
  }
  if (s.kind == Kind::kFloor) {
    check_floor_done(url, options.jobs);
  } else {
    check_orrery_done(url, s, options.jobs);
  }
  Measurement m;
  m.seconds = seconds;
  m.items = items;
  m.rate = double(items) / seconds;
  m.transactions_per_item =
      double(after.commits - before.commits + after.rollbacks - before.rollbacks) / double(items);
  m.wal_syncs_per_item = double(after.wal_syncs - before.wal_syncs) / double(items);
  m.wal_bytes_per_item = double(after.wal_bytes - before.wal_bytes) / double(items);
  m.client_cpu_us_per_item = 1e6 * client_cpu / double(items);
  std::fprintf(stderr,
               "  %-3s %d client(s): %9.0f items/s  %6.2f s  per item: %.3f transactions, "
               "%.3f WAL flushes, %.0f WAL bytes, %.1f us client CPU\n",
               s.key, clients, m.rate, m.seconds, m.transactions_per_item, m.wal_syncs_per_item,
               m.wal_bytes_per_item, m.client_cpu_us_per_item);
  if (options.statements) print_statements(admin, database, items);
  pqxx::nontransaction(admin).exec("DROP DATABASE " + database + " WITH (FORCE)");
  return m;
}

// ------------------------------------------------------------------ report

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

std::string thousands(double value) {
  const long long rounded = std::llround(value);
  std::string digits = std::to_string(rounded);
  for (int i = int(digits.size()) - 3; i > 0; i -= 3) digits.insert(size_t(i), ",");
  return digits;
}

std::string fixed(double value, int decimals) {
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// results[key][clients] = one Measurement per run.
using Results = std::map<std::string, std::map<int, std::vector<Measurement>>>;

void print_report(const Options& options, const std::vector<std::string>& keys,
                  const Results& results) {
  std::printf("\n%d jobs per measurement, median of %d run(s); items/s (each run's figure)\n\n",
              options.jobs, options.runs);
  std::printf("| scenario |");
  for (int c : options.clients) std::printf(" %d client%s |", c, c == 1 ? "" : "s");
  std::printf(" transactions per item | WAL bytes per item |\n| --- |");
  for (size_t i = 0; i < options.clients.size(); ++i) std::printf(" ---: |");
  std::printf(" ---: | ---: |\n");
  for (const std::string& key : keys) {
    std::printf("| %s %s |", key.c_str(), scenario(key).title);
    std::vector<double> transactions;
    std::vector<double> wal_bytes;
    for (int c : options.clients) {
      std::vector<double> rates;
      std::string each;
      for (const Measurement& m : results.at(key).at(c)) {
        rates.push_back(m.rate);
        transactions.push_back(m.transactions_per_item);
        wal_bytes.push_back(m.wal_bytes_per_item);
        each += (each.empty() ? "" : ", ") + thousands(m.rate);
      }
      std::printf(" %s (%s) |", thousands(median(rates)).c_str(), each.c_str());
    }
    std::printf(" %s | %s |\n", fixed(median(transactions), 3).c_str(),
                thousands(median(wal_bytes)).c_str());
  }

  const std::pair<const char*, const char*> ratios[] = {{"2", "1c"}, {"3", "1b"}};
  bool header = false;
  for (const auto& [mine, floor] : ratios) {
    if (!results.count(mine) || !results.count(floor)) continue;
    if (!header) {
      std::printf(
          "\norrery / floor, median of the per-run ratios (floor / orrery in brackets)\n\n");
      std::printf("| ratio |");
      for (int c : options.clients) std::printf(" %d client%s |", c, c == 1 ? "" : "s");
      std::printf("\n| --- |");
      for (size_t i = 0; i < options.clients.size(); ++i) std::printf(" ---: |");
      std::printf("\n");
      header = true;
    }
    std::printf("| %s / %s |", mine, floor);
    for (int c : options.clients) {
      const auto& a = results.at(mine).at(c);
      const auto& b = results.at(floor).at(c);
      std::vector<double> values;
      for (size_t i = 0; i < a.size() && i < b.size(); ++i) values.push_back(a[i].rate / b[i].rate);
      const double ratio = median(values);
      std::printf(" %s (%s×) |", fixed(ratio, 2).c_str(), fixed(1 / ratio, 2).c_str());
    }
    std::printf("\n");
  }
}

int run(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  std::vector<std::string> keys;
  for (const Scenario& s : kScenarios) {
    if (options.only.empty() ||
        std::find(options.only.begin(), options.only.end(), s.key) != options.only.end()) {
      keys.push_back(s.key);
    }
  }
  for (const std::string& key : options.only) scenario(key);  // an unknown key dies
  if (options.statements) {
    pqxx::connection admin(options.url);
    pqxx::nontransaction(admin).exec("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
  }
  {
    pqxx::connection admin(options.url);
    pqxx::nontransaction sql(admin);
    const auto row = sql.exec(
        "SELECT version(), current_setting('fsync'), current_setting('synchronous_commit'), "
        "current_setting('full_page_writes'), current_setting('shared_buffers')")[0];
    std::printf(
        "server: %s\nfsync=%s synchronous_commit=%s full_page_writes=%s "
        "shared_buffers=%s\n",
        row[0].c_str(), row[1].c_str(), row[2].c_str(), row[3].c_str(), row[4].c_str());
    std::fflush(stdout);
  }

  bool floor = false;
  bool pending = false;
  for (const std::string& key : keys) (scenario(key).kind == Kind::kFloor ? floor : pending) = true;
  if (floor) make_template(options, Kind::kFloor);
  if (pending) make_template(options, Kind::kBatched);
  if (options.setup_only) return 0;

  Results results;
  int serial = 0;
  for (int r = 1; r <= options.runs; ++r) {
    std::fprintf(stderr, "run %d of %d\n", r, options.runs);
    for (int c : options.clients) {
      for (const std::string& key : keys) {
        results[key][c].push_back(measure(options, scenario(key), c, ++serial));
      }
    }
  }
  if (floor) drop_template(options, Kind::kFloor);
  if (pending) drop_template(options, Kind::kBatched);
  print_report(options, keys, results);
  return 0;
}

}  // namespace
}  // namespace orrery

int main(int argc, char** argv) {
  try {
    return orrery::run(argc, argv);
  } catch (const std::exception& error) {
    orrery::die(error.what());
  }
}
