#include "cli/parse_errors.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orrery::cli {
namespace {

// A small command line shaped like orrery's: a global option, a command
// with a value option, a number option and a positional, and a group.
class ParseErrors : public testing::Test {
 protected:
  ParseErrors() {
    app_.fallthrough();
    app_.add_option("--home", home_);
    CLI::App* show = app_.add_subcommand("show", "Show a loop");
    show->add_option("LOOP", loop_)->required();
    show->add_option("--from", from_);
    show->add_option_function<std::string>(
        "-n", [](const std::string& text) { (void)parse_whole_number("-n", text); });
    CLI::App* cron = app_.add_subcommand("cron", "Cron");
    cron->add_subcommand("explain", "Explain");
    app_.add_subcommand("hidden", "")->group("");
  }

  // The message for parsing `args`, or "" when they parse.
  std::string message(std::vector<std::string> args) {
    std::vector<std::string> reversed(args.rbegin(), args.rend());
    try {
      app_.parse(reversed);
    } catch (const CLI::ParseError& error) {
      return translate_parse_error(app_, error, args).message;
    }
    auto empty = empty_option_value(app_);
    return empty ? empty->message : "";
  }

  CLI::App app_{"test", "orrery"};
  std::string home_, loop_, from_;
};

TEST_F(ParseErrors, WholeNumbersAreReadByOrrery) {
  EXPECT_EQ(parse_whole_number("-n", "5"), 5);
  EXPECT_EQ(parse_whole_number("-n", "-3"), -3);
  EXPECT_EQ(parse_whole_number("-n", "2147483647"), 2147483647);
  for (const std::string bad : {"abc", "1.5", "5m", " 5", "-", "0x10", "+1"}) {
    try {
      parse_whole_number("--max-attempts", bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const OptionValueError& error) {
      EXPECT_EQ(std::string(error.what()), "--max-attempts '" + bad + "' is not a whole number");
    }
  }
  EXPECT_THROW(parse_whole_number("-n", "2147483648"), OptionValueError);
  EXPECT_THROW(parse_whole_number("-n", "99999999999999999999999"), OptionValueError);
  try {
    parse_whole_number("-n", "");
    ADD_FAILURE();
  } catch (const OptionValueError& error) {
    EXPECT_EQ(std::string(error.what()), "-n cannot be empty");
  }
}

TEST_F(ParseErrors, EachParserFailureBecomesOneOfOrrerysSentences) {
  EXPECT_EQ(message({"show", "x"}), "");
  EXPECT_EQ(message({"nope"}), "unknown command 'nope'; commands: show, cron (see orrery --help)");
}

TEST_F(ParseErrors, UnknownOption) {
  EXPECT_EQ(message({"show", "x", "--bogus=1"}),
            "unknown option '--bogus' for orrery show (see orrery show --help)");
}

TEST_F(ParseErrors, UnknownSubcommand) {
  EXPECT_EQ(message({"cron", "explian"}),
            "unknown command 'cron explian'; commands of orrery cron: explain");
}

TEST_F(ParseErrors, ExtraArgument) {
  EXPECT_EQ(message({"show", "x", "y"}),
            "unexpected argument 'y' for orrery show (see orrery show --help)");
}

TEST_F(ParseErrors, RepeatedOption) {
  EXPECT_EQ(message({"show", "x", "--from", "a", "--from", "b"}),
            "--from was given 2 times ('a', 'b'); give it once");
}

TEST_F(ParseErrors, MissingValueAndMissingArgument) {
  EXPECT_EQ(message({"show", "x", "--from"}), "--from needs a value (see orrery show --help)");
  EXPECT_EQ(message({"show"}), "orrery show needs LOOP (see orrery show --help)");
}

TEST_F(ParseErrors, NumberAndEmptyValues) {
  EXPECT_EQ(message({"show", "x", "-n", "many"}), "-n 'many' is not a whole number");
  EXPECT_EQ(message({"show", "x", "--from", ""}), "--from cannot be empty");
  EXPECT_EQ(message({"--home", "", "show", "x"}), "--home cannot be empty");
}

}  // namespace
}  // namespace orrery::cli
