#include "core/item_lines.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(ItemLines, ValidLinesAreItemsAndInvalidOnesAreNumberedWithTheirReason) {
  const ItemLines lines = parse_item_lines(
      "{\"key\": \"a\", \"priority\": 3}\n"
      "not json\n"
      "\n"
      "  \t\r\n"
      "{\"key\": \"b\", \"intent\": \"fix it\"}\r\n"
      "{\"key\": \"c\", \"bogus\": 1}\n"
      "{\"key\": \"d\"}");
  ASSERT_EQ(lines.items.size(), 3u);
  EXPECT_EQ(lines.items[0].line, 1);
  EXPECT_EQ(lines.items[0].item.key, "a");
  EXPECT_EQ(lines.items[0].item.priority, 3);
  EXPECT_EQ(lines.items[1].line, 5);
  EXPECT_EQ(lines.items[1].item.invocation.intent, "fix it");
  EXPECT_EQ(lines.items[2].line, 7);
  ASSERT_EQ(lines.invalid.size(), 2u);
  EXPECT_EQ(lines.invalid[0].line, 2);
  EXPECT_NE(lines.invalid[0].error.find("not valid JSON"), std::string::npos)
      << lines.invalid[0].error;
  EXPECT_EQ(lines.invalid[1].line, 6);
  EXPECT_NE(lines.invalid[1].error.find("bogus"), std::string::npos) << lines.invalid[1].error;
}

TEST(ItemLines, AnEmptyOrBlankTextHasNoItemAndNoError) {
  for (const char* text : {"", "\n", "\n\n\n", " \r\n\t\n"}) {
    const ItemLines lines = parse_item_lines(text);
    EXPECT_TRUE(lines.items.empty()) << text;
    EXPECT_TRUE(lines.invalid.empty()) << text;
  }
}

TEST(ItemLines, ErrorsNameTheJsonFieldNotAnOption) {
  const std::string long_intent(70'000, 'x');
  const ItemLines lines = parse_item_lines("{\"key\": \"a\", \"intent\": \"" + long_intent +
                                           "\"}\n{\"key\": \"a\", \"priority\": 2000000}\n");
  ASSERT_EQ(lines.invalid.size(), 2u);
  for (const InvalidLine& invalid : lines.invalid) {
    EXPECT_EQ(invalid.error.find("--"), std::string::npos) << invalid.error;
  }
  EXPECT_EQ(lines.invalid[0].error.rfind("intent", 0), 0u) << lines.invalid[0].error;
  EXPECT_NE(lines.invalid[1].error.find("priority"), std::string::npos) << lines.invalid[1].error;
}

TEST(ItemLines, NonUtf8AndControlBytesMakeOneLineInvalidAndNotTheOthers) {
  // Every byte that cannot start valid UTF-8, inside a key.
  for (int byte = 0x80; byte <= 0xff; ++byte) {
    const std::string bad = "{\"key\": \"a" + std::string(1, char(byte)) + "\"}";
    const ItemLines lines = parse_item_lines("{\"key\": \"x\"}\n" + bad + "\n{\"key\": \"y\"}\n");
    ASSERT_EQ(lines.items.size(), 2u) << byte;
    EXPECT_EQ(lines.items[1].line, 3) << byte;
    ASSERT_EQ(lines.invalid.size(), 1u) << byte;
    EXPECT_EQ(lines.invalid[0].line, 2) << byte;
  }
}

TEST(ItemLines, LinesPastTheLimitAreInvalidSayingWhy) {
  std::string text;
  for (int i = 0; i < kMaxItemLines + 3; ++i) text += "{\"key\": \"k" + std::to_string(i) + "\"}\n";
  const ItemLines lines = parse_item_lines(text);
  EXPECT_EQ(int(lines.items.size()), kMaxItemLines);
  ASSERT_EQ(lines.invalid.size(), 3u);
  EXPECT_EQ(lines.invalid[0].line, kMaxItemLines + 1);
  EXPECT_NE(lines.invalid[0].error.find(std::to_string(kMaxItemLines)), std::string::npos);
}

}  // namespace
}  // namespace orrery
