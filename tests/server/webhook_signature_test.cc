// refuse_webhook (src/server/webhook_signature.h): a route with a secret
// takes only a body signed with it, the secret's variable unset fails
// closed, a route without one refuses a signature, and the message never
// holds the secret.
#include "server/webhook_signature.h"

#include <gtest/gtest.h>

#include <map>

#include "core/hmac.h"

namespace orrery::server {
namespace {

constexpr char kSecret[] = "It's a Secret to Everybody";

HttpRequest post(const std::string& body, const std::string& signature) {
  HttpRequest request;
  request.method = "POST";
  request.path = "/v1/routes/inbox/items";
  request.body = body;
  if (!signature.empty()) request.headers[kSignatureHeader] = signature;
  return request;
}

EnvironmentLookup environment(std::map<std::string, std::string> values) {
  return [values = std::move(values)](const char* name) -> const char* {
    const auto found = values.find(name);
    return found == values.end() ? nullptr : found->second.c_str();
  };
}

std::string signature_of(const std::string& body) {
  return "sha256=" + hex_lower(hmac_sha256(kSecret, body));
}

const EnvironmentLookup kWithSecret = environment({{"HOOK_SECRET", kSecret}});

TEST(WebhookSignature, GitHubsPublishedExampleIsAccepted) {
  // docs.github.com, "Validating webhook deliveries": "Hello, World!" under
  // this secret.
  const std::string published =
      "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
  EXPECT_FALSE(
      refuse_webhook("inbox", "HOOK_SECRET", post("Hello, World!", published), kWithSecret));
}

TEST(WebhookSignature, EveryChangedByteOfTheSignatureOrTheBodyIsRefused) {
  const std::string body = R"({"key": "web#1"})";
  const std::string good = signature_of(body);
  ASSERT_FALSE(refuse_webhook("inbox", "HOOK_SECRET", post(body, good), kWithSecret));
  for (size_t at = 0; at < good.size(); ++at) {
    std::string bad = good;
    bad[at] = bad[at] == '0' ? '1' : '0';
    auto refused = refuse_webhook("inbox", "HOOK_SECRET", post(body, bad), kWithSecret);
    ASSERT_TRUE(refused) << bad;
    EXPECT_EQ(refused->status, 401);
    EXPECT_EQ(refused->body.find(kSecret), std::string::npos);
  }
  for (size_t at = 0; at < body.size(); ++at) {
    std::string changed = body;
    changed[at] ^= 0x01;
    EXPECT_TRUE(refuse_webhook("inbox", "HOOK_SECRET", post(changed, good), kWithSecret)) << at;
  }
  for (const std::string& bad : {good.substr(7), "sha1=" + good.substr(7), good + "0",
                                 good.substr(0, good.size() - 1), std::string("sha256=")}) {
    EXPECT_TRUE(refuse_webhook("inbox", "HOOK_SECRET", post(body, bad), kWithSecret)) << bad;
  }
}

TEST(WebhookSignature, AnUnsignedPostToASignedRouteIsRefused) {
  auto refused = refuse_webhook("inbox", "HOOK_SECRET", post("{}", ""), kWithSecret);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_NE(refused->body.find("bad_signature"), std::string::npos);
  EXPECT_NE(refused->body.find("X-Hub-Signature-256"), std::string::npos);
}

TEST(WebhookSignature, TheSecretsVariableUnsetOrEmptyFailsClosed) {
  for (const EnvironmentLookup& lookup :
       {environment({}), environment({{"HOOK_SECRET", ""}}), environment({{"OTHER", kSecret}})}) {
    auto refused = refuse_webhook("inbox", "HOOK_SECRET", post("{}", signature_of("{}")), lookup);
    ASSERT_TRUE(refused);
    EXPECT_EQ(refused->status, 500);
    EXPECT_NE(refused->body.find("$HOOK_SECRET"), std::string::npos) << refused->body;
  }
}

TEST(WebhookSignature, ARouteWithoutASecretTakesUnsignedPostsAndRefusesSigned) {
  EXPECT_FALSE(refuse_webhook("inbox", "", post("{}", ""), kWithSecret));
  auto refused = refuse_webhook("inbox", "", post("{}", signature_of("{}")), kWithSecret);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_NE(refused->body.find("--webhook-secret-env"), std::string::npos);
}

}  // namespace
}  // namespace orrery::server
