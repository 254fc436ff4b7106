#include "core/stream_scrubber.h"

#include <gtest/gtest.h>

#include <random>

namespace orrery {
namespace {

// Feeds `text` in pieces cut at the given offsets and returns all output.
std::string stream(const Scrubber& scrubber, const std::string& text,
                   const std::vector<size_t>& cuts) {
  StreamScrubber streaming(scrubber);
  std::string out;
  size_t previous = 0;
  for (size_t cut : cuts) {
    out += streaming.feed(std::string_view(text).substr(previous, cut - previous));
    previous = cut;
  }
  out += streaming.feed(std::string_view(text).substr(previous));
  return out + streaming.finish();
}

TEST(StreamScrubber, ASecretSplitAcrossTwoWritesIsCaught) {
  const Scrubber scrubber;
  const std::string text = "log line\nusing key ghp_1234567890abcdefABCDEF1234 now\nbye\n";
  const size_t middle = text.find("abcdef");
  const std::string out = stream(scrubber, text, {middle});
  EXPECT_EQ(out, scrubber.scrub(text));
  EXPECT_EQ(out.find("ghp_1234"), std::string::npos);
}

TEST(StreamScrubber, ALiteralSecretSplitInHalvesIsCaught) {
  const Scrubber scrubber({"correct-horse-battery"});
  const std::string text = "token is correct-horse-battery!\n";
  const std::string out = stream(scrubber, text, {text.find("battery") - 3});
  EXPECT_EQ(out, "token is [SCRUBBED]!\n");
}

TEST(StreamScrubber, ByteByByteEqualsWholeForEveryLine) {
  const Scrubber scrubber({"literal-secret-value"});
  const std::string text =
      "API_KEY=Xy7Qp2Lm9Rt4Vn8Bz3Kw\nplain\nAuthorization: Bearer abcdefghijklmnop1234\n"
      "x literal-secret-value y\nhttps://u:S3cr3tP4ss@h/x\nend without newline "
      "sk-proj-A1b2C3d4E5f6G7h8";
  std::vector<size_t> every_byte;
  for (size_t i = 1; i < text.size(); ++i) every_byte.push_back(i);
  EXPECT_EQ(stream(scrubber, text, every_byte), scrubber.scrub(text));
}

TEST(StreamScrubber, RandomChunkingNeverLeaksASecret) {
  const Scrubber scrubber;
  const std::string text =
      "a sk-ant-api03-AbCdEf1234567890XyZ b\npassword='Tr0ub4dor&3xyz!'\n"
      "hf_AbCdEfGhIjKlMnOpQrSt\n";
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    std::vector<size_t> cuts;
    for (size_t at = 1; at < text.size(); ++at) {
      if (rng() % 7 == 0) cuts.push_back(at);
    }
    EXPECT_EQ(stream(scrubber, text, cuts), scrubber.scrub(text));
  }
}

TEST(StreamScrubber, APrivateKeyIsDroppedUntilItsEndLineAcrossChunks) {
  const Scrubber scrubber;
  const std::string text =
      "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7sQ\nline2\n"
      "-----END RSA PRIVATE KEY-----\nafter\n";
  const std::string out = stream(scrubber, text, {20, 50, 60, text.size() - 10});
  EXPECT_EQ(out.find("MIIEp"), std::string::npos);
  EXPECT_EQ(out.find("line2"), std::string::npos);
  EXPECT_NE(out.find("before\n"), std::string::npos);
  EXPECT_NE(out.find("after\n"), std::string::npos);
  EXPECT_NE(out.find("[SCRUBBED]"), std::string::npos);
}

TEST(StreamScrubber, AnUnterminatedPrivateKeyIsDroppedToTheEnd) {
  const Scrubber scrubber;
  const std::string text = "x\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN\nmore key\n";
  const std::string out = stream(scrubber, text, {10, 40});
  EXPECT_EQ(out, "x\n[SCRUBBED]");
}

TEST(StreamScrubber, CarryStaysBoundedOnALineWithoutNewline) {
  const Scrubber scrubber;
  StreamScrubber streaming(scrubber);
  std::string emitted;
  const std::string chunk(1024, 'a');
  for (int i = 0; i < 200; ++i) emitted += streaming.feed(chunk + " ");
  // 200 KiB fed without a newline: all but the carry has been emitted.
  EXPECT_GE(emitted.size(), 200u * 1025u - StreamScrubber::kMaxCarry);
  emitted += streaming.finish();
  EXPECT_EQ(emitted.size(), 200u * 1025u);
}

}  // namespace
}  // namespace orrery
