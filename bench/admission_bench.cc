// admission_bench: the admission queue's costs beside raw-SQL floors measured
// by the same program, on the same database and connection layer, in the
// same run (docs/benchmarks.md, "The admission queue"). Backends: SQLite (a
// file in a temporary directory, as the default data directory has it) and,
// with --url, PostgreSQL (a database created per measurement on that
// server; run it through `WITH_POSTGRES_DURABLE=1 scripts/with-postgres`).
//
// Scenarios:
//   single  floor: one autocommit INSERT of a row into `floor_items` (a
//           table with the columns and keys of an item) per item;
//           orrery: Store::enqueue_item per item (its invocation too).
//   batch   floor: BEGIN; 1,000 INSERTs; COMMIT, per batch;
//           orrery: Store::enqueue_items of 1,000 (one transaction).
//   tick    10,000 queued items over 100 projects on one route with
//           --max-per-project 1: the daemon's admission step
//           (engine/admitting.h run_admission, drivers not started): the
//           first tick admits and publishes 100 (one per project), the next
//           ones find every project full and admit none — planned (a
//           wake-up), and not planned (nothing changed: the daemon's usual
//           tick);
//           floor: SELECT of the queued rows' id, priority, project and
//           queue time from `floor_items` into a vector (what any planner
//           must read).
// Measurements are interleaved (run 1 of every scenario, then run 2, ...);
// the tables give medians and each ratio is the median of per-run ratios.
//
// Usage: admission_bench [--url POSTGRES_URL] [--runs N] [--items N]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "core/workflow_spec.h"
#include "engine/admission_input.h"
#include "engine/admitting.h"
#include "exec/clock.h"
#include "exec/fresh_id.h"
#include "exec/process_identity.h"
#include "store/postgres/postgres_store.h"
#include "store/sqlite/sqlite_store.h"

namespace orrery {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "admission_bench: %s\n", message.c_str());
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

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

struct Options {
  std::string url;  // PostgreSQL maintenance database; empty: SQLite only
  int runs = 5;
  int items = 1000;     // single enqueues per measurement
  int batches = 5;      // batches of 1,000 per measurement
  int queued = 10'000;  // items queued for the tick
  int projects = 100;
  int held_ticks = 5;  // ticks after the admitting one
};

// One database of one backend: a store, and its home for run files.
struct Place {
  std::string name;  // "sqlite" or "postgres"
  std::string dir;   // a temporary directory: the home (and the SQLite file)
  std::string url;   // PostgreSQL: the database's
  int serial = 0;    // PostgreSQL: the database is admission_bench_<serial>
  std::unique_ptr<SqlStore> store;
};

std::string temp_dir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "admission-bench-XXXXXX");
  if (mkdtemp(pattern.data()) == nullptr) die("mkdtemp failed");
  return pattern;
}

// The server's URL naming another database: its path replaced, its
// parameters kept (postgresql:///postgres?host=/tmp/x -> ...///DB?host=...).
std::string database_url(const std::string& server, const std::string& database) {
  const size_t authority = server.find("://") + 3;
  const size_t query = server.find('?', authority);
  const size_t path_end = query == std::string::npos ? server.size() : query;
  const size_t path = server.find('/', authority);
  if (path == std::string::npos || path > path_end) {
    return server.substr(0, path_end) + "/" + database + server.substr(path_end);
  }
  return server.substr(0, path + 1) + database + server.substr(path_end);
}

Place open_place(const Options& options, const std::string& backend, int serial) {
  Place place;
  place.name = backend;
  place.dir = temp_dir();
  const TimeMs now = wall_clock_now();
  if (backend == "sqlite") {
    SqliteOptions sqlite;
    sqlite.path = place.dir + "/orrery.db";
    sqlite.probe = std::make_shared<SystemProcessProbe>();
    sqlite.now = now;
    place.store = must(SqliteStore::open(sqlite), "open SQLite");
  } else {
    const std::string database = "admission_bench_" + std::to_string(serial);
    pqxx::connection server(options.url);
    pqxx::nontransaction(server).exec("DROP DATABASE IF EXISTS " + database);
    pqxx::nontransaction(server).exec("CREATE DATABASE " + database);
    place.url = database_url(options.url, database);
    place.serial = serial;
    PostgresOptions postgres;
    postgres.url = place.url;
    postgres.shown_url = place.url;
    postgres.probe = std::make_shared<SystemProcessProbe>();
    postgres.now = now;
    place.store = must(PostgresStore::open(postgres), "open PostgreSQL");
  }
  must(place.store->connection().exec(
           "CREATE TABLE floor_items (id TEXT PRIMARY KEY, route_id TEXT NOT NULL, "
           "item_key TEXT NOT NULL, status TEXT NOT NULL, priority BIGINT NOT NULL, "
           "project TEXT NOT NULL, queued_at BIGINT NOT NULL, input_json TEXT NOT NULL, "
           "UNIQUE (route_id, item_key))"),
       "floor table");
  return place;
}

