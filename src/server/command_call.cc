#include "server/command_call.h"

#include <sstream>

#include "exec/clock.h"
#include "server/api_response.h"
#include "server/api_router.h"

namespace orrery::server {

HttpResponse call_command(const cli::Globals& globals, const CommandCall& command, int status) {
  std::ostringstream out;
  cli::Context context;
  context.globals = globals;
  context.globals.json = true;
  context.now = wall_clock_now();
  context.out = &out;
  context.out_is_tty = false;
  // A listing called as a plain command keeps its note of a next page here,
  // never on the server's stderr (call_listing hands it to the client).
  cli::PageNote unread;
  context.page = &unread;
  try {
    auto result = command(context);
    if (!result) return error_response(result.error());
  } catch (const std::exception& error) {
    return error_response(
        internal_error(std::string("the request stopped on an exception: ") + error.what()));
  }
  return json_response(status, std::move(out).str());
}

}  // namespace orrery::server

namespace orrery::server {
namespace {

// The request's URL with `cursor` set to the next page's.
std::string next_page_url(const HttpRequest& request, const std::string& cursor) {
  std::string url = request.path + "?";
  for (const auto& [name, value] : request.query) {
    if (name == "cursor") continue;
    url += name + "=" + percent_encoded(value) + "&";
  }
  url += "cursor=" + percent_encoded(cursor);
  return url;
}

}  // namespace

void add_next_page(HttpResponse& response, const HttpRequest& request, const std::string& cursor) {
  if (cursor.empty()) return;
  response.headers.emplace_back("X-Next-Cursor", cursor);
  std::string link = "<";  // appended: GCC 12 -O3 -Wrestrict on "<" + a temporary
  link += next_page_url(request, cursor);
  link += ">; rel=\"next\"";
  response.headers.emplace_back("Link", std::move(link));
}

HttpResponse call_listing(const cli::Globals& globals, const CommandCall& command,
                          const HttpRequest& request) {
  cli::PageNote page;
  HttpResponse response = call_command(globals, [&](const cli::Context& context) {
    cli::Context paged = context;
    paged.page = &page;
    return command(paged);
  });
  if (response.status == 200 && page.more) {
    add_next_page(response, request, std::to_string(page.next_offset));
  }
  return response;
}

}  // namespace orrery::server
