// ApiRouter: which handler answers a request, by its method and its path's
// segments (docs/server.md, "Paths"). A pattern is a path whose segments
// are literal or a capture, written {name}: /v1/loops/{loop}/pause.
//
// Invariants: each segment is percent-decoded on its own, so a name holding
// "/" is reached as %2F; a segment that is not valid percent-encoding or
// UTF-8 is 400; a path no pattern has is 404; a path a pattern has but not
// with this method is 405 with the methods it has in Allow; a trailing "/"
// is not a different path.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "server/http_message.h"

namespace orrery::server {

using PathValues = std::map<std::string, std::string>;
using RouteHandler = std::function<HttpResponse(const HttpRequest&, const PathValues&)>;

// Text percent-encoded for a URL: every byte but A-Z a-z 0-9 - . _ ~ as %XX.
std::string percent_encoded(std::string_view text);
// The segments of a raw path, each percent-decoded.
Result<std::vector<std::string>> path_segments(const std::string& raw_path);

class ApiRouter {
 public:
  void add(const std::string& method, const std::string& pattern, RouteHandler handler);
  HttpResponse dispatch(const HttpRequest& request) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> pattern;
    RouteHandler handler;
  };
  std::vector<Route> routes_;
};

}  // namespace orrery::server
