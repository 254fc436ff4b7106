#include "server/api_response.h"

#include <nlohmann/json.hpp>

#include "core/exact_json.h"
#include "core/exit_codes.h"

namespace orrery::server {

int http_status_for(ErrorCode code) {
  switch (code) {
    case ErrorCode::kUsage:
      return 400;
    case ErrorCode::kNotFound:
      return 404;
    case ErrorCode::kConflict:
      return 409;
    case ErrorCode::kInternal:
      return 500;
    case ErrorCode::kUnavailable:
      return 503;
  }
  return 500;
}

HttpResponse refusal(int status, const std::string& code, const std::string& message) {
  const nlohmann::json document{{"error", {{"code", code}, {"message", message}}}};
  return json_response(status, write_json(document, 2) + "\n");
}

HttpResponse error_response(const Error& error) {
  HttpResponse response =
      refusal(http_status_for(error.code), error_code_name(error.code), error.message);
  if (error.code == ErrorCode::kUnavailable) {
    response.headers.emplace_back("Retry-After", std::to_string(kRetryAfterSeconds));
  }
  return response;
}

HttpResponse json_response(int status, std::string body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  return response;
}

}  // namespace orrery::server
