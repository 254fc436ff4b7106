#include "core/listen_address.h"

#include <arpa/inet.h>

#include <charconv>

#include "core/text.h"

namespace orrery {
namespace {

Error bad_address(std::string_view text, const std::string& why) {
  return usage_error("--listen '" + visible(text) + "' " + why +
                     "; expected HOST:PORT, e.g. 127.0.0.1:8470, [::1]:8470 or localhost:8470");
}

bool is_loopback_ipv4(const std::string& host, bool& valid) {
  in_addr address{};
  valid = inet_pton(AF_INET, host.c_str(), &address) == 1;
  return valid && (ntohl(address.s_addr) >> 24) == 127;
}

bool is_loopback_ipv6(const std::string& host, bool& valid) {
  in6_addr address{};
  valid = inet_pton(AF_INET6, host.c_str(), &address) == 1;
  return valid && IN6_IS_ADDR_LOOPBACK(&address);
}

}  // namespace

Result<ListenAddress> parse_listen_address(std::string_view text) {
  const size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return bad_address(text, "has no port");
  std::string_view host = text.substr(0, colon);
  const std::string_view port = text.substr(colon + 1);
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  if (bracketed) host = host.substr(1, host.size() - 2);
  if (host.empty()) return bad_address(text, "has no host");
  for (const char c : host) {
    const bool allowed = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                         (c >= 'A' && c <= 'Z') || c == '.' || c == ':' || c == '-';
    if (!allowed) return bad_address(text, "has a character that no host name or address has");
  }

  int number = -1;
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || number < 0 ||
      number > 65535) {
    return bad_address(text, "has a port that is not a number from 0 to 65535");
  }

  ListenAddress address;
  address.host = std::string(host);
  address.port = number;
  bool valid = false;
  if (bracketed) {
    address.loopback = is_loopback_ipv6(address.host, valid);
    if (!valid) return bad_address(text, "has a bracketed host that is not an IPv6 address");
  } else if (address.host == "localhost") {
    address.loopback = true;
  } else {
    address.loopback = is_loopback_ipv4(address.host, valid);
    if (!valid) {
      return bad_address(text, address.host.find(':') != std::string::npos
                                   ? "has an IPv6 host without brackets"
                                   : "has a host that is neither an IPv4 address nor localhost");
    }
  }
  return address;
}

std::string listen_text(const ListenAddress& address) {
  std::string text;
  if (address.host.find(':') != std::string::npos) {
    text += '[';
    text += address.host;
    text += ']';
  } else {
    text += address.host;
  }
  text += ':';
  text += std::to_string(address.port);
  return text;
}

}  // namespace orrery
