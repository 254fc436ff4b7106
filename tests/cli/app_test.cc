// The entry point over the whole command table (support/command_table.h):
// a word after a command's arguments is refused, and never runs as a second
// command. In-process: run() is called with argv as the binary is, its
// output captured, its data directory and $HOME a temporary directory.
#include "cli/app.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/exit_codes.h"
#include "support/command_table.h"
#include "support/temp_dir.h"

namespace orrery::cli {
namespace {

using testing::CommandEntry;

struct Call {
  int status = -1;
  std::string out;
  std::string err;
};

class AppTest : public ::testing::Test {
 protected:
  // Nothing a command might write (a systemd unit, a data directory) leaves
  // the temporary directory; the variables are restored after the test, which
  // shares its process with others.
  void SetUp() override {
    for (const char* name : kVariables) {
      const char* value = std::getenv(name);
      saved_.push_back(value ? std::optional<std::string>(value) : std::nullopt);
    }
    setenv("HOME", dir_.path().c_str(), 1);
    setenv("XDG_CONFIG_HOME", dir_.file("config").c_str(), 1);
    setenv("XDG_DATA_HOME", dir_.file("data").c_str(), 1);
    setenv("ORRERY_HOME", dir_.file("home").c_str(), 1);
    unsetenv("ORRERY_DB");
  }
  void TearDown() override {
    for (size_t i = 0; i < saved_.size(); ++i) {
      if (saved_[i]) {
        setenv(kVariables[i], saved_[i]->c_str(), 1);
      } else {
        unsetenv(kVariables[i]);
      }
    }
  }

  static constexpr const char* kVariables[] = {"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME",
                                               "ORRERY_HOME", "ORRERY_DB"};
  std::vector<std::optional<std::string>> saved_;

  Call call(std::vector<std::string> args) {
    args.insert(args.begin(), "orrery");
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    std::ostringstream out, err;
    std::streambuf* old_out = std::cout.rdbuf(out.rdbuf());
    std::streambuf* old_err = std::cerr.rdbuf(err.rdbuf());
    const int status = run(int(args.size()), argv.data());
    std::cout.rdbuf(old_out);
    std::cerr.rdbuf(old_err);
    return {status, out.str(), err.str()};
  }

  std::vector<CommandEntry> table() {
    return testing::command_table([this](std::vector<std::string> path) {
      path.push_back("--help");
      return call(path).out;
    });
  }

  static std::string shown(const std::vector<std::string>& args) {
    std::string text = "orrery";
    for (const std::string& arg : args) text += " " + arg;
    return text;
  }

  testing::TempDir dir_;
};

TEST_F(AppTest, TheCommandTableHasEveryGroupAndItsCommands) {
  const auto commands = table();
  const auto names = testing::command_names(commands);
  for (const char* name : {"add", "show", "rm", "daemon", "status", "trigger", "workflow", "cancel",
                           "events", "explain", "preview", "next-in"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
  EXPECT_GE(commands.size(), 30u);
}

TEST_F(AppTest, AnyCommandNameAfterACommandsArgumentsIsRefusedAndNothingRuns) {
  ASSERT_EQ(call({"add", "x1", "--every", "1h", "--", "true"}).status, kExitOk);
  const std::string before = call({"--json", "show", "x1"}).out;
  const auto commands = table();
  const auto names = testing::command_names(commands);
  int cases = 0;
  for (const CommandEntry& entry : commands) {
    for (const std::string& word : names) {
      std::vector<std::string> args;
      std::string expected;
      if (entry.subcommands.empty()) {
        args = testing::filled_command(entry, "x1");
        expected = "unexpected argument '" + word + "'";
      } else {
        bool is_child = false;
        for (const std::string& sub : entry.subcommands) is_child |= sub == word;
        if (is_child) continue;
        args = entry.path;
        expected = "unknown command";
      }
      args.push_back(word);
      args.push_back("x1");
      const Call plain = call(args);
      EXPECT_EQ(plain.status, kExitUsage) << shown(args) << "\n" << plain.out << plain.err;
      EXPECT_NE(plain.err.find(expected), std::string::npos) << shown(args) << "\n" << plain.err;
      EXPECT_EQ(plain.out, "") << shown(args);
      // With --json: one error document, the same refusal.
      args.insert(args.begin(), "--json");
      const Call json = call(args);
      EXPECT_EQ(json.status, kExitUsage) << shown(args);
      const auto document = nlohmann::json::parse(json.out, nullptr, false);
      ASSERT_FALSE(document.is_discarded()) << shown(args) << "\n" << json.out;
      EXPECT_EQ(document["error"]["code"], "usage") << shown(args);
      ++cases;
    }
  }
  EXPECT_GE(cases, 500);
  // No second command ran: the one loop is as it was, nothing else exists.
  EXPECT_EQ(call({"--json", "show", "x1"}).out, before);
  const auto loops = nlohmann::json::parse(call({"--json", "ls", "--all"}).out);
  EXPECT_EQ(loops.size(), 1u);
  EXPECT_EQ(nlohmann::json::parse(call({"--json", "workflow", "ls"}).out).size(), 0u);
}

TEST_F(AppTest, ATargetsCommandBeforeTheDashesIsRefused) {
  for (const std::string command : {"add", "edit"}) {
    for (const std::string word : {"rm", "echo", "daemon", "x"}) {
      std::vector<std::string> args{command, "x1", "--every", "1h", word, "x1"};
      const Call refused = call(args);
      EXPECT_EQ(refused.status, kExitUsage) << shown(args);
      EXPECT_NE(refused.err.find("unexpected argument '" + word + "'"), std::string::npos)
          << refused.err;
      EXPECT_NE(refused.err.find("goes after --"), std::string::npos) << refused.err;
    }
  }
  EXPECT_EQ(nlohmann::json::parse(call({"--json", "ls", "--all"}).out).size(), 0u);
  // After the dashes, the same words are the target.
  ASSERT_EQ(call({"add", "x1", "--every", "1h", "--", "echo", "rm", "x1"}).status, kExitOk);
  const auto shown_loop = nlohmann::json::parse(call({"--json", "show", "x1"}).out);
  EXPECT_EQ(shown_loop["target"]["command"], "echo") << shown_loop;
  EXPECT_EQ(shown_loop["target"]["args"], nlohmann::json({"rm", "x1"})) << shown_loop;
}

}  // namespace
}  // namespace orrery::cli
