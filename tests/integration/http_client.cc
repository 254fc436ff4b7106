#include "http_client.h"

#include <httplib.h>

namespace orrery {

std::string HttpReply::header(const std::string& name) const {
  for (const auto& [key, value] : headers) {
    if (strcasecmp(key.c_str(), name.c_str()) == 0) return value;
  }
  return "";
}

HttpReply http_request(int port, const std::string& method, const std::string& path,
                       const std::string& body, const HttpHeaders& headers) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(30, 0);
  httplib::Request request;
  request.method = method;
  request.path = path;
  request.body = body;
  for (const auto& [name, value] : headers) request.headers.emplace(name, value);
  if (!body.empty() && !request.has_header("Content-Type")) {
    request.headers.emplace("Content-Type", "application/json");
  }
  auto result = client.send(request);
  HttpReply reply;
  if (!result) return reply;
  reply.status = result->status;
  reply.body = result->body;
  for (const auto& [name, value] : result->headers) reply.headers[name] = value;
  return reply;
}

int http_stream(int port, const std::string& path, const HttpHeaders& headers,
                const std::function<bool(const std::string& piece)>& on_data) {
  httplib::Client client("127.0.0.1", port);
  client.set_read_timeout(60, 0);
  httplib::Headers sent;
  for (const auto& [name, value] : headers) sent.emplace(name, value);
  auto result = client.Get(path, sent, [&](const char* data, size_t length) {
    return on_data(std::string(data, length));
  });
  return result ? result->status : -1;
}

}  // namespace orrery
