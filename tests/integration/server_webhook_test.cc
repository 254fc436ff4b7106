// Black-box tests of signed webhooks on `orrery serve` (docs/server.md,
// "Webhooks"): a route given --webhook-secret-env takes a POST of items only
// when X-Hub-Signature-256 is the HMAC-SHA-256 of the body (signed here by
// Python's hmac, not by orrery), even from a host a bearer token would be
// needed for; the variable unset fails closed; GitHub's own deliveries
// become items with ?format=github.
#include <stdlib.h>

#include "server_fixture.h"

namespace orrery {
namespace {

constexpr char kSecret[] = "It's a Secret to Everybody";

class ServerWebhook : public ServerFixture {
 protected:
  void SetUp() override {
    ServerFixture::SetUp();
    ::setenv("ORRERY_TEST_HOOK_SECRET", kSecret, 1);  // inherited by the server
    create("work",
           "name: work\nsteps:\n  - id: one\n    target: {type: command, shell: true, "
           "command: \"true\"}\n");
  }
  void TearDown() override {
    ServerFixture::TearDown();
    ::unsetenv("ORRERY_TEST_HOOK_SECRET");
  }

  std::string signature_of(const std::string& body) {
    const std::string file = tmp_ + "/body";
    std::ofstream(file, std::ios::binary) << body;
    const RunResult signed_body = run_program(
        "/usr/bin/python3",
        {"-c",
         "import hmac, hashlib, sys\n"
         "print('sha256=' + hmac.new(sys.argv[1].encode(), open(sys.argv[2], 'rb').read(), "
         "hashlib.sha256).hexdigest(), end='')",
         kSecret, file});
    EXPECT_EQ(signed_body.exit_code, 0) << signed_body.err;
    return signed_body.out;
  }

