// Reading what a request gives (docs/server.md, "Requests"): query
// parameters, the page cursor and the JSON body, each refused with a message
// naming the parameter, the value and what is accepted.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "core/result.h"
#include "server/http_message.h"

namespace orrery::server {

// A whole-number parameter within [minimum, maximum], or `otherwise` when absent.
Result<int> number_parameter(const HttpRequest& request, const std::string& name, int otherwise,
                             int minimum, int maximum);
// A true/false parameter ("true", "false", "1", "0"), false when absent.
Result<bool> flag_parameter(const HttpRequest& request, const std::string& name);
// A text parameter, "" when absent; valid UTF-8.
Result<std::string> text_parameter(const HttpRequest& request, const std::string& name);
// The offset the `cursor` parameter stands for (0 when absent).
Result<int> cursor_offset(const HttpRequest& request);
// The `cursor` of a listing paged by its last row (core/page_cursor.h): ""
// when none is given; a text no page gave is refused naming it.
Result<std::string> page_cursor(const HttpRequest& request);
// The body as a JSON object; an empty body is {}.
Result<nlohmann::json> json_body(const HttpRequest& request);

}  // namespace orrery::server
