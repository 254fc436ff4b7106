#include "core/output_tail.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(OutputTail, ShortOutputIsKeptWhole) {
  OutputTail tail(16);
  tail.append("hello ");
  tail.append("world");
  EXPECT_EQ(tail.text(), "hello world");
  EXPECT_EQ(tail.total_bytes(), 11u);
}

TEST(OutputTail, LongOutputKeepsTheTailWithAMarker) {
  OutputTail tail(10);
  for (int i = 0; i < 10; ++i) tail.append("0123456789");
  EXPECT_EQ(tail.text(), "[truncated 90 bytes]\n0123456789");
  tail.append("abc");
  EXPECT_EQ(tail.text(), "[truncated 93 bytes]\n3456789abc");
}

TEST(OutputTail, OneHugeWriteKeepsItsEnd) {
  OutputTail tail(4);
  tail.append(std::string(1000, 'x') + "tail");
  EXPECT_EQ(tail.text(), "[truncated 1000 bytes]\ntail");
}

TEST(OutputTail, NeverStartsInsideAUtf8Sequence) {
  OutputTail tail(5);
  // "é" is 2 bytes (C3 A9), "€" 3 (E2 82 AC). The bytes are a b c C3 A9 E2 82
  // AC; the last five, C3 A9 E2 82 AC, are a whole "é€".
  tail.append("abc\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(tail.text(), "[truncated 3 bytes]\n\xC3\xA9\xE2\x82\xAC");
  tail.append("z");  // now the last five are A9 E2 82 AC z: A9 is dropped
  EXPECT_EQ(tail.text(), "[truncated 5 bytes]\n\xE2\x82\xACz");
}

TEST(OutputTail, TenMebibytesKeepAtMostTheLimit) {
  OutputTail tail;
  const std::string block(64 * 1024, 'y');
  for (int i = 0; i < 160; ++i) tail.append(block);
  const std::string text = tail.text();
  const std::string marker =
      "[truncated " + std::to_string(160 * 64 * 1024 - kRunOutputLimit) + " bytes]\n";
  EXPECT_EQ(text.substr(0, marker.size()), marker);
  EXPECT_EQ(text.size() - marker.size(), kRunOutputLimit);
}

}  // namespace
}  // namespace orrery
