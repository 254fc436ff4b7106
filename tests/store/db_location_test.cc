#include "store/db_location.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

std::string sqlite_path(const std::string& text) {
  auto location = db_location_of(text);
  if (!location) return "error: " + location.error().message;
  EXPECT_EQ(location->kind, DbLocation::Kind::kSqlite) << text;
  EXPECT_EQ(location->postgres_url, "") << text;
  return location->sqlite_path;
}

TEST(DbLocation, APathOrASqliteUrlNamesAFile) {
  EXPECT_EQ(sqlite_path("/var/lib/orrery.db"), "/var/lib/orrery.db");
  EXPECT_EQ(sqlite_path("rel/x.db"), "rel/x.db");
  EXPECT_EQ(sqlite_path("./a:b.db"), "./a:b.db");
  EXPECT_EQ(sqlite_path("sqlite:///abs/x.db"), "/abs/x.db");
  EXPECT_EQ(sqlite_path("sqlite://rel/x.db"), "rel/x.db");
  EXPECT_EQ(sqlite_path("dir/x:y"), "dir/x:y");
  EXPECT_EQ(sqlite_path("./u:p@h.db"), "./u:p@h.db");
}

TEST(DbLocation, EverythingElseIsAUsageErrorNamingTheValue) {
  for (const std::string value :
       {":memory:", ":temp:", "", "mysql://x", "MySQL://x", "file:x.db", "file:///tmp/x.db",
        "http://h/x", "sqlite:x.db", "sqlite://", "sqlite://:memory:", "sqlite://file:x",
        "a+b.c-d:x", "dir/", ".", "..", "sub/.", "sub/..", "sqlite://dir/"}) {
    auto refused = db_location_of(value);
    ASSERT_FALSE(refused.ok()) << "'" << value << "' was accepted";
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_EQ(refused.error().message.rfind("--db '" + value + "'", 0), 0u)
        << refused.error().message;
  }
}

TEST(DbLocation, PostgresUrlsSelectPostgresAsGiven) {
  for (const std::string url :
       {"postgres://x", "postgresql://u@h/db", "postgresql://", "postgresql:///db",
        "postgresql://u:secret@h:5432/db", "postgres://h1:5432,h2:5433/db?target_session_attrs=any",
        "postgresql://h/db?sslmode=verify-full&sslrootcert=/etc/ca.pem&connect_timeout=5",
        "postgresql://%2Fvar%2Frun%2Fpostgresql/db", "postgresql://u:p%40ss@h/db",
        "postgresql://h/db?password=p%26ss&application_name=orrery"}) {
    auto location = db_location_of(url);
    ASSERT_TRUE(location.ok()) << url << ": " << location.error().message;
    EXPECT_EQ(location->kind, DbLocation::Kind::kPostgres);
    EXPECT_EQ(location->postgres_url, url);
    EXPECT_EQ(location->sqlite_path, "");
  }
}

TEST(DbLocation, LibpqParametersPassThroughUnchecked) {
  // libpq checks the values of sslmode and the port when it connects.
  for (const std::string url : {"postgresql://h/db?sslmode=bogus", "postgresql://h:abc/db"}) {
    auto location = db_location_of(url);
    ASSERT_TRUE(location.ok()) << url << ": " << location.error().message;
    EXPECT_EQ(location->postgres_url, url);
  }
}

TEST(DbLocation, TheSchemeIsLowerCaseAsLibpqReadsIt) {
  for (const std::string url : {"POSTGRES://x", "Postgresql://u@h/db", "PostgreSQL://u:secret@h/db",
                                "postgres:x", "postgresql:/h/db"}) {
    auto refused = db_location_of(url);
    ASSERT_FALSE(refused.ok()) << url;
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_NE(refused.error().message.find("in lower case"), std::string::npos)
        << refused.error().message;
    EXPECT_EQ(refused.error().message.find("secret"), std::string::npos);
  }
}

