#include "server/access.h"

#include <gtest/gtest.h>

namespace orrery::server {
namespace {

HttpRequest request(const std::string& method, const std::string& path,
                    std::map<std::string, std::string> headers) {
  HttpRequest r;
  r.method = method;
  r.path = path;
  r.headers = std::move(headers);
  return r;
}

int status_of(const AccessPolicy& policy, const HttpRequest& r) {
  auto refused = refuse_access(policy, r);
  return refused ? refused->status : 200;
}

TEST(Access, LoopbackHostsAreKnown) {
  for (const char* host : {"127.0.0.1", "127.0.0.1:8470", "localhost", "localhost:1", "[::1]",
                           "[::1]:8470", "127.9.9.9:80"}) {
    EXPECT_TRUE(is_loopback_host(host)) << host;
  }
  for (const char* host : {"", "evil.example", "evil.example:8470", "10.0.0.1:80", "[::2]:80",
                           "[::1", "localhost.evil.example", "127.0.0.1.evil.example"}) {
    EXPECT_FALSE(is_loopback_host(host)) << host;
  }
}

TEST(Access, WithATokenOnlyHealthGoesWithoutIt) {
  const AccessPolicy policy{std::string("secret-token-0123456789")};
  EXPECT_EQ(status_of(policy, request("GET", "/healthz", {})), 200);
  EXPECT_EQ(status_of(policy, request("POST", "/healthz", {})), 401);
  for (const char* path :
       {"/readyz", "/metrics", "/v1/loops", "/v1/events", "/index.html", "/dashboard.json"}) {
    EXPECT_EQ(status_of(policy, request("GET", path, {})), 401) << path;
    EXPECT_EQ(status_of(policy, request("GET", path,
                                        {{"authorization", "Bearer secret-token-0123456789"},
                                         {"host", "anything.example"}})),
              200)
        << path;
  }
  for (const char* wrong :
       {"Bearer", "Bearer ", "bearer secret-token-0123456789", "Bearer secret-token-012345678",
        "Bearer secret-token-01234567890", "Basic c2VjcmV0"}) {
    EXPECT_EQ(status_of(policy, request("GET", "/v1/loops", {{"authorization", wrong}})), 401)
        << wrong;
  }
}

TEST(Access, WithoutATokenTheHostMustBeLoopbackAndChangesMustComeFromTheSameOrigin) {
  const AccessPolicy policy{};
  const std::map<std::string, std::string> local{{"host", "127.0.0.1:8470"}};
  EXPECT_EQ(status_of(policy, request("GET", "/v1/loops", local)), 200);
  EXPECT_EQ(status_of(policy, request("GET", "/v1/loops", {{"host", "evil.example:8470"}})), 403);
  EXPECT_EQ(status_of(policy, request("GET", "/v1/loops", {})), 403);
  for (const char* method : {"POST", "PATCH", "DELETE", "PUT"}) {
    EXPECT_EQ(status_of(policy, request(method, "/v1/loops", local)), 200) << method;
    auto from = [&](const char* name, const char* value) {
      auto headers = local;
      headers[name] = value;
      return status_of(policy, request(method, "/v1/loops", headers));
    };
    EXPECT_EQ(from("origin", "http://127.0.0.1:8470"), 200);
    EXPECT_EQ(from("origin", "http://evil.example"), 403);
    EXPECT_EQ(from("origin", "http://127.0.0.1:8471"), 403);
    EXPECT_EQ(from("origin", "null"), 403);
    EXPECT_EQ(from("sec-fetch-site", "same-origin"), 200);
    EXPECT_EQ(from("sec-fetch-site", "none"), 200);
    EXPECT_EQ(from("sec-fetch-site", "cross-site"), 403);
    EXPECT_EQ(from("sec-fetch-site", "same-site"), 403);
  }
  // Reading is not a change: another site's page cannot read the answer anyway.
  auto headers = local;
  headers["origin"] = "http://evil.example";
  EXPECT_EQ(status_of(policy, request("GET", "/v1/loops", headers)), 200);
}

TEST(Access, OnlyASignedPostOfItemsGoesWithoutTokenOrLoopbackHost) {
  // Its signature is its handler's to check (server/webhook_signature.h).
  const std::map<std::string, std::string> signed_elsewhere{{"x-hub-signature-256", "sha256=00"},
                                                            {"host", "hooks.example"}};
  for (const AccessPolicy& policy :
       {AccessPolicy{std::string("secret-token-0123456789")}, AccessPolicy{}}) {
    EXPECT_EQ(status_of(policy, request("POST", "/v1/routes/inbox/items", signed_elsewhere)), 200);
    EXPECT_NE(
        status_of(policy, request("POST", "/v1/routes/inbox/items", {{"host", "hooks.example"}})),
        200);
    for (const auto& [method, path] :
         std::vector<std::pair<const char*, const char*>>{{"GET", "/v1/routes/inbox/items"},
                                                          {"POST", "/v1/routes/inbox"},
                                                          {"POST", "/v1/routes/a/b/items"},
                                                          {"POST", "/v1/routes//items"},
                                                          {"POST", "/v1/routes/inbox/items/x"},
                                                          {"POST", "/v1/loops"},
                                                          {"DELETE", "/v1/routes/inbox/items"}}) {
      EXPECT_NE(status_of(policy, request(method, path, signed_elsewhere)), 200)
          << method << " " << path;
    }
  }
}

TEST(Access, TheDashboardsFilesGoWithoutTheTokenButNotWithoutALoopbackHost) {
  const AccessPolicy with_token{std::string("secret-token-0123456789")};
  for (const char* path : {"/", "/dashboard.js", "/dashboard.css"}) {
    EXPECT_EQ(status_of(with_token, request("GET", path, {{"host", "box.example"}})), 200) << path;
    EXPECT_EQ(status_of(with_token, request("POST", path, {})), 401) << path;
    EXPECT_EQ(status_of(AccessPolicy{}, request("GET", path, {{"host", "evil.example"}})), 403)
        << path;
  }
}

}  // namespace
}  // namespace orrery::server
