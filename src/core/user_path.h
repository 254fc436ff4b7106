// A path as the user typed it, made absolute the way a shell would read it
// (docs/paths.md): `~` and `~/…` name the user's home directory, `~user`
// and `~user/…` that user's, and a relative path is read against the
// directory it was given in (the caller's working directory, or a spec
// file's directory).
//
// Invariants: the result is absolute and lexically normal, with no trailing
// slash but for "/", and valid UTF-8 without NUL (what orrery stores); a
// `~` anywhere but at the start is an ordinary character (`./~` names a
// directory called `~`); a path that cannot be resolved (no base
// directory, no home, an unknown user, bytes that are not text) is an
// Error naming the path and what is missing, never a guess. Pure: the home directories
// are looked up through the function given.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/result.h"

namespace orrery {

struct PathBase {
  std::string dir{};   // absolute; empty: a relative path is refused
  std::string home{};  // what `~` names; empty: `~` is refused
  // What `~user` names; null or nullopt: refused.
  std::function<std::optional<std::string>(const std::string& user)> home_of{};
};

// `given` made absolute (an empty path is refused).
Result<std::string> resolve_user_path(const std::string& given, const PathBase& base);

}  // namespace orrery
