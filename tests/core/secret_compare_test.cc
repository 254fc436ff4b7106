#include "core/secret_compare.h"

#include <gtest/gtest.h>

#include <string>

namespace orrery {
namespace {

TEST(SecretCompare, OnlyTheSameBytesAreEqual) {
  const std::string secret = "0123456789abcdef";
  EXPECT_TRUE(secrets_equal(secret, secret));
  EXPECT_FALSE(secrets_equal("", secret));
  EXPECT_FALSE(secrets_equal(secret + "0", secret));
  EXPECT_FALSE(secrets_equal(secret.substr(1), secret));
  EXPECT_TRUE(secrets_equal("", ""));
  // Every single changed byte, at every position, is noticed.
  for (size_t i = 0; i < secret.size(); ++i) {
    for (int flip = 1; flip < 256; flip <<= 1) {
      std::string other = secret;
      other[i] = static_cast<char>(other[i] ^ flip);
      EXPECT_FALSE(secrets_equal(other, secret)) << i << " " << flip;
    }
  }
  // A presented prefix padded with what the loop would compare against is no match.
  EXPECT_FALSE(secrets_equal(secret.substr(0, 8), secret));
  EXPECT_FALSE(secrets_equal(std::string("0123456789abcdef\0", 17), secret));
}

}  // namespace
}  // namespace orrery
