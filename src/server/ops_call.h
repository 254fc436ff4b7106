// Answering a request with a use case of ops/ (docs/server.md, "One
// shape"): the store the server's --home and --db name is opened for the
// request as the CLI opens it, and the use case answers with a response or
// an Error, which becomes the error document.
//
// Invariants: each call opens its own store, as each CLI command does, at
// the instant of the request; an exception is a 500, never a crash of the
// server.
#pragma once

#include <functional>

#include "cli/command.h"
#include "cli/store_access.h"
#include "server/http_message.h"

namespace orrery::server {

using OpsCall = std::function<Result<HttpResponse>(const cli::OpenedStore& opened, TimeMs now)>;

// For a use case that only reads: the store opened as `runs` or `show` open
// it (read-only when the data directory cannot be written).
HttpResponse call_reading(const cli::Globals& globals, const OpsCall& call);

// For a use case that writes: the store opened as `trigger` or `add` open it.
HttpResponse call_writing(const cli::Globals& globals, const OpsCall& call);

}  // namespace orrery::server