void close_place(Place& place, const Options& options) {
  place.store.reset();
  if (!place.url.empty()) {
    pqxx::connection server(options.url);
    pqxx::nontransaction(server).exec("DROP DATABASE IF EXISTS admission_bench_" +
                                      std::to_string(place.serial));
  }
  std::error_code ignored;
  std::filesystem::remove_all(place.dir, ignored);
}

Route add_route(SqlStore& store, int max_per_project) {
  WorkflowSpec spec;
  spec.name = "work";
  WorkflowStep step;
  step.id = "s";
  step.target.argv = {"/bin/true"};
  spec.steps.push_back(step);
  const TimeMs now = wall_clock_now();
  const Workflow workflow = must(store.create_workflow(spec, fresh_id(now), now), "workflow");
  Route route;
  route.name = "r";
  route.workflow_id = workflow.id;
  route.workflow_name = workflow.name;
  route.workflow_version = workflow.version;
  route.max_running = 10'000;
  route.max_per_project = max_per_project;
  return must(store.create_route(route, now), "route");
}

WorkItem item_of(const Route& route, int n, int projects) {
  WorkItem item;
  item.route_id = route.id;
  item.key = "issue-" + std::to_string(n);
  item.priority = n % 7;
  item.project = "project-" + std::to_string(n % projects);
  item.invocation.source = {"github", std::to_string(n), ""};
  item.invocation.subject = {"issue", std::to_string(n), "",
                             "https://example.com/" + std::to_string(n)};
  item.invocation.intent = "fix issue " + std::to_string(n);
  return item;
}

void insert_floor_row(sql::Connection& db, int n, TimeMs now) {
  auto insert = must(db.prepare("INSERT INTO floor_items (id, route_id, item_key, status, "
                                "priority, project, queued_at, input_json) VALUES "
                                "(?1, 'r', ?2, 'queued', ?3, ?4, ?5, '{}')"),
                     "prepare");
  insert->bind(1, "floor-" + std::to_string(n) + "-" + std::to_string(now))
      .bind(2, "issue-" + std::to_string(n))
      .bind(3, n % 7)
      .bind(4, "project-" + std::to_string(n % 100))
      .bind(5, now);
  must(insert->run(), "insert");
}

// Items per second.
double single_floor(Place& place, const Options& options) {
  sql::Connection& db = place.store->connection();
  const auto start = Clock::now();
  for (int n = 0; n < options.items; ++n) insert_floor_row(db, n, wall_clock_now());
  return options.items / (ms_since(start) / 1000);
}

double single_orrery(Place& place, const Options& options) {
  const Route route = add_route(*place.store, 1);
  const auto start = Clock::now();
  for (int n = 0; n < options.items; ++n) {
    must(place.store->enqueue_item(item_of(route, n, options.projects), wall_clock_now()),
         "enqueue");
  }
  return options.items / (ms_since(start) / 1000);
}

double batch_floor(Place& place, const Options& options) {
  sql::Connection& db = place.store->connection();
  const auto start = Clock::now();
  for (int b = 0; b < options.batches; ++b) {
    auto transaction = must(sql::Transaction::begin(db), "begin");
    for (int n = 0; n < 1000; ++n) insert_floor_row(db, b * 1000 + n, wall_clock_now());
    must(transaction->commit(), "commit");
  }
  return options.batches * 1000 / (ms_since(start) / 1000);
}

std::vector<WorkItem> batch_of(const Route& route, int first, int count, int projects) {
  std::vector<WorkItem> items;
  for (int n = first; n < first + count; ++n) items.push_back(item_of(route, n, projects));
  return items;
}

