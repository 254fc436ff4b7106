// HMAC-SHA-256 (RFC 2104) of a message under a key of any length: a key
// longer than a block is hashed first, a shorter one padded with zeros. The
// server checks webhook signatures with it (docs/server.md, "Webhooks").
#pragma once

#include <string_view>

#include "core/sha256.h"

namespace orrery {

Sha256Digest hmac_sha256(std::string_view key, std::string_view message);

}  // namespace orrery