TEST(DbLocation, AUrlLibpqRefusesIsAUsageErrorWithItsReason) {
  const std::pair<std::string, std::string> cases[] = {
      {"postgresql://h/db?foo=1", "invalid URI query parameter: \"foo\""},
      {"postgresql://h/db?sslmode", "missing key/value separator"},
      {"postgresql://[::1/db", "IPv6 host address"},
  };
  for (const auto& [url, reason] : cases) {
    auto refused = db_location_of(url);
    ASSERT_FALSE(refused.ok()) << url;
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    const std::string& message = refused.error().message;
    EXPECT_EQ(message.rfind("--db '" + url + "' is not a PostgreSQL URL libpq accepts: ", 0), 0u)
        << message;
    EXPECT_NE(message.find(reason), std::string::npos) << message;
    EXPECT_NE(message.back(), '\n') << message;
  }
}

TEST(DbLocation, AnAmbiguousAtSignIsRefused) {
  for (const std::string url :
       {"postgresql://u:p@ss@h/db", "postgresql://u:pa/ss@h/db",
        "postgresql://h/db?application_name=a@b", "postgresql://u@h/db@x"}) {
    auto refused = db_location_of(url);
    ASSERT_FALSE(refused.ok()) << url;
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_NE(refused.error().message.find("%40"), std::string::npos) << refused.error().message;
  }
}

// A password of each hostile kind, and a URL that carries it and that
// db_location_of refuses: no message names the password.
TEST(DbLocation, NoMessageContainsThePassword) {
  const std::string secret = "s3cr3tPW";
  const std::string bad_urls[] = {
      "postgresql://u:" + secret + "@h/db?foo=1",
      "postgresql://u:" + secret + "@[::1/db",
      "postgresql://u:" + secret + "%zz@h/db",
      "postgresql://u:" + secret + "%00@h/db",
      "postgresql://u:" + secret + "@h/db@x",
      "postgresql://u:" + secret + "/x@h/db",
      "postgresql://u:x@" + secret + "@h/db",
      "postgresql://h/db?password=" + secret + "&foo=1",
      "postgresql://h/db?password=" + secret + "&b&sslmode=require",
      "postgresql://h/db?password=a&" + secret + "=1",
      "postgresql://h/db?pass%77ord=" + secret + "%zz",
      "postgresql://h/db?Password=" + secret,
      "postgresql://h/db?password=" + secret + "&password",
      "POSTGRESQL://u:" + secret + "@h/db",
      "postgres:u:" + secret + "@h/db",
      "mysql://u:" + secret + "@h/db",
      "http://u:" + secret + "@h/",
      std::string("postgresql://u:") + secret + "\xff@h/db?foo",
      std::string("postgresql://u:") + secret + std::string("@h/db\0x", 7),
  };
  for (const std::string& url : bad_urls) {
    auto refused = db_location_of(url);
    ASSERT_FALSE(refused.ok()) << url;
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_EQ(refused.error().message.find(secret), std::string::npos) << refused.error().message;
    EXPECT_NE(refused.error().message.find("****"), std::string::npos) << refused.error().message;
  }
}

TEST(DbLocation, AHugeUrlIsCutInTheMessage) {
  const std::string url = "postgresql://h/db?foo=" + std::string(100 << 10, 'x');
  auto refused = db_location_of(url);
  ASSERT_FALSE(refused.ok());
  EXPECT_LT(refused.error().message.size(), 1000u);
}

TEST(RedactedDbUrl, TextWithoutAPasswordIsUnchanged) {
  for (const std::string text :
       {"", "/var/lib/orrery.db", "./u:p@h.db", "sqlite:///x.db", "postgresql://",
        "postgresql://u@h/db", "postgresql://h:5432/db?sslmode=require&user=u",
        "postgresql://h/db?passwords=x", "postgresql://h/db?application_name=password"}) {
    EXPECT_EQ(redacted_db_url(text), text);
  }
}

