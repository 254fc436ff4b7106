// Fence: the daemon lease a write is fenced by (docs/storage.md, "Leases").
// A write given a fence fails with "daemon lease lost" and changes nothing
// when that lease is not live; an empty fence is unfenced (CLI edits).
#pragma once

#include <string>

namespace orrery {

struct Fence {
  std::string daemon_lease_id;
};

}  // namespace orrery
