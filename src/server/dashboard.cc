// GET / and the dashboard's files (docs/server.md, "Dashboard"): served from
// the binary with a Content-Security-Policy that lets the page load only its
// own script and style and talk only to this server.
#include "server/dashboard.h"

#include "server/dashboard_assets.h"

namespace orrery::server {
namespace {

constexpr char kPolicy[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

HttpResponse asset_response(const DashboardAsset& asset) {
  HttpResponse response;
  response.content_type = std::string(asset.content_type);
  response.body = std::string(asset.content);
  response.headers = {{"Content-Security-Policy", kPolicy},
                      {"X-Content-Type-Options", "nosniff"},
                      {"Referrer-Policy", "no-referrer"},
                      {"Cache-Control", "no-cache"}};
  return response;
}

// "/" and the asset's name (appended: GCC 12 -O3 -Wrestrict on "/" + a
// temporary).
std::string path_of(const DashboardAsset& asset) {
  std::string path = "/";
  if (asset.name != "index.html") path += asset.name;
  return path;
}

}  // namespace

bool is_dashboard_file(const HttpRequest& request) {
  if (request.method != "GET" && request.method != "HEAD") return false;
  if (request.path == "/") return true;
  for (const DashboardAsset& asset : dashboard_assets()) {
    if (asset.name != "index.html" && request.path == path_of(asset)) return true;
  }
  return false;
}

void add_dashboard_routes(ApiRouter& router) {
  for (const DashboardAsset& asset : dashboard_assets()) {
    const std::string path = path_of(asset);
    router.add("GET", path,
               [&asset](const HttpRequest&, const PathValues&) { return asset_response(asset); });
  }
}

}  // namespace orrery::server
