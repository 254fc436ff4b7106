// Answering a request with a CLI command (docs/server.md, "One shape"): the
// command runs in this process with --json, its document captured as the
// response's body, its Error as the error document. The API therefore has
// exactly the shapes, validation and messages of the CLI.
//
// Invariants: each call gets its own Context (the instant of the request,
// its own output); the server's --home and --db are every call's; a
// command's exception is a 500, never a crash of the server.
#pragma once

#include <functional>

#include "cli/command.h"
#include "server/http_message.h"

namespace orrery::server {

using CommandCall = std::function<Result<int>(const cli::Context& context)>;

// The command's document with `status`, or its error's document.
HttpResponse call_command(const cli::Globals& globals, const CommandCall& command,
                          int status = 200);

}  // namespace orrery::server

namespace orrery::server {

// A listing's page: the command's document, and when something follows,
// the cursor of the next page in X-Next-Cursor and a Link rel="next".
HttpResponse call_listing(const cli::Globals& globals, const CommandCall& command,
                          const HttpRequest& request);

// Tells the client of a page where the next starts: X-Next-Cursor and a
// Link rel="next" to the same request with `cursor` set to it. Nothing for
// an empty cursor (the last page).
void add_next_page(HttpResponse& response, const HttpRequest& request, const std::string& cursor);

}  // namespace orrery::server
