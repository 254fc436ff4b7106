// User text through the real binary (docs/cli.md, "Names and text",
// "Escaping", "Targets as shown"; docs/goals.md): one text rule refuses a
// control character in any field of prose, human views show a backslash as
// it is, a command's control character as an escape that pastes back, and a
// plan file is judged as an update's plan is.
#include <fstream>

#include "cli_fixture.h"

namespace orrery {
namespace {

class TextViews : public CliFixture {
 protected:
  std::string write_file(const std::string& name, const std::string& text) const {
    const std::string path = tmp_ + "/" + name;
    std::ofstream(path, std::ios::binary) << text;
    return path;
  }
  std::string out_of(const Args& args) const {
    const RunResult result = run(args);
    EXPECT_EQ(result.exit_code, 0) << describe(with_home(args), result);
    return result.out;
  }
};

TEST_F(TextViews, ABackslashIsShownAsItIsInEveryViewOfAGoal) {
  add("fixer", {"--every", "1h", "--", "true"});
  const std::string objective = "fix the build in C:\\work\\repo";
  const std::string id =
      json_of({"goal", "create", "--loop", "fixer", "--objective", objective})["id"];
  for (const Args& view : {Args{"goal", "ls"}, Args{"goal", "show", id}, Args{"status"}}) {
    const std::string shown = out_of(view);
    EXPECT_NE(shown.find(objective), std::string::npos) << view[0] << "\n" << shown;
    EXPECT_EQ(shown.find("C:\\\\work"), std::string::npos) << view[0] << "\n" << shown;
  }
}

TEST_F(TextViews, ACommandsTabIsShownAsAnEscapeThatPastesBack) {
  add("tabbed", {"--every", "1h", "--", "printf", "a\tb"});
  const std::string shown = out_of({"show", "tabbed"});
  EXPECT_NE(shown.find("printf $'a\\tb'"), std::string::npos) << shown;
  EXPECT_EQ(shown.find('\t'), std::string::npos) << "a raw tab: " << shown;
}

TEST_F(TextViews, AControlCharacterInAnyFieldOfProseIsRefusedNamingIt) {
  add("fixer", {"--every", "1h", "--", "true"});
  const std::pair<Args, std::string> refused[] = {
      {{"goal", "create", "--loop", "fixer", "--objective", "a\u0085b"}, "the objective"},
      {{"goal", "create", "--loop", "fixer", "--objective", "a\u202eb"}, "the objective"},
      {{"add", "other", "--every", "1h", "--description", "a\u2028b", "--", "true"},
       "--description"},
      {{"add", "other", "--every", "1h", "--description", "a\x1b[2Jb", "--", "true"},
       "--description"},
  };
  for (const auto& [args, field] : refused) {
    const std::string error = expect_error(args, 2);
    EXPECT_NE(error.find(field + " contains the control character"), std::string::npos) << error;
  }
  EXPECT_EQ(json_of({"goal", "ls"}), nlohmann::json::array());
  EXPECT_EQ(json_of({"ls"}).size(), 1u);
}

TEST_F(TextViews, APlanFileMayDependOnACompleteNodeItLeavesOutAsAnUpdateMay) {
  add("fixer", {"--every", "1h", "--", "true"});
  const std::string first = write_file("first.yaml",
                                       "- key: setup\n  objective: install the tools\n"
                                       "- key: build\n  objective: build it\n");
  const std::string id =
      json_of({"goal", "create", "--loop", "fixer", "--objective", "ship", "--plan", first})["id"];
  json_of({"goal", "plan", id, "--node", "setup", "--status", "complete"});
  const std::string next =
      write_file("next.yaml", "- key: test\n  objective: test it\n  depends_on: [setup]\n");
  const nlohmann::json goal = json_of({"goal", "plan", id, "--set", next});
  ASSERT_EQ(goal["plan"].size(), 2u) << goal;
  EXPECT_EQ(goal["plan"][0]["key"], "setup");
  EXPECT_EQ(goal["plan"][0]["status"], "complete");
  EXPECT_EQ(goal["plan"][1]["key"], "test");
  // A new goal has no complete node to depend on; an unknown key is refused.
  EXPECT_NE(
      expect_error({"goal", "create", "--loop", "fixer", "--objective", "x", "--plan", next}, 2)
          .find("depends on the missing node setup"),
      std::string::npos);
  const std::string extra =
      write_file("extra.json", R"({"plan": [{"key": "a", "objective": "x"}], "owner": "me"})");
  EXPECT_NE(expect_error({"goal", "plan", id, "--set", extra}, 2)
                .find("the plan file has the unknown field 'owner'; accepted: plan"),
            std::string::npos);
}

}  // namespace
}  // namespace orrery
