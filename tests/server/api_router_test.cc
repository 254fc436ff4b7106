#include "server/api_router.h"

#include <gtest/gtest.h>

#include "core/text.h"

namespace orrery::server {
namespace {

HttpRequest request(const std::string& method, const std::string& path) {
  HttpRequest r;
  r.method = method;
  r.path = path;
  return r;
}

ApiRouter echo_router() {
  ApiRouter router;
  for (const char* pattern : {"/v1/loops", "/v1/loops/{loop}", "/v1/loops/{loop}/pause"}) {
    router.add("GET", pattern, [pattern](const HttpRequest&, const PathValues& values) {
      HttpResponse response;
      response.body = pattern;
      for (const auto& [name, value] : values) response.body += " " + name + "=" + value;
      return response;
    });
  }
  router.add("POST", "/v1/loops", [](const HttpRequest&, const PathValues&) {
    HttpResponse response;
    response.body = "created";
    return response;
  });
  return router;
}

TEST(ApiRouter, PathsReachTheirHandlerWithTheCapturesDecoded) {
  const ApiRouter router = echo_router();
  EXPECT_EQ(router.dispatch(request("GET", "/v1/loops")).body, "/v1/loops");
  EXPECT_EQ(router.dispatch(request("GET", "/v1/loops/")).body, "/v1/loops");
  EXPECT_EQ(router.dispatch(request("POST", "/v1/loops")).body, "created");
  EXPECT_EQ(router.dispatch(request("GET", "/v1/loops/a%2Fb")).body, "/v1/loops/{loop} loop=a/b");
  EXPECT_EQ(router.dispatch(request("GET", "/v1/loops/caf%C3%A9/pause")).body,
            "/v1/loops/{loop}/pause loop=caf\xc3\xa9");
  EXPECT_EQ(router.dispatch(request("HEAD", "/v1/loops")).status, 200);
}

TEST(ApiRouter, UnknownPathsAre404AndOtherMethods405WithAllow) {
  const ApiRouter router = echo_router();
  EXPECT_EQ(router.dispatch(request("GET", "/v1/nothing")).status, 404);
  EXPECT_EQ(router.dispatch(request("GET", "/v1/loops/a/b/c")).status, 404);
  EXPECT_EQ(router.dispatch(request("GET", "/v1/loops//pause")).status, 404);
  const HttpResponse wrong = router.dispatch(request("DELETE", "/v1/loops"));
  EXPECT_EQ(wrong.status, 405);
  ASSERT_EQ(wrong.headers.size(), 1u);
  EXPECT_EQ(wrong.headers[0].first, "Allow");
  EXPECT_EQ(wrong.headers[0].second, "GET, POST");
}

TEST(ApiRouter, BadEncodingIs400) {
  const ApiRouter router = echo_router();
  for (const char* path : {"/v1/loops/%", "/v1/loops/%4", "/v1/loops/%zz", "/v1/loops/%ff",
                           "/v1/loops/%C3", "/v1/loops/a%2"}) {
    EXPECT_EQ(router.dispatch(request("GET", path)).status, 400) << path;
  }
}

TEST(ApiRouter, PercentEncodingRoundTripsEveryByte) {
  std::string every;
  for (int byte = 0; byte < 256; ++byte) every += static_cast<char>(byte);
  const std::string encoded = percent_encoded(every);
  for (const char c : encoded) {
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '%' || c == '-' || c == '.' ||
                c == '_' || c == '~')
        << c;
  }
  // Valid UTF-8 text comes back whole through a path segment.
  const std::string text = "a/b c\xc3\xa9%?#";
  std::string path = "/";  // appended: GCC 12 -O3 -Wrestrict on "/" + a temporary
  path += percent_encoded(text);
  auto segments = path_segments(path);
  ASSERT_TRUE(segments);
  ASSERT_EQ(segments->size(), 1u);
  EXPECT_EQ(segments->front(), text);
}

}  // namespace
}  // namespace orrery::server
