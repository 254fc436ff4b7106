// The PostgreSQL client library is loaded only when a PostgreSQL database is
// used (docs/storage.md, "The PostgreSQL client library"), through the
// binary: a daemon on SQLite, its fork server and its prepared supervisor map
// none of libpq and its dependencies; every command given a postgres:// URL
// with no loadable library (ORRERY_LIBPQ naming a missing file, or a library
// that is not libpq) fails with exit 70, names the library and what to do,
// and never shows the URL's password.
#include <dirent.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_fixture.h"
#include "support/command_table.h"

namespace orrery {
namespace {

constexpr int kExitInternal = 70;
constexpr const char* kSecret = "L1b-Pq-S3cret";

std::string file_text(const std::string& path) {
  std::ifstream file(path);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The children of every thread of `pid`, recursively.
std::vector<int> descendants(int pid) {
  std::vector<int> found;
  const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
  DIR* dir = opendir(tasks.c_str());
  if (dir == nullptr) return found;
  while (const dirent* entry = readdir(dir)) {
    if (entry->d_name[0] == '.') continue;
    std::istringstream children(file_text(tasks + "/" + entry->d_name + "/children"));
    for (int child; children >> child;) {
      found.push_back(child);
      for (int below : descendants(child)) found.push_back(below);
    }
  }
  closedir(dir);
  return found;
}

class LibpqLoading : public CliFixture {
 protected:
  // Every leaf command of the table with its required arguments, on a
  // PostgreSQL URL, with ORRERY_LIBPQ set to `library`: the commands that
  // reached the database, and each result checked.
  int commands_refused_for(const std::string& library, const std::string& reason) {
    const auto table = testing::command_table([this](std::vector<std::string> path) {
      path.push_back("--help");
      return run(path).out;
    });
    const std::string url = std::string("postgres://orrery:") + kSecret + "@127.0.0.1:1/orrery";
    int refused = 0;
    for (const testing::CommandEntry& entry : table) {
      if (!entry.subcommands.empty()) continue;
      Args args{"--db", url};
      for (const std::string& word : testing::filled_command(entry, "x1")) args.push_back(word);
      const RunResult result = run(args, {{"ORRERY_LIBPQ", library}});
      const std::string said = result.out + result.err;
      EXPECT_EQ(said.find(kSecret), std::string::npos) << describe(args, result);
      if (said.find("PostgreSQL client library") == std::string::npos) continue;
      ++refused;
      EXPECT_EQ(result.exit_code, kExitInternal) << describe(args, result);
      EXPECT_NE(said.find("the PostgreSQL client library " + library), std::string::npos)
          << describe(args, result);
      EXPECT_NE(said.find(reason), std::string::npos) << describe(args, result);
      EXPECT_NE(said.find("ORRERY_LIBPQ"), std::string::npos) << describe(args, result);
    }
    return refused;
  }
};

TEST_F(LibpqLoading, ADaemonOnSqliteAndTheProcessesItForksMapNoPostgresClientLibrary) {
  ASSERT_EQ(run({"add", "x1", "--every", "1h", "--", "true"}).exit_code, 0);
  const int daemon = start_daemon();
  std::vector<int> processes{daemon};
  for (int child : descendants(daemon)) processes.push_back(child);
  ASSERT_GE(processes.size(), 2u) << "the daemon's fork server is not running";
  for (int pid : processes) {
    const std::string maps = file_text("/proc/" + std::to_string(pid) + "/maps");
    ASSERT_FALSE(maps.empty()) << pid;
    for (const char* library : {"libpq", "libssl", "libcrypto", "libgssapi", "libldap"}) {
      EXPECT_EQ(maps.find(library), std::string::npos) << pid << " maps " << library;
    }
  }
}

TEST_F(LibpqLoading, EveryCommandOnPostgresWithAMissingLibraryNamesItAndExits70) {
  const std::string missing = tmp_ + "/no-such-dir/libpq.so.5";
  const int refused = commands_refused_for(missing, "cannot open shared object file");
  EXPECT_GE(refused, 20) << "too few commands reached the database";
}

TEST_F(LibpqLoading, EveryCommandOnPostgresWithALibraryThatIsNotLibpqSaysSo) {
  const int refused = commands_refused_for("libm.so.6", "has no function PQ");
  EXPECT_GE(refused, 20) << "too few commands reached the database";
}

TEST_F(LibpqLoading, AHugeOrNonUtf8LibraryNameIsShownEscapedAndCutOnOneLine) {
  const std::string url = std::string("postgres://orrery:") + kSecret + "@127.0.0.1:1/orrery";
  for (const std::string& name :
       {std::string(5000, 'a'), std::string("/tmp/\xff\x01\x1b[31mlib.so"), std::string(" ")}) {
    const RunResult result = run({"--db", url, "ls"}, {{"ORRERY_LIBPQ", name}});
    EXPECT_EQ(result.exit_code, kExitInternal) << result.err;
    EXPECT_NE(result.err.find("the PostgreSQL client library"), std::string::npos) << result.err;
    EXPECT_LT(result.err.size(), 1000u) << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
    EXPECT_EQ(result.err.find('\x1b'), std::string::npos) << result.err;
    EXPECT_EQ(result.err.find('\xff'), std::string::npos) << result.err;
  }
}

TEST_F(LibpqLoading, SqliteCommandsDoNotNeedTheLibrary) {
  const EnvVars env{{"ORRERY_LIBPQ", tmp_ + "/no-such-dir/libpq.so.5"}};
  ASSERT_EQ(run({"add", "x1", "--every", "1h", "--", "true"}, env).exit_code, 0);
  const RunResult listed = run({"--json", "ls"}, env);
  EXPECT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_NE(listed.out.find("x1"), std::string::npos);
  const RunResult triggered = run({"trigger", "x1", "--wait"}, env);
  EXPECT_EQ(triggered.exit_code, 0) << triggered.err;
}

}  // namespace
}  // namespace orrery
