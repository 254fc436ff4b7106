// An HTTP request as the API sees it and the response it gives, free of the
// HTTP library (server/http_listener.h turns them into its own): the API's
// handlers are tested without a socket.
//
// Invariants: header names are lower case; the path is as the client sent
// it, so that an encoded "/" in a name (%2F) is not taken for a separator;
// `query` holds each parameter's last value, percent-decoded; a response with a `stream` sends its
// body as the stream writes it, until the stream returns false or a write fails.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orrery::server {

struct HttpRequest {
  std::string method;  // GET, POST, ...
  std::string path;    // without the query, as sent (percent-encoded)
  std::map<std::string, std::string> query{};
  std::map<std::string, std::string> headers{};  // names lower case
  std::string body{};
  std::string remote_address{};

  // The header's value, or "" when absent.
  const std::string& header(const std::string& lower_case_name) const;
  // The query parameter's value, or nullptr when absent.
  const std::string* parameter(const std::string& name) const;
};

// Writes a piece of a streamed body; false when the client is gone.
using StreamWrite = std::function<bool(std::string_view data)>;
// Produces a streamed body: returns when it is done or a write failed.
using StreamBody = std::function<void(const StreamWrite& write)>;

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body{};
  std::vector<std::pair<std::string, std::string>> headers{};
  StreamBody stream{};  // set: the body is streamed (chunked)
};

}  // namespace orrery::server
