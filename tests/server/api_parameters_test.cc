#include "server/api_parameters.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace orrery::server {
namespace {

HttpRequest with_query(const std::string& name, const std::string& value) {
  HttpRequest r;
  r.query[name] = value;
  return r;
}

TEST(ApiParameters, NumbersAreWholeAndWithinTheirRange) {
  EXPECT_EQ(*number_parameter(HttpRequest{}, "limit", 7, 1, 10), 7);
  EXPECT_EQ(*number_parameter(with_query("limit", "10"), "limit", 7, 1, 10), 10);
  for (const char* bad :
       {"", "0", "11", "-1", "1.0", "1e2", " 1", "1 ", "0x1", "ten", "99999999999999999999"}) {
    auto value = number_parameter(with_query("limit", bad), "limit", 7, 1, 10);
    ASSERT_FALSE(value) << bad;
    EXPECT_NE(value.error().message.find("limit="), std::string::npos);
  }
}

TEST(ApiParameters, FlagsCursorsAndText) {
  EXPECT_TRUE(*flag_parameter(with_query("all", "true"), "all"));
  EXPECT_TRUE(*flag_parameter(with_query("all", ""), "all"));
  EXPECT_FALSE(*flag_parameter(with_query("all", "0"), "all"));
  EXPECT_FALSE(flag_parameter(with_query("all", "yes"), "all"));
  EXPECT_EQ(*cursor_offset(with_query("cursor", "200")), 200);
  EXPECT_FALSE(cursor_offset(with_query("cursor", "abc")));
  EXPECT_FALSE(cursor_offset(with_query("cursor", "-5")));
  EXPECT_FALSE(text_parameter(with_query("loop", "\xff"), "loop"));
}

TEST(ApiParameters, TheBodyIsOneJsonObject) {
  HttpRequest r;
  EXPECT_EQ(*json_body(r), nlohmann::json::object());
  r.body = " \n";
  EXPECT_EQ(*json_body(r), nlohmann::json::object());
  r.body = R"({"a": 1})";
  EXPECT_EQ((*json_body(r))["a"], 1);
  for (const char* bad : {"[1]", "1", "{", R"({"a": 1, "a": 2})", "\"text\""}) {
    r.body = bad;
    EXPECT_FALSE(json_body(r)) << bad;
  }
}

}  // namespace
}  // namespace orrery::server
