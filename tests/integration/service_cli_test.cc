// Black-box tests of `orrery install-service` (docs/cli.md): the unit's
// path and name, its content, --print, refusing a different unit, --force,
// and paths that need quoting. XDG_CONFIG_HOME points into the test's
// directory, so nothing outside it is touched.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "cli_fixture.h"
#include "support/test_files.h"

namespace orrery {
namespace {

using nlohmann::json;
using testing::read_file;
namespace fs = std::filesystem;

class ServiceCli : public CliFixture {
 protected:
  std::string config() const { return tmp_ + "/config"; }
  std::string unit_dir() const { return config() + "/systemd/user"; }
  // The data directory orrery uses without --home: $XDG_DATA_HOME/orrery.
  std::string default_home() const { return tmp_ + "/data/orrery"; }
  EnvVars env() const { return {{"XDG_CONFIG_HOME", config()}, {"XDG_DATA_HOME", tmp_ + "/data"}}; }

  // `--json ARGS` without the fixture's --home; the document on stdout.
  json json_in(const Args& args, int exit_code = 0) const {
    Args full{"--json"};
    full.insert(full.end(), args.begin(), args.end());
    const RunResult result = run_orrery(full, env());
    EXPECT_EQ(result.exit_code, exit_code) << describe(full, result);
    EXPECT_EQ(result.err, "") << describe(full, result);
    json document = json::parse(result.out, nullptr, /*allow_exceptions=*/false);
    EXPECT_FALSE(document.is_discarded()) << describe(full, result);
    return document;
  }

  RunResult install(const std::string& home, const Args& more = {}) const {
    Args args{"--home", home, "install-service"};
    args.insert(args.end(), more.begin(), more.end());
    return run_orrery(args, env());
  }
};

TEST_F(ServiceCli, WritesTheUnitForTheDefaultDataDirectory) {
  const RunResult result = install(default_home());
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string path = unit_dir() + "/orrery.service";
  EXPECT_EQ(result.out, "wrote " + path +
                            "\nenable and start it with:\n"
                            "  systemctl --user daemon-reload && systemctl --user enable --now "
                            "orrery.service\n");
  EXPECT_EQ(result.err, "");
  const std::string unit = read_file(path);
  EXPECT_TRUE(contains(unit, "\nExecStart=" + std::string(ORRERY_BINARY) + " --home " +
                                 default_home() + " daemon\n"))
      << unit;
  for (const char* line : {"\nType=notify\n", "\nWatchdogSec=60\n", "\nRestart=on-failure\n",
                           "\nKillMode=process\n", "\nWantedBy=default.target\n"}) {
    EXPECT_TRUE(contains(unit, line)) << line << "\n" << unit;
  }
  EXPECT_EQ(fs::status(path).permissions() & fs::perms::others_write, fs::perms::none);
}

// Every other data directory gets its own unit name, stable for its path.
TEST_F(ServiceCli, OtherDataDirectoriesGetTheirOwnUnits) {
  std::set<std::string> names;
  for (const std::string& home : {tmp_ + "/a", tmp_ + "/b", tmp_ + "/c/orrery"}) {
    const json doc = json_in({"--home", home, "install-service"});
    const std::string name = doc["name"].get<std::string>();
    EXPECT_EQ(name.size(), std::string("orrery-12345678.service").size()) << name;
    EXPECT_EQ(name.substr(7, 8).find_first_not_of("0123456789abcdef"), std::string::npos) << name;
    EXPECT_EQ(name.rfind("orrery-", 0), 0u) << name;
    EXPECT_EQ(doc["path"], unit_dir() + "/" + name);
    EXPECT_EQ(doc["written"], true);
    EXPECT_EQ(doc["commands"],
              json({"systemctl --user daemon-reload", "systemctl --user enable --now " + name}));
    EXPECT_TRUE(contains(read_file(unit_dir() + "/" + name), " --home " + home + " daemon\n"));
    names.insert(name);
    // The same directory again: the same name, already installed.
    EXPECT_EQ(json_in({"--home", home, "install-service"})["name"], name);
  }
  EXPECT_EQ(names.size(), 3u);
}

TEST_F(ServiceCli, TheSameUnitIsAlreadyInstalled) {
  ASSERT_EQ(install(default_home()).exit_code, 0);
  const std::string path = unit_dir() + "/orrery.service";
  const std::string before = read_file(path);
  const RunResult again = install(default_home());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_TRUE(contains(again.out, "orrery.service is already installed at " + path + "\n"))
      << again.out;
  EXPECT_EQ(read_file(path), before);
  const json doc = json_in({"--home", default_home(), "install-service"});
  EXPECT_EQ(doc["written"], false);
}

// A different unit at the path is refused (exit 4, unchanged) unless --force.
TEST_F(ServiceCli, ADifferentUnitIsReplacedOnlyWithForce) {
  fs::create_directories(unit_dir());
  const std::string path = unit_dir() + "/orrery.service";
  for (const std::string& other : {std::string("[Service]\nExecStart=/bin/true\n"), std::string(""),
                                   std::string("hand-edited\n")}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << other;
    Args args{"--home", default_home(), "install-service"};
    const RunResult refused = run_orrery(args, env());
    EXPECT_EQ(refused.exit_code, 4) << refused.err;
    EXPECT_EQ(refused.out, "");
    EXPECT_EQ(refused.err, "orrery: a different unit is already installed at " + path +
                               "; give --force to replace it (install-service --print shows the "
                               "new one)\n");
    EXPECT_EQ(read_file(path), other);
  }
  const RunResult forced = install(default_home(), {"--force"});
  EXPECT_EQ(forced.exit_code, 0) << forced.err;
  EXPECT_TRUE(contains(read_file(path), "\nType=notify\n"));
}

TEST_F(ServiceCli, PrintWritesNothing) {
  const RunResult printed = install(default_home(), {"--print"});
  EXPECT_EQ(printed.exit_code, 0) << printed.err;
  EXPECT_EQ(printed.out.rfind("[Unit]\n", 0), 0u) << printed.out;
  EXPECT_TRUE(contains(printed.out, "\nType=notify\n"));
  EXPECT_FALSE(fs::exists(unit_dir()));
  ASSERT_EQ(install(default_home()).exit_code, 0);
  EXPECT_EQ(read_file(unit_dir() + "/orrery.service"), printed.out);
}

// Paths with spaces, quotes, % and $ are quoted so that systemd reads them back.
TEST_F(ServiceCli, PathsAreQuotedForSystemd) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {tmp_ + "/my data", "\"" + tmp_ + "/my data\""},
      {tmp_ + "/100%", tmp_ + "/100%%"},
      {tmp_ + "/$HOME", tmp_ + "/$$HOME"},
      {tmp_ + "/say \"hi\"", "\"" + tmp_ + "/say \\\"hi\\\"\""},
  };
  for (const auto& [home, quoted] : cases) {
    const json doc = json_in({"--home", home, "install-service", "--print"});
    EXPECT_TRUE(contains(doc["unit"].get<std::string>(), " --home " + quoted + " daemon\n"))
        << doc["unit"];
  }
}

