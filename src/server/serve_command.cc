#include "server/serve_command.h"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <thread>

#include "cli/store_access.h"
#include "core/listen_address.h"
#include "core/text.h"
#include "exec/stop_signals.h"
#include "server/access.h"
#include "server/api.h"
#include "server/dashboard.h"
#include "server/http_listener.h"

namespace orrery::server {
namespace {

constexpr size_t kMinTokenBytes = 16;
constexpr size_t kMaxTokenBytes = 4096;
// How long the event stream waits for a gap in a database server's event
// ids to fill (core/event_cursor.h).
constexpr DurationMs kServerGapHoldMs = 5'000;

Status check_token_file_mode(const std::string& path) {
  struct stat status {};
  if (stat(path.c_str(), &status) != 0) {
    return usage_error("--token-file " + visible(path) + ": " + std::strerror(errno));
  }
  if (!S_ISREG(status.st_mode)) {
    return usage_error("--token-file " + visible(path) + " is not a regular file");
  }
  if ((status.st_mode & 077) != 0) {
    return usage_error("--token-file " + visible(path) +
                       " can be read by other users; make it private: chmod 600 " + visible(path));
  }
  return Ok{};
}

// Blocks until SIGTERM, SIGINT or SIGHUP and consumes it, so that restoring the signal mask
// afterwards does not deliver it again; returns the signal.
int wait_for_stop(StopSignals& signals) {
  pollfd watched{signals.fd(), POLLIN, 0};
  for (;;) {
    if (poll(&watched, 1, -1) < 0 && errno != EINTR) return 0;
    if (const int signal = signals.take(); signal != 0) return signal;
  }
}

}  // namespace

Result<std::string> read_token_file(const std::string& path) {
  if (auto mode = check_token_file_mode(path); !mode) return mode.error();
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr)
    return usage_error("--token-file " + visible(path) + ": " + std::strerror(errno));
  std::string text(kMaxTokenBytes + 2, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), file));
  std::fclose(file);
  const std::string token(trim(text));
  if (token.size() < kMinTokenBytes || token.size() > kMaxTokenBytes) {
    return usage_error("--token-file " + visible(path) + " holds " + std::to_string(token.size()) +
                       " bytes; a token is 16 to 4096 printable bytes (e.g. openssl rand -hex 32)");
  }
  for (const char c : token) {
    if (c < 0x21 || c > 0x7e) {
      return usage_error("--token-file " + visible(path) +
                         ": the token has a character that is not printable ASCII; a token is "
                         "16 to 4096 printable bytes (e.g. openssl rand -hex 32)");
    }
  }
  return token;
}

Result<int> serve_command(const ServeArgs& args, const cli::Context& context) {
  auto address = parse_listen_address(args.listen);
  if (!address) return address.error();
  AccessPolicy policy;
  if (!args.token_file.empty()) {
    auto token = read_token_file(args.token_file);
    if (!token) return token.error();
    policy.token = std::move(*token);
  } else if (!address->loopback) {
    return usage_error("--listen " + listen_text(*address) +
                       " is not a loopback address: a server others can reach needs "
                       "--token-file FILE (docs/server.md, \"Security\")");
  }
  if (args.threads < 2 || args.threads > 256) {
    return usage_error("--threads " + std::to_string(args.threads) + ": expected 2 to 256");
  }
  // The store is created and migrated, or the reason why not is the error;
  // this connection is the event hub's.
  auto opened = cli::open_store(context);
  if (!opened) return opened.error();
  auto metrics_store = cli::open_store(context);  // the scrapes' connection
  if (!metrics_store) return metrics_store.error();
  EventHubOptions hub_options;
  hub_options.hold_ms = opened->database_path.empty() ? kServerGapHoldMs : 0;
  hub_options.max_clients = args.threads / 2;
  StopSignals signals;  // blocked before any thread starts, so that every thread inherits it
  EventHub hub(std::move(opened->store), hub_options, real_clock());
  if (auto started = hub.start(); !started) return started.error();

  const ApiSettings settings{context.globals};
  ApiRouter router = api_router(settings);
  add_event_routes(router, hub, EventStreamSettings{});
  ServerCounters counters;
  MetricsPage metrics(std::move(metrics_store->store), real_clock(), counters);
  add_metrics_route(router, metrics);
  add_dashboard_routes(router);
  ListenerLimits limits;
  limits.threads = args.threads;
  HttpListener listener(limits, [&](const HttpRequest& request) {
    if (auto refused = refuse_access(policy, request)) return std::move(*refused);
    HttpResponse response = router.dispatch(request);
    if (response.status == 503) ++counters.store_unavailable;
    if (response.status == 500) ++counters.internal_errors;
    return response;
  });
  auto port = listener.bind(*address);
  if (!port) return port.error();
  ListenAddress bound = *address;
  bound.port = *port;
  *context.out << "listening on http://" << listen_text(bound) << "\n" << std::flush;
  std::thread serving([&listener] { listener.serve(); });
  const int signal = wait_for_stop(signals);
  std::cerr << "orrery serve: stopping on " << stop_signal_name(signal) << "\n" << std::flush;
  hub.stop();  // the event streams end first: the listener waits for its threads
  listener.stop();
  serving.join();
  return 0;
}

cli::CommandGroup serve_commands() {
  return [](CLI::App& app, cli::Command& command) {
    auto args = std::make_shared<ServeArgs>();
    CLI::App* serve = app.add_subcommand(
        "serve",
        "Serve the HTTP API, live events, metrics, webhooks and the dashboard (foreground)");
    serve->add_option("--listen", args->listen, "HOST:PORT to listen on (default 127.0.0.1:8470)");
    serve->add_option("--token-file", args->token_file,
                      "a file holding the bearer token every request must carry");
    serve->add_option("--threads", args->threads,
                      "requests answered at once, 2 to 256 (default 32); half of them may be "
                      "event streams");
    serve->callback([args, &command] {
      command = [args](const cli::Context& c) { return serve_command(*args, c); };
    });
  };
}

}  // namespace orrery::server
