#include "cli/caller_paths.h"

#include <pwd.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

namespace orrery::cli {
namespace {

std::string working_directory() {
  char buffer[PATH_MAX];
  return getcwd(buffer, sizeof buffer) != nullptr ? buffer : "";
}

// A password database entry's home directory (getpwnam_r, getpwuid_r).
template <typename Lookup>
std::optional<std::string> home_in_passwd(Lookup lookup) {
  long size = sysconf(_SC_GETPW_R_SIZE_MAX);
  std::vector<char> buffer(size > 0 ? std::size_t(size) : 16384);
  passwd entry{};
  passwd* found = nullptr;
  if (lookup(&entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr ||
      found->pw_dir == nullptr) {
    return std::nullopt;
  }
  return std::string(found->pw_dir);
}

std::optional<std::string> home_of_user(const std::string& user) {
  return home_in_passwd([&user](passwd* entry, char* buffer, std::size_t size, passwd** found) {
    return getpwnam_r(user.c_str(), entry, buffer, size, found);
  });
}

std::string own_home() {
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return home;
  const uid_t uid = getuid();
  return home_in_passwd([uid](passwd* entry, char* buffer, std::size_t size, passwd** found) {
           return getpwuid_r(uid, entry, buffer, size, found);
         })
      .value_or("");
}

}  // namespace

PathBase caller_paths() {
  PathBase paths;
  paths.dir = working_directory();
  paths.home = own_home();
  paths.home_of = home_of_user;
  return paths;
}

Result<std::string> caller_path(const std::string& option, const std::string& given) {
  auto resolved = resolve_user_path(given, caller_paths());
  if (!resolved) return usage_error(option + ": " + resolved.error().message);
  return resolved;
}

}  // namespace orrery::cli