TEST(RedactedDbUrl, TheUserinfoPasswordIsHidden) {
  const std::pair<std::string, std::string> cases[] = {
      {"postgresql://u:secret@h/db", "postgresql://u:****@h/db"},
      {"postgres://u:secret@h:5432/db?sslmode=require",
       "postgres://u:****@h:5432/db?sslmode=require"},
      // '@', ':', '/', '?', '&', '%40' in the password, unencoded or not.
      {"postgresql://u:p@ss@h/db", "postgresql://u:****@h/db"},
      {"postgresql://u:p:ss@h/db", "postgresql://u:****@h/db"},
      {"postgresql://u:p/ss@h/db", "postgresql://u:****@h/db"},
      {"postgresql://u:p?ss@h/db", "postgresql://u:****@h/db"},
      {"postgresql://u:p&ss@h/db", "postgresql://u:****@h/db"},
      {"postgresql://u:p%40ss@h/db", "postgresql://u:****@h/db"},
      {"postgresql://u:@h/db", "postgresql://u:****@h/db"},
      {"postgresql://:secret@h/db", "postgresql://:****@h/db"},
      {"postgresql://u:\xff\xfe@h/db", "postgresql://u:****@h/db"},
      {"mysql://u:secret@h/db", "mysql://u:****@h/db"},
      {"postgres:u:secret@h/db", "postgres:****@h/db"},
  };
  for (const auto& [url, redacted] : cases) EXPECT_EQ(redacted_db_url(url), redacted) << url;
}

TEST(RedactedDbUrl, EveryPasswordParameterIsHidden) {
  const std::pair<std::string, std::string> cases[] = {
      {"postgresql://h/db?password=secret", "postgresql://h/db?password=****"},
      {"postgresql://h/db?sslmode=require&password=secret&user=u",
       "postgresql://h/db?sslmode=require&password=****&user=u"},
      {"postgresql://h/db?password=a&password=b", "postgresql://h/db?password=****&password=****"},
      {"postgresql://h/db?password=", "postgresql://h/db?password=****"},
      {"postgresql://h/db?password=p%26ss", "postgresql://h/db?password=****"},
      // An unencoded '&' does not end it unless a libpq parameter follows.
      {"postgresql://h/db?password=p&ss&sslmode=require",
       "postgresql://h/db?password=****&sslmode=require"},
      {"postgresql://h/db?password=p&x=y", "postgresql://h/db?password=****"},
      // The key percent-encoded, or in another case.
      {"postgresql://h/db?pass%77ord=secret", "postgresql://h/db?pass%77ord=****"},
      {"postgresql://h/db?%70%61%73%73%77%6f%72%64=secret",
       "postgresql://h/db?%70%61%73%73%77%6f%72%64=****"},
      {"postgresql://h/db?PASSWORD=secret", "postgresql://h/db?PASSWORD=****"},
      // Both forms at once.
      {"postgresql://u:a@h/db?password=b", "postgresql://u:****@h/db?password=****"},
      {"postgresql://h/db?password=x\xff", "postgresql://h/db?password=****"},
  };
  for (const auto& [url, redacted] : cases) EXPECT_EQ(redacted_db_url(url), redacted) << url;
}

TEST(RedactedDbUrl, AnAtSignInTheQueryHidesThePasswordBeforeIt) {
  // Conservative: what lies between the first ':' and the last '@' could be a password.
  EXPECT_EQ(redacted_db_url("postgresql://h/db?password=secret@x"),
            "postgresql://h/db?password=****");
  EXPECT_EQ(redacted_db_url("postgresql://u:secret@h/db?application_name=a@b"),
            "postgresql://u:****@b");
}

TEST(RedactedDbUrl, AHundredKibibyteUrlIsRedactedWhole) {
  const std::string password(100 << 10, 'p');
  EXPECT_EQ(redacted_db_url("postgresql://u:" + password + "@h/db"), "postgresql://u:****@h/db");
  EXPECT_EQ(redacted_db_url("postgresql://h/db?password=" + password + "&sslmode=disable"),
            "postgresql://h/db?password=****&sslmode=disable");
  // Many parameters, each with an unencoded '&' in it.
  std::string many = "postgresql://h/db?x=1";
  std::string expected = many;
  while (many.size() < (100 << 10)) {
    many += "&password=s&b";
    expected += "&password=****";
  }
  EXPECT_EQ(redacted_db_url(many), expected);
}

}  // namespace
}  // namespace orrery