double batch_orrery(Place& place, const Options& options) {
  const Route route = add_route(*place.store, 1);
  const auto start = Clock::now();
  for (int b = 0; b < options.batches; ++b) {
    must(place.store->enqueue_items(batch_of(route, b * 1000, 1000, options.projects),
                                    wall_clock_now()),
         "enqueue_items");
  }
  return options.batches * 1000 / (ms_since(start) / 1000);
}

struct TickFigures {
  double floor_ms = 0;
  double admitting_ms = 0;  // read, plan and the fenced admission of 100
  double starting_ms = 0;   // publishing and linking the 100 runs
  double held_ms = 0;       // median of the held ticks that plan
  double quiet_ms = 0;      // median of the held ticks nothing woke (no plan)
  int admitted = 0;
  int rounds = 0;  // admission rounds (ticks at once) to admit them
};

TickFigures tick(Place& place, const Options& options) {
  SqlStore& store = *place.store;
  const Route route = add_route(store, 1);
  for (int first = 0; first < options.queued; first += 1000) {
    must(store.enqueue_items(batch_of(route, first, 1000, options.projects), wall_clock_now()),
         "queue");
    sql::Connection& db = store.connection();
    auto transaction = must(sql::Transaction::begin(db), "begin");
    for (int n = first; n < first + 1000; ++n) insert_floor_row(db, n, wall_clock_now());
    must(transaction->commit(), "commit");
  }
  TickFigures figures;
  {
    const auto start = Clock::now();
    auto read =
        must(store.connection().prepare("SELECT id, priority, project, queued_at FROM floor_items "
                                        "WHERE status = 'queued'"),
             "floor read");
    struct Row {
      std::string id;
      std::int64_t priority;
      std::string project;
      std::int64_t queued_at;
    };
    std::vector<Row> rows;
    while (must(read->step(), "step")) {
      rows.push_back({read->text(0), read->int64(1), read->text(2), read->int64(3)});
    }
    figures.floor_ms = ms_since(start);
    if (int(rows.size()) != options.queued) die("the floor read " + std::to_string(rows.size()));
  }
  const TimeMs now = wall_clock_now();
  auto lease = must(store.acquire_daemon_lease(current_process(), 600'000, now), "lease");
  if (!lease) die("the daemon lease is held");
  TickSettings settings;
  settings.location.home = place.dir;
  settings.fence = Fence{lease->lease_id};
  settings.claimant = "bench";
  const AdmissionSettings admission;
  const auto no_driver = [](const std::string&) -> Status { return Ok{}; };
  const auto no_log = [](const std::string&) {};
  // The decision, as run_admission makes it (engine/admitting.cc): rounds
  // (ticks at once, for a daemon) while a round read a full page and
  // admitted, up to one tick's admissions.
  const auto start = Clock::now();
  bool more = true;
  while (more && figures.admitted < admission.max_admissions) {
    AdmissionReport round;
    must(admit_waiting_items(store, settings, admission, wall_clock_now(), round), "admit");
    figures.admitted += round.admitted;
    ++figures.rounds;
    more = round.more && round.admitted > 0;
  }
  figures.admitting_ms = ms_since(start);
  const auto starting = Clock::now();
  auto first =
      must(run_admission(store, settings, admission, wall_clock_now(), no_driver, no_log), "tick");
  figures.starting_ms = ms_since(starting);
  if (first.started != figures.admitted) die("the starts do not match the admissions");
  std::vector<double> held;
  std::vector<double> quiet;
  AdmissionSettings unchanged = admission;
  unchanged.plan = false;
  for (int t = 0; t < options.held_ticks; ++t) {
    for (const AdmissionSettings* each :
         {&admission, static_cast<const AdmissionSettings*>(&unchanged)}) {
      const auto again = Clock::now();
      auto report = must(run_admission(store, settings, *each, wall_clock_now(), no_driver, no_log),
                         "held tick");
      (each == &admission ? held : quiet).push_back(ms_since(again));
      if (report.admitted != 0) die("a held tick admitted " + std::to_string(report.admitted));
    }
  }
  figures.held_ms = median(held);
  figures.quiet_ms = median(quiet);
  return figures;
}

struct Samples {
  std::vector<double> single_floor, single_orrery, single_ratio;
  std::vector<double> batch_floor, batch_orrery, batch_ratio;
  std::vector<double> tick_floor, tick_admitting, tick_starting, tick_held, tick_quiet;
  int admitted = 0;
  int rounds = 0;
};

void measure(const Options& options, const std::string& backend, int run, Samples& samples,
             int& serial) {
  const auto scenario = [&](const std::function<void(Place&)>& body) {
    Place place = open_place(options, backend, ++serial);
    body(place);
    close_place(place, options);
  };
  double floor = 0;
  double orrery = 0;
  scenario([&](Place& p) { floor = single_floor(p, options); });
  scenario([&](Place& p) { orrery = single_orrery(p, options); });
  samples.single_floor.push_back(floor);
  samples.single_orrery.push_back(orrery);
  samples.single_ratio.push_back(orrery / floor);
  scenario([&](Place& p) { floor = batch_floor(p, options); });
  scenario([&](Place& p) { orrery = batch_orrery(p, options); });
  samples.batch_floor.push_back(floor);
  samples.batch_orrery.push_back(orrery);
  samples.batch_ratio.push_back(orrery / floor);
  scenario([&](Place& p) {
    const TickFigures figures = tick(p, options);
    samples.tick_floor.push_back(figures.floor_ms);
    samples.tick_admitting.push_back(figures.admitting_ms);
    samples.tick_starting.push_back(figures.starting_ms);
    samples.tick_held.push_back(figures.held_ms);
    samples.tick_quiet.push_back(figures.quiet_ms);
    samples.admitted = figures.admitted;
    samples.rounds = figures.rounds;
  });
  std::fprintf(stderr, "%s run %d done\n", backend.c_str(), run + 1);
}

void report(const std::string& backend, const Samples& s, const Options& options) {
  std::printf("\n%s (medians of %zu runs)\n", backend.c_str(), s.single_floor.size());
  std::printf("| scenario | floor | orrery | orrery / floor |\n| --- | ---: | ---: | ---: |\n");
  std::printf("| single enqueue, items/s | %.0f | %.0f | %.2f |\n", median(s.single_floor),
              median(s.single_orrery), median(s.single_ratio));
  std::printf("| batches of 1,000, items/s | %.0f | %.0f | %.2f |\n", median(s.batch_floor),
              median(s.batch_orrery), median(s.batch_ratio));
  std::printf(
      "| tick, %d queued over %d projects: read, plan, admit %d (%d rounds), ms | %.2f (read) | "
      "%.2f | %.2f |\n",
      options.queued, options.projects, s.admitted, s.rounds, median(s.tick_floor),
      median(s.tick_admitting), median(s.tick_admitting) / median(s.tick_floor));
  std::printf("| the same tick: publish and start the %d runs, ms | | %.2f | |\n", s.admitted,
              median(s.tick_starting));
  std::printf(
      "| tick, every project full, woken (plans, admits none), ms | %.2f (read) | %.2f "
      "| %.2f |\n",
      median(s.tick_floor), median(s.tick_held), median(s.tick_held) / median(s.tick_floor));
  std::printf(
      "| tick, every project full, nothing changed (no plan), ms | %.2f (read) | %.3f "
      "| %.3f |\n",
      median(s.tick_floor), median(s.tick_quiet), median(s.tick_quiet) / median(s.tick_floor));
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) die("usage: admission_bench [--url URL] [--runs N] [--items N]");
    const std::string value = argv[++i];
    if (arg == "--url") {
      options.url = value;
    } else if (arg == "--runs") {
      options.runs = std::max(1, std::atoi(value.c_str()));
    } else if (arg == "--items") {
      options.items = std::max(1, std::atoi(value.c_str()));
    } else {
      die("unknown option " + arg);
    }
  }
  return options;
}

}  // namespace
}  // namespace orrery

int main(int argc, char** argv) {
  using namespace orrery;  // NOLINT(google-build-using-namespace)
  const Options options = parse_options(argc, argv);
  std::vector<std::string> backends{"sqlite"};
  if (!options.url.empty()) backends.push_back("postgres");
  std::map<std::string, Samples> samples;
  int serial = 0;
  for (int run = 0; run < options.runs; ++run) {
    for (const std::string& backend : backends) {
      measure(options, backend, run, samples[backend], serial);
    }
  }
  for (const std::string& backend : backends) report(backend, samples[backend], options);
  return 0;
}
