// Black-box tests of `orrery serve` (docs/server.md) against the real server
// on a loopback port: every path's happy case and its errors, the same
// documents as the CLI's --json, paging, and the security rules.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <set>

#include "server_fixture.h"

namespace orrery {
namespace {

using Server = ServerFixture;

TEST_F(Server, AddressesThatAreNotHostAndPortAreRefusedWithExitTwo) {
  for (const std::string listen :
       {"", "8470", "127.0.0.1:", "127.0.0.1:65536", ":80", "[::1", "[::1]", "::1:80",
        "example.com:80", "127.0.0.1:-1", "127.0.0.1:80x", "127.0.0.1: 80", "[127.0.0.1]:80",
        "256.1.1.1:80"}) {
    const RunResult result = run({"serve", "--listen", listen});
    EXPECT_EQ(result.exit_code, 2) << describe({"serve", "--listen", listen}, result);
    EXPECT_NE(result.err.find("--listen"), std::string::npos) << result.err;
  }
}

TEST_F(Server, AnAddressOthersCanReachNeedsATokenFile) {
  for (const std::string listen : {"0.0.0.0:0", "[::]:0", "192.0.2.1:0"}) {
    const RunResult result = run({"serve", "--listen", listen});
    EXPECT_EQ(result.exit_code, 2) << describe({"serve", "--listen", listen}, result);
    EXPECT_NE(result.err.find("--token-file"), std::string::npos) << result.err;
  }
}

TEST_F(Server, ATokenFileMustBePrivateAndHoldOneTokenOfSixteenPrintableBytes) {
  const std::string good(32, 'a');
  const std::pair<std::string, std::string> cases[] = {
      {"short", "abc\n"},
      {"empty", ""},
      {"spaced", "aaaaaaaa aaaaaaaa\n"},
      {"control", std::string("aaaaaaaa\x01") + "aaaaaaaa"},
      {"huge", std::string(5000, 'a')},
  };
  for (const auto& [name, text] : cases) {
    const std::string path = write_file(name, text);
    ::chmod(path.c_str(), 0600);
    const RunResult result = run({"serve", "--listen", "127.0.0.1:0", "--token-file", path});
    EXPECT_EQ(result.exit_code, 2) << name << ": " << result.err;
    EXPECT_NE(result.err.find("--token-file"), std::string::npos) << result.err;
  }
  const std::string shared = write_file("shared", good);
  ::chmod(shared.c_str(), 0644);
  const RunResult readable = run({"serve", "--token-file", shared});
  EXPECT_EQ(readable.exit_code, 2);
  EXPECT_NE(readable.err.find("chmod 600"), std::string::npos) << readable.err;
  const RunResult missing = run({"serve", "--token-file", tmp_ + "/none"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  const RunResult directory = run({"serve", "--token-file", tmp_});
  EXPECT_EQ(directory.exit_code, 2) << directory.err;
}

TEST_F(Server, LoopsAreCreatedShownListedEditedPausedAndDeletedWithTheCliDocuments) {
  ASSERT_TRUE(start_server()) << server_log();
  const HttpReply created =
      post("/v1/loops", R"({"name": "nightly", "cron": "0 3 * * *", "tz": "UTC",
                            "command": ["true"], "env": {"A": "1"}})");
  ASSERT_EQ(created.status, 201) << told(created);
  EXPECT_EQ(body_of(created), show_loop("nightly"));

  const HttpReply listed = get("/v1/loops");
  ASSERT_EQ(listed.status, 200) << told(listed);
  EXPECT_EQ(body_of(listed), json_of({"ls"}));
  EXPECT_EQ(listed.header("X-Next-Cursor"), "");

  const HttpReply shown = get("/v1/loops/nightly");
  ASSERT_EQ(shown.status, 200) << told(shown);
  EXPECT_EQ(body_of(shown)["schedule"]["expression"], "0 3 * * *");

  const HttpReply edited = send("PATCH", "/v1/loops/nightly", R"({"every": "10m"})");
  ASSERT_EQ(edited.status, 200) << told(edited);
  EXPECT_EQ(show_loop("nightly")["schedule"]["type"], "interval");

  const HttpReply next = get("/v1/loops/nightly/next?n=3");
  ASSERT_EQ(next.status, 200) << told(next);
  EXPECT_EQ(body_of(next)["next"].size(), 3u);

  for (const std::string action : {"pause", "resume", "archive", "unarchive"}) {
    const HttpReply acted = post("/v1/loops/nightly/" + action);
    EXPECT_EQ(acted.status, 200) << action << ": " << told(acted);
  }
  EXPECT_EQ(post("/v1/loops/nightly/pause").status, 200);
  EXPECT_EQ(show_loop("nightly")["status"], "paused");

  const HttpReply deleted = send("DELETE", "/v1/loops/nightly");
  ASSERT_EQ(deleted.status, 200) << told(deleted);
  EXPECT_EQ(get("/v1/loops/nightly").status, 404);
}

TEST_F(Server, BadRequestsGetTheErrorDocumentWithTheStatusOfTheirCode) {
  ASSERT_TRUE(start_server()) << server_log();
  add("taken", {"--every", "1h", "--", "true"});
  struct Case {
    std::string method, path, body;
    int status;
    std::string code;
  };
  const Case cases[] = {
      {"GET", "/v1/loops/none", "", 404, "not_found"},
      {"GET", "/v1/runs/zzzzzzzz", "", 404, "not_found"},
      {"GET", "/v1/nothing", "", 404, "not_found"},
      {"PUT", "/v1/loops", "", 405, "method_not_allowed"},
      {"POST", "/v1/loops/taken/resume", "", 409, "conflict"},
      {"POST", "/v1/loops/taken/unarchive", "", 409, "conflict"},
      {"POST", "/v1/loops", R"({"name": "x", "every": "soon", "command": ["true"]})", 400, "usage"},
      {"POST", "/v1/loops", R"({"name": "x", "evrey": "1h"})", 400, "usage"},
      {"POST", "/v1/loops", R"({"name": 5})", 400, "usage"},
      {"POST", "/v1/loops", "{not json", 400, "usage"},
      {"POST", "/v1/loops", "[1, 2]", 400, "usage"},
      {"POST", "/v1/loops", R"({"name": "a", "name": "b"})", 400, "usage"},
      {"PATCH", "/v1/loops/taken", R"({"name": "renamed"})", 400, "usage"},
      {"GET", "/v1/loops?limit=0", "", 400, "usage"},
      {"GET", "/v1/loops?limit=ten", "", 400, "usage"},
      {"GET", "/v1/loops?cursor=-1", "", 400, "usage"},
      {"GET", "/v1/runs?status=sleeping", "", 400, "usage"},
      {"GET", "/v1/runs?cursor=2", "", 400, "usage"},
      {"GET", "/v1/runs?cursor=-1.ab", "", 400, "usage"},
      {"GET", "/v1/runs?cursor=1.XYZ", "", 400, "usage"},
      {"GET", "/v1/runs?cursor=1.ab%00", "", 400, "usage"},
      {"GET", "/v1/runs?cursor=1.ab%ff", "", 400, "usage"},
      {"GET", "/v1/runs?cursor=", "", 400, "usage"},
      {"POST", "/v1/goals/nowhere/budget", R"({"add": "10k"})", 404, "not_found"},
      {"POST", "/v1/goals/nowhere/budget", R"({"add": "10k", "set": "5"})", 400, "usage"},
      {"POST", "/v1/goals/nowhere/pause", "", 404, "not_found"},
      {"POST", "/v1/routes/nowhere/items", R"({"key": "a"})", 404, "not_found"},
      {"GET", "/v1/loops/%zz", "", 400, "usage"},
      {"GET", "/v1/loops/%ff", "", 400, "usage"},
      {"POST", "/v1/loops/taken/trigger", R"({"now": true})", 400, "usage"},
  };
  for (const Case& c : cases) {
    const HttpReply reply = send(c.method, c.path, c.body);
    EXPECT_EQ(reply.status, c.status) << c.method << " " << c.path << " " << told(reply);
    EXPECT_EQ(error_code(reply), c.code) << c.method << " " << c.path << " " << told(reply);
    const json document = body_of(reply);
    EXPECT_FALSE(document["error"].value("message", "").empty()) << told(reply);
  }
  // Nothing a refusal answered changed the store.
  EXPECT_EQ(json_of({"ls"}).size(), 1u);
  EXPECT_EQ(show_loop("taken")["schedule"]["type"], "interval");
}

TEST_F(Server, ABodyOverOneMebibyteIsRefusedWithFourHundredThirteen) {
  ASSERT_TRUE(start_server()) << server_log();
  const std::string huge = R"({"name": "x", "description": ")" + std::string(2 << 20, 'a') + "\"}";
  const HttpReply reply = post("/v1/loops", huge);
  EXPECT_EQ(reply.status, 413) << reply.status;
  EXPECT_EQ(error_code(reply), "too_large") << told(reply);
  EXPECT_EQ(json_of({"ls"}).size(), 0u);
  // The server still answers.
  EXPECT_EQ(get("/healthz").status, 200);
}

TEST_F(Server, ATriggerAnswersAcceptedWithTheRunAndTheRunsLogIsReadByRange) {
  ASSERT_TRUE(start_server()) << server_log();
  add("hello", {"--every", "1h", "--", "/bin/sh", "-c", "printf 'h\\303\\251llo world'"});
  const HttpReply triggered = post("/v1/loops/hello/trigger");
  ASSERT_EQ(triggered.status, 202) << told(triggered);
  const std::string run_id = body_of(triggered)["run_id"].get<std::string>();
  const json finished =
      poll_run(run_id, [](const json& run) { return run["status"] == "succeeded"; });
  ASSERT_EQ(finished["status"], "succeeded") << finished.dump();

  const HttpReply shown = get("/v1/runs/" + run_id);
  ASSERT_EQ(shown.status, 200) << told(shown);
  EXPECT_EQ(body_of(shown), show_run(run_id));

  const HttpReply whole = get("/v1/runs/" + run_id + "/log");
  ASSERT_EQ(whole.status, 200) << told(whole);
  EXPECT_EQ(body_of(whole)["text"], "h\xc3\xa9llo world");
  EXPECT_EQ(body_of(whole)["size"], 12);
  // A range that would cut the two bytes of é is cut back to whole characters.
  const HttpReply part = get("/v1/runs/" + run_id + "/log?offset=0&length=2");
  ASSERT_EQ(part.status, 200) << told(part);
  EXPECT_EQ(body_of(part)["text"], "h");
  EXPECT_EQ(body_of(part)["next_offset"], 1);
  const HttpReply rest = get("/v1/runs/" + run_id + "/log?offset=1&length=100");
  EXPECT_EQ(body_of(rest)["text"], "\xc3\xa9llo world");
  EXPECT_EQ(get("/v1/runs/" + run_id + "/log?stream=stdin").status, 400);
  EXPECT_EQ(get("/v1/runs/" + run_id + "/log?length=99999999").status, 400);
  // A finished run cannot be cancelled.
  const HttpReply cancel = post("/v1/runs/" + run_id + "/cancel");
  EXPECT_EQ(cancel.status, 409) << told(cancel);
}

TEST_F(Server, PagesOfRunsFollowTheCursorUntilNothingIsLeftAndNoRunIsSeenTwiceOrMissed) {
  ASSERT_TRUE(start_server()) << server_log();
  add("many", {"--every", "1h", "--overlap", "allow", "--", "true"});
  std::set<std::string> triggered;
  for (int i = 0; i < 5; ++i) triggered.insert(trigger("many"));
  for (const std::string& id : triggered) {
    poll_run(id, [](const json& run) { return run["status"] == "succeeded"; });
  }
  std::set<std::string> seen;
  std::vector<std::string> meanwhile;
  std::string path = "/v1/runs?loop=many&limit=2";
  int pages = 0;
  while (!path.empty() && pages < 10) {
    const HttpReply page = get(path);
    ASSERT_EQ(page.status, 200) << told(page);
    for (const json& run : body_of(page)) {
      EXPECT_TRUE(seen.insert(run["id"].get<std::string>()).second) << "seen twice: " << run;
    }
    ++pages;
    const std::string cursor = page.header("X-Next-Cursor");
    EXPECT_EQ(cursor.empty(), page.header("Link").empty());
    path = cursor.empty() ? "" : "/v1/runs?loop=many&limit=2&cursor=" + cursor;
    // A run created between pages shifts nothing: it is newer than every
    // page still to come.
    if (!path.empty()) meanwhile.push_back(trigger("many"));
  }
  EXPECT_EQ(seen, triggered);
  EXPECT_EQ(pages, 3);
  for (const std::string& id : meanwhile) {
    poll_run(id, [](const json& run) { return run["status"] == "succeeded"; });
  }
}

TEST_F(Server, ARunningRunIsCancelledThroughItsRunner) {
  ASSERT_TRUE(start_server()) << server_log();
  add("slow", {"--every", "1h", "--", "sleep", "30"});
  const std::string run_id = trigger("slow");
  poll_run(run_id, [](const json& run) { return run["status"] == "running"; });
  start_daemon();  // the runner that acts on cancel requests
  const HttpReply cancelled = post("/v1/runs/" + run_id + "/cancel", R"({"reason": "enough"})");
  ASSERT_EQ(cancelled.status, 200) << told(cancelled);
  const json run = poll_run(
      run_id, [](const json& r) { return r["status"] != "running"; }, std::chrono::seconds(20));
  EXPECT_EQ(run["status"], "cancelled") << run.dump();
}

TEST_F(Server, WorkflowsAreCreatedRunAndReadWithTheirEvents) {
  ASSERT_TRUE(start_server()) << server_log();
  const HttpReply created = post("/v1/workflows",
                                 "name: build\nsteps:\n  - id: one\n    target: {type: command, "
                                 "shell: true, command: \"true\"}\n",
                                 {{"Content-Type", "application/yaml"}});
  ASSERT_EQ(created.status, 201) << told(created);
  EXPECT_EQ(body_of(created)["version"], 1);
  EXPECT_EQ(body_of(get("/v1/workflows")), json_of({"workflow", "ls"}));
  EXPECT_EQ(get("/v1/workflows/build").status, 200);
  EXPECT_EQ(get("/v1/workflows/nothing").status, 404);

  const HttpReply started = post("/v1/workflows/build/runs", R"({"input": {"x": 1}})");
  ASSERT_EQ(started.status, 202) << told(started);
  const std::string run_id = body_of(started)["id"].get<std::string>();
  const json run = workflow_run_finished(run_id);
  EXPECT_EQ(run["status"], "succeeded") << run.dump();
  EXPECT_EQ(body_of(get("/v1/workflow-runs/" + run_id)), show_workflow_run(run_id));
  EXPECT_EQ(body_of(get("/v1/workflow-runs/" + run_id + "/events")), events(run_id));
  EXPECT_EQ(body_of(get("/v1/workflows/build/runs")).size(), 1u);
  // As `orrery workflow cancel`: a finished run is answered as it is, unchanged.
  const HttpReply again = post("/v1/workflow-runs/" + run_id + "/cancel");
  EXPECT_EQ(again.status, 200) << told(again);
  EXPECT_EQ(body_of(again)["status"], "succeeded");
  EXPECT_EQ(post("/v1/workflows/build/runs", R"({"inputs": {}})").status, 400);
}

TEST_F(Server, ItemsPostedToARouteAreCreatedThenDuplicateAndCanBeCancelled) {
  ASSERT_TRUE(start_server()) << server_log();
  create("work",
         "name: work\nsteps:\n  - id: one\n    target: {type: command, shell: true, "
         "command: \"true\"}\n");
  json_of({"route", "add", "inbox", "--workflow", "work"});
  const std::string item = R"({"key": "issue-1", "project": "web", "subject": "Fix it"})";
  const HttpReply first = post("/v1/routes/inbox/items", item);
  ASSERT_EQ(first.status, 201) << told(first);
  EXPECT_EQ(body_of(first)["outcome"], "created");
  const HttpReply again = post("/v1/routes/inbox/items", item);
  ASSERT_EQ(again.status, 200) << told(again);
  EXPECT_NE(body_of(again)["outcome"], "created");
  EXPECT_EQ(post("/v1/routes/nothing/items", item).status, 404);
  EXPECT_EQ(post("/v1/routes/inbox/items", R"({"priority": "high"})").status, 400);

  EXPECT_EQ(body_of(get("/v1/routes")), json_of({"route", "ls"}));
  EXPECT_EQ(get("/v1/routes/inbox").status, 200);
  const HttpReply items = get("/v1/routes/inbox/items");
  ASSERT_EQ(items.status, 200) << told(items);
  EXPECT_EQ(body_of(items), json_of({"items", "--route", "inbox"}));
  // An item named ROUTE/KEY is reached with the "/" encoded.
  const HttpReply shown = get("/v1/items/inbox%2Fissue-1");
  ASSERT_EQ(shown.status, 200) << told(shown);
  EXPECT_EQ(body_of(shown)["key"], "issue-1");
  const HttpReply cancelled = post("/v1/items/inbox%2Fissue-1/cancel", R"({"reason": "dup"})");
  ASSERT_EQ(cancelled.status, 200) << told(cancelled);
  EXPECT_EQ(json_of({"item", "show", "inbox/issue-1"})["status"], "cancelled");
  const HttpReply requeued = post("/v1/items/inbox%2Fissue-1/requeue");
  EXPECT_EQ(requeued.status, 200) << told(requeued);
}

TEST_F(Server, GoalsAreListedShownPausedResumedAndGivenBudget) {
  ASSERT_TRUE(start_server()) << server_log();
  add("agentish", {"--every", "1h", "--", "true"});
  const json goal = json_of(
      {"goal", "create", "--loop", "agentish", "--objective", "Ship it", "--budget", "100k"});
  const std::string id = goal["id"].get<std::string>();
  EXPECT_EQ(body_of(get("/v1/goals")), json_of({"goal", "ls"}));
  EXPECT_EQ(body_of(get("/v1/goals/" + id)), json_of({"goal", "show", id}));
  EXPECT_EQ(get("/v1/goals/" + id + "/turns").status, 200);
  EXPECT_EQ(post("/v1/goals/" + id + "/pause").status, 200);
  EXPECT_EQ(json_of({"goal", "show", id})["status"], "paused");
  EXPECT_EQ(post("/v1/goals/" + id + "/resume").status, 200);
  const HttpReply budget = post("/v1/goals/" + id + "/budget", R"({"add": "50k"})");
  ASSERT_EQ(budget.status, 200) << told(budget);
  EXPECT_EQ(json_of({"goal", "show", id})["token_budget"], 150000);
  EXPECT_EQ(post("/v1/goals/" + id + "/budget", R"({"add": "lots"})").status, 400);
  EXPECT_EQ(get("/v1/goals/ffffffffffff").status, 404);
}

TEST_F(Server, StatusHealthAndReadinessSayWhetherADaemonHoldsTheLease) {
  ASSERT_TRUE(start_server()) << server_log();
  EXPECT_EQ(get("/healthz").status, 200);
  EXPECT_EQ(body_of(get("/v1/status"))["daemon"]["held"], false);
  const HttpReply unready = get("/readyz");
  EXPECT_EQ(unready.status, 503) << told(unready);
  EXPECT_FALSE(unready.header("Retry-After").empty());
  EXPECT_TRUE(body_of(get("/v1/cooldowns")).is_array());
  start_daemon();
  const HttpReply ready = get("/readyz");
  EXPECT_EQ(ready.status, 200) << told(ready);
  EXPECT_EQ(body_of(ready)["ready"], true);
}

TEST_F(Server, WithATokenEveryRequestButHealthNeedsTheBearerToken) {
  const std::string token = "0123456789abcdef0123456789abcdef";
  const std::string path = write_file("token", token + "\n");
  ::chmod(path.c_str(), 0600);
  ASSERT_TRUE(start_server({"--token-file", path})) << server_log();
  EXPECT_EQ(get("/healthz").status, 200);
  EXPECT_EQ(get("/v1/loops").status, 401);
  EXPECT_EQ(get("/v1/loops", {{"Authorization", "Bearer " + token + "x"}}).status, 401);
  EXPECT_EQ(get("/v1/loops", {{"Authorization", "Bearer " + token.substr(1)}}).status, 401);
  EXPECT_EQ(get("/v1/loops", {{"Authorization", "Basic " + token}}).status, 401);
  EXPECT_EQ(get("/readyz").status, 401);
  const HttpReply allowed = get("/v1/loops", {{"Authorization", "Bearer " + token}});
  EXPECT_EQ(allowed.status, 200) << told(allowed);
  // A token holder may come from anywhere: the token is the proof.
  const HttpReply created =
      post("/v1/loops", R"({"name": "t", "every": "1h", "command": ["true"]})",
           {{"Authorization", "Bearer " + token}, {"Origin", "http://elsewhere.example"}});
  EXPECT_EQ(created.status, 201) << told(created);
}

TEST_F(Server, WithoutATokenAnotherSitesPageMayNotChangeAnythingNorReadThroughARebindName) {
  ASSERT_TRUE(start_server()) << server_log();
  add("kept", {"--every", "1h", "--", "true"});
  const std::string own = "http://127.0.0.1:" + std::to_string(port_);
  const HttpHeaders other_site[] = {
      {{"Origin", "http://evil.example"}}, {{"Origin", "null"}},
      {{"Origin", "http://127.0.0.1:1"}},  {{"Sec-Fetch-Site", "cross-site"}},
      {{"Sec-Fetch-Site", "same-site"}},
  };
  for (const HttpHeaders& headers : other_site) {
    const HttpReply reply = post("/v1/loops/kept/pause", "", headers);
    EXPECT_EQ(reply.status, 403) << headers.begin()->second << ": " << told(reply);
    EXPECT_EQ(send("DELETE", "/v1/loops/kept", "", headers).status, 403);
  }
  EXPECT_EQ(show_loop("kept")["status"], "active");
  // Its own page may; so may a client that is no browser.
  EXPECT_EQ(post("/v1/loops/kept/pause", "", {{"Origin", own}}).status, 200);
  EXPECT_EQ(post("/v1/loops/kept/resume", "", {{"Sec-Fetch-Site", "same-origin"}}).status, 200);
  // A name rebound to 127.0.0.1 reads nothing.
  const HttpReply rebound = get("/v1/loops", {{"Host", "evil.example:" + std::to_string(port_)}});
  EXPECT_EQ(rebound.status, 403) << told(rebound);
  EXPECT_EQ(get("/v1/loops", {{"Host", "localhost:" + std::to_string(port_)}}).status, 200);
}

TEST_F(Server, SigtermStopsTheServerWithStatusZero) {
  ASSERT_TRUE(start_server()) << server_log();
  EXPECT_EQ(get("/healthz").status, 200);
  EXPECT_EQ(stop_server(), 0) << server_log();
}

TEST_F(Server, ABadDatabaseNeverListens) {
  const RunResult result = run({"--db", "mysql://nowhere", "serve", "--listen", "127.0.0.1:0"});
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.out.find("listening"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace orrery
