// A fixture for black-box tests: a fresh temporary directory per test, with
// the data directory at <tmp>/home (created by orrery itself), and helpers
// that run orrery with --home pointing there.
#pragma once

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "run_binary.h"

namespace orrery {

class HomeFixture : public ::testing::Test {
 protected:
  using Args = std::vector<std::string>;

  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "orrery-cli-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    tmp_ = std::filesystem::canonical(pattern).string();
    home_ = tmp_ + "/home";
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(tmp_, ignored);
  }

  Args with_home(const Args& args) const {
    Args full{"--home", home_};
    full.insert(full.end(), args.begin(), args.end());
    return full;
  }

  // Runs raw SQL on the database, as another program would.
  void sql(const std::string& text) const {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((home_ + "/orrery.db").c_str(), &db), SQLITE_OK);
    sqlite3_busy_timeout(db, 5000);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(db, text.c_str(), nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "") << "\n"
        << text;
    sqlite3_free(error);
    sqlite3_close(db);
  }

  // Runs orrery with --home.
  RunResult run(const Args& args, const EnvVars& env = {}) const {
    return run_orrery(with_home(args), env);
  }

  // A failure per the contract: the exit code, nothing on stdout, one line
  // "orrery: …" on stderr. Returns that line.
  std::string expect_error(const Args& args, int exit_code) const {
    const RunResult result = run(args);
    const std::string what = describe(with_home(args), result);
    EXPECT_EQ(result.exit_code, exit_code) << what;
    EXPECT_EQ(result.out, "") << what;
    EXPECT_EQ(result.err.rfind("orrery: ", 0), 0u) << what;
    EXPECT_EQ(lines(result.err).size(), 1u) << what;
    return result.err;
  }

  std::string tmp_;
  std::string home_;
};

// Whether `text` shows `id` by a handle (a prefix of at least 8 characters,
// docs/cli.md "Ids") followed by `after`.
inline bool shows_handle(const std::string& text, const std::string& id,
                         const std::string& after = "") {
  for (size_t length = id.size(); length >= 8; --length) {
    if (text.find(id.substr(0, length) + after) != std::string::npos) return true;
  }
  return false;
}

}  // namespace orrery
