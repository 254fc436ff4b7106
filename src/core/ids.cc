#include "core/ids.h"

namespace orrery {
namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr int kTimeDigits = 12;

}  // namespace

std::string make_id(TimeMs now, const std::array<std::uint8_t, 10>& random_bytes) {
  std::string id(kIdLength, '0');
  std::uint64_t time = std::uint64_t(now < 0 ? 0 : now);
  for (int i = kTimeDigits - 1; i >= 0; --i) {
    id[size_t(i)] = kHex[time & 0xf];
    time >>= 4;
  }
  for (size_t i = 0; i < random_bytes.size(); ++i) {
    id[kTimeDigits + 2 * i] = kHex[random_bytes[i] >> 4];
    id[kTimeDigits + 2 * i + 1] = kHex[random_bytes[i] & 0xf];
  }
  return id;
}

bool is_id(std::string_view text) {
  if (text.size() != kIdLength) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

TimeMs id_time(std::string_view id) {
  TimeMs time = 0;
  for (int i = 0; i < kTimeDigits && size_t(i) < id.size(); ++i) {
    const char c = id[size_t(i)];
    time = time * 16 + (c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return time;
}

bool is_lower_hex(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

}  // namespace orrery