  HttpReply signed_post(const std::string& path, const std::string& body,
                        HttpHeaders headers = {}) {
    headers.emplace("X-Hub-Signature-256", signature_of(body));
    return post(path, body, headers);
  }
};

TEST_F(ServerWebhook, OnlyABodySignedWithTheRoutesSecretIsEnqueued) {
  json_of({"route", "add", "inbox", "--workflow", "work", "--webhook-secret-env",
           "ORRERY_TEST_HOOK_SECRET"});
  EXPECT_EQ(json_of({"route", "show", "inbox"})["webhook_secret_env"], "ORRERY_TEST_HOOK_SECRET");
  ASSERT_TRUE(start_server()) << server_log();
  const std::string item = R"({"key": "web#1"})";
  const HttpReply unsigned_post = post("/v1/routes/inbox/items", item);
  EXPECT_EQ(unsigned_post.status, 401) << told(unsigned_post);
  EXPECT_EQ(error_code(unsigned_post), "bad_signature");
  const std::string other_body_signature = signature_of(R"({"key": "web#2"})");
  const HttpReply forged =
      post("/v1/routes/inbox/items", item, {{"X-Hub-Signature-256", other_body_signature}});
  EXPECT_EQ(forged.status, 401) << told(forged);
  EXPECT_EQ(json_of({"items", "--route", "inbox"}).size(), 0u);

  const HttpReply accepted = signed_post("/v1/routes/inbox/items", item);
  ASSERT_EQ(accepted.status, 201) << told(accepted);
  EXPECT_EQ(json_of({"item", "show", "inbox/web#1"})["status"], "queued");
  EXPECT_EQ(server_log().find(kSecret), std::string::npos);
}

TEST_F(ServerWebhook, ASignedPostNeedsNoBearerTokenButAnUnsignedOneDoes) {
  json_of({"route", "add", "inbox", "--workflow", "work", "--webhook-secret-env",
           "ORRERY_TEST_HOOK_SECRET"});
  json_of({"route", "add", "open", "--workflow", "work"});
  const std::string path = write_file("token", "0123456789abcdef0123456789abcdef\n");
  ::chmod(path.c_str(), 0600);
  ASSERT_TRUE(start_server({"--token-file", path})) << server_log();
  const std::string item = R"({"key": "web#3"})";
  // From a tunnel's host name, with no token: the signature is the proof.
  const HttpHeaders tunnel{{"Host", "hooks.example.com"}};
  const HttpReply accepted = signed_post("/v1/routes/inbox/items", item, tunnel);
  EXPECT_EQ(accepted.status, 201) << told(accepted);
  EXPECT_EQ(post("/v1/routes/inbox/items", item, tunnel).status, 401);
  // A route without a secret refuses a signature it cannot check.
  const HttpReply unchecked = signed_post("/v1/routes/open/items", item, tunnel);
  EXPECT_EQ(unchecked.status, 401) << told(unchecked);
  EXPECT_EQ(json_of({"items", "--route", "open"}).size(), 0u);
  // Nothing else opens to a signature.
  EXPECT_EQ(signed_post("/v1/loops", R"({"name": "x", "every": "1h", "command": ["true"]})", tunnel)
                .status,
            401);
}

TEST_F(ServerWebhook, TheSecretsVariableUnsetFailsClosed) {
  json_of({"route", "add", "inbox", "--workflow", "work", "--webhook-secret-env",
           "ORRERY_TEST_UNSET_SECRET"});
  ::unsetenv("ORRERY_TEST_UNSET_SECRET");
  ASSERT_TRUE(start_server()) << server_log();
  for (const bool with_signature : {false, true}) {
    const std::string item = R"({"key": "web#4"})";
    const HttpReply reply = with_signature ? signed_post("/v1/routes/inbox/items", item)
                                           : post("/v1/routes/inbox/items", item);
    EXPECT_EQ(reply.status, 500) << told(reply);
    EXPECT_EQ(error_code(reply), "webhook_secret_missing");
    EXPECT_NE(told(reply).find("$ORRERY_TEST_UNSET_SECRET"), std::string::npos);
  }
  EXPECT_EQ(json_of({"items", "--route", "inbox"}).size(), 0u);
}

TEST_F(ServerWebhook, GithubDeliveriesBecomeItemsAndARedeliveryIsNoSecondItem) {
  json_of({"route", "add", "inbox", "--workflow", "work", "--webhook-secret-env",
           "ORRERY_TEST_HOOK_SECRET"});
  ASSERT_TRUE(start_server()) << server_log();
  const json issue = {{"action", "opened"},
                      {"issue",
                       {{"number", 7},
                        {"title", "Flaky test"},
                        {"body", "See CI."},
                        {"html_url", "https://github.com/acme/web/issues/7"},
                        {"labels", json::array()},
                        {"user", {{"login", "ada"}}}}},
                      {"repository", {{"full_name", "acme/web"}}}};
  const HttpHeaders delivery{{"X-GitHub-Event", "issues"}, {"X-GitHub-Delivery", "d-1"}};
  const std::string path = "/v1/routes/inbox/items?format=github";
  const HttpReply created = signed_post(path, issue.dump(), delivery);
  ASSERT_EQ(created.status, 201) << told(created);
  const json item = json_of({"item", "show", "inbox/acme/web#7"});
  EXPECT_EQ(item["invocation"]["intent"], "Flaky test");
  EXPECT_EQ(item["project"], "acme/web");
  const HttpReply redelivered = signed_post(path, issue.dump(), delivery);
  ASSERT_EQ(redelivered.status, 200) << told(redelivered);
  EXPECT_NE(body_of(redelivered)["outcome"], "created");

  const HttpReply ping = signed_post(path, R"({"zen": "Keep it logically awesome."})",
                                     {{"X-GitHub-Event", "ping"}, {"X-GitHub-Delivery", "d-2"}});
  ASSERT_EQ(ping.status, 200) << told(ping);
  EXPECT_EQ(body_of(ping)["outcome"], "ignored");
  json closed = issue;
  closed["action"] = "closed";
  const HttpReply ignored = signed_post(
      path, closed.dump(), {{"X-GitHub-Event", "issues"}, {"X-GitHub-Delivery", "d-3"}});
  EXPECT_EQ(body_of(ignored)["outcome"], "ignored") << told(ignored);
  EXPECT_EQ(signed_post(path, issue.dump()).status, 400);  // no X-GitHub-Event
  EXPECT_EQ(signed_post("/v1/routes/inbox/items?format=gitlab", issue.dump(), delivery).status,
            400);
  EXPECT_EQ(json_of({"items", "--route", "inbox"}).size(), 1u);
}

TEST_F(ServerWebhook, ASecretVariableThatIsNoNameIsRefusedAndChangesNothing) {
  json_of({"route", "add", "inbox", "--workflow", "work"});
  for (const char* bad : {"1BAD", "A-B", "A B", "$SECRET", "\xff", "A=B", ""}) {
    const RunResult edited =
        run_orrery({"--home", home_, "route", "edit", "inbox", "--webhook-secret-env", bad});
    EXPECT_EQ(edited.exit_code, 2) << bad << ": " << edited.err;
    EXPECT_NE(edited.err.find("--webhook-secret-env"), std::string::npos) << edited.err;
  }
  EXPECT_EQ(json_of({"route", "show", "inbox"})["webhook_secret_env"], "");
  json_of({"route", "edit", "inbox", "--webhook-secret-env", "HOOK_SECRET"});
  EXPECT_EQ(json_of({"route", "show", "inbox"})["webhook_secret_env"], "HOOK_SECRET");
  json_of({"route", "edit", "inbox", "--webhook-secret-env", "none"});
  EXPECT_EQ(json_of({"route", "show", "inbox"})["webhook_secret_env"], "");
}

}  // namespace
}  // namespace orrery
