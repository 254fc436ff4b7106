#include "ops/page.h"

#include <algorithm>

namespace orrery::ops {

Status check_page_request(const PageRequest& request, int max_limit) {
  if (request.limit < 1 || request.limit > max_limit) {
    return usage_error("limit " + std::to_string(request.limit) + ": expected 1 to " +
                       std::to_string(max_limit));
  }
  if (request.offset < 0) {
    return usage_error("offset " + std::to_string(request.offset) + ": expected 0 or more");
  }
  if (request.offset > 0 && !request.cursor.empty()) {
    return usage_error("offset " + std::to_string(request.offset) +
                       " and a cursor: give one, the cursor starts the page itself");
  }
  return Ok{};
}

Result<ListedPage> listed_page(int offset, int limit, std::size_t shown,
                               const std::function<Result<std::int64_t>()>& count_all) {
  ListedPage page;
  page.offset = offset;
  page.shown = int(shown);
  if (page.shown < limit && !(shown == 0 && offset > 0)) return page;
  auto total = count_all();
  if (!total) return total.error();
  page.rest = std::max<std::int64_t>(0, *total - offset - std::int64_t(shown));
  return page;
}

}  // namespace orrery::ops
