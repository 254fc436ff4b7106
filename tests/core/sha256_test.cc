// sha256 (src/core/sha256.h): FIPS 180-4 digests at every padding boundary,
// the two-part form equal to the joined one, and the hexadecimal form.
#include "core/sha256.h"

#include <gtest/gtest.h>

#include <string>

namespace orrery {
namespace {

struct Vector {
  std::string message;
  const char* digest;
};

// FIPS 180-4's examples (csrc.nist.gov "SHA256.pdf", "SHA2_Additional"), then
// messages of a repeated byte at every length where the padding changes shape:
// the last length that fits one block, the first that needs a second, whole
// blocks and one byte past them.
TEST(Sha256Test, MatchesPublishedDigests) {
  const Vector vectors[] = {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlm"
       "nopqrsmnopqrstnopqrstu",
       "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
      {std::string(1'000'000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
      {std::string(55, 'x'), "d5e285683cd4efc02d021a5c62014694958901005d6f71e89e0989fac77e4072"},
      {std::string(56, 'x'), "04c26261370ee7541549d16dee320c723e3fd14671e66a099afe0a377c16888e"},
      {std::string(57, 'x'), "ae14a2563ccf969d99aca69ce6bb74981f734bbf9f655f73b8f06db68cab5217"},
      {std::string(63, 'x'), "75220b47218278e656f2013bb8f0c455a25eaf01e86c64924e9d48d89776d6f2"},
      {std::string(64, 'x'), "7ce100971f64e7001e8fe5a51973ecdfe1ced42befe7ee8d5fd6219506b5393c"},
      {std::string(65, 'x'), "9537c5fdf120482f7d58d25e9ed583f52c02b4e304ea814db1633ad565aed7e9"},
      {std::string(119, 'x'), "000b48d4edf0fa7bee3c6236ecd2785baa5db4eeb8bb54341b029e0d9fa5fb0c"},
      {std::string(120, 'x'), "13f05a0b594787f5ecd315edc96141bd3243203d1b7d4f0836f37308b276ba98"},
      {std::string(128, 'x'), "24da1b81d0b16df6428eee73c69fcb2a93c76bc6df706f0c6670fe6bfe800464"},
  };
  for (const Vector& vector : vectors) {
    EXPECT_EQ(hex_lower(sha256(vector.message)), vector.digest)
        << vector.message.size() << " bytes";
  }
}

TEST(Sha256Test, APrefixAndTheRestHashAsTheirJoin) {
  std::string message;
  for (int i = 0; i < 200; ++i) message += static_cast<char>((i * 37) & 0xff);
  const Sha256Digest whole = sha256(message);
  for (std::size_t split = 0; split <= message.size(); ++split) {
    const std::string_view view(message);
    EXPECT_EQ(sha256(view.substr(0, split), view.substr(split)), whole) << "split at " << split;
  }
}

TEST(Sha256Test, EveryByteValueIsHashedAsItself) {
  // A byte with its top bit set must not be sign-extended into the block.
  std::string all_bytes;
  for (int byte = 0; byte < 256; ++byte) all_bytes += static_cast<char>(byte);
  EXPECT_EQ(hex_lower(sha256(all_bytes)),
            "40aff2e9d2d8922e47afd4648e6967497158785fbd1da870e7110266bf944880");
}

TEST(Sha256Test, HexIsLowercaseTwoDigitsPerByte) {
  Sha256Digest digest{};
  digest[0] = 0x0f;
  digest[1] = 0xa0;
  digest[31] = 0xff;
  const std::string text = hex_lower(digest);
  ASSERT_EQ(text.size(), 64u);
  EXPECT_EQ(text.substr(0, 4), "0fa0");
  EXPECT_EQ(text.substr(60), "00ff");
}

}  // namespace
}  // namespace orrery
