// The API's responses (docs/server.md, "Errors"): a JSON document, or the
// error document {"error": {"code", "message"}} with the HTTP status that
// its code maps to — usage 400, not_found 404, conflict 409, internal 500,
// unavailable 503 with Retry-After — and the statuses of the server's own
// refusals (401, 403, 405, 413, 429).
#pragma once

#include <string>

#include "core/result.h"
#include "server/http_message.h"

namespace orrery::server {

// Seconds a client is told to wait before retrying a 503.
inline constexpr int kRetryAfterSeconds = 1;

int http_status_for(ErrorCode code);

// The error document of `error`, with its status.
HttpResponse error_response(const Error& error);
// An error document with a status and code of the server's own.
HttpResponse refusal(int status, const std::string& code, const std::string& message);
// A JSON document's text as the body.
HttpResponse json_response(int status, std::string body);

}  // namespace orrery::server
