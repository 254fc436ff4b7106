// The address `orrery serve --listen` binds (docs/server.md, "Listening"):
// HOST:PORT, where HOST is an IPv4 address, a bracketed IPv6 address or
// `localhost`, and PORT is 0 (any free port) to 65535. Whether it is a
// loopback address decides whether a token is required.
#pragma once

#include <string>
#include <string_view>

#include "core/result.h"

namespace orrery {

inline constexpr const char* kDefaultListen = "127.0.0.1:8470";

struct ListenAddress {
  std::string host;  // as given, without brackets: "127.0.0.1", "::1", "localhost"
  int port = 0;
  bool loopback = false;  // 127.0.0.0/8, ::1 or localhost
};

Result<ListenAddress> parse_listen_address(std::string_view text);

// HOST:PORT again, IPv6 bracketed: what a message or a URL shows.
std::string listen_text(const ListenAddress& address);

}  // namespace orrery
