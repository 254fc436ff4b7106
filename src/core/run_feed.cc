#include "core/run_feed.h"

#include "core/enum_names.h"

namespace orrery {
namespace {

constexpr NameTable<FeedStatus, 3> kFeedStatuses{{
    {FeedStatus::kPending, "pending"},
    {FeedStatus::kFed, "fed"},
    {FeedStatus::kFailed, "failed"},
}};

}  // namespace

const char* feed_status_name(FeedStatus status) { return enum_name(status, kFeedStatuses); }

Result<FeedStatus> parse_feed_status(std::string_view text) {
  return parse_enum_name(text, kFeedStatuses, "feed status");
}

}  // namespace orrery
