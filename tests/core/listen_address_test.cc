#include "core/listen_address.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace orrery {
namespace {

TEST(ListenAddress, HostsAndPortsAreReadAndLoopbackIsKnown) {
  struct Case {
    std::string text, host;
    int port;
    bool loopback;
  };
  const Case cases[] = {
      {"127.0.0.1:8470", "127.0.0.1", 8470, true},
      {"127.1.2.3:0", "127.1.2.3", 0, true},
      {"localhost:80", "localhost", 80, true},
      {"[::1]:65535", "::1", 65535, true},
      {"0.0.0.0:8470", "0.0.0.0", 8470, false},
      {"[::]:1", "::", 1, false},
      {"192.168.1.10:8080", "192.168.1.10", 8080, false},
      {"[fe80::1]:9", "fe80::1", 9, false},
  };
  for (const Case& c : cases) {
    auto address = parse_listen_address(c.text);
    ASSERT_TRUE(address) << c.text << ": " << address.error().message;
    EXPECT_EQ(address->host, c.host) << c.text;
    EXPECT_EQ(address->port, c.port) << c.text;
    EXPECT_EQ(address->loopback, c.loopback) << c.text;
    EXPECT_EQ(listen_text(*address), c.text);
  }
}

TEST(ListenAddress, EverythingElseIsRefusedNamingTheValue) {
  std::vector<std::string> texts{"",
                                 ":",
                                 "8470",
                                 "127.0.0.1",
                                 "127.0.0.1:",
                                 ":8470",
                                 "127.0.0.1:65536",
                                 "127.0.0.1:-1",
                                 "127.0.0.1:+1",
                                 "127.0.0.1:1x",
                                 "127.0.0.1: 1",
                                 "[::1",
                                 "[::1]",
                                 "::1:80",
                                 "[]:80",
                                 "[127.0.0.1]:80",
                                 "example.com:80",
                                 "256.0.0.1:80",
                                 "1.2.3:80",
                                 "127.0.0.1:99999999999",
                                 "\xff:80"};
  texts.push_back(std::string("127.0.0.1\0:80", 13));
  for (const std::string& text : texts) {
    auto address = parse_listen_address(text);
    ASSERT_FALSE(address) << text;
    EXPECT_NE(address.error().message.find("--listen"), std::string::npos);
    EXPECT_NE(address.error().message.find("HOST:PORT"), std::string::npos);
  }
}

TEST(ListenAddress, EveryPortFromZeroToTheLastIsAccepted) {
  for (int port = 0; port <= 65535; port += 4099) {
    auto address = parse_listen_address("127.0.0.1:" + std::to_string(port));
    ASSERT_TRUE(address) << port;
    EXPECT_EQ(address->port, port);
  }
  EXPECT_TRUE(parse_listen_address("127.0.0.1:65535"));
}

}  // namespace
}  // namespace orrery
