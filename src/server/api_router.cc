#include "server/api_router.h"

#include <cctype>

#include "core/text.h"
#include "server/api_response.h"

namespace orrery::server {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

Result<std::string> percent_decoded(const std::string& segment) {
  std::string decoded;
  for (size_t i = 0; i < segment.size(); ++i) {
    if (segment[i] != '%') {
      decoded += segment[i];
      continue;
    }
    const bool complete = i + 2 < segment.size();
    const int high = complete ? hex_value(segment[i + 1]) : -1;
    const int low = complete ? hex_value(segment[i + 2]) : -1;
    if (high < 0 || low < 0) {
      return usage_error("the path segment '" + visible(segment) +
                         "' has a '%' that is not followed by two hexadecimal digits");
    }
    decoded += static_cast<char>(high * 16 + low);
    i += 2;
  }
  if (!is_valid_utf8(decoded)) {
    return usage_error("the path segment '" + visible(segment) + "' is not valid UTF-8");
  }
  return decoded;
}

bool matches(const std::vector<std::string>& pattern, const std::vector<std::string>& segments,
             PathValues* values) {
  if (pattern.size() != segments.size()) return false;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const std::string& part = pattern[i];
    const bool capture = part.size() > 2 && part.front() == '{' && part.back() == '}';
    if (capture) {
      if (segments[i].empty()) return false;
      if (values) (*values)[part.substr(1, part.size() - 2)] = segments[i];
    } else if (part != segments[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string percent_encoded(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (std::isalnum(byte) || c == '-' || c == '.' || c == '_' || c == '~') {
      encoded += c;
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 15];
    }
  }
  return encoded;
}

Result<std::vector<std::string>> path_segments(const std::string& raw_path) {
  std::vector<std::string> segments;
  size_t start = raw_path.empty() || raw_path[0] != '/' ? 0 : 1;
  while (start <= raw_path.size()) {
    size_t end = raw_path.find('/', start);
    if (end == std::string::npos) end = raw_path.size();
    auto decoded = percent_decoded(raw_path.substr(start, end - start));
    if (!decoded) return decoded.error();
    segments.push_back(std::move(*decoded));
    start = end + 1;
  }
  if (segments.size() > 1 && segments.back().empty()) segments.pop_back();
  return segments;
}

void ApiRouter::add(const std::string& method, const std::string& pattern, RouteHandler handler) {
  routes_.push_back({method, *path_segments(pattern), std::move(handler)});
}

HttpResponse ApiRouter::dispatch(const HttpRequest& request) const {
  auto segments = path_segments(request.path);
  if (!segments) return error_response(segments.error());
  std::string allowed;
  for (const Route& route : routes_) {
    if (!matches(route.pattern, *segments, nullptr)) continue;
    if (route.method != request.method && !(request.method == "HEAD" && route.method == "GET")) {
      if (allowed.find(route.method) == std::string::npos) {
        allowed += (allowed.empty() ? "" : ", ") + route.method;
      }
      continue;
    }
    PathValues values;
    matches(route.pattern, *segments, &values);
    return route.handler(request, values);
  }
  if (!allowed.empty()) {
    HttpResponse response = refusal(405, "method_not_allowed",
                                    request.method + " is not accepted here; accepted: " + allowed);
    response.headers.emplace_back("Allow", allowed);
    return response;
  }
  return refusal(404, "not_found", "no such path: " + visible(request.path));
}

}  // namespace orrery::server
