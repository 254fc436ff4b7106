// Black-box: a data directory this process cannot write (a mounted
// snapshot, an inspected backup; here its permissions taken away) still
// answers every command that only reads, with the same output as when it
// could be written, a note on stderr that it was opened read-only, and no
// file created or changed; commands that write are refused with a clear
// error and change nothing (docs/storage.md, "A read-only data directory").
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>

#include "cli_fixture.h"

namespace orrery {
namespace {

namespace fs = std::filesystem;

class ReadOnlyHome : public CliFixture {
 protected:
  void TearDown() override {
    make_writable(home_);
    CliFixture::TearDown();
  }

  static void make_writable(const std::string& dir) {
    std::error_code ignored;
    if (!fs::exists(dir, ignored)) return;
    ::chmod(dir.c_str(), 0700);
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      ::chmod(entry.path().c_str(), entry.is_directory() ? 0700 : 0600);
    }
  }

  // Every file under the home, with its size and change time.
  std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> files() const {
    std::map<std::string, std::pair<std::uintmax_t, std::int64_t>> all;
    for (const auto& entry : fs::recursive_directory_iterator(home_)) {
      struct stat info {};
      ::lstat(entry.path().c_str(), &info);
      all[entry.path().string()] = {
          std::uintmax_t(info.st_size),
          std::int64_t(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
    }
    return all;
  }

  // Takes the write permission away from the home and everything in it.
  void make_read_only() {
    for (const auto& entry : fs::recursive_directory_iterator(home_)) {
      ::chmod(entry.path().c_str(), entry.is_directory() ? 0500 : 0400);
    }
    ::chmod(home_.c_str(), 0500);
  }
};

TEST_F(ReadOnlyHome, EveryCommandThatReadsAnswersAsBeforeAndChangesNothing) {
  json_of({"add", "x", "--every", "1h", "--", "echo", "hi"});
  const RunResult triggered = run({"trigger", "x", "--wait"});
  ASSERT_EQ(triggered.exit_code, 0) << triggered.err;
  const std::string run_id = json_of({"runs", "x"})[0]["id"].get<std::string>();
  const std::vector<Args> readers = {
      {"ls"},
      {"ls", "--all"},
      {"show", "x"},
      {"runs"},
      {"runs", "x"},
      {"run", "show", run_id},
      {"logs", "x"},
      {"logs", run_id, "--stderr"},
      {"next", "x"},
      {"status"},
      {"workflow", "ls"},
      {"workflow", "runs"},
  };
  std::vector<RunResult> before;
  for (const Args& args : readers) {
    Args full{"--json"};
    full.insert(full.end(), args.begin(), args.end());
    before.push_back(run(args[0] == "logs" ? args : full));
    ASSERT_EQ(before.back().exit_code, 0) << describe(with_home(full), before.back());
  }
  make_read_only();
  const auto files_before = files();
  for (size_t i = 0; i < readers.size(); ++i) {
    Args full{"--json"};
    full.insert(full.end(), readers[i].begin(), readers[i].end());
    const Args& args = readers[i][0] == "logs" ? readers[i] : full;
    const RunResult now = run(args);
    EXPECT_EQ(now.exit_code, 0) << describe(with_home(args), now);
    EXPECT_EQ(now.err, "orrery: " + home_ +
                           " is read-only: opened its database read-only; nothing is changed\n")
        << describe(with_home(args), now);
    if (args[0] == "logs") {
      EXPECT_EQ(now.out, before[i].out);
    } else {
      // The same documents (a relative time may have moved on: compared
      // without the fields that say "in ...").
      json was = json::parse(before[i].out, nullptr, false);
      json is = json::parse(now.out, nullptr, false);
      ASSERT_FALSE(is.is_discarded()) << now.out;
      EXPECT_EQ(is.type(), was.type()) << now.out;
      EXPECT_EQ(is.size(), was.size()) << now.out;
      if (readers[i][0] != "status") {
        EXPECT_EQ(is, was) << describe(with_home(args), now);
      }
    }
  }
  EXPECT_EQ(files(), files_before);
}

TEST_F(ReadOnlyHome, CommandsThatWriteAreRefusedAndChangeNothing) {
  json_of({"add", "x", "--every", "1h", "--", "true"});
  make_read_only();
  const auto files_before = files();
  const std::vector<Args> writers = {
      {"add", "y", "--every", "1h", "--", "true"},
      {"pause", "x"},
      {"edit", "x", "--description", "d"},
      {"rename", "x", "z"},
      {"archive", "x"},
      {"rm", "x"},
      {"trigger", "x"},
  };
  for (const Args& args : writers) {
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 2) << describe(with_home(args), result);
    EXPECT_EQ(result.err, "orrery: data directory " + home_ + " is not writable\n")
        << describe(with_home(args), result);
  }
  EXPECT_EQ(files(), files_before);
}

TEST_F(ReadOnlyHome, AReadOnlyHomeWithoutADatabaseReadsAsEmpty) {
  fs::create_directories(home_);
  ::chmod(home_.c_str(), 0500);
  const RunResult listed = run({"--json", "ls"});
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out, nullptr, false), json::array());
  EXPECT_EQ(listed.err,
            "orrery: " + home_ + " is read-only and holds no database: shown as empty\n");
  const RunResult status = run({"status"});
  EXPECT_EQ(status.exit_code, 0) << status.err;
  EXPECT_TRUE(fs::is_empty(home_));
}

}  // namespace
}  // namespace orrery
