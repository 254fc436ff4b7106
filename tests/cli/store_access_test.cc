// open_store's busy-timeout cap: the supervisor's connection gives up on a
// busy database quickly, whatever ORRERY_BUSY_TIMEOUT_MS says
// (docs/execution.md, "Heartbeats and finishing").
#include "cli/store_access.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>

#include "support/temp_dir.h"

namespace orrery::cli {
namespace {

// Sets an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST(OpenStore, ABusyTimeoutCapBoundsTheWaitForABusyDatabase) {
  struct Case {
    std::string env_ms;
    int cap_ms;
  };
  for (const Case& c : {Case{"60000", 50}, Case{"3600000", 200}, Case{"100", 60'000}}) {
    testing::TempDir dir;
    const ScopedEnv busy("ORRERY_BUSY_TIMEOUT_MS", c.env_ms);
    Context context;
    context.globals.home = dir.file("home");
    auto opened = open_store(context, c.cap_ms);
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    sqlite3* holder = nullptr;
    ASSERT_EQ(sqlite3_open((opened->home + "/orrery.db").c_str(), &holder), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(holder, "BEGIN EXCLUSIVE", nullptr, nullptr, nullptr), SQLITE_OK);
    const auto started = std::chrono::steady_clock::now();
    const Status renewed = opened->store->heartbeat_claim({"run", "test", "token"}, 1000, 1);
    const auto waited = std::chrono::steady_clock::now() - started;
    sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(holder);
    ASSERT_FALSE(renewed.ok()) << c.env_ms;
    EXPECT_EQ(renewed.error().code, ErrorCode::kUnavailable) << renewed.error().message;
    EXPECT_LT(waited, std::chrono::seconds(3)) << c.env_ms;
  }
}

}  // namespace
}  // namespace orrery::cli
