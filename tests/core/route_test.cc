#include "core/route.h"

#include <gtest/gtest.h>

#include <functional>
#include <vector>

#include "core/limits.h"

namespace orrery {
namespace {

Route valid_route() {
  Route route;
  route.name = "issues";
  route.workflow_id = "w1";
  return route;
}

TEST(Route, TheDefaultsAreValid) {
  EXPECT_TRUE(check_route(valid_route()));
  EXPECT_EQ(valid_route().max_running, 1);
  EXPECT_EQ(valid_route().max_attempts, 3);
  EXPECT_EQ(valid_route().retry_delay_ms, 60'000);
}

struct Bound {
  const char* option;
  std::function<void(Route&, std::int64_t)> set;
  std::int64_t least;
  std::int64_t most;
};

TEST(Route, EachLimitIsAcceptedAtItsBoundsAndRefusedPastThemNamingTheOption) {
  const std::vector<Bound> bounds = {
      {"--max-running", [](Route& r, std::int64_t v) { r.max_running = int(v); }, 1,
       kMaxRouteRunning},
      {"--max-per-project", [](Route& r, std::int64_t v) { r.max_per_project = int(v); }, 0,
       kMaxRouteRunning},
      {"--max-per-group", [](Route& r, std::int64_t v) { r.max_per_group = int(v); }, 0,
       kMaxRouteRunning},
      {"--max-attempts", [](Route& r, std::int64_t v) { r.max_attempts = int(v); }, 1,
       kMaxItemAttempts},
      {"--retry-delay", [](Route& r, std::int64_t v) { r.retry_delay_ms = v; }, 0,
       kMaxRetryDelayMs},
      {"--priority-aging", [](Route& r, std::int64_t v) { r.priority_aging_ms = v; },
       kMinPriorityAgingMs, kMaxPriorityAgingMs},
  };
  for (const Bound& bound : bounds) {
    for (std::int64_t value : {bound.least, bound.most}) {
      Route route = valid_route();
      bound.set(route, value);
      EXPECT_TRUE(check_route(route)) << bound.option << " " << value;
    }
    for (std::int64_t value : {bound.least - 1, bound.most + 1}) {
      if (std::string(bound.option) == "--priority-aging" && value == 0) continue;  // 0: none
      Route route = valid_route();
      bound.set(route, value);
      auto checked = check_route(route);
      ASSERT_FALSE(checked) << bound.option << " " << value;
      EXPECT_EQ(checked.error().code, ErrorCode::kUsage);
      EXPECT_NE(checked.error().message.find(bound.option), std::string::npos)
          << checked.error().message;
    }
  }
}

TEST(Route, ANameFollowsTheNameRules) {
  for (const char* bad : {"", " lead", "trail ", "a\tb", "\xff", "zero\xe2\x80\x8bwidth"}) {
    Route route = valid_route();
    route.name = bad;
    auto checked = check_route(route);
    ASSERT_FALSE(checked) << bad;
    EXPECT_NE(checked.error().message.find("route name"), std::string::npos);
  }
}

TEST(Route, ADescriptionIsUtf8OfAtMost4KiB) {
  Route route = valid_route();
  route.description = std::string(kMaxRouteDescriptionBytes, 'd');
  EXPECT_TRUE(check_route(route));
  route.description += "d";
  EXPECT_FALSE(check_route(route));
  route.description = std::string(1, '\xc3');  // a lead byte alone
  EXPECT_FALSE(check_route(route));
}

TEST(Route, AWebhookSecretVariableIsAnEnvironmentName) {
  // Every byte value in each position: a letter or _ may start the name, a
  // digit may follow; nothing else is accepted anywhere.
  for (int byte = 1; byte < 256; ++byte) {
    const char c = static_cast<char>(byte);
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    Route first = valid_route();
    first.webhook_secret_env = std::string(1, c) + "A";
    EXPECT_EQ(bool(check_route(first)), letter) << "first byte " << byte;
    Route later = valid_route();
    later.webhook_secret_env = std::string("A") + c;
    EXPECT_EQ(bool(check_route(later)), letter || digit) << "later byte " << byte;
  }
  Route route = valid_route();
  route.webhook_secret_env = std::string(kMaxEnvNameBytes, 'S');
  EXPECT_TRUE(check_route(route));
  route.webhook_secret_env += "S";
  auto checked = check_route(route);
  ASSERT_FALSE(checked);
  EXPECT_NE(checked.error().message.find("--webhook-secret-env"), std::string::npos);
  route.webhook_secret_env.clear();  // none
  EXPECT_TRUE(check_route(route));
}

TEST(Route, StatusNamesParseBack) {
  for (RouteStatus status : {RouteStatus::kActive, RouteStatus::kPaused}) {
    auto parsed = parse_route_status(route_status_name(status));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, status);
  }
  EXPECT_FALSE(parse_route_status("stopped"));
}

}  // namespace
}  // namespace orrery
