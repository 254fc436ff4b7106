#include "server/http_listener.h"

#include <httplib.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/text.h"

namespace orrery::server {
namespace {

// The error document of the API for a status the library answered itself.
std::string library_error_body(int status) {
  const char* code = status == 413   ? "too_large"
                     : status == 411 ? "length_required"
                     : status == 414 ? "too_large"
                     : status == 404 ? "not_found"
                     : status >= 500 ? "internal"
                                     : "usage";
  std::string message =
      status == 413   ? "the request body is larger than the limit of 1 MiB"
      : status == 414 ? "the request's URL is longer than 8 KiB"
      : status == 411 ? "a request body needs a Content-Length (chunked bodies are not accepted)"
      : status == 400 ? "the request is not valid HTTP/1.1"
                      : std::string("HTTP status ") + std::to_string(status);
  return write_json(nlohmann::json{{"error", {{"code", code}, {"message", std::move(message)}}}});
}

HttpRequest request_of(const httplib::Request& from) {
  HttpRequest request;
  request.method = from.method;
  request.path = from.target.substr(0, from.target.find('?'));
  for (const auto& [name, value] : from.params) request.query[name] = value;
  for (const auto& [name, value] : from.headers) {
    std::string lower = name;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    request.headers[lower] = value;
  }
  request.body = from.body;
  request.remote_address = from.remote_addr;
  return request;
}

void respond(HttpResponse&& response, httplib::Response& to) {
  to.status = response.status;
  for (const auto& [name, value] : response.headers) to.set_header(name, value);
  if (!response.stream) {
    to.set_content(std::move(response.body), response.content_type.c_str());
    return;
  }
  auto stream = std::make_shared<StreamBody>(std::move(response.stream));
  to.set_chunked_content_provider(response.content_type, [stream](size_t, httplib::DataSink& sink) {
    (*stream)([&sink](std::string_view data) {
      return sink.is_writable() && sink.write(data.data(), data.size());
    });
    sink.done();
    return true;
  });
}

}  // namespace

struct HttpListener::State {
  httplib::Server server;
  HttpHandler handler;
  bool bound = false;
};

HttpListener::HttpListener(const ListenerLimits& limits, HttpHandler handler)
    : state_(std::make_unique<State>()) {
  state_->handler = std::move(handler);
  httplib::Server& server = state_->server;
  const int threads = limits.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
  server.set_payload_max_length(limits.max_body_bytes);
  server.set_read_timeout(std::chrono::milliseconds(limits.read_timeout_ms));
  server.set_write_timeout(std::chrono::milliseconds(limits.write_timeout_ms));
  server.set_keep_alive_timeout(std::max(1, limits.keep_alive_ms / 1000));
  server.set_keep_alive_max_count(size_t(limits.keep_alive_requests));
  server.set_tcp_nodelay(true);
  // Every request goes to the handler before the library routes it; the
  // body has been read by then (a larger one was refused with 413).
  const auto handle = [this](const httplib::Request& request, httplib::Response& response) {
    respond(state_->handler(request_of(request)), response);
  };
  for (const char* pattern : {".*"}) {
    server.Get(pattern, handle);
    server.Post(pattern, handle);
    server.Put(pattern, handle);
    server.Patch(pattern, handle);
    server.Delete(pattern, handle);
    server.Options(pattern, handle);
  }
  // The library would read a body without Content-Length until the client
  // closes, and a chunked one without its size limit: a request without a
  // length has no body (RFC 9112, 6.3), and a chunked one is refused.
  server.set_pre_routing_handler(
      [this](const httplib::Request& request, httplib::Response& response) {
        const bool may_have_body = request.method == "POST" || request.method == "PUT" ||
                                   request.method == "PATCH" || request.method == "DELETE";
        if (!may_have_body || request.has_header("Content-Length")) {
          return httplib::Server::HandlerResponse::Unhandled;
        }
        if (request.has_header("Transfer-Encoding")) {
          response.status = 411;
          response.set_header("Connection", "close");
          response.set_content(library_error_body(411), "application/json");
          return httplib::Server::HandlerResponse::Handled;
        }
        respond(state_->handler(request_of(request)), response);
        return httplib::Server::HandlerResponse::Handled;
      });
  server.set_error_handler([](const httplib::Request&, httplib::Response& response) {
    if (response.body.empty()) {
      response.set_content(library_error_body(response.status), "application/json");
    }
  });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& response, std::exception_ptr) {
        response.status = 500;
        response.set_content(library_error_body(500), "application/json");
      });
}

HttpListener::~HttpListener() { stop(); }

Result<int> HttpListener::bind(const ListenAddress& address) {
  errno = 0;
  const int port = address.port == 0 ? state_->server.bind_to_any_port(address.host)
                   : state_->server.bind_to_port(address.host, address.port) ? address.port
                                                                             : -1;
  if (port < 0) {
    const int error = errno;
    std::string message = "cannot listen on " + listen_text(address);
    if (error != 0) message += std::string(": ") + std::strerror(error);
    return unavailable_error(message);
  }
  state_->bound = true;
  return port;
}

void HttpListener::serve() {
  if (state_->bound) state_->server.listen_after_bind();
}

void HttpListener::stop() { state_->server.stop(); }

}  // namespace orrery::server
