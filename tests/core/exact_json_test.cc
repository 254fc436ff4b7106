#include "core/exact_json.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orrery {
namespace {

using Json = nlohmann::json;

// Numbers a double would not write back as given: too many digits, beyond
// 64 bits, trailing zeros, exponent spellings.
const std::vector<std::string> kKeptNumbers = {
    "123456789012345678901234",
    "18446744073709551616",
    "-9223372036854775809",
    "99999999999999999999999999999999999999",
    "1.10",
    "2.50",
    "-1.5e-7",
    "1E5",
    "1e+2",
    "0.1000000000000000055511151231257827",
    "3.14159265358979323846264338327950288",
};

// Numbers the library holds exactly: they stay ordinary numbers.
const std::vector<std::string> kOrdinaryNumbers = {
    "0",
    "-1",
    "42",
    "9223372036854775807",
    "18446744073709551615",
    "-9223372036854775808",
    "0.1",
    "2.5",
    "-1.5e-07",
    "1e+100",
};

// Where a number can sit in a document; %s is the number.
const std::vector<std::string> kPositions = {
    "%s", "{\"n\":%s}", "[%s]", "[1,%s,\"x\"]", "{\"a\":{\"b\":[true,{\"c\":%s}]},\"z\":null}",
};

std::string placed(const std::string& position, const std::string& number) {
  std::string text = position;
  text.replace(text.find("%s"), 2, number);
  return text;
}

TEST(ExactJson, EveryKeptNumberInEveryPositionWritesBackAsGiven) {
  for (const std::string& number : kKeptNumbers) {
    for (const std::string& position : kPositions) {
      const std::string text = placed(position, number);
      const Json value = read_json(text);
      ASSERT_FALSE(value.is_discarded()) << text;
      EXPECT_EQ(write_json(value), text) << text;
      // Pretty output reads back to the same value and keeps the text.
      const std::string pretty = write_json(value, 2);
      EXPECT_NE(pretty.find(number), std::string::npos) << pretty;
      EXPECT_EQ(write_json(read_json(pretty)), text) << pretty;
    }
  }
}

TEST(ExactJson, PrettyLayoutIsTheLibrarysWhenANumberIsKept) {
  for (const std::string& position : kPositions) {
    const std::string with_kept = placed(position, "1.10");
    const std::string with_plain = placed(position, "7");
    for (int indent : {-1, 0, 2, 4}) {
      std::string expected = read_json(with_plain).dump(indent);
      // The only difference is the number itself.
      const std::size_t at = expected.find('7');
      ASSERT_NE(at, std::string::npos);
      expected.replace(at, 1, "1.10");
      EXPECT_EQ(write_json(read_json(with_kept), indent), expected) << position << " " << indent;
    }
  }
}

TEST(ExactJson, OrdinaryNumbersStayNumbers) {
  for (const std::string& number : kOrdinaryNumbers) {
    for (const std::string& position : kPositions) {
      const std::string text = placed(position, number);
      const Json value = read_json(text);
      ASSERT_FALSE(value.is_discarded()) << text;
      EXPECT_EQ(value, Json::parse(text)) << text;
      EXPECT_EQ(write_json(value), Json::parse(text).dump()) << text;
    }
  }
}

TEST(ExactJson, AKeptNumberIsANumberByNameAndKeepsItsText) {
  for (const std::string& number : kKeptNumbers) {
    const Json value = read_json(number);
    EXPECT_TRUE(is_kept_number(value)) << number;
    EXPECT_FALSE(value.is_number()) << number;
    EXPECT_EQ(json_type_name(value), "number");
    EXPECT_EQ(kept_number_text(value), number);
  }
  for (const std::string& number : kOrdinaryNumbers) {
    EXPECT_FALSE(is_kept_number(read_json(number))) << number;
    EXPECT_EQ(kept_number_text(read_json(number)), "");
  }
}

TEST(ExactJson, NoTextPosesAsAKeptNumber) {
  // A string holding a number's text stays a string; a number inside a string
  // is not a number.
  for (const std::string& number : kKeptNumbers) {
    const Json value = read_json("\"" + number + "\"");
    EXPECT_TRUE(value.is_string()) << number;
    EXPECT_FALSE(is_kept_number(value));
  }
  // A binary value of any other subtype is not a kept number.
  EXPECT_FALSE(is_kept_number(Json::binary({'1', '2'}, 1)));
  EXPECT_FALSE(is_kept_number(Json::binary({'1', '2'})));
}

TEST(ExactJson, WholeNumberTextIsOnlyDigitsAfterAnOptionalMinus) {
  for (const std::string whole : {"0", "-1", "123456789012345678901234", "-99999999999999999999"}) {
    EXPECT_TRUE(is_whole_number_text(whole)) << whole;
  }
  for (const std::string not_whole : {"", "-", "1.0", "1e5", "+1", " 1", "1 ", "0x10"}) {
    EXPECT_FALSE(is_whole_number_text(not_whole)) << not_whole;
  }
}

TEST(ExactJson, NumberTextFollowsTheJsonGrammar) {
  for (const std::string& number : kKeptNumbers) EXPECT_TRUE(is_json_number_text(number));
  for (const std::string& number : kOrdinaryNumbers) EXPECT_TRUE(is_json_number_text(number));
  for (const std::string not_number :
       {"", "-", "01", "1.", ".5", "+1", "1e", "1e+", "0x1", "1.5.2", "NaN", "Infinity", " 1"}) {
    EXPECT_FALSE(is_json_number_text(not_number)) << not_number;
  }
  // exact_number of a text that is not JSON is the plain double (YAML's
  // spellings such as .5 or 1_000 are not JSON numbers to keep).
  EXPECT_TRUE(exact_number(0.5, ".5").is_number_float());
}

TEST(ExactJson, MalformedTextIsDiscardedWhateverItHolds) {
  for (const std::string bad :
       {"", "{", "[1,", "{\"a\":1e400", "1.10 2", "[1.10,]", "{\"a\" 1}", "tru", "\"\\x\"",
        // Beyond a double's range: refused, never turned into infinity.
        "1e400", "-1e400", "[1e999]"}) {
    EXPECT_TRUE(read_json(bad).is_discarded()) << bad;
  }
}

TEST(ExactJson, KeptNumbersBecomeTheirTextForPlainConsumers) {
  const Json value = read_json(R"({"id":123456789012345678901234,"list":[2.50,3],"s":"x"})");
  const Json plain = with_kept_numbers_as_text(value);
  EXPECT_EQ(plain, Json::parse(R"({"id":"123456789012345678901234","list":["2.50",3],"s":"x"})"));
}

TEST(ExactJson, InvalidUtf8IsReplacedWhetherOrNotANumberIsKept) {
  const Json plain = {{"s", std::string("a\xff")}};
  EXPECT_EQ(write_json(plain), "{\"s\":\"a\xEF\xBF\xBD\"}");
  Json kept = plain;
  kept["n"] = read_json("1.10");
  EXPECT_EQ(write_json(kept), "{\"n\":1.10,\"s\":\"a\xEF\xBF\xBD\"}");
}

}  // namespace
}  // namespace orrery
