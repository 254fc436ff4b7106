// HttpListener: the socket side of `orrery serve` (docs/server.md), over
// cpp-httplib, the only file that includes it. It reads requests into
// HttpRequest, hands each to the handler on one of a fixed pool of threads
// and writes the HttpResponse back; a streamed response (server-sent
// events) holds its thread until its stream ends.
//
// Invariants: a body over max_body_bytes is refused with 413 before it is
// read; a request without Content-Length has no body, and a chunked body is
// refused with 411 (so no body escapes the limit); a request line over 8 KiB is 414 and a header
// line over 8 KiB 400; a client that sends nothing for read_timeout_ms, or takes no data for
// write_timeout_ms, is disconnected; every error the library answers itself
// has the API's error document as its body.
#pragma once

#include <functional>
#include <memory>

#include "core/listen_address.h"
#include "core/result.h"
#include "server/http_message.h"

namespace orrery::server {

struct ListenerLimits {
  size_t max_body_bytes = 1 << 20;
  int read_timeout_ms = 10'000;
  int write_timeout_ms = 10'000;
  int keep_alive_ms = 5'000;
  int keep_alive_requests = 1'000;
  int threads = 16;
};

using HttpHandler = std::function<HttpResponse(const HttpRequest& request)>;

class HttpListener {
 public:
  HttpListener(const ListenerLimits& limits, HttpHandler handler);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Binds the address; returns the port bound (the one chosen for port 0).
  Result<int> bind(const ListenAddress& address);
  // Serves until stop(); returns at once when not bound.
  void serve();
  // From any thread: serve() returns once the requests being answered end.
  void stop();

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace orrery::server
