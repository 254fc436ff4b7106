// Comparing a secret a request presents (a bearer token, a webhook's
// signature) with the one expected, in time that depends only on their
// lengths, never on where they first differ (docs/server.md, "Security").
#pragma once

#include <string_view>

namespace orrery {

bool secrets_equal(std::string_view presented, std::string_view expected);

}  // namespace orrery
