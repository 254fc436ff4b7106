// Benchmarks of the SQLite store (docs/benchmarks.md). WAL,
// synchronous NORMAL, each database in a fresh temporary directory
// ($ORRERY_BENCH_DIR, else the system temporary directory).
//
// BM_ClaimFinalize_Store: claim_slot + finalize_run of a fresh slot per
//   iteration; items/s = cycles/s.
// BM_ClaimFinalize_CApi/finalize_txn:0|1: the same two writes as minimal SQL
//   straight on the SQLite C API, on the same migrated schema: an INSERT of a
//   running run in BEGIN IMMEDIATE/COMMIT, then the UPDATE that finalizes it,
//   guarded by claimant, token and a live lease. finalize_txn:0 runs the
//   UPDATE as one autocommit statement (what the store does); :1 wraps it in
//   its own BEGIN IMMEDIATE/COMMIT. Both commit twice per cycle, like the store.
// BM_ClaimBatch: claim_slots of 100 due slots of 100 loops in one call;
//   items/s = slots claimed per second.
// BM_CreateLoop: create_loop per iteration; items/s = loops created per second.
// BM_DueQuery: due_loops(now, 500) over 100,000 loops of which 1 % are due;
//   each call is timed and the p50/p99 (ms) are reported as counters.
//
// At exit the binary prints the ratio of the store's claim+finalize rate to
// the C API's (median runs when repetitions are used).
#include <benchmark/benchmark.h>
#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/ids.h"
#include "exec/process_identity.h"
#include "store/sqlite/sqlite_store.h"

