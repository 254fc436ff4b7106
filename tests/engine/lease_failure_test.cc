#include "engine/lease_failure.h"

#include <gtest/gtest.h>

namespace orrery {
namespace {

TEST(LeaseFailure, ALostLeaseStopsUnlessHeartbeatsWereFailingThenItIsTakenAgain) {
  const Error lost = conflict_error("daemon lease lost");
  const Error lost_in_context = conflict_error("run r1: daemon lease lost (generation 3)");
  for (const Error& error : {lost, lost_in_context}) {
    EXPECT_EQ(after_store_failure(error, false), LeaseFailure::kStop) << error.message;
    EXPECT_EQ(after_store_failure(error, true), LeaseFailure::kRetakeLease) << error.message;
  }
}

TEST(LeaseFailure, AnyOtherStoreErrorIsRetried) {
  const Error others[] = {
      unavailable_error("the database is busy"), internal_error("disk I/O error"),
      conflict_error("loop changed while it was planned"),  // a conflict, not the lease
      Error{ErrorCode::kNotFound, "daemon lease lost"},     // the words, not a conflict
  };
  for (const Error& error : others) {
    for (bool failing : {false, true}) {
      EXPECT_EQ(after_store_failure(error, failing), LeaseFailure::kRetry) << error.message;
    }
  }
}

}  // namespace
}  // namespace orrery
