#include "core/run_feed.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(RunFeed, EveryStatusNameParsesBackAndOthersAreRefusedListingThem) {
  for (const FeedStatus status : {FeedStatus::kPending, FeedStatus::kFed, FeedStatus::kFailed}) {
    auto parsed = parse_feed_status(feed_status_name(status));
    ASSERT_TRUE(parsed.ok()) << feed_status_name(status);
    EXPECT_EQ(*parsed, status);
  }
  for (const char* bad : {"", "Fed", "done", "pending "}) {
    auto parsed = parse_feed_status(bad);
    ASSERT_FALSE(parsed.ok()) << bad;
    EXPECT_NE(parsed.error().message.find("pending, fed, failed"), std::string::npos);
  }
}

}  // namespace
}  // namespace orrery
