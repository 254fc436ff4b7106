// store/postgres/libpq_library.h: the library is loaded once, whole, and
// every forwarded function reaches it (the failures are tested through the
// binary, tests/integration/libpq_loading_test.cc, as a process loads it once).
#include "store/postgres/libpq_library.h"

#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <string>

namespace orrery::postgres {
namespace {

TEST(LibpqLibrary, LoadsOnceAndSaysTheSameEachTime) {
  const Status first = load_libpq();
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(load_libpq());
  EXPECT_TRUE(libpq_available());
}

TEST(LibpqLibrary, ForwardedFunctionsReachTheLoadedLibrary) {
  ASSERT_TRUE(load_libpq());
  char* error = nullptr;
  PQconninfoOption* options = PQconninfoParse("host=/tmp port=5999 dbname=orrery", &error);
  ASSERT_NE(options, nullptr) << (error != nullptr ? error : "");
  std::string port;
  for (PQconninfoOption* option = options; option->keyword != nullptr; ++option) {
    if (std::string(option->keyword) == "port" && option->val != nullptr) port = option->val;
  }
  PQconninfoFree(options);
  EXPECT_EQ(port, "5999");
  PQconninfoOption* refused = PQconninfoParse("port", &error);
  EXPECT_EQ(refused, nullptr);
  ASSERT_NE(error, nullptr);
  EXPECT_NE(std::string(error).find("port"), std::string::npos) << error;
  PQfreemem(error);
  EXPECT_EQ(std::string(pg_encoding_to_char(6)), "UTF8");
}

}  // namespace
}  // namespace orrery::postgres
