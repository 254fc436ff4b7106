// The dashboard of `orrery serve` in a real headless browser (Debian's
// chromium, driven by playwright-core: tests/integration/js/dashboard_client.mjs;
// docs/server.md, "Dashboard"): loops and their next runs render, a name
// holding markup renders as text, and a trigger button starts a run that the
// page shows finishing through the event stream, without a reload.
// Screenshots are kept in the build tree: test-artifacts/dashboard/*.png.
#include <filesystem>

#include "server_fixture.h"

namespace orrery {
namespace {

class DashboardBrowser : public ServerFixture {};

TEST_F(DashboardBrowser, LoopsRenderAsTextAndATriggeredRunIsSeenFinishingWithoutAReload) {
  add("nightly", {"--cron", "0 3 * * *", "--", "true"});
  add("<script>window.__orrery_injected=true;alert(1)</script>", {"--every", "1h", "--", "true"});
  add("quick", {"--every", "6h", "--", "sh", "-c", "sleep 0.3"});
  start_daemon();
  ASSERT_TRUE(start_server()) << server_log();
  const std::string shots = std::string(ORRERY_TEST_ARTIFACTS) + "/dashboard";
  std::filesystem::create_directories(shots);

  const RunResult ran = run_program(
      "/usr/bin/env", {"node", ORRERY_DASHBOARD_CLIENT,
                       "http://127.0.0.1:" + std::to_string(port_) + "/", "quick", shots});
  ASSERT_EQ(ran.exit_code, 0) << ran.err << ran.out;
  const json report = json::parse(ran.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << ran.out << ran.err;
  ASSERT_FALSE(report.contains("failure")) << report.dump(1) << "\n" << server_log();

  std::map<std::string, json> rows;
  for (const json& row : report["rows"]) rows[row["name"]] = row;
  ASSERT_EQ(rows.size(), 3u) << report.dump(1);
  // The markup is the name's text, with no element made of it, and it never ran.
  const std::string hostile = "<script>window.__orrery_injected=true;alert(1)</script>";
  ASSERT_TRUE(rows.count(hostile)) << report.dump(1);
  EXPECT_EQ(rows[hostile]["nameChildren"], 0);
  EXPECT_EQ(report["injected"], false);
  // Status, schedule and the next run in relative time.
  const json& nightly = rows["nightly"]["cells"];
  EXPECT_EQ(nightly[1], "active");
  EXPECT_EQ(nightly[2], "cron 0 3 * * *") << nightly.dump();
  EXPECT_EQ(nightly[3].get<std::string>().rfind("in ", 0), 0u) << nightly.dump();
  EXPECT_EQ(rows["quick"]["cells"][2], "every 6h");
  // The trigger's run finished on the page, which was never loaded again.
  EXPECT_EQ(report["triggered"].get<std::string>().rfind("succeeded", 0), 0u) << report.dump(1);
  EXPECT_EQ(report["reloaded"], false);
  EXPECT_EQ(json_of({"runs", "quick"}).size(), 1u);
  EXPECT_EQ(report["errors"], json::array()) << report.dump(1);
  EXPECT_TRUE(std::filesystem::exists(shots + "/dashboard.png"));
  EXPECT_TRUE(std::filesystem::exists(shots + "/dashboard-after-trigger.png"));
}

}  // namespace
}  // namespace orrery