// --db is passed on by its absolute path; a refused --db writes nothing.
TEST_F(ServiceCli, TheDatabaseIsPassedOn) {
  const json doc =
      json_in({"--home", default_home(), "--db", tmp_ + "/x/../other.db", "install-service"});
  EXPECT_TRUE(contains(doc["unit"].get<std::string>(),
                       " --home " + default_home() + " --db " + tmp_ + "/other.db daemon\n"))
      << doc["unit"];
  const RunResult bad =
      run_orrery({"--home", tmp_ + "/h", "--db", ":memory:", "install-service"}, env());
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_FALSE(fs::exists(unit_dir() + "/" + doc["name"].get<std::string>() + ".x"));
  EXPECT_EQ(std::distance(fs::directory_iterator(unit_dir()), fs::directory_iterator{}), 1);
}

// A PostgreSQL URL goes into the unit as given, unless it holds a password:
// the unit file (and --print) would show it, so that is refused (exit 2).
TEST_F(ServiceCli, APostgresUrlIsPassedOnWithoutAPasswordOnly) {
  const std::string url = "postgresql://orrery@db.example/orrery?sslmode=require";
  const json doc = json_in({"--home", default_home(), "--db", url, "install-service", "--print"});
  EXPECT_TRUE(contains(doc["unit"].get<std::string>(), " --db " + url + " daemon\n"))
      << doc["unit"];
  for (const char* secret : {"postgresql://orrery:hunter2@db.example/orrery",
                             "postgres://db.example/orrery?password=hunter2"}) {
    const RunResult refused =
        run_orrery({"--home", default_home(), "--db", secret, "install-service"}, env());
    EXPECT_EQ(refused.exit_code, 2) << refused.err;
    EXPECT_TRUE(contains(refused.err, "~/.pgpass")) << refused.err;
    EXPECT_FALSE(contains(refused.err, "hunter2")) << refused.err;
  }
  EXPECT_FALSE(fs::exists(unit_dir()));
}

}  // namespace
}  // namespace orrery
