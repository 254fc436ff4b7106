#include "cli/env_settings.h"

#include <cerrno>
#include <cstdlib>
#include <string>

namespace orrery::cli {

Result<std::int64_t> milliseconds_from_env(const char* name, std::int64_t min, std::int64_t max,
                                           std::int64_t fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text, &end, 10);
  if (errno != 0 || *end != '\0' || value < min || value > max) {
    return usage_error(std::string(name) + " '" + text + "' is not a number of milliseconds from " +
                       std::to_string(min) + " to " + std::to_string(max));
  }
  return std::int64_t(value);
}

}  // namespace orrery::cli
