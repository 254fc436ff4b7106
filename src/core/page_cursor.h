// PageKey: where a page of a listing in a stable newest-first order ended —
// its last row's creation instant and id — and the cursor text a caller
// carries to ask for the page after it (docs/server.md, "Pages").
//
// Invariants: parse_cursor(cursor_text(k)) == k for every key with an
// instant of 0 or more and an id of lowercase hex; any other text is refused
// naming it. The text holds only [0-9a-f.], so it needs no escaping in a URL.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"
#include "core/time.h"

namespace orrery {

struct PageKey {
  TimeMs created_at = 0;
  std::string id;
  bool operator==(const PageKey&) const = default;
};

std::string cursor_text(const PageKey& key);
Result<PageKey> parse_cursor(std::string_view text);

}  // namespace orrery
