#include "core/user_path.h"

#include <filesystem>

#include "core/text.h"

namespace orrery {
namespace {

Error unresolved(const std::string& given, const std::string& why) {
  std::string message("path '");
  message += visible(given);
  message += "': ";
  message += why;
  return usage_error(message);
}

std::string normal(const std::filesystem::path& path) {
  std::string text = path.lexically_normal().string();
  if (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

// The normal form of `joined`, which must be text orrery can store: the
// directory or home it was read against may hold bytes that are not UTF-8
// (or a NUL the user typed).
Result<std::string> stored_form(const std::string& given, const std::string& joined) {
  std::string path = normal(joined);
  if (!is_valid_utf8(path) || path.find('\0') != std::string::npos) {
    std::string why("it reads as '");
    why += visible(path);
    why +=
        "', which is not valid UTF-8 text; orrery keeps paths as text: give a path "
        "whose every directory name is UTF-8";
    return unresolved(given, why);
  }
  return path;
}

bool absolute_dir(const std::string& dir) { return !dir.empty() && dir.front() == '/'; }

// The directory `~` or `~user` (the text before the first '/') names.
Result<std::string> home_named(const std::string& given, const std::string& user,
                               const PathBase& base) {
  if (user.empty()) {
    if (!absolute_dir(base.home)) {
      return unresolved(given,
                        "'~' names the home directory, and HOME is not an absolute path; "
                        "give the path in full");
    }
    return base.home;
  }
  std::optional<std::string> home;
  if (base.home_of) home = base.home_of(user);
  if (!home || !absolute_dir(*home)) {
    std::string why("'~");
    why += visible(user);
    why += "' names the home directory of user '";
    why += visible(user);
    why += "', and there is no such user here; give the path in full";
    return unresolved(given, why);
  }
  return *home;
}

}  // namespace

Result<std::string> resolve_user_path(const std::string& given, const PathBase& base) {
  if (given.empty()) return usage_error("an empty path; give a file or directory");
  if (given.front() == '/') return stored_form(given, given);
  if (given.front() == '~') {
    const std::size_t slash = given.find('/');
    auto home = home_named(
        given, given.substr(1, slash == std::string::npos ? std::string::npos : slash - 1), base);
    if (!home) return home.error();
    std::string joined = std::move(*home);
    if (slash != std::string::npos) joined.append(given, slash, std::string::npos);
    return stored_form(given, joined);
  }
  if (!absolute_dir(base.dir)) {
    return unresolved(given,
                      "it is relative and there is no directory to read it against; "
                      "give an absolute path");
  }
  std::string joined = base.dir;
  joined += '/';
  joined += given;
  return stored_form(given, joined);
}

}  // namespace orrery