namespace orrery {
namespace {

constexpr DurationMs kMinute = 60'000;
constexpr TimeMs kNow = 1'772'355'600'000;  // 2026-03-01T09:00:00Z

void die(const std::string& what, const std::string& message) {
  std::fprintf(stderr, "store_bench: %s: %s\n", what.c_str(), message.c_str());
  std::exit(1);
}

template <typename T>
T must(Result<T> result, const char* what) {
  if (!result) die(what, result.error().message);
  return std::move(*result);
}

void must(const Status& status, const char* what) {
  if (!status) die(what, status.error().message);
}

class BenchDir {
 public:
  BenchDir() {
    const char* root = std::getenv("ORRERY_BENCH_DIR");
    const std::filesystem::path base =
        root && *root ? std::filesystem::path(root) : std::filesystem::temp_directory_path();
    std::string pattern = (base / "orrery-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) die("mkdtemp", pattern);
    path_ = pattern;
  }
  ~BenchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  std::string db() const { return path_ + "/orrery.db"; }

 private:
  std::string path_;
};

std::unique_ptr<SqliteStore> open_store(const std::string& path) {
  SqliteOptions options;
  options.path = path;
  options.probe = std::make_shared<SystemProcessProbe>();
  options.now = kNow;
  return must(SqliteStore::open(options), "open store");
}

// Ids that grow with n, like ids made at successive instants.
std::string id_for(std::uint64_t n, TimeMs now) {
  std::array<std::uint8_t, 10> bytes{};
  for (size_t i = 0; i < 8; ++i) bytes[i] = std::uint8_t(n >> (8 * (7 - i)));
  bytes[8] = 0x5a;
  bytes[9] = 0xa5;
  return make_id(now, bytes);
}

Loop make_loop(std::uint64_t n, std::optional<TimeMs> next_run_at) {
  Loop loop;
  loop.id = id_for(n, kNow);
  loop.name = "bench-" + std::to_string(n);
  loop.schedule.type = ScheduleType::kInterval;
  loop.schedule.every_ms = kMinute;
  loop.target.argv = {"/bin/true"};
  loop.next_run_at = next_run_at;
  loop.lease_ms = 60'000;
  loop.max_attempts = 1;
  loop.created_at = kNow;
  loop.updated_at = kNow;
  return loop;
}

// ---------------------------------------------------------------------------
// claim + finalize through the store.

void BM_ClaimFinalize_Store(benchmark::State& state) {
  BenchDir dir;
  auto store = open_store(dir.db());
  const Loop loop = make_loop(1, kNow);
  must(store->create_loop(loop), "create loop");
  RunOutcome outcome;
  outcome.status = RunStatus::kSucceeded;
  outcome.exit_code = 0;
  // The clock advances a millisecond per cycle, so that run ids (time
  // first) grow as they do in production.
  TimeMs now = kNow;
  TimeMs slot = kNow - 1'000'000 * kMinute;
  for (auto _ : state) {
    auto claimed = must(store->claim_slot({loop.id, slot}, "bench", now, Fence{}), "claim");
    if (!claimed) die("claim", "slot was not claimed");
    must(store->finish_claim(claimed->claim, outcome, now), "finalize");
    slot += kMinute;
    ++now;
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClaimFinalize_Store)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---------------------------------------------------------------------------
// The same SQL straight on the C API.

class RawStatement {
 public:
  RawStatement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr) != SQLITE_OK) {
      die("prepare", sqlite3_errmsg(db));
    }
  }
  ~RawStatement() { sqlite3_finalize(stmt_); }
  sqlite3_stmt* get() { return stmt_; }
  // Steps to completion and resets.
  void run() {
    int rc;
    while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW) {
    }
    if (rc != SQLITE_DONE) die("step", sqlite3_errmsg(db_));
    sqlite3_reset(stmt_);
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

void bind_text(sqlite3_stmt* stmt, int index, const std::string& text) {
  sqlite3_bind_text(stmt, index, text.data(), int(text.size()), SQLITE_TRANSIENT);
}

std::string hex_token(std::mt19937_64& random) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "g1-";
  for (int i = 0; i < 10; ++i) {
    const auto byte = std::uint8_t(random());
    out += kHex[byte >> 4];
    out += kHex[byte & 0xf];
  }
  return out;
}

void BM_ClaimFinalize_CApi(benchmark::State& state) {
  const bool finalize_in_transaction = state.range(0) != 0;
  BenchDir dir;
  const Loop loop = make_loop(1, kNow);
  {
    auto store = open_store(dir.db());  // creates and migrates the schema
    must(store->create_loop(loop), "create loop");
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(dir.db().c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    die("open", sqlite3_errmsg(db));
  }
  sqlite3_busy_timeout(db, 5000);
  if (sqlite3_exec(db,
                   "PRAGMA journal_mode=WAL; PRAGMA foreign_keys=ON; PRAGMA synchronous=NORMAL;",
                   nullptr, nullptr, nullptr) != SQLITE_OK) {
    die("pragmas", sqlite3_errmsg(db));
  }
  {
    RawStatement begin(db, "BEGIN IMMEDIATE");
    RawStatement commit(db, "COMMIT");
    RawStatement insert(
        db,
        "INSERT INTO runs (id, loop_id, loop_name, scheduled_for, attempt, status, started_at, "
        "claimed_by, claim_token, claim_generation, lease_expires_at, created_at, updated_at) "
        "VALUES (?1, ?2, ?3, ?4, 1, 'running', ?5, ?6, ?7, 1, ?8, ?5, ?5) "
        "ON CONFLICT (loop_id, scheduled_for) DO NOTHING");
    RawStatement finalize(
        db,
        "UPDATE runs SET status = ?5, finished_at = ?4, duration_ms = ?4 - started_at, "
        "exit_code = ?6, signal = NULL, error = '', stdout = '', stderr = '', "
        "input_tokens = NULL, output_tokens = NULL, cost_usd = NULL, claim_token = '', "
        "lease_expires_at = NULL, updated_at = ?4 "
        "WHERE id = ?1 AND status = 'running' AND claimed_by = ?2 AND claim_token = ?3 "
        "AND lease_expires_at > ?4");
    std::mt19937_64 random(1);
    std::uint64_t n = 0;
    TimeMs now = kNow;
    TimeMs slot = kNow - 1'000'000 * kMinute;
    for (auto _ : state) {
      std::array<std::uint8_t, 10> bytes{};
      for (auto& byte : bytes) byte = std::uint8_t(random());
      const std::string run_id = make_id(now, bytes);
      const std::string token = hex_token(random);
      begin.run();
      sqlite3_stmt* s = insert.get();
      bind_text(s, 1, run_id);
      bind_text(s, 2, loop.id);
      bind_text(s, 3, loop.name);
      sqlite3_bind_int64(s, 4, slot);
      sqlite3_bind_int64(s, 5, now);
      bind_text(s, 6, "bench");
      bind_text(s, 7, token);
      sqlite3_bind_int64(s, 8, now + loop.lease_ms);
      insert.run();
      if (sqlite3_changes(db) != 1) die("claim", "slot was not claimed");
      commit.run();

      if (finalize_in_transaction) begin.run();
      sqlite3_stmt* f = finalize.get();
      bind_text(f, 1, run_id);
      bind_text(f, 2, "bench");
      bind_text(f, 3, token);
      sqlite3_bind_int64(f, 4, now);
      bind_text(f, 5, "succeeded");
      sqlite3_bind_int64(f, 6, 0);
      finalize.run();
      if (sqlite3_changes(db) != 1) die("finalize", "the claim was lost");
      if (finalize_in_transaction) commit.run();
      slot += kMinute;
      ++now;
      ++n;
    }
    benchmark::DoNotOptimize(n);
  }
  sqlite3_close(db);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ClaimFinalize_CApi)
    ->ArgName("finalize_txn")
    ->Arg(0)
    ->Arg(1)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// ---------------------------------------------------------------------------
// A tick's due slots claimed together.

void BM_ClaimBatch(benchmark::State& state) {
  const int loops = int(state.range(0));
  BenchDir dir;
  auto store = open_store(dir.db());
  std::vector<SlotRequest> requests;
  must(store->database().exec("BEGIN"), "begin");
  for (int i = 0; i < loops; ++i) {
    const Loop loop = make_loop(std::uint64_t(i + 1), kNow);
    must(store->create_loop(loop), "create loop");
    requests.push_back({loop.id, 0});
  }
  must(store->database().exec("COMMIT"), "commit");
  TimeMs now = kNow;
  TimeMs slot = kNow - 1'000'000 * kMinute;
  std::int64_t claimed_total = 0;
  for (auto _ : state) {
    for (SlotRequest& request : requests) request.slot = slot;
    auto claimed = must(store->claim_slots(requests, "bench", now, Fence{}), "claim batch");
    if (int(claimed.size()) != loops) die("claim batch", "not every slot was claimed");
    claimed_total += std::int64_t(claimed.size());
    slot += kMinute;
    ++now;
  }
  state.SetItemsProcessed(claimed_total);
}
BENCHMARK(BM_ClaimBatch)->ArgName("slots")->Arg(100)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---------------------------------------------------------------------------
// Loop creation.

void BM_CreateLoop(benchmark::State& state) {
  BenchDir dir;
  auto store = open_store(dir.db());
  Loop loop = make_loop(0, kNow);
  std::uint64_t n = 0;
  for (auto _ : state) {
    ++n;
    loop.id = id_for(n, kNow);
    loop.name = "bench-" + std::to_string(n);
    must(store->create_loop(loop), "create loop");
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CreateLoop)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---------------------------------------------------------------------------
// The due query over 100,000 loops, 1 % due.

constexpr int kDueLoops = 100'000;
constexpr int kDueLimit = 500;
constexpr int kDueCalls = 2'000;

struct DueDatabase {
  BenchDir dir;
  std::unique_ptr<SqliteStore> store;
};

DueDatabase& due_database() {
  static DueDatabase* database = [] {
    auto* made = new DueDatabase;
    made->store = open_store(made->dir.db());
    std::mt19937_64 random(3);
    must(made->store->database().exec("BEGIN"), "begin");
    for (int i = 0; i < kDueLoops; ++i) {
      // Every 100th loop is due (spread over the last hour); the rest fall
      // due within the next week.
      const bool due = i % 100 == 0;
      const TimeMs next = due ? kNow - TimeMs(random() % 3'600'000)
                              : kNow + 1 + TimeMs(random() % (7 * 86'400'000LL));
      must(made->store->create_loop(make_loop(std::uint64_t(i + 1), next)), "create loop");
    }
    must(made->store->database().exec("COMMIT"), "commit");
    must(made->store->database().exec("ANALYZE"), "analyze");
    auto due = must(made->store->due_loops(kNow, kDueLoops), "due loops");
    if (int(due.size()) != kDueLoops / 100) die("due loops", "1 % of the loops should be due");
    return made;
  }();
  return *database;
}

double percentile(std::vector<double> samples, double fraction) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const size_t index =
      std::min(samples.size() - 1, size_t(fraction * double(samples.size() - 1) + 0.5));
  return samples[index];
}

void BM_DueQuery(benchmark::State& state) {
  SqliteStore& store = *due_database().store;
  std::vector<double> millis;
  millis.reserve(kDueCalls);
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    auto due = must(store.due_loops(kNow, kDueLimit), "due loops");
    const auto elapsed = std::chrono::steady_clock::now() - start;
    if (int(due.size()) != kDueLimit) die("due loops", "expected a full page");
    benchmark::DoNotOptimize(due.data());
    millis.push_back(std::chrono::duration<double, std::milli>(elapsed).count());
  }
  state.counters["p50_ms"] = percentile(millis, 0.50);
  state.counters["p99_ms"] = percentile(millis, 0.99);
  state.counters["max_ms"] = percentile(millis, 1.0);
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DueQuery)->Iterations(kDueCalls)->Unit(benchmark::kMicrosecond)->UseRealTime();

// ---------------------------------------------------------------------------
// The store / C API ratio, from what the console reporter sees.

class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      const bool aggregate = run.run_type == Run::RT_Aggregate;
      if (aggregate && run.aggregate_name != "median") continue;
      auto rate = run.counters.find("items_per_second");
      if (rate == run.counters.end()) continue;
      // Without repetitions there is one iteration run per benchmark; with
      // them, the median aggregate replaces the runs.
      const std::string name =
          run.run_name.function_name + (run.run_name.args.empty() ? "" : "/" + run.run_name.args);
      auto& slot = rates_[name];
      if (aggregate || !slot.from_aggregate) slot = {double(rate->second), aggregate};
    }
    ConsoleReporter::ReportRuns(runs);
  }

  void print_ratio() const {
    const auto store = rates_.find("BM_ClaimFinalize_Store");
    if (store == rates_.end()) return;
    for (const char* name :
         {"BM_ClaimFinalize_CApi/finalize_txn:0", "BM_ClaimFinalize_CApi/finalize_txn:1"}) {
      const auto capi = rates_.find(name);
      if (capi == rates_.end() || capi->second.rate <= 0) continue;
      std::printf("claim+finalize: store %.0f/s, %s %.0f/s, store/C API = %.3f (%s)\n",
                  store->second.rate, name, capi->second.rate,
                  store->second.rate / capi->second.rate,
                  store->second.from_aggregate ? "medians" : "single runs");
    }
  }

 private:
  struct Rate {
    double rate = 0;
    bool from_aggregate = false;
  };
  std::map<std::string, Rate> rates_;
};

}  // namespace
}  // namespace orrery

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  orrery::RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  reporter.print_ratio();
  benchmark::Shutdown();
  return 0;
}
