// Words after a command's arguments, through the binary: refused with exit 2
// ("unexpected argument …"), and the command they name never runs. The whole
// command table × every command name is covered in-process by
// tests/cli/app_test.cc; here every command of the table is given one other
// command's name (in turn), and the cases that once ran a second command are
// checked for their effects.
#include <nlohmann/json.hpp>

#include "home_fixture.h"
#include "support/command_table.h"

namespace orrery {
namespace {

using nlohmann::json;

class StrayWords : public HomeFixture {
 protected:
  void SetUp() override {
    HomeFixture::SetUp();
    ASSERT_EQ(run({"add", "x1", "--every", "1h", "--", "true"}).exit_code, 0);
  }
  json loops() { return json::parse(run({"--json", "ls", "--all"}).out); }
};

TEST_F(StrayWords, EveryCommandRefusesAnotherCommandsNameAfterItsArguments) {
  const auto table = testing::command_table([this](std::vector<std::string> path) {
    path.push_back("--help");
    return run(path).out;
  });
  const auto names = testing::command_names(table);
  ASSERT_GE(names.size(), 25u);
  auto word = names.begin();
  for (const testing::CommandEntry& entry : table) {
    if (!entry.subcommands.empty()) continue;
    if (++word == names.end()) word = names.begin();
    Args args = testing::filled_command(entry, "x1");
    args.push_back(*word);
    const std::string error = expect_error(args, 2);
    EXPECT_NE(error.find("unexpected argument '" + *word + "'"), std::string::npos) << error;
  }
  EXPECT_EQ(loops().size(), 1u);
}

TEST_F(StrayWords, TheWordsThatOnceRanASecondCommandChangeNothing) {
  const std::string before = run({"--json", "show", "x1"}).out;
  EXPECT_NE(expect_error({"show", "x1", "rm", "x1"}, 2).find("unexpected argument 'rm'"),
            std::string::npos);
  EXPECT_EQ(run({"--json", "show", "x1"}).out, before);  // not deleted
  const std::string paused =
      expect_error({"pause", "nosuch", "add", "evil", "--every", "1h", "--", "true"}, 2);
  EXPECT_NE(paused.find("unexpected argument 'add'"), std::string::npos) << paused;
  EXPECT_EQ(loops().size(), 1u);  // no loop "evil"
  // Would start a foreground daemon, which never returns.
  expect_error({"show", "nosuch", "daemon"}, 2);
  // Would start a run of W.
  expect_error({"workflow", "cancel", "started", "workflow", "run", "W"}, 2);
  const RunResult status = run({"--json", "show", "nothing", "status"});
  EXPECT_EQ(status.exit_code, 2);
  EXPECT_EQ(json::parse(status.out)["error"]["code"], "usage") << status.out;
  // A target's words before -- are not the target.
  expect_error({"add", "y", "--every", "1h", "rm", "x1"}, 2);
  expect_error({"edit", "x1", "rm", "x1"}, 2);
  EXPECT_EQ(run({"--json", "show", "x1"}).out, before);
  EXPECT_EQ(loops().size(), 1u);
}

}  // namespace
}  // namespace orrery
