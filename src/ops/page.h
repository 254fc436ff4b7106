// A page of a listing (docs/cli.md, "Pages"; docs/server.md, "Pages"): asked
// for by its place — an offset, the CLI's `--offset` — or by the cursor the
// page before gave, and answered with its rows, how many rows follow it and,
// when some do, the cursor of the next page.
//
// Invariants: nothing a listing leaves out is left out silently — `rest`
// counts the rows after the page with the listing's own filter, as the store
// stood when asked; a cursor names the last row of its page, so a page asked
// for by cursor starts right after it however many rows were added since.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/result.h"

namespace orrery::ops {

struct PageRequest {
  int limit = 100;     // at most this many rows
  int offset = 0;      // after skipping this many (0 with a cursor)
  std::string cursor;  // given: the page after the one that gave it
};

struct ListedPage {
  int offset = 0;         // rows skipped before the page
  int shown = 0;          // rows on the page
  std::int64_t rest = 0;  // rows after the page
};

template <typename Row>
struct Page {
  std::vector<Row> rows;
  ListedPage place;
  std::string next_cursor;  // empty when nothing follows
};

// The request's limit within 1..max_limit, an offset not negative, and not
// both an offset and a cursor; or what was wrong, naming the value.
Status check_page_request(const PageRequest& request, int max_limit);

// The page of `shown` rows at `offset` of at most `limit`: `count_all` (the
// rows the filter selects from the page's start) is asked only when the page
// is full, or empty at an offset, since otherwise nothing follows it.
Result<ListedPage> listed_page(int offset, int limit, std::size_t shown,
                               const std::function<Result<std::int64_t>()>& count_all);

}  // namespace orrery::ops
