// SHA-256 (FIPS 180-4) of a byte string, and the lowercase hexadecimal form
// of a digest. It exists for webhook signatures (core/hmac.h); it is not a
// general cryptography library and keeps no state between calls.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace orrery {

inline constexpr std::size_t kSha256DigestBytes = 32;
inline constexpr std::size_t kSha256BlockBytes = 64;
using Sha256Digest = std::array<std::uint8_t, kSha256DigestBytes>;

Sha256Digest sha256(std::string_view bytes);
// As sha256(prefix + bytes), without joining them.
Sha256Digest sha256(std::string_view prefix, std::string_view bytes);

std::string hex_lower(const Sha256Digest& digest);

}  // namespace orrery
