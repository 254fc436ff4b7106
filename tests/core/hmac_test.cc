// hmac_sha256 (src/core/hmac.h): RFC 4231's seven HMAC-SHA-256 test cases,
// covering short, block-sized and longer-than-a-block keys.
#include "core/hmac.h"

#include <gtest/gtest.h>

#include <string>

namespace orrery {
namespace {

struct Case {
  std::string key;
  std::string message;
  const char* mac;
};

std::string bytes_from(int first, int last) {
  std::string text;
  for (int byte = first; byte <= last; ++byte) text += static_cast<char>(byte);
  return text;
}

TEST(HmacTest, MatchesRfc4231) {
  const Case cases[] = {
      {std::string(20, '\x0b'), "Hi There",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", "what do ya want for nothing?",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {std::string(20, '\xaa'), std::string(50, '\xdd'),
       "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"},
      {bytes_from(1, 25), std::string(50, '\xcd'),
       "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"},
      {std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {std::string(131, '\xaa'),
       "This is a test using a larger than block-size key and a larger than block-size data. "
       "The key needs to be hashed before being used by the HMAC algorithm.",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(hex_lower(hmac_sha256(c.key, c.message)), c.mac) << c.message;
  }
}

TEST(HmacTest, MatchesRfc4231TruncatedCase) {
  // Case 5 publishes only the first 128 bits of the MAC.
  const std::string mac = hex_lower(hmac_sha256(std::string(20, '\x0c'), "Test With Truncation"));
  EXPECT_EQ(mac.substr(0, 32), "a3b6167473100ee06e0c796c2955552b");
}

TEST(HmacTest, AKeyOfExactlyOneBlockIsNotHashed) {
  // 64 bytes is used as it is; 65 is hashed first, so the two differ even
  // though the longer key only adds a byte.
  const std::string block(64, 'k');
  EXPECT_NE(hmac_sha256(block, "m"), hmac_sha256(block + "k", "m"));
  EXPECT_EQ(hmac_sha256(block + "k", "m"),
            hmac_sha256(std::string_view(reinterpret_cast<const char*>(sha256(block + "k").data()),
                                         kSha256DigestBytes),
                        "m"));
}

}  // namespace
}  // namespace orrery
