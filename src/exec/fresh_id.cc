#include "exec/fresh_id.h"

#include <unistd.h>

#include <array>
#include <cstdint>
#include <random>

#include "core/ids.h"

namespace orrery {

std::string fresh_id(TimeMs now) {
  // Seeded from the system once per thread and process (a forked child
  // seeds its own: it must not repeat its parent's ids). An id's random part
  // must not collide, not be secret, and opening the system's source for
  // every id costs more than the rest of a small write.
  thread_local std::mt19937_64 generator;
  thread_local pid_t seeded_in = 0;
  if (seeded_in != getpid()) {
    seeded_in = getpid();
    std::random_device device;
    generator.seed((std::uint64_t(device()) << 32) ^ device());
  }
  std::array<std::uint8_t, 10> bytes{};
  const std::uint64_t high = generator();
  const std::uint64_t low = generator();
  for (int i = 0; i < 8; ++i) bytes[i] = std::uint8_t(high >> (8 * i));
  for (int i = 0; i < 2; ++i) bytes[8 + i] = std::uint8_t(low >> (8 * i));
  return make_id(now, bytes);
}

}  // namespace orrery
