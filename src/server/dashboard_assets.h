// The dashboard's files (src/server/dashboard), built into the binary by
// cmake/embed_assets.cmake: served as they are, with no network access and
// nothing fetched at run time (docs/server.md, "Dashboard").
#pragma once

#include <string_view>
#include <vector>

namespace orrery::server {

struct DashboardAsset {
  std::string_view name;  // index.html, dashboard.js, dashboard.css
  std::string_view content_type;
  std::string_view content;
};

const std::vector<DashboardAsset>& dashboard_assets();

}  // namespace orrery::server
