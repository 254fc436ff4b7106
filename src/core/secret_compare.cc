#include "core/secret_compare.h"

#include <cstddef>

namespace orrery {

bool secrets_equal(std::string_view presented, std::string_view expected) {
  // Every byte of the expected secret is looked at whatever was presented;
  // the difference in length is folded in rather than returned early on.
  unsigned char difference = presented.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    const unsigned char mine = static_cast<unsigned char>(expected[i]);
    const unsigned char theirs =
        i < presented.size() ? static_cast<unsigned char>(presented[i]) : mine ^ 0xff;
    difference |= mine ^ theirs;
  }
  volatile unsigned char result = difference;  // not short-circuited by the optimiser
  return result == 0;
}

}  // namespace orrery
