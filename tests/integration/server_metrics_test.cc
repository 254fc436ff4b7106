// Black-box tests of GET /metrics (docs/server.md, "Metrics"): the text is
// read by a Prometheus text parser nobody on this project wrote (Debian's
// python3-prometheus-client), and its values agree with the store as the
// CLI shows it.
#include "server_fixture.h"

namespace orrery {
namespace {

using json = nlohmann::json;

// Every sample of the text, as the parser read it: [[name, {labels}, value], ...].
constexpr const char* kParse = R"(
import json, sys
from prometheus_client.parser import text_string_to_metric_families
samples = []
for family in text_string_to_metric_families(open(sys.argv[1], encoding='utf-8').read()):
    for sample in family.samples:
        samples.append([family.name, family.type, sample.name, sample.labels, sample.value])
print(json.dumps(samples))
)";

class ServerMetrics : public ServerFixture {
 protected:
  // The samples of a scrape, parsed by prometheus_client.
  json scrape() {
    const HttpReply reply = get("/metrics");
    EXPECT_EQ(reply.status, 200) << told(reply);
    EXPECT_EQ(reply.header("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
    const std::string file = tmp_ + "/metrics.txt";
    std::ofstream(file) << reply.body;
    const RunResult parsed = run_program("/usr/bin/python3", {"-c", kParse, file});
    EXPECT_EQ(parsed.exit_code, 0) << parsed.err << "\n" << reply.body;
    return json::parse(parsed.out, nullptr, false);
  }

  // The value of the sample named so whose labels include `labels`, or -1.
  static double value_of(const json& samples, const std::string& name, const json& labels) {
    for (const json& sample : samples) {
      if (sample[2] != name) continue;
      bool matches = true;
      for (const auto& [key, value] : labels.items())
        matches = matches && sample[3].value(key, std::string("\x01")) == value;
      if (matches) return sample[4].get<double>();
    }
    return -1;
  }

  // The runs of a loop with the status, as `runs --json` lists them.
  int cli_runs(const std::string& loop, const std::string& status) {
    return int(json_of({"runs", loop, "--status", status, "--json"}).size());
  }
};

TEST_F(ServerMetrics, ARealParserReadsTheTextAndItsValuesAgreeWithTheStore) {
  ASSERT_TRUE(start_server()) << server_log();
  const std::string quoted = "say \"hi\" \\ <script>";
  add(quoted, {"--every", "1h", "--overlap", "allow", "--", "/bin/echo", "hi"});
  add("broken", {"--every", "1h", "--", "/bin/sh", "-c", "exit 3"});
  std::vector<std::string> runs;
  for (int i = 0; i < 3; ++i) runs.push_back(trigger(quoted));
  runs.push_back(trigger("broken"));
  for (const std::string& id : runs) {
    poll_run(id, [](const json& run) {
      return run["status"] != "running" && run["status"] != "pending";
    });
  }
  const json samples = scrape();
  ASSERT_TRUE(samples.is_array()) << samples;
  EXPECT_EQ(value_of(samples, "orrery_runs_total", {{"loop", quoted}, {"status", "succeeded"}}),
            cli_runs(quoted, "succeeded"));
  EXPECT_EQ(value_of(samples, "orrery_runs_total", {{"loop", quoted}, {"status", "succeeded"}}), 3);
  EXPECT_EQ(value_of(samples, "orrery_runs_total", {{"loop", "broken"}, {"status", "failed"}}),
            cli_runs("broken", "failed"));
  EXPECT_EQ(value_of(samples, "orrery_run_duration_seconds_count", {{"loop", quoted}}), 3);
  EXPECT_EQ(
      value_of(samples, "orrery_run_duration_seconds_bucket", {{"loop", quoted}, {"le", "+Inf"}}),
      3);
  EXPECT_EQ(value_of(samples, "orrery_run_dispatch_latency_seconds_count", {{"loop", "broken"}}),
            1);
  EXPECT_EQ(value_of(samples, "orrery_daemon_lease_held", json::object()), 0);
  EXPECT_EQ(value_of(samples, "orrery_store_errors_total", {{"class", "unavailable"}}), 0);
  // Every family has a type the parser knows, and counters end in _total.
  for (const json& sample : samples) {
    EXPECT_NE(sample[1], "unknown") << sample;
    if (sample[1] == "counter") {
      EXPECT_NE(sample[2].get<std::string>().find("_total"), std::string::npos) << sample;
    }
  }
}

TEST_F(ServerMetrics, TheQueueAndTheDaemonsLeaseAreReported) {
  ASSERT_TRUE(start_server()) << server_log();
  create("work",
         "name: work\nsteps:\n  - id: one\n    target: {type: command, shell: true, "
         "command: \"true\"}\n");
  json_of({"route", "add", "issues", "--workflow", "work"});
  for (const char* key : {"repo#1", "repo#2"}) {
    const HttpReply created = post("/v1/routes/issues/items", json{{"key", key}}.dump());
    ASSERT_EQ(created.status, 201) << told(created);
  }
  const json before = scrape();
  EXPECT_EQ(value_of(before, "orrery_queue_items", {{"route", "issues"}, {"status", "queued"}}), 2);
  EXPECT_EQ(value_of(before, "orrery_daemon_lease_held", json::object()), 0);
  EXPECT_EQ(value_of(before, "orrery_daemon_lease_generation", json::object()), 0);
  start_daemon();  // ready once it holds the lease
  const json after = scrape();
  EXPECT_EQ(value_of(after, "orrery_daemon_lease_held", json::object()), 1);
  EXPECT_EQ(value_of(after, "orrery_daemon_lease_generation", json::object()), 1);
}

}  // namespace
}  // namespace orrery
