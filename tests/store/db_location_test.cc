#include "store/db_location.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(DbLocation, APathOrASqliteUrlNamesAFile) {
  EXPECT_EQ(*sqlite_path_of("/var/lib/orrery.db"), "/var/lib/orrery.db");
  EXPECT_EQ(*sqlite_path_of("rel/x.db"), "rel/x.db");
  EXPECT_EQ(*sqlite_path_of("./a:b.db"), "./a:b.db");
  EXPECT_EQ(*sqlite_path_of("sqlite:///abs/x.db"), "/abs/x.db");
  EXPECT_EQ(*sqlite_path_of("sqlite://rel/x.db"), "rel/x.db");
  EXPECT_EQ(*sqlite_path_of("dir/x:y"), "dir/x:y");
}

TEST(DbLocation, EverythingElseIsAUsageErrorNamingTheValue) {
  for (const std::string value :
       {":memory:", ":temp:", "", "mysql://x", "MySQL://x", "file:x.db", "file:///tmp/x.db",
        "http://h/x", "sqlite:x.db", "sqlite://", "sqlite://:memory:", "sqlite://file:x",
        "a+b.c-d:x", "dir/", ".", "..", "sub/.", "sub/..", "sqlite://dir/"}) {
    auto refused = sqlite_path_of(value);
    ASSERT_FALSE(refused.ok()) << "'" << value << "' was accepted";
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_EQ(refused.error().message.rfind("--db '" + value + "'", 0), 0u)
        << refused.error().message;
  }
}

TEST(DbLocation, PostgresIsRecognisedButNotAvailableYet) {
  for (const std::string value : {"postgres://x", "postgresql://u@h/db"}) {
    auto refused = sqlite_path_of(value);
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().code, ErrorCode::kUsage);
    EXPECT_NE(refused.error().message.find("PostgreSQL"), std::string::npos);
    EXPECT_NE(refused.error().message.find("not available"), std::string::npos);
  }
}

}  // namespace
}  // namespace orrery
