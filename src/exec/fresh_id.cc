#include "exec/fresh_id.h"

#include <array>
#include <cstdint>
#include <random>

#include "core/ids.h"

namespace orrery {

std::string fresh_id(TimeMs now) {
  std::random_device device;
  std::array<std::uint8_t, 10> bytes{};
  for (auto& byte : bytes) byte = std::uint8_t(device());
  return make_id(now, bytes);
}

}  // namespace orrery
