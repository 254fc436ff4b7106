// A small HTTP/1.1 client for the black-box tests of `orrery serve`
// (docs/server.md), over cpp-httplib's client in http_client.cc alone.
#pragma once

#include <functional>
#include <map>
#include <string>

namespace orrery {

struct HttpReply {
  int status = -1;  // -1: no answer (refused, reset, timed out)
  std::string body;
  std::map<std::string, std::string> headers;  // names as sent
  std::string header(const std::string& name) const;
};

using HttpHeaders = std::multimap<std::string, std::string>;

// One request to 127.0.0.1:port; the body is sent as application/json
// unless the headers give another Content-Type.
HttpReply http_request(int port, const std::string& method, const std::string& path,
                       const std::string& body = "", const HttpHeaders& headers = {});

// Reads a streamed GET (server-sent events) and hands each piece received to
// `on_data` until it returns false or the stream ends; the status.
int http_stream(int port, const std::string& path, const HttpHeaders& headers,
                const std::function<bool(const std::string& piece)>& on_data);

}  // namespace orrery
