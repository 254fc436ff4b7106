#include "core/hmac.h"

#include <string>

namespace orrery {
namespace {

std::string padded_key(std::string_view key, unsigned char pad) {
  std::string block(kSha256BlockBytes, '\0');
  if (key.size() > kSha256BlockBytes) {
    const Sha256Digest hashed = sha256(key);
    for (std::size_t i = 0; i < hashed.size(); ++i) block[i] = static_cast<char>(hashed[i]);
  } else {
    for (std::size_t i = 0; i < key.size(); ++i) block[i] = key[i];
  }
  for (char& c : block) c = static_cast<char>(static_cast<unsigned char>(c) ^ pad);
  return block;
}

}  // namespace

Sha256Digest hmac_sha256(std::string_view key, std::string_view message) {
  const Sha256Digest inner = sha256(padded_key(key, 0x36), message);
  const std::string_view inner_bytes(reinterpret_cast<const char*>(inner.data()), inner.size());
  return sha256(padded_key(key, 0x5c), inner_bytes);
}

}  // namespace orrery
