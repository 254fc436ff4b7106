#include "server/ops_call.h"

#include <exception>
#include <sstream>

#include "exec/clock.h"
#include "server/api_response.h"

namespace orrery::server {
namespace {

using Opener = Result<cli::OpenedStore> (*)(const cli::Context& context);

Result<cli::OpenedStore> open_to_write(const cli::Context& context) {
  return cli::open_store(context);
}

HttpResponse call_opened(const cli::Globals& globals, Opener open, const OpsCall& call) {
  std::ostringstream unused;
  cli::Context context;
  context.globals = globals;
  context.globals.json = true;
  context.now = wall_clock_now();
  context.out = &unused;
  try {
    auto opened = open(context);
    if (!opened) return error_response(opened.error());
    auto response = call(*opened, context.now);
    if (!response) return error_response(response.error());
    return std::move(*response);
  } catch (const std::exception& error) {
    return error_response(
        internal_error(std::string("the request stopped on an exception: ") + error.what()));
  }
}

}  // namespace

HttpResponse call_reading(const cli::Globals& globals, const OpsCall& call) {
  return call_opened(globals, &cli::open_store_to_read, call);
}

HttpResponse call_writing(const cli::Globals& globals, const OpsCall& call) {
  return call_opened(globals, &open_to_write, call);
}

}  // namespace orrery::server
