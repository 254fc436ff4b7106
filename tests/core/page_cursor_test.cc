#include "core/page_cursor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace orrery {
namespace {

TEST(PageCursor, EveryKeyReadsBackAsItWasWritten) {
  const std::vector<TimeMs> instants{
      0, 1, 9, 10, 1'796'083'200'000, std::numeric_limits<TimeMs>::max()};
  const std::vector<std::string> ids{"0", "00ff", std::string(32, 'a'), std::string(64, 'f'),
                                     "0123456789abcdef0123456789abcdef"};
  for (TimeMs at : instants) {
    for (const std::string& id : ids) {
      const PageKey key{at, id};
      const std::string text = cursor_text(key);
      EXPECT_EQ(text.find_first_not_of("0123456789abcdef."), std::string::npos) << text;
      auto read = parse_cursor(text);
      ASSERT_TRUE(read.ok()) << text << ": " << read.error().message;
      EXPECT_EQ(*read, key) << text;
    }
  }
}

// Texts no page gave: every one refused as a usage error that names it.
TEST(PageCursor, ATextNoPageGaveIsRefusedNamingIt) {
  const std::string id(32, 'a');
  std::vector<std::string> refused{"",
                                   ".",
                                   "12",
                                   "12.",
                                   "." + id,
                                   "-1." + id,
                                   "+1." + id,
                                   "01." + id,
                                   "1e3." + id,
                                   " 1." + id,
                                   "1 ." + id,
                                   "1." + id + " ",
                                   "1." + std::string(32, 'A'),
                                   "1." + std::string(31, 'a') + "g",
                                   "1." + std::string(65, 'a'),
                                   "1.." + id,
                                   "1." + id + ".2",
                                   "99999999999999999999." + id,
                                   std::string("1.\xff\xfe", 4),
                                   std::string("1.a\0b", 5)};
  for (const std::string& text : refused) {
    auto read = parse_cursor(text);
    ASSERT_FALSE(read.ok()) << "accepted: " << text;
    EXPECT_EQ(read.error().code, ErrorCode::kUsage) << text;
    EXPECT_NE(read.error().message.find("is not a cursor"), std::string::npos)
        << read.error().message;
  }
}

}  // namespace
}  // namespace orrery
