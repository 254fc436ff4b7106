#include "cli/service_command.h"

#include <gtest/gtest.h>

namespace orrery::cli {
namespace {

// Each word comes back from systemd's ExecStart parsing as it was: plain
// words as they are, others quoted with C escapes, % and $ doubled.
TEST(ServiceCommand, WordsAreQuotedPerSystemdRules) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"/usr/bin/orrery", "/usr/bin/orrery"},
      {"--home", "--home"},
      {"/home/a b/data", "\"/home/a b/data\""},
      {"/tmp/say \"hi\"", "\"/tmp/say \\\"hi\\\"\""},
      {"/tmp/back\\slash", "\"/tmp/back\\\\slash\""},
      {"/tmp/it's", "\"/tmp/it's\""},
      {"/tmp/50%", "/tmp/50%%"},
      {"/tmp/$HOME", "/tmp/$$HOME"},
      {"/tmp/a b%$", "\"/tmp/a b%%$$\""},
      {"/tmp/semi;colon", "\"/tmp/semi;colon\""},
      {"/tmp/tab\there", "\"/tmp/tab\\x09here\""},
      {"", "\"\""},
      {"/tmp/ünïcode", "/tmp/ünïcode"},
  };
  for (const auto& [word, expected] : cases) EXPECT_EQ(systemd_word(word), expected) << word;
}

TEST(ServiceCommand, TheUnitRunsTheDaemonUnderSystemdSupervision) {
  const std::string unit =
      service_unit({"/opt/orrery bin/orrery", "--home", "/data/100%", "daemon"}, "/data/100%");
  EXPECT_NE(unit.find("\nType=notify\n"), std::string::npos) << unit;
  EXPECT_NE(unit.find("\nWatchdogSec=60\n"), std::string::npos) << unit;
  EXPECT_NE(unit.find("\nRestart=on-failure\n"), std::string::npos) << unit;
  EXPECT_NE(unit.find("\nKillMode=process\n"), std::string::npos) << unit;
  EXPECT_NE(unit.find("\nWantedBy=default.target\n"), std::string::npos) << unit;
  EXPECT_NE(unit.find("\nExecStart=\"/opt/orrery bin/orrery\" --home /data/100%% daemon\n"),
            std::string::npos)
      << unit;
  EXPECT_NE(unit.find("\nDescription=orrery scheduler daemon (/data/100%%)\n"), std::string::npos)
      << unit;
}

// The default data directory has orrery.service; every other one its own
// name, stable for its path.
TEST(ServiceCommand, EachDataDirectoryHasItsOwnUnitName) {
  const std::string standard = "/home/u/.local/share/orrery";
  EXPECT_EQ(service_name(standard, standard), "orrery.service");
  const std::string a = service_name("/srv/a", standard);
  const std::string b = service_name("/srv/b", standard);
  EXPECT_NE(a, b);
  EXPECT_EQ(a, service_name("/srv/a", standard));
  for (const std::string& name : {a, b}) {
    ASSERT_EQ(name.size(), std::string("orrery-12345678.service").size()) << name;
    EXPECT_EQ(name.rfind("orrery-", 0), 0u) << name;
    EXPECT_EQ(name.substr(15), ".service") << name;
    EXPECT_EQ(name.substr(7, 8).find_first_not_of("0123456789abcdef"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace orrery::cli
