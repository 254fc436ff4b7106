#include "server/event_stream.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/text.h"
#include "server/api_response.h"

namespace orrery::server {
namespace {

constexpr int kRetryAfterBusySeconds = 5;

// The id a client resumes after, when it names one: Last-Event-ID, else `after`.
Result<std::optional<std::int64_t>> resume_after(const HttpRequest& request) {
  std::string text = request.header("last-event-id");
  const char* source = "the Last-Event-ID header";
  if (text.empty()) {
    const std::string* after = request.parameter("after");
    if (after == nullptr) return std::optional<std::int64_t>{};
    text = *after;
    source = "the after parameter";
  }
  const bool digits = !text.empty() && text.size() <= 18 &&
                      text.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) {
    return usage_error(std::string(source) + " " + visible(text) +
                       ": expected the id of an event (a whole number 0 or more)");
  }
  return std::optional<std::int64_t>{std::stoll(text)};
}

std::string reset_frame(std::int64_t after, const char* reason) {
  const nlohmann::json data = {{"after", after}, {"reason", reason}};
  return "event: journal.reset\ndata: " + write_json(data) + "\n\n";
}

// Where a client starts, and the reset frame it is sent first, if any.
Result<std::pair<std::int64_t, std::string>> starting_point(EventHub& hub,
                                                            std::optional<std::int64_t> asked) {
  if (!asked) return std::pair{hub.delivered(), std::string()};
  auto bounds = hub.journal_bounds();
  if (!bounds) return bounds.error();
  const auto [oldest, newest] = *bounds;
  if (*asked > newest) return std::pair{hub.delivered(), reset_frame(*asked, "unknown")};
  if (oldest > 0 && *asked + 1 < oldest) return std::pair{*asked, reset_frame(*asked, "pruned")};
  return std::pair{*asked, std::string()};
}

}  // namespace

std::string sse_frame(const JournalEvent& event) {
  nlohmann::json data = {
      {"id", event.id}, {"at", event.at}, {"kind", event.kind}, {"subject", event.subject}};
  data["payload"] = read_json(event.payload_json);
  if (data["payload"].is_discarded()) data["payload"] = nlohmann::json::object();
  std::string frame = "id: " + std::to_string(event.id) + "\nevent: ";
  frame += event.kind;
  frame += "\ndata: ";
  frame += write_json(data);
  frame += "\n\n";
  return frame;
}

HttpResponse event_stream(EventHub& hub, const HttpRequest& request,
                          const EventStreamSettings& settings) {
  auto asked = resume_after(request);
  if (!asked) return error_response(asked.error());
  EventHub::Membership membership = hub.join();
  if (!membership) {
    HttpResponse busy = refusal(429, "too_many_clients",
                                "the event stream has its " + std::to_string(hub.max_clients()) +
                                    " clients already (half of serve --threads); retry later");
    busy.headers.emplace_back("Retry-After", std::to_string(kRetryAfterBusySeconds));
    return busy;
  }
  auto start = starting_point(hub, *asked);
  if (!start) return error_response(start.error());
  HttpResponse response;
  response.content_type = "text/event-stream";
  response.headers.emplace_back("Cache-Control", "no-store");
  response.headers.emplace_back("X-Accel-Buffering", "no");
  const std::string opening =
      "retry: " + std::to_string(settings.retry_ms) + "\n\n" + start->second;
  response.stream = [&hub, membership, after = start->first, opening,
                     heartbeat = settings.heartbeat](const StreamWrite& write) mutable {
    if (!write(opening)) return;
    for (;;) {
      auto batch = hub.wait_after(after, heartbeat);
      if (!batch || batch->stopped) return;
      if (batch->events.empty()) {
        if (!write(": heartbeat\n\n")) return;
        continue;
      }
      std::string frames;
      for (const JournalEvent& event : batch->events) frames += sse_frame(event);
      if (!write(frames)) return;
      after = batch->events.back().id;
    }
  };
  return response;
}

}  // namespace orrery::server
